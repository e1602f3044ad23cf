// libFuzzer target: the input is a program of C ABI calls over every device found (cpu:0, cpu:1
// with INFINIRT_CPU_DEVICE_COUNT=2, PoCL's opencl:0): memory of every kind, synchronous and
// asynchronous copies and fills, streams, events and their waits across devices and backends,
// stream-ordered allocation, graph capture and replay, modules and kernel launches (cpu .so and
// OpenCL C), pointer attributes and device queries — with live, destroyed, garbage and wrong-kind
// handles, NULL and interior pointers, bad enums and sizes. Within the contract the caller must
// keep (ranges inside the allocations they name, nothing freed while queued work uses it), every
// call must return a documented status, leave its outputs alone on failure and give a message;
// each input ends with everything destroyed and the loader's allocation record empty. A broken
// rule aborts (libFuzzer keeps the input). Built with -fsanitize=fuzzer,address,undefined when
// INFINIRT_FUZZ=ON (clang); the replay program (fuzz_replay.cpp) runs the checked-in corpus in
// every build as a regression test.
#include <infinirt.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

extern "C" {
// fuzz_enums.c: the calls whose enum arguments may be out of range, made from C.
infiniStatus_t fzSetDevice(int type, int id);
infiniStatus_t fzGetDeviceProperties(int type, int id, infinirtDeviceProperties_t *p);
infiniStatus_t fzGetMemInfo(int type, int id, size_t *free_bytes, size_t *total);
infiniStatus_t fzModuleLoad(infinirtModule_t *module, int type, int id, const infinirtModuleImage_t *images);
infiniStatus_t fzMemcpy(void *dst, const void *src, size_t size, int kind);
infiniStatus_t fzMemcpyAsync(void *dst, const void *src, size_t size, int kind, infinirtStream_t stream);
infiniStatus_t fzStreamBeginCapture(infinirtStream_t stream, int mode);
void fzSetArgKind(infinirtKernelArg_t *arg, int kind);
}

namespace {

[[noreturn]] void violated(const char *call, const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "fuzz_calls: %s: %s (status %s, message \"%s\")\n", call, what, infinirtGetErrorName(st),
                 infinirtGetLastErrorMessage());
    std::abort();
}

bool documented(infiniStatus_t st) {
    switch (st) {
    case INFINI_STATUS_SUCCESS: case INFINI_STATUS_BAD_PARAM: case INFINI_STATUS_NULL_POINTER:
    case INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED: case INFINI_STATUS_DEVICE_NOT_FOUND:
    case INFINI_STATUS_OUT_OF_MEMORY: case INFINI_STATUS_INVALID_HANDLE: case INFINI_STATUS_NOT_READY:
    case INFINI_STATUS_NOT_IMPLEMENTED: case INFINI_STATUS_SYMBOL_NOT_FOUND: case INFINI_STATUS_BUILD_FAILED:
        return true;
    default:
        return false;
    }
}

// Checks one call: a documented status, a message on failure, the output untouched on failure.
// Set when a call's arguments include a forged handle (Program::forged): no entry may accept it.
bool g_forged_argument = false;

infiniStatus_t check(const char *call, infiniStatus_t st, const void *out = nullptr, const void *sentinel = nullptr) {
    if (std::exchange(g_forged_argument, false) && (st == INFINI_STATUS_SUCCESS || st == INFINI_STATUS_NOT_READY)) {
        violated(call, "accepted a forged handle", st);
    }
    if (!documented(st)) {
        violated(call, "undocumented status", st);
    }
    if (st != INFINI_STATUS_SUCCESS && st != INFINI_STATUS_NOT_READY) {
        if (infinirtGetLastErrorMessage()[0] == '\0') {
            violated(call, "failed without a message", st);
        }
        if (out != sentinel) {
            violated(call, "wrote its output on failure", st);
        }
    }
    return st;
}

void mustSucceed(const char *call, infiniStatus_t st) {
    if (st != INFINI_STATUS_SUCCESS) {
        violated(call, "must succeed here", st);
    }
}

void *const kSentinel = reinterpret_cast<void *>(uintptr_t{0x5e5e5e5e});

