// C ABI: initialisation, devices, backends.
#include "capture.h"

#include <cstdio>
#include <cstring>

using namespace infinirt;

namespace {

void copyString(char *dst, size_t cap, const std::string &src) { std::snprintf(dst, cap, "%s", src.c_str()); }

} // namespace

extern "C" {

__export infiniStatus_t infinirtInit(void) { return ensureInit(); }

namespace {
// count_array[t] for the first n device types.
void writeCounts(int *count_array, int n) {
    for (int t = 0; t < n; ++t) {
        count_array[t] = g_registry.device_count[t];
    }
}
} // namespace

// The symbol itself (infinirt.h's macro of that name reaches the sized call).
#undef infinirtGetAllDeviceCount
__export infiniStatus_t infinirtGetAllDeviceCount(int *count_array) {
    INFINIRT_ENTER();
    if (count_array == nullptr) {
        return nullArgument("infinirtGetAllDeviceCount", "count_array");
    }
    static_assert(INFINIRT_PUBLISHED_DEVICE_TYPE_COUNT <= kTypeCount, "the published types are ours too");
    writeCounts(count_array, INFINIRT_PUBLISHED_DEVICE_TYPE_COUNT);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtGetAllDeviceCountSized(int *count_array, int array_size) {
    INFINIRT_ENTER();
    if (count_array == nullptr) {
        return nullArgument("infinirtGetAllDeviceCountSized", "count_array");
    }
    if (array_size < 1) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtGetAllDeviceCountSized: array_size is %d; give at least 1",
                    array_size);
    }
    writeCounts(count_array, array_size < kTypeCount ? array_size : kTypeCount);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtGetDeviceCount(infiniDevice_t device, int *count) {
    INFINIRT_ENTER();
    if (count == nullptr) {
        return nullArgument("infinirtGetDeviceCount", "count");
    }
    const int type = enumInt(device);
    if (type < 0 || type >= kTypeCount) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "infinirtGetDeviceCount: device type %d is not valid",
                    type);
    }
    *count = g_registry.device_count[type];
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"

infiniStatus_t infinirt::setDeviceFailed(infiniStatus_t st) {
    ThreadHot &t = t_hot;
    const CurrentDevice tried = t.current;
    t.current = t.switch_undo;
    return pluginFailed(g_registry.by_type[tried.type]->name.c_str(), tried.id, "set_device", st);
}

