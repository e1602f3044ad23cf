/* examples/allreduce: an AllReduce across N processes of one host through infiniccl.
 *
 *   allreduce --nranks N [--device cpu|nvidia]     the launcher: makes the unique id, writes it to
 *                                                  a file, starts itself N times, waits for them
 *   INFINICCL_ID_FILE=f INFINICCL_RANK=r INFINICCL_NRANKS=n allreduce [--device ...]
 *                                                  one rank (what the launcher starts; also how
 *                                                  ranks on other nodes are started, see README)
 *
 * Rank r uses device r % (devices of the type). Each rank contributes r + 1 in every element;
 * every rank checks it received n (n + 1) / 2 and prints one line. */
#define _GNU_SOURCE
#include "infiniccl.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        infiniStatus_t s_ = (x);                                                                 \
        if (s_ != INFINI_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s failed: %s: %s\n", #x, infinirtGetErrorName(s_),                 \
                    infinirtGetLastErrorMessage());                                              \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

static int rankMain(infiniDevice_t type, const char *id_file, int rank, int nranks) {
    enum { kCount = 1 << 20 };
    infinicclUniqueId_t id;
    FILE *f = fopen(id_file, "rb");
    if (f == NULL || fread(&id, sizeof id, 1, f) != 1) {
        fprintf(stderr, "rank %d: cannot read the unique id from %s\n", rank, id_file);
        return 1;
    }
    fclose(f);
    int count = 0;
    CHECK(infinirtGetDeviceCount(type, &count));
    if (count < 1) {
        fprintf(stderr, "rank %d: no device of the type\n", rank);
        return 1;
    }
    CHECK(infinirtSetDevice(type, rank % count));
    infinicclComm_t comm;
    CHECK(infinicclCommInitRank(&comm, nranks, id, rank));
    infinirtStream_t stream;
    CHECK(infinirtStreamCreate(&stream));
    float *host = malloc(kCount * sizeof(float));
    float *buf = NULL;
    CHECK(infinirtMalloc((void **)&buf, kCount * sizeof(float)));
    for (int i = 0; i < kCount; ++i) host[i] = (float)(rank + 1);
    CHECK(infinirtMemcpy(buf, host, kCount * sizeof(float), INFINIRT_MEMCPY_H2D));
    CHECK(infinicclAllReduce(buf, buf, kCount, INFINI_DTYPE_F32, INFINICCL_SUM, comm, stream));
    CHECK(infinirtStreamSynchronize(stream));
    CHECK(infinirtMemcpy(host, buf, kCount * sizeof(float), INFINIRT_MEMCPY_D2H));
    const float want = (float)nranks * (float)(nranks + 1) / 2.0f;
    int bad = 0;
    for (int i = 0; i < kCount; ++i) bad += host[i] != want;
    printf("rank %d/%d on device %d: AllReduce of %d floats %s (%g)\n", rank, nranks, rank % count, kCount,
           bad == 0 ? "OK" : "WRONG", (double)host[0]);
    CHECK(infinirtFree(buf));
    CHECK(infinirtStreamDestroy(stream));
    CHECK(infinicclCommDestroy(comm));
    free(host);
    return bad == 0 ? 0 : 1;
}

static int launch(infiniDevice_t type, const char *self, const char *device_arg, int nranks) {
    char id_file[] = "/tmp/infiniccl-id-XXXXXX";
    const int fd = mkstemp(id_file);
    if (fd < 0) return perror("mkstemp"), 1;
    int count = 0;
    CHECK(infinirtGetDeviceCount(type, &count));
    if (count < 1) {
        fprintf(stderr, "no device of the type: nothing to run\n");
        return 1;
    }
    CHECK(infinirtSetDevice(type, 0));
    infinicclUniqueId_t id;
    CHECK(infinicclGetUniqueId(&id)); /* nccl: starts the bootstrap listener in this process */
    if (write(fd, &id, sizeof id) != (ssize_t)sizeof id) return perror("write"), 1;
    close(fd);
    pid_t *pids = calloc((size_t)nranks, sizeof(pid_t));
    for (int r = 0; r < nranks; ++r) {
        char rank_s[32], nranks_s[32];
        snprintf(rank_s, sizeof rank_s, "%d", r);
        snprintf(nranks_s, sizeof nranks_s, "%d", nranks);
        setenv("INFINICCL_ID_FILE", id_file, 1);
        setenv("INFINICCL_RANK", rank_s, 1);
        setenv("INFINICCL_NRANKS", nranks_s, 1);
        char *argv[] = {(char *)self, (char *)"--device", (char *)device_arg, NULL};
        if (posix_spawn(&pids[r], "/proc/self/exe", NULL, NULL, argv, environ) != 0) return perror("posix_spawn"), 1;
    }
    int failed = 0;
    for (int r = 0; r < nranks; ++r) {
        int status = 0;
        waitpid(pids[r], &status, 0);
        failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    unlink(id_file);
    free(pids);
    printf("%d of %d ranks OK\n", nranks - failed, nranks);
    return failed == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *device = "cpu";
    int nranks = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--device") == 0) device = argv[i + 1];
        else if (strcmp(argv[i], "--nranks") == 0) nranks = atoi(argv[i + 1]);
    }
    const infiniDevice_t type = strcmp(device, "nvidia") == 0 ? INFINI_DEVICE_NVIDIA : INFINI_DEVICE_CPU;
    const char *rank = getenv("INFINICCL_RANK");
    if (rank != NULL) {
        return rankMain(type, getenv("INFINICCL_ID_FILE"), atoi(rank), atoi(getenv("INFINICCL_NRANKS")));
    }
    if (nranks < 1) {
        fprintf(stderr, "usage: %s --nranks N [--device cpu|nvidia]\n", argv[0]);
        return 2;
    }
    return launch(type, argv[0], device, nranks);
}
