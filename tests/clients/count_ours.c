/* A program built against infinirt.h, written the natural way: `int counts[INFINI_DEVICE_TYPE_COUNT];
 * infinirtGetAllDeviceCount(counts);`. Every slot, the infinirt types past the published 11
 * included, must be written with that type's count. */
#include <infinirt.h>

#include <stdio.h>

#define POISON (-7)

int main(void) {
    int counts[INFINI_DEVICE_TYPE_COUNT];
    int t, failed = 0;
    for (t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        counts[t] = POISON;
    }
    if (infinirtGetAllDeviceCount(counts) != INFINI_STATUS_SUCCESS) {
        fprintf(stderr, "count_ours: infinirtGetAllDeviceCount failed: %s\n", infinirtGetLastErrorMessage());
        return 1;
    }
    for (t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        int one = -1;
        if (infinirtGetDeviceCount((infiniDevice_t)t, &one) != INFINI_STATUS_SUCCESS || counts[t] != one) {
            fprintf(stderr, "count_ours: type %d: %d in the array, %d from infinirtGetDeviceCount\n", t, counts[t], one);
            failed = 1;
        }
    }
    printf("count_ours: %d types written (opencl: %d device(s))%s\n", INFINI_DEVICE_TYPE_COUNT,
           counts[INFINI_DEVICE_OPENCL], failed ? "; FAILED" : "");
    return failed;
}