struct Device {
    int type; // an infiniDevice_t, or not (see fuzz_enums.c)
    int id;
};

struct Block {
    void *p;
    size_t size;
    bool pinned;
};

struct Modules {
    infinirtModule_t module = nullptr;
    infinirtKernel_t touch = nullptr;
    bool tried = false;
};

std::vector<Device> g_devices;
std::vector<Modules> g_modules; // per device, loaded once per process (a JIT build is slow)
std::vector<char> g_cpu_kernels;

const char *kOpenClTouch = "__kernel void touch(__global int *p) { p[0] = 1; }\n";

class Reader {
public:
    Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
    bool empty() const { return pos_ >= size_; }
    uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    size_t below(size_t n) { return n == 0 ? 0 : byte() % n; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            v = v << 8 | byte();
        }
        return v;
    }

private:
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

class Program {
public:
    explicit Program(Reader &in) : in_(in) {}

    void run() {
        mustSucceed("SetDevice", fzSetDevice(g_devices[0].type, g_devices[0].id));
        for (int steps = 0; !in_.empty() && steps < 64; ++steps) {
            step();
        }
        cleanUp();
    }

private:
    void step() {
        g_forged_argument = false; // a forged handle of an earlier step whose call was never made
        switch (in_.below(27)) {
        case 0: allocate(false); break;
        case 1: allocate(true); break;
        case 2: release(); break;
        case 3: {
            void *s = kSentinel;
            const bool out = in_.below(8) != 0;
            if (check("StreamCreate", infinirtStreamCreate(out ? &s : nullptr), s, kSentinel) == INFINI_STATUS_SUCCESS) {
                streams_.push_back(s);
            }
            break;
        }
        case 4: destroy(streams_, dead_streams_, infinirtStreamDestroy, "StreamDestroy"); break;
        case 5: {
            void *e = kSentinel;
            const uint32_t flags = in_.below(4) == 0 ? 0x80u : static_cast<uint32_t>(in_.below(4));
            const bool out = in_.below(8) != 0;
            if (check("EventCreate", infinirtEventCreateWithFlags(out ? &e : nullptr, flags), e, kSentinel) ==
                INFINI_STATUS_SUCCESS) {
                events_.push_back(e);
            }
            break;
        }
        case 6: destroy(events_, dead_events_, infinirtEventDestroy, "EventDestroy"); break;
        case 7: check("EventRecord", infinirtEventRecord(handle(events_, dead_events_), streamArg())); break;
        case 8: {
            // Filled with a byte pattern no valid status has; compared as bytes, never loaded.
            infinirtEventStatus_t status;
            unsigned char pattern[sizeof status];
            std::memset(pattern, 0x77, sizeof pattern);
            std::memcpy(&status, pattern, sizeof status);
            const infiniStatus_t st =
                check("EventQuery", infinirtEventQuery(handle(events_, dead_events_), in_.below(8) ? &status : nullptr));
            if (st != INFINI_STATUS_SUCCESS && std::memcmp(&status, pattern, sizeof status) != 0) {
                violated("EventQuery", "wrote its output on failure", st);
            }
            break;
        }
        case 9: check("EventSynchronize", infinirtEventSynchronize(handle(events_, dead_events_))); break;
        case 10: check("StreamWaitEvent", infinirtStreamWaitEvent(streamArg(), handle(events_, dead_events_))); break;
        case 11: copy(true); break;
        case 12: copy(false); break;
        case 13: fill(); break;
        case 14: check("StreamSynchronize", infinirtStreamSynchronize(streamArg())); break;
        case 15: check("StreamQuery", infinirtStreamQuery(streamArg())); break;
        case 16: setDevice(); break;
        case 17: check("DeviceSynchronize", infinirtDeviceSynchronize()); break;
        case 18: {
            float ms = -7.0f;
            const infiniStatus_t st = check("EventElapsedTime",
                                            infinirtEventElapsedTime(in_.below(8) ? &ms : nullptr,
                                                                     handle(events_, dead_events_),
                                                                     handle(events_, dead_events_)));
            if (st != INFINI_STATUS_SUCCESS && ms != -7.0f) {
                violated("EventElapsedTime", "wrote its output on failure", st);
            }
            break;
        }
        case 19: streamOrdered(); break;
        case 20: graph(); break;
        case 21: launch(); break;
        case 26: virtualMemory(); break;
        case 22: {
            infinirtPointerAttributes_t a{};
            a.struct_size = in_.below(8) ? sizeof a : in_.below(64);
            check("PointerGetAttributes", infinirtPointerGetAttributes(&a, pointer()));
            break;
        }
        case 23: {
            infinirtDeviceProperties_t p{};
            p.struct_size = in_.below(8) ? sizeof p : in_.below(512);
            const Device d = device();
            check("GetDeviceProperties", fzGetDeviceProperties(d.type, d.id, &p));
            size_t free_bytes = 0;
            size_t total = 0;
            check("GetMemInfo", fzGetMemInfo(d.type, d.id, &free_bytes, in_.below(8) ? &total : nullptr));
            break;
        }
        case 24: {
            void *native = kSentinel;
            check("StreamGetNativeHandle", infinirtStreamGetNativeHandle(streamArg(), &native), native, kSentinel);
            break;
        }
        default: {
            size_t count = 0;
            mustSucceed("GetLiveAllocations", infinirtGetLiveAllocations(&count, nullptr));
            if (count != live_.size() + async_.size()) {
                std::fprintf(stderr, "fuzz_calls: %zu live allocations recorded, %zu made\n", count,
                             live_.size() + async_.size());
                std::abort();
            }
            break;
        }
        }
    }

