// C ABI: memory and events shared between processes. A handle's first bytes are the loader's
// header (IpcHeader: what the handle is and where the pointer lies in the exported memory); the
// plugin fills the rest with what lets another process find the memory or the event. The loader
// counts the opens of one exported range in this process (one plugin open, one mapping, one
// record of origin Opened, so that opened memory is infinirt memory) and closes it at the last.
// Cold paths: one mutex for the opened ranges.
#include "allocations.h"
#include "never_destroyed.h"
#include "capture.h"
#include "dispatch.h"
#include "virtual_memory.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string>

using namespace infinirt;

namespace {

constexpr size_t kHandleBytes = sizeof(infinirtIpcMemHandle_t);
constexpr size_t kPayloadBytes = kHandleBytes - INFINIRT_PLUGIN_IPC_HEADER_BYTES;
static_assert(sizeof(infinirtIpcEventHandle_t) == kHandleBytes, "both handles have the same layout");

constexpr char kMagic[8] = {'i', 'n', 'f', 'i', 'n', 'i', 'r', 't'};
constexpr uint16_t kVersion = 1;
enum class IpcKind : uint8_t { Memory = 1, Event = 2 };

struct IpcHeader {
    char magic[8];
    uint16_t version;
    IpcKind kind;
    uint8_t reserved;    // 0
    int32_t device_type; // the exporter's backend
    uint64_t offset;     // memory: where the exported pointer lies in the exported range
    uint64_t size;       // memory: the exported range's bytes
};
static_assert(sizeof(IpcHeader) == INFINIRT_PLUGIN_IPC_HEADER_BYTES, "the header the plugin interface reserves");

IpcHeader header(IpcKind kind, int type, uint64_t offset, uint64_t size) {
    IpcHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.kind = kind;
    h.device_type = type;
    h.offset = offset;
    h.size = size;
    return h;
}

const char *kindText(IpcKind k) { return k == IpcKind::Memory ? "memory" : "event"; }

// Reads and checks the header of `bytes`, a handle of kind `want`. BAD_PARAM for a handle that is
// not infinirt's, of another kind or of an unknown backend.
infiniStatus_t readHeader(const char *fn, const unsigned char *bytes, IpcKind want, IpcHeader &h) {
    std::memcpy(&h, bytes, sizeof h);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle is not an infinirt IPC handle (its first bytes are not "
                                             "the magic \"infinirt\"): garbage, or made by something else",
                    fn);
    }
    if (h.version != kVersion || h.reserved != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle has version %u; this infinirt reads version %u", fn,
                    static_cast<unsigned>(h.version), static_cast<unsigned>(kVersion));
    }
    if (h.kind != IpcKind::Memory && h.kind != IpcKind::Event) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle's kind %u is unknown", fn, static_cast<unsigned>(h.kind));
    }
    if (h.kind != want) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle is an %s handle, not an %s handle", fn, kindText(h.kind),
                    kindText(want));
    }
    if (h.device_type < 0 || h.device_type >= kTypeCount) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle names device type %d, which is not one", fn,
                    static_cast<int>(h.device_type));
    }
    if (want == IpcKind::Memory ? h.size == 0 || h.offset >= h.size : h.size != 0 || h.offset != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle's offset %llu and size %llu do not fit together", fn,
                    static_cast<unsigned long long>(h.offset), static_cast<unsigned long long>(h.size));
    }
    return INFINI_STATUS_SUCCESS;
}

// A range opened in this process, and how many opens it has.
struct Opened {
    size_t size = 0;
    int type = 0;
    int device = 0;
    int opens = 0;
    std::string key; // its entry in State::by_key
};

struct State {
    std::mutex mutex;
    std::map<uintptr_t, Opened> opened;      // by base
    std::map<std::string, uintptr_t> by_key; // (device, exported range) -> base
};

State &state() {
    static NeverDestroyed<State> s_storage; // never destroyed: calls may come during exit
    State *const s = &s_storage.get();
    return *s;
}

// What identifies an exported range opened on (type, device): the device and the plugin's part.
std::string openKey(int type, int device, uint64_t size, const unsigned char *payload) {
    std::string key(reinterpret_cast<const char *>(payload), kPayloadBytes);
    key.append(std::to_string(type)).append(":").append(std::to_string(device)).append(":").append(std::to_string(size));
    return key;
}

