/*
 * docs/kernels.md's vulkan example as a strict C99 program that knows only infinirt.h: the SPIR-V
 * of vector_add.comp (glslc, entry point "main"; its path is the first argument) loaded on
 * vulkan:0, launched over 1000 floats and checked. Exit status 0 when every element is right, 77
 * (skipped) without a vulkan device, 1 on any failure.
 */
#include <infinirt.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        infiniStatus_t st_ = (call);                                                                   \
        if (st_ != INFINI_STATUS_SUCCESS) {                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, infinirtGetErrorName(st_),                  \
                    infinirtGetLastErrorMessage());                                                    \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

int main(int argc, char **argv) {
    FILE *file;
    long size;
    char *bytes;
    int count = 0, n = 1000, i, bad = 0;
    float a_host[1000], b_host[1000], c_host[1000];
    void *a, *b, *c;
    infinirtModuleImage_t image;
    infinirtModule_t module;
    infinirtKernel_t kernel;
    infinirtKernelArg_t args[4];
    infinirtLaunchConfig_t config = {sizeof config, {4, 1, 1}, {256, 1, 1}, 0, 0, {0, 0, 0}};

    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTOR_ADD.spv\n", argv[0]);
        return 1;
    }
    CHECK(infinirtInit());
    if (infinirtGetDeviceCount(INFINI_DEVICE_VULKAN, &count) != INFINI_STATUS_SUCCESS || count == 0) {
        printf("skipped: no vulkan device\n");
        return 77;
    }
    file = fopen(argv[1], "rb");
    if (file == NULL || fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) <= 0 || fseek(file, 0, SEEK_SET) != 0) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    bytes = (char *)malloc((size_t)size);
    if (bytes == NULL || fread(bytes, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(file);

    image.struct_size = sizeof image;
    image.format = INFINIRT_MODULE_FORMAT_SPIRV;
    image.data = bytes;
    image.size = (size_t)size;
    image.options = NULL;
    CHECK(infinirtModuleLoad(&module, INFINI_DEVICE_VULKAN, 0, &image, 1, NULL, 0));
    CHECK(infinirtModuleGetKernel(&kernel, module, "main"));
    CHECK(infinirtSetDevice(INFINI_DEVICE_VULKAN, 0));
    for (i = 0; i < n; ++i) {
        a_host[i] = (float)i;
        b_host[i] = 0.5f * (float)i;
    }
    CHECK(infinirtMalloc(&a, sizeof a_host));
    CHECK(infinirtMalloc(&b, sizeof b_host));
    CHECK(infinirtMalloc(&c, sizeof c_host));
    CHECK(infinirtMemcpy(a, a_host, sizeof a_host, INFINIRT_MEMCPY_H2D));
    CHECK(infinirtMemcpy(b, b_host, sizeof b_host, INFINIRT_MEMCPY_H2D));
    args[0].kind = INFINIRT_KERNEL_ARG_POINTER, args[0].size = sizeof(void *), args[0].value = &a;
    args[1].kind = INFINIRT_KERNEL_ARG_POINTER, args[1].size = sizeof(void *), args[1].value = &b;
    args[2].kind = INFINIRT_KERNEL_ARG_POINTER, args[2].size = sizeof(void *), args[2].value = &c;
    args[3].kind = INFINIRT_KERNEL_ARG_VALUE, args[3].size = sizeof n, args[3].value = &n;
    CHECK(infinirtLaunchKernel(kernel, &config, args, 4, NULL));
    CHECK(infinirtStreamSynchronize(NULL));
    CHECK(infinirtMemcpy(c_host, c, sizeof c_host, INFINIRT_MEMCPY_D2H));
    for (i = 0; i < n; ++i) {
        if (c_host[i] != a_host[i] + b_host[i] && bad++ < 5) {
            fprintf(stderr, "c[%d] = %g, want %g\n", i, (double)c_host[i], (double)(a_host[i] + b_host[i]));
        }
    }
    CHECK(infinirtFree(a));
    CHECK(infinirtFree(b));
    CHECK(infinirtFree(c));
    CHECK(infinirtModuleUnload(module));
    free(bytes);
    if (bad != 0) {
        fprintf(stderr, "%d of %d wrong\n", bad, n);
        return 1;
    }
    printf("vulkan:0: docs/kernels.md's vector_add over %d floats verified\n", n);
    return 0;
}