    Device device() {
        // Mostly real devices; sometimes nonsense.
        if (in_.below(8) == 0) {
            return Device{static_cast<int>(in_.below(40)) - 5, static_cast<int>(in_.below(10)) - 3};
        }
        return g_devices[in_.below(g_devices.size())];
    }

    void setDevice() {
        infiniDevice_t before_t;
        int before_id;
        mustSucceed("GetDevice", infinirtGetDevice(&before_t, &before_id));
        const Device d = device();
        if (check("SetDevice", fzSetDevice(d.type, d.id)) != INFINI_STATUS_SUCCESS) {
            infiniDevice_t t;
            int id;
            mustSucceed("GetDevice", infinirtGetDevice(&t, &id));
            if (t != before_t || id != before_id) {
                violated("SetDevice", "a failed SetDevice changed the current device", INFINI_STATUS_SUCCESS);
            }
        }
    }

    size_t size() {
        switch (in_.below(8)) {
        case 0: return 0;
        case 1: return SIZE_MAX - in_.below(64);
        default: return 1 + in_.below(4096);
        }
    }

    void allocate(bool pinned) {
        void *p = kSentinel;
        const size_t n = size();
        const bool out = in_.below(8) != 0;
        const infiniStatus_t st = pinned ? infinirtMallocHost(out ? &p : nullptr, n) : infinirtMalloc(out ? &p : nullptr, n);
        if (check(pinned ? "MallocHost" : "Malloc", st, p, kSentinel) == INFINI_STATUS_SUCCESS) {
            live_.push_back(Block{p, n, pinned});
        }
    }

    // Any pointer: live, interior, freed, host, NULL.
    void *pointer() {
        switch (in_.below(6)) {
        case 0: return nullptr;
        case 1: return freed_.empty() ? host_.data() : freed_[in_.below(freed_.size())];
        case 2: return live_.empty() ? nullptr : static_cast<char *>(live_[in_.below(live_.size())].p) + 1;
        case 3: return host_.data();
        default: return live_.empty() ? nullptr : live_[in_.below(live_.size())].p;
        }
    }

    void release() {
        void *p = pointer();
        const bool host = in_.below(2) == 0;
        quiesce(); // nothing queued still uses the block (the caller's part of the contract)
        const infiniStatus_t st = check(host ? "FreeHost" : "Free", host ? infinirtFreeHost(p) : infinirtFree(p));
        auto it = std::find_if(live_.begin(), live_.end(), [&](const Block &b) { return b.p == p; });
        const bool ok = it != live_.end() && it->pinned == host;
        if (ok != (st == INFINI_STATUS_SUCCESS) && p != nullptr) {
            violated(host ? "FreeHost" : "Free", ok ? "freeing a live block failed" : "freeing what is not live succeeded", st);
        }
        if (ok) {
            freed_.push_back(p);
            live_.erase(it);
        }
    }