// The device an opened event belongs to: the current one if it is of backend `type`, else device 0.
infiniStatus_t eventDevice(const char *fn, int type, Backend *&b, int &id) {
    Backend *current = nullptr;
    int current_type = 0;
    id = 0;
    if (currentDevice(current, current_type, id) != INFINI_STATUS_SUCCESS || current_type != type) {
        id = 0;
    }
    const infiniStatus_t st = checkDevice(type, id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return fail(st, "%s: the handle is an event of %s, and this process has no %s:%d", fn, typeName(type),
                    typeName(type), id);
    }
    return st;
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtIpcGetMemHandle(infinirtIpcMemHandle_t *handle, void *ptr) {
    INFINIRT_ENTER();
    const char *fn = "infinirtIpcGetMemHandle";
    if (handle == nullptr) {
        return nullArgument(fn, "handle");
    }
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    Allocation a;
    if (!findAllocation(ptr, a) || a.origin == Origin::Unmapped) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is not memory infinirt allocated or mapped", fn, ptr);
    }
    if (a.kind != INFINIRT_MEMORY_DEVICE) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is host memory (%s at %p, %zu bytes); only device memory is shared",
                    fn, ptr, originText(a.origin), a.base, a.size);
    }
    if (a.origin == Origin::Opened) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED,
                    "%s: %p is memory opened from another process's handle, which is not exported again: send that "
                    "handle on instead",
                    fn, ptr);
    }
    void *base = a.base;
    size_t size = a.size;
    void *mem = nullptr;
    size_t mem_offset = 0;
    if (a.origin == Origin::Mapped) { // the one mapping holding ptr, not the merged range
        MappingInfo m;
        if (!findMapping(ptr, m)) {
            return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: %p is recorded as mapped but no mapping holds it", fn, ptr);
        }
        if ((m.flags & INFINIRT_MEM_CREATE_SHAREABLE) == 0) {
            return fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "%s: the physical allocation mapped at %p was created without INFINIRT_MEM_CREATE_SHAREABLE, "
                        "so it cannot be shared",
                        fn, m.base);
        }
        base = m.base;
        size = m.size;
        mem = m.native;
        mem_offset = m.offset;
    }
    Backend *b = g_registry.by_type[a.type];
    unsigned char bytes[kHandleBytes] = {};
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, ipc_get_mem_handle, a.device, base, size, mem, mem_offset,
                                                   bytes + INFINIRT_PLUGIN_IPC_HEADER_BYTES, kPayloadBytes);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const uint64_t offset = static_cast<uint64_t>(static_cast<const char *>(ptr) - static_cast<const char *>(base));
    const IpcHeader h = header(IpcKind::Memory, a.type, offset, size);
    std::memcpy(bytes, &h, sizeof h);
    std::memcpy(handle->bytes, bytes, kHandleBytes);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtIpcOpenMemHandle(void **ptr, infiniDevice_t device, int device_id,
                                                 const infinirtIpcMemHandle_t *handle) {
    INFINIRT_ENTER();
    const char *fn = "infinirtIpcOpenMemHandle";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    if (handle == nullptr) {
        return nullArgument(fn, "handle");
    }
    const int type = static_cast<int>(device);
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    IpcHeader h;
    st = readHeader(fn, handle->bytes, IpcKind::Memory, h);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (h.device_type != type) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the handle is memory of %s; it cannot be opened on %s:%d", fn,
                    typeName(h.device_type), typeName(type), device_id);
    }
    const unsigned char *payload = handle->bytes + INFINIRT_PLUGIN_IPC_HEADER_BYTES;
    const size_t size = static_cast<size_t>(h.size);
    State &s = state();
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(s.mutex);
    std::string key = openKey(type, device_id, h.size, payload);
    auto known = s.by_key.find(key);
    if (known != s.by_key.end()) {
        ++s.opened[known->second].opens;
        *ptr = reinterpret_cast<void *>(known->second + h.offset);
        return INFINI_STATUS_SUCCESS;
    }
    void *base = nullptr;
    st = INFINIRT_DEVICE_CALL(b, ipc_open_mem_handle, device_id, payload, kPayloadBytes, size, &base);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const Allocation a{base, size, type, device_id, INFINIRT_MEMORY_DEVICE, Origin::Opened};
    Allocation found;
    if (!recordIfFree(a, found)) {
        b->table.ipc_close_mem_handle(device_id, base, size);
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: %s mapped the memory at %p (%zu bytes), over %s at %p", fn,
                    b->name.c_str(), base, size, originText(found.origin), found.base);
    }
    const uintptr_t at = reinterpret_cast<uintptr_t>(base);
    s.by_key[key] = at;
    s.opened[at] = Opened{size, type, device_id, 1, std::move(key)};
    *ptr = static_cast<char *>(base) + h.offset;
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(fn)
}

