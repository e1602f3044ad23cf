// internal.h - libinfiniccl's private declarations: plugins, communicators, errors.
#pragma once

#include "infiniccl.h"
#include "infiniccl_plugin.h"

#include <cstdarg>
#include <cstdint>
#include <string>

#if defined(__GNUC__)
#define INFINICCL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define INFINICCL_COLD __attribute__((cold, noinline))
#else
#define INFINICCL_PRINTF(a, b)
#define INFINICCL_COLD
#endif

namespace infiniccl {

// One loaded plugin (registry.cpp). Never freed, never dlclosed.
struct Plugin {
    infinicclPluginTable_t table{}; // the plugin's table copied into a full-size one
    std::string file;
    bool usable = false;
    std::string reason; // why not usable
};

// The plugin serving `type`: NULL (and DEVICE_TYPE_NOT_SUPPORTED written) if none is loaded;
// BACKEND_UNAVAILABLE with the reason when it loaded but cannot run. Loads plugins once.
infiniStatus_t pluginFor(infiniDevice_t type, const Plugin **plugin);

// A communicator handle (comms.cpp). The struct is never freed, so that a destroyed handle stays
// recognisable; the live set tells live handles from destroyed and foreign ones.
struct Comm {
    const Plugin *plugin;
    infinicclPluginComm_t impl;
    infiniDevice_t device_type;
    int device_id;
    int rank;
    int nranks;
};

Comm *newComm(const Plugin *plugin, infinicclPluginComm_t impl, infiniDevice_t type, int device, int rank,
              int nranks);
// The live Comm behind a handle, else NULL with INVALID_HANDLE (NULL_POINTER for NULL) written.
Comm *liveComm(infinicclComm_t handle, infiniStatus_t *status, const char *call);
// Removes the handle from the live set; false if another thread removed it first.
bool retireComm(Comm *comm);
// A comm made by infinicclCommInitFromEnv: its rank leaves the rendezvous store cleanly (from_env.cpp).
void releaseRendezvous(const Comm *comm);

// Errors (errors.cpp). fail() writes infinirt's last-error message and returns status.
INFINICCL_COLD infiniStatus_t fail(infiniStatus_t status, const char *fmt, ...) INFINICCL_PRINTF(2, 3);
// Before a plugin call whose failure is reported: drops any pending plugin detail.
void beginPluginCall();
// After a plugin call failed: the message is "<name>:<device>: <detail>" (or the call's name).
INFINICCL_COLD infiniStatus_t pluginFailed(const Plugin *plugin, int device, const char *call, infiniStatus_t status);
const infinicclPluginHost_t *pluginHost();

// Runs a plugin entry and reports its failure.
#define INFINICCL_PLUGIN_CALL(plugin_, device_, name_, ...)                                                    \
    do {                                                                                                       \
        if ((plugin_)->table.name_ == nullptr) {                                                               \
            return ::infiniccl::fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s:%d: %s is not implemented by this backend", \
                                     (plugin_)->table.name, (device_), #name_);                                \
        }                                                                                                      \
        ::infiniccl::beginPluginCall();                                                                        \
        infiniStatus_t st_ = (plugin_)->table.name_(__VA_ARGS__);                                              \
        if (st_ != INFINI_STATUS_SUCCESS) {                                                                    \
            return ::infiniccl::pluginFailed((plugin_), (device_), #name_, st_);                              \
        }                                                                                                      \
    } while (0)

const char *dtypeName(infiniDtype_t dtype);
// Element size in bytes, 0 for a value that is no dtype.
size_t dtypeSize(infiniDtype_t dtype);

} // namespace infiniccl
