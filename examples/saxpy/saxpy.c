/*
 * saxpy: load the kernel `saxpy` from one module file (saxpy.irtm, built by infinirt_add_kernels
 * with a cpu shared object, OpenCL C, Vulkan SPIR-V where glslc was found, and PTX and cubin where
 * nvcc was found) onto every device infinirt finds, whatever it is, run it there and check the
 * result: one line per device. Plain C99 against the installed C ABI.
 *
 * Usage: infinirt-saxpy [MODULE_FILE]   (default: ../share/infinirt/saxpy.irtm next to the program)
 *
 * What it measures: y = a * x + y over 2^24 floats (x read, y read and written: 3 x 64 MiB per
 * launch), one launch between two events on one stream. After WARMUP untimed launches it times
 * ROUNDS launches and prints the median time and 3 x 64 MiB / median as GB/s (10^9 bytes/s).
 * The result is checked after all of them: every launch adds a * x once.
 */
#define _XOPEN_SOURCE 700
#include <infinirt.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARMUP 3
#define ROUNDS 11
#define BLOCK 256u

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

/* Which image of the module file the loader chose, in words, from its log line
 * "...: chose entry N (<backend> <FORMAT> <arch>, <size> bytes) of M ...": "its cpu shared object
 * (x86_64)", "its PTX (sm_90)", ...; "the module file" when the log does not say. */
static void chosenImage(const char *log, char *out, size_t size) {
    static const char *const formats[][2] = {
        {" HOST_SO ", "cpu shared object"}, {" PTX ", "PTX"}, {" CUBIN ", "cubin"}, {" FATBIN ", "fatbin"},
        {" HSACO ", "HIP code object"}, {" OPENCL_C ", "OpenCL C source"}, {" SPIRV ", "SPIR-V"},
        {" DEVICE_BINARY ", "OpenCL device binary"}};
    const char *chosen = strstr(log, ": chose entry ");
    const char *end = chosen != NULL ? strstr(chosen, " of ") : NULL;
    size_t f;
    snprintf(out, size, "the module file");
    for (f = 0; end != NULL && f < sizeof formats / sizeof formats[0]; ++f) {
        const char *at = strstr(chosen, formats[f][0]);
        if (at != NULL && at < end) {
            const char *arch = at + strlen(formats[f][0]);
            const char *comma = strchr(arch, ',');
            if (comma != NULL && comma < end && strncmp(arch, "any,", 4) != 0) { /* OpenCL C: any device */
                snprintf(out, size, "its %s (%.*s)", formats[f][1], (int)(comma - arch), arch);
            } else {
                snprintf(out, size, "its %s", formats[f][1]);
            }
            return;
        }
    }
}

/* <directory of this program>/../share/infinirt/saxpy.irtm, or "" when /proc/self/exe is not there. */
static void defaultModulePath(char *out, size_t size) {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    out[0] = '\0';
    if (n <= 0) {
        return;
    }
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash != NULL) {
        *slash = '\0';
        snprintf(out, size, "%s/../share/infinirt/saxpy.irtm", exe);
    }
}