__export infiniStatus_t infinirtIpcCloseMemHandle(void *ptr) {
    INFINIRT_ENTER();
    const char *fn = "infinirtIpcCloseMemHandle";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    auto it = s.opened.upper_bound(p);
    if (it == s.opened.begin() || p - std::prev(it)->first >= std::prev(it)->second.size) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is not memory infinirtIpcOpenMemHandle opened (or it is closed)",
                    fn, ptr);
    }
    --it;
    Opened &o = it->second;
    if (o.opens > 1) {
        --o.opens;
        return INFINI_STATUS_SUCCESS;
    }
    void *base = reinterpret_cast<void *>(it->first);
    Allocation a;
    Allocation found;
    bool holds = false;
    if (!takeAllocation(base, INFINIRT_MEMORY_DEVICE, Origin::Opened, a, found, holds)) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: the record of the memory opened at %p is gone", fn, base);
    }
    Backend *b = g_registry.by_type[o.type];
    // Work queued on it may still run: the other devices' and the owner's finishes first.
    infiniStatus_t st = waitForOtherUsers(fn, a);
    if (st == INFINI_STATUS_SUCCESS) {
        st = deviceSynchronizeUnlessCapturing(fn, b, o.type, o.device);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_DEVICE_CALL(b, ipc_close_mem_handle, o.device, base, o.size);
    }
    if (st != INFINI_STATUS_SUCCESS) {
        recordAllocation(a);
        return st;
    }
    s.by_key.erase(o.key);
    s.opened.erase(it);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtIpcGetEventHandle(infinirtIpcEventHandle_t *handle, infinirtEvent_t event) {
    INFINIRT_ENTER();
    const char *fn = "infinirtIpcGetEventHandle";
    if (handle == nullptr) {
        return nullArgument(fn, "handle");
    }
    HandleSlot *ev = handles().lookup(event, HandleKind::Event);
    if (ev == nullptr) {
        return invalidHandle(fn, "event", event);
    }
    if ((ev->flags & INFINIRT_EVENT_INTERPROCESS) == 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the event was not created with INFINIRT_EVENT_INTERPROCESS", fn);
    }
    Backend *b = g_registry.by_type[ev->type];
    unsigned char bytes[kHandleBytes] = {};
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, ipc_get_event_handle, ev->device, ev->native,
                                                   bytes + INFINIRT_PLUGIN_IPC_HEADER_BYTES, kPayloadBytes);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const IpcHeader h = header(IpcKind::Event, ev->type, 0, 0);
    std::memcpy(bytes, &h, sizeof h);
    std::memcpy(handle->bytes, bytes, kHandleBytes);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtIpcOpenEventHandle(infinirtEvent_t *event, const infinirtIpcEventHandle_t *handle) {
    INFINIRT_ENTER();
    const char *fn = "infinirtIpcOpenEventHandle";
    if (event == nullptr) {
        return nullArgument(fn, "event");
    }
    if (handle == nullptr) {
        return nullArgument(fn, "handle");
    }
    IpcHeader h;
    infiniStatus_t st = readHeader(fn, handle->bytes, IpcKind::Event, h);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Backend *b = nullptr;
    int id = 0;
    st = eventDevice(fn, h.device_type, b, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *native = nullptr;
    st = INFINIRT_DEVICE_CALL(b, ipc_open_event_handle, id, handle->bytes + INFINIRT_PLUGIN_IPC_HEADER_BYTES,
                              kPayloadBytes, &native);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *created = nullptr;
    st = handleOrUndo(created, fn, HandleKind::Event, h.device_type, id, native,
                      INFINIRT_EVENT_INTERPROCESS | INFINIRT_EVENT_DISABLE_TIMING, nullptr,
                      [&] { destroyPluginObject(b->table.event_destroy, id, native); });
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *event = created;
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
