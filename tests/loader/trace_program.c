/* A small program for the trace layer's test (check_trace.py): copies, fills, a stream, an
 * event and a second thread, each call checked. Run with INFINIRT_TRACE=<file>. */
#include <infinirt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        infiniStatus_t st_ = (call);                                                              \
        if (st_ != INFINI_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s: %s: %s\n", #call, infinirtGetErrorName(st_), infinirtGetLastErrorMessage()); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static void *second_thread(void *arg) {
    (void)arg;
    void *d = NULL;
    CHECK(infinirtMalloc(&d, 1000));
    CHECK(infinirtMemset(d, 7, 1000));
    CHECK(infinirtFree(d));
    return NULL;
}

int main(void) {
    enum { kSize = 1 << 20 };
    void *d = NULL;
    void *h = NULL;
    infinirtStream_t s = NULL;
    infinirtEvent_t e = NULL;
    CHECK(infinirtMalloc(&d, kSize));
    CHECK(infinirtMallocHost(&h, kSize));
    memset(h, 1, kSize);
    CHECK(infinirtStreamCreate(&s));
    CHECK(infinirtEventCreate(&e));
    CHECK(infinirtMemcpyAsync(d, h, kSize, INFINIRT_MEMCPY_H2D, s));
    CHECK(infinirtMemsetAsync(d, 0, kSize / 2, s));
    CHECK(infinirtEventRecord(e, s));
    CHECK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    CHECK(infinirtStreamSynchronize(s));
    CHECK(infinirtEventSynchronize(e));
    pthread_t t;
    if (pthread_create(&t, NULL, second_thread, NULL) != 0 || pthread_join(t, NULL) != 0) {
        return 1;
    }
    CHECK(infinirtEventDestroy(e));
    CHECK(infinirtStreamDestroy(s));
    CHECK(infinirtFreeHost(h));
    CHECK(infinirtFree(d));
    printf("device %p host %p stream-size %d\n", d, h, kSize);
    return 0;
}
