// Loading NCCL: dlopen of INFINIRT_NCCL_LIBRARY or libnccl.so.2 (the GPU machines have it inside
// PyTorch's Python packages, off the default library path), then dlsym of each entry point.
#include "nccl_native_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace infiniccl::nccl {

namespace {

template <typename Fn>
bool resolve(void *lib, const char *name, Fn *out, std::string *reason, bool optional = false) {
    *out = reinterpret_cast<Fn>(dlsym(lib, name));
    if (*out == nullptr && !optional) {
        *reason = std::string("the NCCL library lacks ") + name;
        return false;
    }
    return true;
}

} // namespace

bool loadApi(Api *api, std::string *reason) {
    const char *named = secure_getenv("INFINIRT_NCCL_LIBRARY");
    const char *file = named != nullptr && named[0] != '\0' ? named : "libnccl.so.2";
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        const char *why = dlerror();
        *reason = std::string(named != nullptr ? file : "libnccl.so.2") + " not found (" + (why ? why : "dlopen failed") +
                  "; INFINIRT_NCCL_LIBRARY may name the file)";
        return false;
    }
    bool ok = resolve(lib, "ncclGetVersion", &api->GetVersion, reason) &&
              resolve(lib, "ncclGetErrorString", &api->GetErrorString, reason) &&
              resolve(lib, "ncclGetLastError", &api->GetLastError, reason, true) &&
              resolve(lib, "ncclGetUniqueId", &api->GetUniqueId, reason) &&
              resolve(lib, "ncclCommInitRank", &api->CommInitRank, reason) &&
              resolve(lib, "ncclCommInitAll", &api->CommInitAll, reason) &&
              resolve(lib, "ncclCommDestroy", &api->CommDestroy, reason) &&
              resolve(lib, "ncclGroupStart", &api->GroupStart, reason) &&
              resolve(lib, "ncclGroupEnd", &api->GroupEnd, reason) &&
              resolve(lib, "ncclAllReduce", &api->AllReduce, reason) &&
              resolve(lib, "ncclBroadcast", &api->Broadcast, reason) &&
              resolve(lib, "ncclReduce", &api->Reduce, reason) &&
              resolve(lib, "ncclAllGather", &api->AllGather, reason) &&
              resolve(lib, "ncclReduceScatter", &api->ReduceScatter, reason) &&
              resolve(lib, "ncclSend", &api->Send, reason) && resolve(lib, "ncclRecv", &api->Recv, reason);
    if (!ok) return false; // the library stays open: plugins never dlclose
    if (api->GetVersion(&api->version) != ncclSuccess) {
        *reason = "ncclGetVersion failed";
        return false;
    }
    return true;
}

} // namespace infiniccl::nccl
