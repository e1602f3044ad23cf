/*
 * saxpy: load the kernel `saxpy` from one module file (saxpy.irtm, built by infinirt_add_kernels
 * with a cpu shared object, OpenCL C, and PTX and cubin where nvcc was found) onto the default
 * device, whatever it is, run it and check the result. Plain C99 against the installed C ABI.
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

int main(int argc, char **argv) {
    const unsigned n = 1u << 24;
    const size_t bytes = (size_t)n * sizeof(float);
    const float a = 2.0f;
    infiniDevice_t type;
    int id, round;
    unsigned i, bad = 0;
    float *x, *y, *dev_x, *dev_y;
    float ms = 0.0f, times[ROUNDS];
    char path[PATH_MAX + 64], log[4096];
    const char *chosen, *end;
    infinirtModule_t module;
    infinirtKernel_t saxpy;
    infinirtStream_t stream;
    infinirtEvent_t start, stop;
    infinirtDeviceProperties_t props;
    infinirtLaunchConfig_t cfg;
    infinirtKernelArg_t args[4];
    static const char *const type_names[INFINI_DEVICE_TYPE_COUNT] = {
        "cpu", "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar",
        "kunlun", "hygon", "qy", "ali", "amd", "opencl", "vulkan"};

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
    CHECK(infinirtGetDevice(&type, &id));
    memset(&props, 0, sizeof props);
    props.struct_size = sizeof props;
    CHECK(infinirtGetDeviceProperties(type, id, &props));
    if (infinirtModuleLoadFile(&module, type, id, path, NULL, log, sizeof log) != INFINI_STATUS_SUCCESS) {
        fprintf(stderr, "infinirtModuleLoadFile(%s) failed: %s\n%s", path, infinirtGetLastErrorMessage(), log);
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
        fprintf(stderr, "saxpy: %u of %u results wrong\n", bad, n);
        return 1;
    }
    /* The log's first line says which entry was chosen: "...: chose entry N (...) of M for ..." */
    chosen = strstr(log, "chose ");
    end = chosen != NULL ? strstr(chosen, " of ") : NULL;
    if (chosen == NULL || end == NULL) {
        chosen = "the module file";
        end = chosen + strlen(chosen);
    } else {
        chosen += 6;
    }
    printf("%s:%d (%s): saxpy, %.*s: 2^24 floats, median of %d launches after %d warm-up: %.3f ms "
           "(min %.3f, max %.3f), %.2f GB/s (3 x 64 MiB moved); result verified\n",
           type_names[type], id, props.name, (int)(end - chosen), chosen, ROUNDS, WARMUP, ms, times[0],
           times[ROUNDS - 1], ms > 0.0f ? 3.0 * (double)bytes / (ms * 1e6) : 0.0);

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
