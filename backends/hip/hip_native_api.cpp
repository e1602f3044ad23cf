/* hip_native_api.cpp - dlopen of libamdhip64 and the resolution of its entry points. */
#include "hip_native_api.h"

#include "common/native_library.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace infinirt::hip {

NativeApi g_native_api{};

namespace {

/* The unversioned name first (a development install), then the runtimes whose ABI the
 * table above matches. The library stays mapped for the life of the process. */
const char *const kLibraries[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};

common::LoadOutcome loadLibrary() {
    common::LoadOutcome out{};
    void *lib = nullptr;
    const char *why = nullptr;
    for (const char *name : kLibraries) {
        lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            break;
        }
        if (!why) {
            why = dlerror();
        }
    }
    if (!lib) {
        std::snprintf(out.reason, sizeof out.reason, "libamdhip64.so not found: %s", why ? why : "(no dlerror)");
        return out;
    }
    NativeApi resolved{};
#define INFINIRT_HIP_RESOLVE(name, params)                                                                             \
    resolved.name = reinterpret_cast<hipError_t(*) params>(dlsym(lib, #name));                                        \
    if (!resolved.name) {                                                                                              \
        std::snprintf(out.reason, sizeof out.reason, "libamdhip64 does not provide %s", #name);                        \
        return out;                                                                                                    \
    }
    INFINIRT_HIP_SYMBOLS(INFINIRT_HIP_RESOLVE)
#undef INFINIRT_HIP_RESOLVE
#define INFINIRT_HIP_RESOLVE_OPTIONAL(name, params)                                                                    \
    resolved.name = reinterpret_cast<hipError_t(*) params>(dlsym(lib, #name));
    INFINIRT_HIP_ROCM6_SYMBOLS(INFINIRT_HIP_RESOLVE_OPTIONAL)
#undef INFINIRT_HIP_RESOLVE_OPTIONAL
    resolved.hipGetErrorName = reinterpret_cast<const char *(*)(hipError_t)>(dlsym(lib, "hipGetErrorName"));
    if (!resolved.hipGetErrorName) {
        std::snprintf(out.reason, sizeof out.reason, "libamdhip64 does not provide hipGetErrorName");
        return out;
    }
    g_native_api = resolved;
    out.ok = true;
    return out;
}

} // namespace

bool load(const char **reason) { return common::loadOnce<loadLibrary>(reason); }

bool rocm6Unavailable(int hip_version, char *why, size_t capacity) {
#define INFINIRT_HIP_CHECK_PRESENT(name, params)                                                                       \
    if (!g_native_api.name) {                                                                                          \
        std::snprintf(why, capacity, "libamdhip64 does not provide %s", #name);                                        \
        return true;                                                                                                   \
    }
    INFINIRT_HIP_ROCM6_SYMBOLS(INFINIRT_HIP_CHECK_PRESENT)
#undef INFINIRT_HIP_CHECK_PRESENT
    if (hip_version < kHipVersionRocm6) {
        std::snprintf(why, capacity,
                      "the HIP runtime is version %d.%d.%d (HIP_VERSION %d), older than ROCm 6, whose "
                      "hipMemAllocationProp layout and flag values the plugin passes",
                      hip_version / 10000000, hip_version / 100000 % 100, hip_version % 100000, hip_version);
        return true;
    }
    return false;
}

} // namespace infinirt::hip
