/* A program built against the published InfiniCore header (published/infinirt.h: 11 device
 * types): infinirtGetAllDeviceCount must write exactly its 11 ints, no more. The array is a heap
 * block of exactly 11 ints, so that AddressSanitizer (this program is built with it where the
 * compiler has it) reports a write past it; without ASan, guard ints after it must stay intact. */
#include "published/infinirt.h"

#include <stdio.h>
#include <stdlib.h>

#define GUARDS 4
#define POISON (-7)

int main(void) {
    int *counts = malloc(sizeof(int) * (INFINI_DEVICE_TYPE_COUNT + GUARDS));
    int t, failed = 0;
    if (counts == NULL) {
        return 2;
    }
    for (t = 0; t < INFINI_DEVICE_TYPE_COUNT + GUARDS; ++t) {
        counts[t] = POISON;
    }
#ifdef COUNT_PUBLISHED_EXACT
    /* Under ASan: exactly 11 ints, nothing after them to guard. */
    free(counts);
    counts = malloc(sizeof(int) * INFINI_DEVICE_TYPE_COUNT);
    if (counts == NULL) {
        return 2;
    }
    for (t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        counts[t] = POISON;
    }
#endif
    if (infinirtGetAllDeviceCount(counts) != INFINI_STATUS_SUCCESS) {
        fprintf(stderr, "count_published: infinirtGetAllDeviceCount failed\n");
        return 1;
    }
    for (t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        int one = -1;
        if (infinirtGetDeviceCount((infiniDevice_t)t, &one) != INFINI_STATUS_SUCCESS || counts[t] != one) {
            fprintf(stderr, "count_published: type %d: %d in the array, %d from infinirtGetDeviceCount\n", t, counts[t], one);
            failed = 1;
        }
    }
#ifndef COUNT_PUBLISHED_EXACT
    for (t = INFINI_DEVICE_TYPE_COUNT; t < INFINI_DEVICE_TYPE_COUNT + GUARDS; ++t) {
        if (counts[t] != POISON) {
            fprintf(stderr, "count_published: int %d past the published 11 was written (%d)\n", t, counts[t]);
            failed = 1;
        }
    }
#endif
    printf("count_published: %d types written, cpu has %d device(s)%s\n", INFINI_DEVICE_TYPE_COUNT, counts[0],
           failed ? "; FAILED" : "");
    free(counts);
    return failed;
}
