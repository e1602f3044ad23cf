/*
 * cuda_test_support.h - what the cuda tests share: the driver, loaded the way the plugin loads it
 * (backends/cuda/cuda_native_api.h), the few extra entry points tests need, and the skip rule.
 */
#ifndef INFINIRT_TESTS_CUDA_SUPPORT_H
#define INFINIRT_TESTS_CUDA_SUPPORT_H

#include "cuda_native_api.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cuda_test {

using infinirt::cuda::nativeApi;

/* The CUDA devices the driver itself reports; 0 with `why` filled when there is no usable one. */
inline int DriverDeviceCount(std::string *why) {
    const char *reason = nullptr;
    if (!infinirt::cuda::load(&reason)) {
        *why = reason;
        return 0;
    }
    if (CUresult rc = nativeApi().cuInit(0)) {
        *why = "cuInit failed with CUresult " + std::to_string(rc);
        return 0;
    }
    int count = 0;
    if (CUresult rc = nativeApi().cuDeviceGetCount(&count)) {
        *why = "cuDeviceGetCount failed with CUresult " + std::to_string(rc);
        return 0;
    }
    if (count == 0) {
        *why = "the driver reports no device";
    }
    return count;
}

/* Entry points only tests use, resolved through the same cuGetProcAddress path. */
struct Extra {
    PFN_cuCtxCreate_v3020 cuCtxCreate;
    PFN_cuCtxDestroy_v4000 cuCtxDestroy;
    PFN_cuPointerGetAttribute_v4000 cuPointerGetAttribute;
};

inline Extra ExtraEntryPoints() {
    Extra e{};
    e.cuCtxCreate = reinterpret_cast<PFN_cuCtxCreate_v3020>(infinirt::cuda::resolve("cuCtxCreate", 3020));
    e.cuCtxDestroy = reinterpret_cast<PFN_cuCtxDestroy_v4000>(infinirt::cuda::resolve("cuCtxDestroy", 4000));
    e.cuPointerGetAttribute =
        reinterpret_cast<PFN_cuPointerGetAttribute_v4000>(infinirt::cuda::resolve("cuPointerGetAttribute", 4000));
    return e;
}

/* The calling thread's whole context stack, top first. Reading it pops every context, so it is
 * pushed back before returning: the stack is unchanged afterwards. */
inline std::vector<CUcontext> ContextStack() {
    std::vector<CUcontext> stack;
    for (;;) {
        CUcontext top = nullptr;
        if (nativeApi().cuCtxGetCurrent(&top) != CUDA_SUCCESS || top == nullptr) {
            break;
        }
        CUcontext popped = nullptr;
        if (nativeApi().cuCtxPopCurrent(&popped) != CUDA_SUCCESS) {
            break;
        }
        stack.push_back(popped);
    }
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        nativeApi().cuCtxPushCurrent(*it);
    }
    return stack;
}

} // namespace cuda_test

#define SKIP_WITHOUT_CUDA_DEVICE()                                                                                     \
    do {                                                                                                               \
        std::string why_no_device;                                                                                     \
        if (cuda_test::DriverDeviceCount(&why_no_device) == 0) {                                                       \
            GTEST_SKIP() << "no CUDA device to run on: " << why_no_device;                                             \
        }                                                                                                              \
    } while (0)

#endif
