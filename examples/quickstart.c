/*
 * quickstart: allocate on the default device, copy in and out, run the copies on a stream and
 * time them with events. Plain C99 against the installed C ABI.
 *
 * What it measures: one round is a 16 MiB host-to-device copy (from pinned host memory), a
 * device-to-device copy and a device-to-host copy, queued on one stream between two events. After
 * WARMUP untimed rounds (first-touch page faults, lazy driver set-up), it times ROUNDS rounds and
 * prints the median round time and 3 x 16 MiB / median as GB/s (10^9 bytes/s) per copy.
 */
#include <infinirt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP 3
#define ROUNDS 11

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        infiniStatus_t st_ = (call);                                                                   \
        if (st_ != INFINI_STATUS_SUCCESS) {                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, infinirtGetErrorName(st_),                  \
                    infinirtGetLastErrorMessage());                                                    \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

static int compareFloats(const void *a, const void *b) {
    const float x = *(const float *)a;
    const float y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(void) {
    const size_t n = 16u << 20; /* 16 MiB */
    infiniDevice_t type;
    int id;
    unsigned char *host_in, *host_out;
    void *dev_a, *dev_b;
    infinirtStream_t stream;
    infinirtEvent_t start, stop;
    float ms = 0.0f;
    float times[ROUNDS];
    int round;
    size_t i;
    infinirtDeviceProperties_t props;
    static const char *const type_names[INFINI_DEVICE_TYPE_COUNT] = {
        "cpu", "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar",
        "kunlun", "hygon", "qy", "ali", "amd", "opencl", "vulkan"};

    CHECK(infinirtInit());
    CHECK(infinirtGetDevice(&type, &id));
    memset(&props, 0, sizeof props);
    props.struct_size = sizeof props;
    CHECK(infinirtGetDeviceProperties(type, id, &props));
    CHECK(infinirtMallocHost((void **)&host_in, n));
    CHECK(infinirtMallocHost((void **)&host_out, n));
    CHECK(infinirtMalloc(&dev_a, n));
    CHECK(infinirtMalloc(&dev_b, n));
    for (i = 0; i < n; ++i) {
        host_in[i] = (unsigned char)(i * 7u);
    }
    memset(host_out, 0, n);

    CHECK(infinirtStreamCreate(&stream));
    CHECK(infinirtEventCreate(&start));
    CHECK(infinirtEventCreate(&stop));
    for (round = -WARMUP; round < ROUNDS; ++round) {
        CHECK(infinirtEventRecord(start, stream));
        CHECK(infinirtMemcpyAsync(dev_a, host_in, n, INFINIRT_MEMCPY_H2D, stream));
        CHECK(infinirtMemcpyAsync(dev_b, dev_a, n, INFINIRT_MEMCPY_D2D, stream));
        CHECK(infinirtMemcpyAsync(host_out, dev_b, n, INFINIRT_MEMCPY_D2H, stream));
        CHECK(infinirtEventRecord(stop, stream));
        CHECK(infinirtEventSynchronize(stop));
        CHECK(infinirtEventElapsedTime(&ms, start, stop));
        if (round >= 0) {
            times[round] = ms;
        }
    }
    qsort(times, ROUNDS, sizeof times[0], compareFloats);
    ms = times[ROUNDS / 2];

    if (memcmp(host_in, host_out, n) != 0) {
        fprintf(stderr, "data mismatch after the round trip\n");
        return 1;
    }
    printf("%s:%d (%s): 16 MiB H2D (pinned) + D2D + D2H on one stream, median of %d rounds after %d warm-up: "
           "%.3f ms per round (min %.3f, max %.3f), %.2f GB/s per copy; data verified\n",
           type_names[type], id, props.name, ROUNDS, WARMUP, ms, times[0], times[ROUNDS - 1],
           ms > 0.0f ? 3.0 * (double)n / (ms * 1e6) : 0.0);

    CHECK(infinirtEventDestroy(start));
    CHECK(infinirtEventDestroy(stop));
    CHECK(infinirtStreamDestroy(stream));
    CHECK(infinirtFree(dev_a));
    CHECK(infinirtFree(dev_b));
    CHECK(infinirtFreeHost(host_in));
    CHECK(infinirtFreeHost(host_out));
    return 0;
}
