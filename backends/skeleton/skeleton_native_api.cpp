// skeleton_native_api.cpp - dlopen of the vendor library and its symbol table (see the header).
#include "skeleton_native_api.h"

#include "skeleton_backend.h"

#include "common/host_services.hpp"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdio>

namespace infinirt::skeleton {
namespace {

// Written once by loadNativeApi() (from init, before any other entry runs), read-only afterwards.
NativeApi g_api;
bool g_loaded = false;
char g_absence[256] = "";

} // namespace

infiniStatus_t loadNativeApi() noexcept {
    const char *file = secure_getenv("INFINIRT_SKELETON_LIBRARY");
    if (file == nullptr || *file == '\0') {
        return INFINI_STATUS_SUCCESS; // no vendor library configured: the template reason alone
    }
    // Never dlclosed: the plugin may be called until the process exits.
    void *library = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char *why = dlerror();
        std::snprintf(g_absence, sizeof g_absence, "dlopen(\"%s\") failed: %s", file,
                      why != nullptr ? why : "unknown error");
        return INFINI_STATUS_SUCCESS;
    }
    NativeApi api;
#define INFINIRT_SKELETON_NATIVE_RESOLVE(symbol)                                                              \
    api.symbol = reinterpret_cast<decltype(api.symbol)>(dlsym(library, #symbol));                             \
    if (api.symbol == nullptr) {                                                                              \
        return common::fail(INFINI_STATUS_DRIVER_ERROR, "%s backend: %s lacks %s (a broken installation)",     \
                            kName, file, #symbol);                                                            \
    }
    INFINIRT_SKELETON_NATIVE_SYMBOLS(INFINIRT_SKELETON_NATIVE_RESOLVE)
#undef INFINIRT_SKELETON_NATIVE_RESOLVE
    g_api = api;
    g_loaded = true;
    return INFINI_STATUS_SUCCESS;
}

const NativeApi *nativeApi() noexcept { return g_loaded ? &g_api : nullptr; }

const char *nativeApiAbsence() noexcept { return g_absence; }

} // namespace infinirt::skeleton
