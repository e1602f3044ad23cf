/*
 * client.c - uses the dropped-in "external" backend through the installed libinfinirt.
 * Exit code 0 and "external backend: OK" when the backend is listed LOADED and works.
 */
#include <infinirt.h>

#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        infiniStatus_t status_ = (call);                                                                \
        if (status_ != INFINI_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s failed: %s: %s\n", #call, infinirtGetErrorName(status_),                \
                    infinirtGetLastErrorMessage());                                                     \
            return 1;                                                                                   \
        }                                                                                               \
    } while (0)

int main(void) {
    int backends = 0;
    int listed = 0;
    CHECK(infinirtGetBackendCount(&backends));
    for (int i = 0; i < backends; ++i) {
        infinirtBackendInfo_t info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK(infinirtGetBackendInfo(i, &info));
        printf("backend %-10s state %d devices %d path %s %s\n", info.name, (int)info.state, info.device_count,
               info.path, info.reason);
        if (strcmp(info.name, "external") == 0 && info.state == INFINIRT_BACKEND_LOADED) {
            listed = 1;
        }
    }
    if (!listed) {
        fprintf(stderr, "the external backend is not listed as LOADED\n");
        return 2;
    }
    int count = 0;
    CHECK(infinirtGetDeviceCount(INFINI_DEVICE_QY, &count));
    if (count != 1) {
        fprintf(stderr, "expected 1 external device, got %d\n", count);
        return 3;
    }
    CHECK(infinirtSetDevice(INFINI_DEVICE_QY, 0));
    char in[256];
    char out[256];
    for (int i = 0; i < 256; ++i) {
        in[i] = (char)i;
    }
    memset(out, 0, sizeof out);
    void *d = NULL;
    infinirtStream_t s = NULL;
    infinirtEvent_t e = NULL;
    CHECK(infinirtMalloc(&d, sizeof in));
    CHECK(infinirtStreamCreate(&s));
    CHECK(infinirtEventCreate(&e));
    CHECK(infinirtMemcpyAsync(d, in, sizeof in, INFINIRT_MEMCPY_H2D, s));
    CHECK(infinirtMemcpyAsync(out, d, sizeof out, INFINIRT_MEMCPY_D2H, s));
    CHECK(infinirtEventRecord(e, s));
    CHECK(infinirtEventSynchronize(e));
    if (memcmp(in, out, sizeof in) != 0) {
        fprintf(stderr, "data mismatch through the external backend\n");
        return 4;
    }
    CHECK(infinirtEventDestroy(e));
    CHECK(infinirtStreamDestroy(s));
    CHECK(infinirtFree(d));
    printf("external backend: OK\n");
    return 0;
}
