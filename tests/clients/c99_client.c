/*
 * c99_client.c - a plain C99 program using the C ABI, compiled with
 * -std=c99 -pedantic -Wall -Wextra -Werror to prove the headers are valid C for strict clients.
 * Runs on the process default device: allocates, copies through a stream, records events,
 * replays a captured graph, checks the data and a refused call. Exit code 0 on success.
 */
#include <infinirt.h>

#include <stdio.h>
#include <string.h>

#define SIZE 4096

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        infiniStatus_t status_ = (call);                                                                \
        if (status_ != INFINI_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,                    \
                    infinirtGetErrorName(status_), infinirtGetLastErrorMessage());                      \
            return 1;                                                                                   \
        }                                                                                               \
    } while (0)

static int verify(const unsigned char *data, size_t size, unsigned char seed, const char *what) {
    size_t i;
    for (i = 0; i < size; ++i) {
        if (data[i] != (unsigned char)(seed + i * 7u)) {
            fprintf(stderr, "%s: byte %lu is %u, expected %u\n", what, (unsigned long)i, data[i],
                    (unsigned)(unsigned char)(seed + i * 7u));
            return 1;
        }
    }
    return 0;
}

int main(void) {
    infiniDevice_t type;
    int id;
    void *device = NULL;
    void *pinned = NULL;
    unsigned char *host;
    unsigned char back[SIZE];
    infinirtStream_t stream = NULL;
    infinirtEvent_t start = NULL;
    infinirtEvent_t end = NULL;
    infinirtGraph_t graph = NULL;
    infinirtGraphExec_t exec = NULL;
    infinirtEventStatus_t event_status = INFINIRT_EVENT_NOT_READY;
    float ms = -1.0f;
    void *refused = NULL;
    size_t i;
    int launch;

    CHECK(infinirtInit());
    CHECK(infinirtGetDevice(&type, &id));
    printf("c99 client on device type %d id %d\n", (int)type, id);

    CHECK(infinirtMalloc(&device, SIZE));
    CHECK(infinirtMallocHost(&pinned, SIZE));
    host = (unsigned char *)pinned;
    for (i = 0; i < SIZE; ++i) {
        host[i] = (unsigned char)(3u + i * 7u);
    }
    CHECK(infinirtStreamCreate(&stream));
    CHECK(infinirtEventCreate(&start));
    CHECK(infinirtEventCreate(&end));

    CHECK(infinirtEventRecord(start, stream));
    CHECK(infinirtMemcpyAsync(device, pinned, SIZE, INFINIRT_MEMCPY_H2D, stream));
    CHECK(infinirtMemcpyAsync(back, device, SIZE, INFINIRT_MEMCPY_D2H, stream));
    CHECK(infinirtEventRecord(end, stream));
    CHECK(infinirtEventSynchronize(end));
    CHECK(infinirtEventQuery(end, &event_status));
    if (event_status != INFINIRT_EVENT_COMPLETE) {
        fprintf(stderr, "event not complete after EventSynchronize\n");
        return 1;
    }
    CHECK(infinirtEventElapsedTime(&ms, start, end));
    if (ms < 0.0f) {
        fprintf(stderr, "negative elapsed time %f\n", (double)ms);
        return 1;
    }
    if (verify(back, SIZE, 3, "stream round trip")) {
        return 1;
    }

    /* Capture a copy and replay it with new source data each time. */
    CHECK(infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(infinirtMemcpyAsync(device, pinned, SIZE, INFINIRT_MEMCPY_H2D, stream));
    CHECK(infinirtMemcpyAsync(back, device, SIZE, INFINIRT_MEMCPY_D2H, stream));
    CHECK(infinirtStreamEndCapture(stream, &graph));
    CHECK(infinirtGraphInstantiate(&exec, graph, NULL, NULL, 0));
    for (launch = 0; launch < 2; ++launch) {
        for (i = 0; i < SIZE; ++i) {
            host[i] = (unsigned char)(50u + (unsigned)launch + i * 7u);
        }
        CHECK(infinirtGraphLaunch(exec, stream));
        CHECK(infinirtStreamSynchronize(stream));
        if (verify(back, SIZE, (unsigned char)(50 + launch), "graph replay")) {
            return 1;
        }
    }

    /* A refused call: documented status, message, output untouched. */
    if (infinirtMalloc(&refused, 0) != INFINI_STATUS_BAD_PARAM || refused != NULL ||
        strlen(infinirtGetLastErrorMessage()) == 0) {
        fprintf(stderr, "Malloc(0) was not refused as documented\n");
        return 1;
    }

    CHECK(infinirtGraphExecDestroy(exec));
    CHECK(infinirtGraphDestroy(graph));
    CHECK(infinirtEventDestroy(start));
    CHECK(infinirtEventDestroy(end));
    CHECK(infinirtStreamDestroy(stream));
    CHECK(infinirtFreeHost(pinned));
    CHECK(infinirtFree(device));
    printf("c99 client: OK\n");
    return 0;
}