    void *handle(const std::vector<void *> &live, const std::vector<void *> &dead) {
        switch (in_.below(10)) {
        case 0: return nullptr;
        case 1: return reinterpret_cast<void *>(static_cast<uintptr_t>(in_.u32()) << in_.below(33));
        case 2: return dead.empty() ? nullptr : dead[in_.below(dead.size())];
        case 3: return &live == &streams_ ? (events_.empty() ? nullptr : events_[0]) : (streams_.empty() ? nullptr : streams_[0]);
        case 9: return forged(live, dead);
        default: return live.empty() ? nullptr : live[in_.below(live.size())];
        }
    }

    // A value of the list's kind (a live or dead handle's tag) with an even generation (0 included)
    // in any slot of the first chunk: no live handle has it.
    void *forged(const std::vector<void *> &live, const std::vector<void *> &dead) {
        const void *model = !live.empty() ? live[0] : !dead.empty() ? dead[0] : nullptr;
        if (model == nullptr) {
            return nullptr;
        }
        // (generation << 30) | (index << 6) | tag, as infinirt/handles.h makes them.
        const uint64_t tag = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(model)) & 0x3f;
        const uint64_t gen = in_.byte() & 0xfeu;
        const uint64_t slot = 1 + ((static_cast<uint64_t>(in_.byte()) << 8 | in_.byte()) % 4096);
        g_forged_argument = true;
        return reinterpret_cast<void *>(static_cast<uintptr_t>(gen << 30 | slot << 6 | tag));
    }

    void *streamArg() { return in_.below(4) == 0 ? nullptr : handle(streams_, dead_streams_); }

    template <typename Fn> void destroy(std::vector<void *> &live, std::vector<void *> &dead, Fn fn, const char *call) {
        void *h = handle(live, dead);
        const infiniStatus_t st = check(call, fn(h));
        auto it = std::find(live.begin(), live.end(), h);
        if ((it != live.end()) != (st == INFINI_STATUS_SUCCESS)) {
            violated(call, it != live.end() ? "destroying a live handle failed" : "destroying a dead handle succeeded", st);
        }
        if (it != live.end()) {
            live.erase(it);
            dead.push_back(h);
        }
    }

    // A range of a live block, or of the host buffer (with a matching kind), or deliberately bad
    // arguments the loader must refuse before touching memory.
    void *range(size_t &n, bool &device_side) {
        if (!live_.empty() && in_.below(3) != 0) {
            const Block &b = live_[in_.below(live_.size())];
            const size_t off = in_.below(b.size);
            n = std::min(n, b.size - off);
            device_side = !b.pinned;
            return static_cast<char *>(b.p) + off;
        }
        device_side = false;
        n = std::min(n, host_.size());
        return host_.data();
    }

    void copy(bool async) {
        size_t n = 1 + in_.below(4096);
        bool dst_dev = false;
        bool src_dev = false;
        void *dst = range(n, dst_dev);
        void *src = range(n, src_dev);
        int kind = dst_dev ? (src_dev ? INFINIRT_MEMCPY_D2D : INFINIRT_MEMCPY_H2D)
                           : (src_dev ? INFINIRT_MEMCPY_D2H : INFINIRT_MEMCPY_H2H);
        switch (in_.below(10)) {
        case 0: kind = INFINIRT_MEMCPY_DEFAULT; break;
        case 1: kind = 99; break;
        case 2: dst = nullptr; break;
        case 3: n = 0; break;
        default: break;
        }
        // Overlapping ranges of one block are the caller's error (memcpy); skip them.
        if (dst != nullptr && static_cast<char *>(dst) < static_cast<char *>(src) + n &&
            static_cast<char *>(src) < static_cast<char *>(dst) + n) {
            return;
        }
        if (async) {
            check("MemcpyAsync", fzMemcpyAsync(dst, src, n, kind, streamArg()));
        } else {
            check("Memcpy", fzMemcpy(dst, src, n, kind));
        }
    }

    void fill() {
        size_t n = 1 + in_.below(4096);
        bool device_side = false;
        void *p = range(n, device_side);
        if (!device_side) {
            p = in_.below(2) ? nullptr : p; // host memory infinirt did not allocate, or NULL
            if (p != nullptr) {
                n = std::min<size_t>(n, 64);
            }
        }
        if (in_.below(2)) {
            check("MemsetAsync", infinirtMemsetAsync(p, static_cast<int>(in_.byte()), n, streamArg()));
        } else {
            check("Memset", infinirtMemset(p, static_cast<int>(in_.byte()), n));
        }
    }

    void streamOrdered() {
        void *s = streamArg();
        if (in_.below(2) || async_.empty()) {
            void *p = kSentinel;
            const size_t n = size();
            if (check("MallocAsync", infinirtMallocAsync(in_.below(8) ? &p : nullptr, n, s), p, kSentinel) ==
                INFINI_STATUS_SUCCESS) {
                async_.push_back(p);
            }
            return;
        }
        const size_t i = in_.below(async_.size());
        void *p = async_[i];
        // Refused for a stream that is not valid, else the block goes back in stream order.
        if (check("FreeAsync", infinirtFreeAsync(p, s)) == INFINI_STATUS_SUCCESS) {
            async_.erase(async_.begin() + static_cast<long>(i));
        }
    }

    // Capture a few async calls on a stream, instantiate, launch, destroy.
    void graph() {
        if (streams_.empty()) {
            return;
        }
        void *s = streams_[in_.below(streams_.size())];
        const int mode = in_.below(8) ? static_cast<int>(in_.below(3)) : 7;
        if (check("StreamBeginCapture", fzStreamBeginCapture(s, mode)) != INFINI_STATUS_SUCCESS) {
            return;
        }
        for (size_t i = in_.below(4); i > 0; --i) {
            if (!live_.empty()) {
                const Block &b = live_[in_.below(live_.size())];
                check("MemsetAsync(capture)", infinirtMemsetAsync(b.p, 1, b.size, s));
            }
            if (!events_.empty()) {
                check("EventRecord(capture)", infinirtEventRecord(events_[in_.below(events_.size())], s));
            }
        }
        infinirtGraph_t g = kSentinel;
        if (check("StreamEndCapture", infinirtStreamEndCapture(s, &g), g, kSentinel) != INFINI_STATUS_SUCCESS) {
            return;
        }
        infinirtGraphExec_t x = kSentinel;
        if (check("GraphInstantiate", infinirtGraphInstantiate(&x, g, nullptr, nullptr, 0), x, kSentinel) ==
            INFINI_STATUS_SUCCESS) {
            check("GraphLaunch", infinirtGraphLaunch(x, in_.below(4) ? s : streamArg()));
            mustSucceed("GraphExecDestroy", infinirtGraphExecDestroy(x));
        }
        mustSucceed("GraphDestroy", infinirtGraphDestroy(g));
    }

    // touch(p) on a device's kernel module, with a live block of that device or another pointer.
    // Virtual memory on a device that has it: a reservation of two granules with one mapped (and
    // unmapped again, or not), then a fill and a copy somewhere in the reservation. A range inside
    // the mapping must be served; one that touches a part with nothing mapped must be refused,
    // never written. Everything is given back.
    void virtualMemory() {
        const Device d = g_devices[in_.below(g_devices.size())];
        const infiniDevice_t type = static_cast<infiniDevice_t>(d.type);
        size_t g = 0;
        if (infinirtMemGetAllocationGranularity(&g, type, d.id, INFINIRT_MEM_GRANULARITY_MINIMUM) !=
                INFINI_STATUS_SUCCESS || g < 128) {
            return; // no virtual memory on this backend (opencl)
        }
        void *va = nullptr;
        mustSucceed("MemAddressReserve", infinirtMemAddressReserve(&va, type, d.id, 2 * g, 0));
        infinirtPhysicalMem_t mem = nullptr;
        mustSucceed("MemCreate", infinirtMemCreate(&mem, type, d.id, g, 0));
        char *const base = static_cast<char *>(va);
        char *const mapped = base + in_.below(2) * g;
        mustSucceed("MemMap", infinirtMemMap(mapped, g, mem, 0));
        const bool unmapped = in_.below(2) != 0;
        if (unmapped) {
            mustSucceed("MemUnmap", infinirtMemUnmap(mapped, g));
        }
        char *const p = base + in_.below(2 * g - 64);
        const size_t n = 1 + in_.below(64);
        const bool served = !unmapped && p >= mapped && p + n <= mapped + g;
        const infiniStatus_t set = check("Memset", infinirtMemset(p, 0x3c, n));
        if ((set == INFINI_STATUS_SUCCESS) != served) {
            violated("Memset", served ? "refused mapped memory" : "accepted a range with nothing mapped", set);
        }
        char host[64];
        const infiniStatus_t copied = check("Memcpy", infinirtMemcpy(host, p, n, INFINIRT_MEMCPY_DEFAULT));
        if ((copied == INFINI_STATUS_SUCCESS) != served) {
            violated("Memcpy", served ? "refused mapped memory" : "accepted a range with nothing mapped", copied);
        }
        if (served && host[n - 1] != 0x3c) {
            violated("Memcpy", "read back other bytes than the fill wrote", copied);
        }
        if (!unmapped) {
            mustSucceed("MemUnmap", infinirtMemUnmap(mapped, g));
        }
        mustSucceed("MemRelease", infinirtMemRelease(mem));
        mustSucceed("MemAddressFree", infinirtMemAddressFree(va, 2 * g));
    }

    void launch() {
        const size_t di = in_.below(g_devices.size());
        Modules &m = g_modules[di];
        const Device d = g_devices[di];
        if (!m.tried) {
            m.tried = true;
            infinirtModuleImage_t image{};
            image.struct_size = sizeof image;
            if (d.type == static_cast<int>(INFINI_DEVICE_CPU)) {
                image.format = INFINIRT_MODULE_FORMAT_HOST_SO;
                image.data = g_cpu_kernels.data();
                image.size = g_cpu_kernels.size();
            } else {
                image.format = INFINIRT_MODULE_FORMAT_OPENCL_C;
                image.data = kOpenClTouch;
                image.size = std::strlen(kOpenClTouch);
            }
            if (image.size > 0 && fzModuleLoad(&m.module, d.type, d.id, &image) == INFINI_STATUS_SUCCESS) {
                mustSucceed("ModuleGetKernel", infinirtModuleGetKernel(&m.touch, m.module, "touch"));
            }
        }
        if (m.touch == nullptr) {
            return;
        }
        void *p = nullptr;
        for (const Block &b : live_) { // a block of that device, at least 4 bytes
            infinirtPointerAttributes_t a{};
            a.struct_size = sizeof a;
            if (!b.pinned && b.size >= 4 && infinirtPointerGetAttributes(&a, b.p) == INFINI_STATUS_SUCCESS &&
                a.device_type == d.type && a.device_id == d.id) {
                p = b.p;
                break;
            }
        }
        infinirtLaunchConfig_t config{};
        config.struct_size = in_.below(16) ? sizeof config : in_.below(64);
        for (int i = 0; i < 3; ++i) {
            config.grid[i] = in_.below(16) ? 1 : in_.below(3);
            config.block[i] = in_.below(16) ? 1 : 1u << in_.below(16);
        }
        void *arg_value = in_.below(8) ? p : nullptr;
        infinirtKernelArg_t arg{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &arg_value};
        const int arg_kind = in_.below(16) ? static_cast<int>(INFINIRT_KERNEL_ARG_POINTER) : static_cast<int>(in_.below(5));
        fzSetArgKind(&arg, arg_kind);
        arg.size = in_.below(16) ? sizeof(void *) : in_.below(16);
        // A launch that would write through NULL is the caller's error (touch dereferences its
        // argument, whether it comes as a POINTER or as VALUE bytes); the loader passes it on.
        if (arg_value == nullptr) {
            return;
        }
        void *s = in_.below(4) ? nullptr : streamArg();
        infiniDevice_t t;
        int id;
        mustSucceed("GetDevice", infinirtGetDevice(&t, &id));
        if (s == nullptr && (static_cast<int>(t) != d.type || id != d.id)) {
            return; // the default stream is the current device's: another device's kernel is refused, fine, but keep it simple
        }
        const uint32_t num_args = in_.below(16) ? 1 : in_.below(4);
        // A cpu kernel's parameters are unknown to the loader (NUM_PARAMS -1): a launch whose
        // arguments do not match touch(int *) reaches the kernel, which then reads what is not
        // there -- the caller's error, not one the loader can refuse. Only OpenCL checks them.
        if (d.type == static_cast<int>(INFINI_DEVICE_CPU) &&
            (arg_kind != static_cast<int>(INFINIRT_KERNEL_ARG_POINTER) || arg.size != sizeof(void *) || num_args != 1)) {
            return;
        }
        check("LaunchKernel", infinirtLaunchKernel(m.touch, &config, &arg, num_args, s));
    }

    // Every stream made and every device's default stream are idle.
    void quiesce() {
        for (void *s : streams_) {
            mustSucceed("StreamSynchronize", infinirtStreamSynchronize(s));
        }
        infiniDevice_t t;
        int id;
        mustSucceed("GetDevice", infinirtGetDevice(&t, &id));
        for (const Device &d : g_devices) {
            mustSucceed("SetDevice", fzSetDevice(d.type, d.id));
            mustSucceed("DeviceSynchronize", infinirtDeviceSynchronize());
        }
        mustSucceed("SetDevice", fzSetDevice(static_cast<int>(t), id));
    }

    void cleanUp() {
        quiesce();
        infiniDevice_t t;
        int id;
        mustSucceed("GetDevice", infinirtGetDevice(&t, &id));
        for (void *p : async_) {
            // NULL is the current device's default stream: make the block's device current (a
            // stream of another device is refused).
            infinirtPointerAttributes_t a{};
            a.struct_size = sizeof a;
            mustSucceed("PointerGetAttributes", infinirtPointerGetAttributes(&a, p));
            mustSucceed("SetDevice", fzSetDevice(static_cast<int>(a.device_type), a.device_id));
            mustSucceed("FreeAsync", infinirtFreeAsync(p, nullptr));
        }
        mustSucceed("SetDevice", fzSetDevice(static_cast<int>(t), id));
        if (!async_.empty()) {
            quiesce(); // the stream-ordered frees have run (destroys and frees below wait for their own work)
        }
        for (void *s : streams_) {
            mustSucceed("StreamDestroy", infinirtStreamDestroy(s));
        }
        for (void *e : events_) {
            mustSucceed("EventDestroy", infinirtEventDestroy(e));
        }
        for (const Block &b : live_) {
            mustSucceed("Free", b.pinned ? infinirtFreeHost(b.p) : infinirtFree(b.p));
        }
        size_t count = 1;
        size_t bytes = 1;
        mustSucceed("GetLiveAllocations", infinirtGetLiveAllocations(&count, &bytes));
        if (count != 0 || bytes != 0) {
            std::fprintf(stderr, "fuzz_calls: %zu allocations (%zu bytes) still live after the clean-up\n", count, bytes);
            std::abort();
        }
    }

    Reader &in_;
    std::vector<char> host_ = std::vector<char>(4096);
    std::vector<Block> live_;
    std::vector<void *> freed_, async_, streams_, dead_streams_, events_, dead_events_;
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    setenv("INFINIRT_CPU_DEVICE_COUNT", "2", 0);
    setenv("INFINIRT_CPU_WORKERS", "2", 0);
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    mustSucceed("GetAllDeviceCount", infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT));
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int id = 0; id < counts[t] && id < 2; ++id) {
            g_devices.push_back(Device{t, id});
        }
    }
    if (g_devices.empty()) {
        std::fprintf(stderr, "fuzz_calls: no device\n");
        std::abort();
    }
    g_modules.resize(g_devices.size());
    std::ifstream in(FUZZ_CPU_KERNELS_PATH, std::ios::binary);
    g_cpu_kernels.assign(std::istreambuf_iterator<char>(in), {});
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader in(data, size);
    Program(in).run();
    return 0;
}
