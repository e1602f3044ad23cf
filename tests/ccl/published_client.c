/* A client of the published InfiniCore infiniccl.h: it uses only the names that header declares
 * (no infiniccl extension), and must compile unchanged. Runs an AllReduce on two devices of the
 * first type that has two (cpu in CI: INFINIRT_CPU_DEVICE_COUNT=2) from one thread inside a group,
 * then a Broadcast on a one-rank comm made with GetUniqueId/CommInitRank. */
#include "infiniccl.h"

#include <stdio.h>
#include <string.h>

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        infiniStatus_t s_ = (x);                                                                 \
        if (s_ != INFINI_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s: %d %s\n", #x, (int)s_, infinirtGetLastErrorMessage());         \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

int main(void) {
    infiniDevice_t type = INFINI_DEVICE_NVIDIA;
    int count = 0, r, i;
    infinicclComm_t comms[2];
    infinirtStream_t streams[2];
    float *buf[2];
    float host[8];
    infinicclUniqueId_t id;
    infinicclComm_t solo;
    infinicclReduceOp_t ops[5] = {INFINICCL_SUM, INFINICCL_PROD, INFINICCL_MAX, INFINICCL_MIN, INFINICCL_AVG};

    if (infinirtGetDeviceCount(type, &count) != INFINI_STATUS_SUCCESS || count < 2) {
        type = INFINI_DEVICE_CPU;
        CHECK(infinirtGetDeviceCount(type, &count));
        if (count < 2) {
            fprintf(stderr, "needs two devices\n");
            return 1;
        }
    }
    CHECK(infinicclCommInitAll(type, comms, 2, NULL));
    for (r = 0; r < 2; ++r) {
        CHECK(infinirtSetDevice(type, r));
        CHECK(infinirtStreamCreate(&streams[r]));
        CHECK(infinirtMalloc((void **)&buf[r], sizeof host));
        for (i = 0; i < 8; ++i) host[i] = (float)(r + i);
        CHECK(infinirtMemcpy(buf[r], host, sizeof host, INFINIRT_MEMCPY_H2D));
    }
    CHECK(infinicclGroupStart(comms[0]));
    for (r = 0; r < 2; ++r) CHECK(infinicclAllReduce(buf[r], buf[r], 8, INFINI_DTYPE_F32, ops[0], comms[r], streams[r]));
    CHECK(infinicclGroupEnd(comms[0]));
    for (r = 0; r < 2; ++r) {
        CHECK(infinirtSetDevice(type, r));
        CHECK(infinirtStreamSynchronize(streams[r]));
        CHECK(infinirtMemcpy(host, buf[r], sizeof host, INFINIRT_MEMCPY_D2H));
        for (i = 0; i < 8; ++i) {
            if (host[i] != (float)(1 + 2 * i)) {
                fprintf(stderr, "rank %d element %d: %g, expected %d\n", r, i, host[i], 1 + 2 * i);
                return 1;
            }
        }
    }
    /* One rank alone through a unique id: a broadcast is a copy. */
    CHECK(infinirtSetDevice(type, 0));
    CHECK(infinicclGetUniqueId(&id));
    CHECK(infinicclCommInitRank(&solo, 1, id, 0));
    CHECK(infinicclBroadcast(buf[0], buf[0], 8, INFINI_DTYPE_F32, 0, solo, streams[0]));
    CHECK(infinicclCommDestroy(solo));
    for (r = 0; r < 2; ++r) {
        CHECK(infinirtSetDevice(type, r));
        CHECK(infinirtFree(buf[r]));
        CHECK(infinirtStreamDestroy(streams[r]));
        CHECK(infinicclCommDestroy(comms[r]));
    }
    printf("published infiniccl.h client: AllReduce on 2 %s devices OK\n", type == INFINI_DEVICE_CPU ? "cpu" : "nvidia");
    return 0;
}
