// opencl_native_api.cpp - dlopen of the Khronos ICD loader and the symbol table (see the header).
#include "opencl_native_api.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <mutex>

namespace infinirt::opencl {
namespace {

NativeApi g_api;
bool g_loaded = false;
std::string g_reason;

void load() {
    const char *env = secure_getenv("INFINIRT_OPENCL_LIBRARY");
    const std::string file = (env && *env) ? env : "libOpenCL.so.1";
    // Never dlclosed: the plugin may be called until the process exits.
    void *lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        g_reason = "OpenCL ICD loader not found: dlopen(\"" + file + "\") failed: " + (why ? why : "unknown error");
        return;
    }
    NativeApi table;
#define INFINIRT_OPENCL_RESOLVE(name)                                                                             \
    table.name = reinterpret_cast<decltype(table.name)>(dlsym(lib, #name));                                       \
    if (!table.name) {                                                                                            \
        g_reason = file + " lacks " #name " (an OpenCL 2.0 ICD loader is required)";                              \
        return;                                                                                                   \
    }
    INFINIRT_OPENCL_SYMBOLS(INFINIRT_OPENCL_RESOLVE)
#undef INFINIRT_OPENCL_RESOLVE
#define INFINIRT_OPENCL_RESOLVE_OPTIONAL(name) table.name = reinterpret_cast<decltype(table.name)>(dlsym(lib, #name));
    INFINIRT_OPENCL_OPTIONAL_SYMBOLS(INFINIRT_OPENCL_RESOLVE_OPTIONAL)
#undef INFINIRT_OPENCL_RESOLVE_OPTIONAL
    g_api = table;
    g_loaded = true;
}

} // namespace

bool loadNativeApi(std::string *reason) {
    static std::once_flag once;
    std::call_once(once, load);
    if (!g_loaded && reason) {
        *reason = g_reason;
    }
    return g_loaded;
}

const NativeApi &nativeApi() { return g_api; }

} // namespace infinirt::opencl
