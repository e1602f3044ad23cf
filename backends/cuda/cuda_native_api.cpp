/* cuda_native_api.cpp - dlopen of libcuda.so.1 and the versioned resolution of its entry points. */
#include "cuda_native_api.h"

#include "common/native_library.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace infinirt::cuda {

NativeApi g_native_api{};

namespace {

PFN_cuGetProcAddress_v12000 g_get_proc_address = nullptr;

/* The process keeps the library mapped for good: plugins are never unloaded, and driver state
 * outlives every static destructor. */
common::LoadOutcome loadLibrary() {
    common::LoadOutcome out{};
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        std::snprintf(out.reason, sizeof out.reason, "libcuda.so.1 not found: %s", why ? why : "(no dlerror)");
        return out;
    }
    g_get_proc_address = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(lib, "cuGetProcAddress_v2"));
    if (!g_get_proc_address) {
        std::snprintf(out.reason, sizeof out.reason,
                      "libcuda.so.1 has no cuGetProcAddress_v2: the driver predates CUDA 12.0, which is required");
        return out;
    }
    NativeApi resolved{};
#define INFINIRT_CUDA_RESOLVE(name, version)                                                                           \
    resolved.name = reinterpret_cast<PFN_##name##_v##version>(resolve(#name, version));                               \
    if (!resolved.name) {                                                                                              \
        std::snprintf(out.reason, sizeof out.reason, "libcuda.so.1 does not provide %s (ABI of CUDA %d.%d)", #name,    \
                      version / 1000, version % 1000 / 10);                                                            \
        return out;                                                                                                    \
    }
    INFINIRT_CUDA_DRIVER_SYMBOLS(INFINIRT_CUDA_RESOLVE)
#undef INFINIRT_CUDA_RESOLVE
#define INFINIRT_CUDA_RESOLVE_OPTIONAL(name, version)                                                                  \
    resolved.name = reinterpret_cast<PFN_##name##_v##version>(resolve(#name, version));
    INFINIRT_CUDA_OPTIONAL_DRIVER_SYMBOLS(INFINIRT_CUDA_RESOLVE_OPTIONAL)
#undef INFINIRT_CUDA_RESOLVE_OPTIONAL
    g_native_api = resolved;
    out.ok = true;
    return out;
}

} // namespace

bool load(const char **reason) { return common::loadOnce<loadLibrary>(reason); }

void *resolve(const char *name, int abi_version) {
    if (!g_get_proc_address) {
        return nullptr;
    }
    void *fn = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    /* LEGACY_STREAM: a NULL stream means the legacy default stream whatever the caller's own
     * compilation flags, as documented for infinirt. */
    if (g_get_proc_address(name, &fn, abi_version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) != CUDA_SUCCESS ||
        found != CU_GET_PROC_ADDRESS_SUCCESS) {
        return nullptr;
    }
    return fn;
}

} // namespace infinirt::cuda
