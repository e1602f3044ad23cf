// opencl_plugin.cc - the plugin table and its one exported entry point. Every entry runs inside
// guard(): no C++ exception crosses the C boundary.
#include "opencl_device.h"

#include "infinirt_plugin.h"

#include "opencl_error.h"
#include "opencl_event.h"
#include "opencl_memory.h"
#include "opencl_stream.h"

#include <cstdio>
#include <exception>
#include <new>
#include <string>

namespace infinirt::opencl {
namespace {

template <typename F>
infiniStatus_t guard(F &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory inside the opencl plugin");
    } catch (const std::exception &e) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, std::string("opencl plugin: unexpected exception: ") + e.what());
    } catch (...) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "opencl plugin: unexpected exception");
    }
}

// Wraps a plugin function so that its body runs inside guard().
template <auto F>
struct Guarded;
template <typename... Args, infiniStatus_t (*F)(Args...)>
struct Guarded<F> {
    static infiniStatus_t call(Args... args) noexcept {
        return guard([&] { return F(args...); });
    }
};

infiniStatus_t init() {
    discoverDevices();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    std::string why;
    const int n = deviceCount(&why);
    if (reason && reason_size > 0) {
        std::snprintf(reason, reason_size, "%s", n > 0 ? "" : why.c_str());
    }
    *count = n;
    return INFINI_STATUS_SUCCESS;
}

infinirtPluginTable_t makeTable() {
    infinirtPluginTable_t t{};
    t.struct_size = sizeof(infinirtPluginTable_t);
    t.version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    t.name = "opencl";
    t.device_type = INFINI_DEVICE_OPENCL;
    t.init = Guarded<init>::call;
    t.get_device_count = Guarded<getDeviceCount>::call;
    t.get_device_properties = Guarded<getDeviceProperties>::call;
    t.device_synchronize = Guarded<deviceSynchronize>::call;
    t.get_mem_info = Guarded<getMemInfo>::call;
    t.stream_create = Guarded<streamCreate>::call;
    t.stream_destroy = Guarded<streamDestroy>::call;
    t.stream_synchronize = Guarded<streamSynchronize>::call;
    t.stream_query = Guarded<streamQuery>::call;
    t.stream_wait_event = Guarded<streamWaitEvent>::call;
    t.event_create = Guarded<eventCreate>::call;
    t.event_destroy = Guarded<eventDestroy>::call;
    t.event_record = Guarded<eventRecord>::call;
    t.event_query = Guarded<eventQuery>::call;
    t.event_synchronize = Guarded<eventSynchronize>::call;
    t.event_elapsed_time = Guarded<eventElapsedTime>::call;
    t.malloc_device = Guarded<mallocDevice>::call;
    t.free_device = Guarded<freeDevice>::call;
    t.malloc_host = Guarded<mallocHost>::call;
    t.free_host = Guarded<freeHost>::call;
    t.memcpy_sync = Guarded<memcpySync>::call;
    t.memcpy_async = Guarded<memcpyAsync>::call;
    t.memset_sync = Guarded<memsetSync>::call;
    t.memset_async = Guarded<memsetAsync>::call;
    t.malloc_async = Guarded<mallocAsync>::call;
    t.free_async = Guarded<freeAsync>::call;
    // Graph entries stay NULL: the loader records the calls made on a capturing stream and
    // replays them through the entries above, which is all OpenCL could offer natively.
    t.stream_get_native = Guarded<streamGetNative>::call;
    t.event_get_native = Guarded<eventGetNative>::call;
    t.device_get_native_context = Guarded<deviceGetNativeContext>::call;
    return t;
}

const infinirtPluginTable_t kTable = makeTable();

} // namespace
} // namespace infinirt::opencl

extern "C" INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version,
                                                                      const infinirtPluginHost_t *host,
                                                                      uint32_t *plugin_version,
                                                                      const infinirtPluginTable_t **table) {
    if (loader_version < 1 || !plugin_version || !table) {
        return INFINI_STATUS_BAD_PARAM;
    }
    infinirt::opencl::setHost(host);
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION < loader_version ? INFINIRT_PLUGIN_INTERFACE_VERSION
                                                                         : loader_version;
    *table = &infinirt::opencl::kTable;
    return INFINI_STATUS_SUCCESS;
}