/* Runs saxpy on type:id with the module file at `path`; 0 when its result is right. */
static int runOn(infiniDevice_t type, int id, const char *path) {
    const unsigned n = 1u << 24;
    const size_t bytes = (size_t)n * sizeof(float);
    const float a = 2.0f;
    int round;
    unsigned i, bad = 0;
    float *x, *y, *dev_x, *dev_y;
    float ms = 0.0f, times[ROUNDS];
    char log[4096], image[96];
    infinirtModule_t module;
    infinirtKernel_t saxpy;
    infinirtStream_t stream;
    infinirtEvent_t start, stop;
    infinirtDeviceProperties_t props;
    infinirtLaunchConfig_t cfg;
    infinirtKernelArg_t args[4];

    CHECK(infinirtSetDevice(type, id));
    memset(&props, 0, sizeof props);
    props.struct_size = sizeof props;
    CHECK(infinirtGetDeviceProperties(type, id, &props));
    if (infinirtModuleLoadFile(&module, type, id, path, NULL, log, sizeof log) != INFINI_STATUS_SUCCESS) {
        fprintf(stderr, "%s:%d: infinirtModuleLoadFile(%s) failed: %s\n%s", infinirtGetDeviceTypeName(type), id, path,
                infinirtGetLastErrorMessage(), log);
        return 1;
    }
    CHECK(infinirtModuleGetKernel(&saxpy, module, "saxpy"));

    x = (float *)malloc(bytes);
    y = (float *)malloc(bytes);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    for (i = 0; i < n; ++i) {
        x[i] = (float)(i % 1000u);
        y[i] = 1.0f;
    }
    CHECK(infinirtMalloc((void **)&dev_x, bytes));
    CHECK(infinirtMalloc((void **)&dev_y, bytes));
    CHECK(infinirtMemcpy(dev_x, x, bytes, INFINIRT_MEMCPY_H2D));
    CHECK(infinirtMemcpy(dev_y, y, bytes, INFINIRT_MEMCPY_H2D));

    memset(&cfg, 0, sizeof cfg);
    cfg.struct_size = sizeof cfg;
    cfg.grid[0] = (n + BLOCK - 1) / BLOCK;
    cfg.grid[1] = cfg.grid[2] = 1;
    cfg.block[0] = BLOCK;
    cfg.block[1] = cfg.block[2] = 1;
    args[0].kind = INFINIRT_KERNEL_ARG_POINTER, args[0].size = sizeof(void *), args[0].value = &dev_y;
    args[1].kind = INFINIRT_KERNEL_ARG_POINTER, args[1].size = sizeof(void *), args[1].value = &dev_x;
    args[2].kind = INFINIRT_KERNEL_ARG_VALUE, args[2].size = sizeof a, args[2].value = &a;
    args[3].kind = INFINIRT_KERNEL_ARG_VALUE, args[3].size = sizeof n, args[3].value = &n;

    CHECK(infinirtStreamCreate(&stream));
    CHECK(infinirtEventCreate(&start));
    CHECK(infinirtEventCreate(&stop));
    for (round = -WARMUP; round < ROUNDS; ++round) {
        CHECK(infinirtEventRecord(start, stream));
        CHECK(infinirtLaunchKernel(saxpy, &cfg, args, 4, stream));
        CHECK(infinirtEventRecord(stop, stream));
        CHECK(infinirtEventSynchronize(stop));
        CHECK(infinirtEventElapsedTime(&ms, start, stop));
        if (round >= 0) {
            times[round] = ms;
        }
    }
    qsort(times, ROUNDS, sizeof times[0], compareFloats);
    ms = times[ROUNDS / 2];

    CHECK(infinirtMemcpy(y, dev_y, bytes, INFINIRT_MEMCPY_D2H));
    for (i = 0; i < n; ++i) { /* exact: small integers */
        const float want = 1.0f + (float)(WARMUP + ROUNDS) * a * (float)(i % 1000u);
        if (y[i] != want && bad++ < 5) {
            fprintf(stderr, "y[%u] = %g, want %g\n", i, (double)y[i], (double)want);
        }
    }
    if (bad != 0) {
        fprintf(stderr, "%s:%d: saxpy: %u of %u results wrong\n", infinirtGetDeviceTypeName(type), id, bad, n);
        return 1;
    }
    chosenImage(log, image, sizeof image);
    printf("%s:%d (%s): saxpy kernel from %s, y = 2x + y over 2^24 floats: %.3f ms per launch, %.2f GB/s "
           "(3 x 64 MiB read or written; median of %d launches, noisy on shared machines); result verified\n",
           infinirtGetDeviceTypeName(type), id, props.name, image, ms,
           ms > 0.0f ? 3.0 * (double)bytes / (ms * 1e6) : 0.0, ROUNDS);
    fflush(stdout);

    CHECK(infinirtEventDestroy(start));
    CHECK(infinirtEventDestroy(stop));
    CHECK(infinirtStreamDestroy(stream));
    CHECK(infinirtFree(dev_x));
    CHECK(infinirtFree(dev_y));
    CHECK(infinirtModuleUnload(module));
    free(x);
    free(y);
    return 0;
}

int main(int argc, char **argv) {
    char path[PATH_MAX + 64];
    int counts[INFINI_DEVICE_TYPE_COUNT];
    int type, id, ran = 0, failed = 0;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [MODULE_FILE]\n", argv[0]);
        return 2;
    }
    if (argc == 2) {
        snprintf(path, sizeof path, "%s", argv[1]);
    } else {
        defaultModulePath(path, sizeof path);
    }
    CHECK(infinirtInit());
    CHECK(infinirtGetAllDeviceCount(counts));
    for (type = 0; type < INFINI_DEVICE_TYPE_COUNT; ++type) {
        for (id = 0; id < counts[type]; ++id) {
            ++ran;
            if (runOn((infiniDevice_t)type, id, path) != 0) {
                ++failed;
            }
        }
    }
    if (failed != 0) {
        fprintf(stderr, "saxpy: failed on %d of %d devices\n", failed, ran);
        return 1;
    }
    return ran > 0 ? 0 : 1;
}
