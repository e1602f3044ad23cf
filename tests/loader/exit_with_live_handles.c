/*
 * exit_with_live_handles.c - creates streams, events, graphs and allocations on every device,
 * leaves asynchronous work queued, and returns from main without releasing anything.
 * ctest checks the exit code is 0: process exit with live handles must not crash or hang.
 */
#include <infinirt.h>

#include <stdio.h>

static int failed(const char *what) {
    fprintf(stderr, "%s failed: %s\n", what, infinirtGetLastErrorMessage());
    return 1;
}

int main(void) {
    int counts[INFINI_DEVICE_TYPE_COUNT] = {0};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetAllDeviceCount");
    }
    int devices = 0;
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int id = 0; id < counts[t]; ++id) {
            infinirtStream_t s = NULL;
            infinirtEvent_t e = NULL;
            void *d = NULL;
            void *h = NULL;
            if (infinirtSetDevice((infiniDevice_t)t, id) != INFINI_STATUS_SUCCESS) {
                return failed("infinirtSetDevice");
            }
            if (infinirtStreamCreate(&s) != INFINI_STATUS_SUCCESS || infinirtEventCreate(&e) != INFINI_STATUS_SUCCESS ||
                infinirtMalloc(&d, 8 << 20) != INFINI_STATUS_SUCCESS ||
                infinirtMallocHost(&h, 8 << 20) != INFINI_STATUS_SUCCESS) {
                return failed("creating handles");
            }
            for (int i = 0; i < 8; ++i) {
                if (infinirtMemsetAsync(d, i, 8 << 20, s) != INFINI_STATUS_SUCCESS ||
                    infinirtMemcpyAsync(h, d, 8 << 20, INFINIRT_MEMCPY_D2H, s) != INFINI_STATUS_SUCCESS) {
                    return failed("queueing work");
                }
            }
            if (infinirtEventRecord(e, s) != INFINI_STATUS_SUCCESS) {
                return failed("infinirtEventRecord");
            }
            infinirtStream_t capturing = NULL;
            infinirtGraph_t graph = NULL;
            infinirtGraphExec_t exec = NULL;
            if (infinirtStreamCreate(&capturing) == INFINI_STATUS_SUCCESS &&
                infinirtStreamBeginCapture(capturing, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL) == INFINI_STATUS_SUCCESS &&
                infinirtMemsetAsync(d, 0, 64, capturing) == INFINI_STATUS_SUCCESS &&
                infinirtStreamEndCapture(capturing, &graph) == INFINI_STATUS_SUCCESS &&
                infinirtGraphInstantiate(&exec, graph, NULL, NULL, 0) == INFINI_STATUS_SUCCESS) {
                infinirtGraphLaunch(exec, s);
            }
            ++devices;
        }
    }
    printf("left live handles and queued work on %d device(s)\n", devices);
    return devices > 0 ? 0 : 2;
}