namespace {
// A SetDevice that readyBackend did not answer: the refusal, or the switch once the loader is ready
// (out of line, so that SetDevice keeps nothing across a call before its plugin's).
__attribute__((noinline)) infiniStatus_t setDeviceNotReady(int type, int id) {
    const infiniStatus_t st = readyBackendRefused(type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    return makeCurrent(g_registry.by_type[type], type, id);
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtSetDevice(infiniDevice_t device, int device_id) {
    // No INFINIRT_ENTER: readyBackend answers whether the loader is ready too.
    Backend *const b = readyBackend(enumInt(device), device_id);
    if (INFINIRT_UNLIKELY(b == nullptr)) {
        return setDeviceNotReady(enumInt(device), device_id);
    }
    return makeCurrent(b, enumInt(device), device_id);
}

namespace {
INFINIRT_COLD infiniStatus_t getDeviceSlow(infiniDevice_t *device_ptr, int *device_id_ptr) {
    INFINIRT_ENTER();
    if (device_ptr == nullptr) {
        return nullArgument("infinirtGetDevice", "device_ptr");
    }
    if (device_id_ptr == nullptr) {
        return nullArgument("infinirtGetDevice", "device_id_ptr");
    }
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    infiniStatus_t st = currentDeviceSlow(b, type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *device_ptr = static_cast<infiniDevice_t>(type);
    *device_id_ptr = id;
    return INFINI_STATUS_SUCCESS;
}
} // namespace

// The fast path reads the thread's current device and nothing else: a thread has one only once
// the loader is initialised (a forked child's is reset: registry.cpp). NULL outputs, and a thread
// that has not chosen a device yet, go to getDeviceSlow, which initialises.
// On x86-64 the fields are read relative to the thread pointer (%fs), at the offset the TLS
// descriptor gives (what the x86-64 TLS ABI defines it to be, for static and dynamic TLS alike),
// without forming the absolute address; and the three tests are one: a NULL pointer minus one and
// an unchosen device's type (-1) both have the top bit set, which no user-space pointer has.
__export infiniStatus_t infinirtGetDevice(infiniDevice_t *device_ptr, int *device_id_ptr) {
#if INFINIRT_TP_RELATIVE
    const uintptr_t off = threadHotOffset();
    const long type = tpLoad<long, offsetof(ThreadHot, current.type)>(off);
    const uintptr_t refused = (reinterpret_cast<uintptr_t>(device_ptr) - 1) |
                              (reinterpret_cast<uintptr_t>(device_id_ptr) - 1) | static_cast<uintptr_t>(type);
    if (INFINIRT_LIKELY(static_cast<intptr_t>(refused) >= 0)) {
        *device_ptr = static_cast<infiniDevice_t>(type);
        *device_id_ptr = tpLoad<int, offsetof(ThreadHot, current.id)>(off);
        return INFINI_STATUS_SUCCESS;
    }
#else
    const CurrentDevice &c = t_hot.current;
    if (INFINIRT_LIKELY(c.type >= 0 && device_ptr != nullptr && device_id_ptr != nullptr)) {
        *device_ptr = static_cast<infiniDevice_t>(c.type);
        *device_id_ptr = c.id;
        return INFINI_STATUS_SUCCESS;
    }
#endif
    return getDeviceSlow(device_ptr, device_id_ptr);
}

__export infiniStatus_t infinirtGetMemInfo(infiniDevice_t device, int device_id, size_t *free_bytes,
                                           size_t *total_bytes) {
    INFINIRT_ENTER();
    if (free_bytes == nullptr) {
        return nullArgument("infinirtGetMemInfo", "free_bytes");
    }
    if (total_bytes == nullptr) {
        return nullArgument("infinirtGetMemInfo", "total_bytes");
    }
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    size_t f = 0;
    size_t t = 0;
    st = INFINIRT_DEVICE_CALL(b, get_mem_info, device_id, &f, &t);
    if (st == INFINI_STATUS_SUCCESS) {
        *free_bytes = f;
        *total_bytes = t;
    }
    return st;
}

__export infiniStatus_t infinirtGetDeviceResourceSnapshot(infiniDevice_t device, int device_id,
                                                          infinirtDeviceResourceSnapshot_t *snapshot) {
    INFINIRT_ENTER();
    if (snapshot == nullptr) {
        return nullArgument("infinirtGetDeviceResourceSnapshot", "snapshot");
    }
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    infinirtDeviceResourceSnapshot_t s{};
    s.device_type = device;
    s.device_id = device_id;
    if (b->table.get_resource_snapshot != nullptr) {
        st = checked(b, device_id, "get_resource_snapshot",
                     INFINIRT_PLUGIN_STATUS(b, get_resource_snapshot, device_id, &s));
    } else {
        st = INFINIRT_DEVICE_CALL(b, get_mem_info, device_id, &s.free_bytes, &s.total_bytes);
        if (st == INFINI_STATUS_SUCCESS) {
            s.used_bytes = s.total_bytes >= s.free_bytes ? s.total_bytes - s.free_bytes : 0;
            s.valid_fields |= INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY;
        }
    }
    if (st == INFINI_STATUS_SUCCESS) {
        s.device_type = device;
        s.device_id = device_id;
        *snapshot = s;
    }
    return st;
}

__export infiniStatus_t infinirtDeviceSynchronize(void) {
    INFINIRT_ENTER();
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    infiniStatus_t st = currentDevice(b, type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    return deviceSynchronizeUnlessCapturing("infinirtDeviceSynchronize", b, type, id);
}

__export infiniStatus_t infinirtGetDeviceProperties(infiniDevice_t device, int device_id,
                                                    infinirtDeviceProperties_t *props) {
    INFINIRT_ENTER();
    if (props == nullptr) {
        return nullArgument("infinirtGetDeviceProperties", "props");
    }
    infiniStatus_t st = checkStructSize("infinirtGetDeviceProperties", props);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Backend *b = nullptr;
    st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    infinirtDeviceProperties_t p{};
    p.struct_size = sizeof p;
    p.compute_capability_major = -1;
    p.compute_capability_minor = -1;
    st = INFINIRT_DEVICE_CALL(b, get_device_properties, device_id, &p);
    if (st == INFINI_STATUS_SUCCESS) {
        p.struct_size = sizeof p;
        // Whether graphs are the backend's own or the loader's record/replay (capture.cpp).
        p.graphs_native = b->table.stream_begin_capture != nullptr ? 1 : 0;
        p.memory_is_host = b->memory_is_host[static_cast<size_t>(device_id)];
        copyOut(props, p);
    }
    return st;
}

__export infiniStatus_t infinirtGetBackendCount(int *count) {
    INFINIRT_ENTER();
    if (count == nullptr) {
        return nullArgument("infinirtGetBackendCount", "count");
    }
    *count = g_registry.backend_count;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtGetBackendInfo(int index, infinirtBackendInfo_t *info) {
    INFINIRT_ENTER();
    if (info == nullptr) {
        return nullArgument("infinirtGetBackendInfo", "info");
    }
    infiniStatus_t st = checkStructSize("infinirtGetBackendInfo", info);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (index < 0 || index >= g_registry.backend_count) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtGetBackendInfo: index %d out of range (%d backend(s))", index,
                    g_registry.backend_count);
    }
    const Backend &b = g_registry.backends[index];
    infinirtBackendInfo_t out{};
    out.struct_size = sizeof out;
    copyString(out.name, sizeof out.name, b.name);
    out.device_type = b.type == INFINI_DEVICE_TYPE_COUNT ? INFINI_DEVICE_TYPE_COUNT : b.type;
    copyString(out.path, sizeof out.path, b.path);
    out.interface_version = b.version;
    out.device_count = b.state == INFINIRT_BACKEND_LOADED ? b.device_count : 0;
    out.state = b.state;
    copyString(out.reason, sizeof out.reason, b.reason);
    out.host_staging_rank = b.traits.host_staging_rank;
    copyOut(info, out);
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
