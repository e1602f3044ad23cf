// C ABI: modules and kernel launch. Handles, validation and capture live here; the plugins load
// code and launch (plugin table entries module_load ... launch_kernel).
#include "allocations.h"
#include "capture.h"
#include "modules.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdarg>
#include <cstring>
#include <cstdio>
#include <memory>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace infinirt;

namespace {

constexpr size_t kMaxImages = 4096;
constexpr size_t kLocalAlignment = 16; // the offset rule of LOCAL arguments (infinirt.h)
// Pointer arguments the loader cannot place are passed on with a warning, this many times per
// process, then silently.
constexpr int kPointerWarnings = 16;
std::atomic<int> g_pointer_warnings{0};

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

ModuleRecord *moduleOf(HandleSlot *slot) { return static_cast<ModuleRecord *>(slot->record); }
KernelRecord *kernelOf(HandleSlot *slot) { return static_cast<KernelRecord *>(slot->record); }

bool attributeInRange(const infinirtKernelAttribute_t &attr) {
    const int a = enumInt(attr);
    return a >= INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK && a <= INFINIRT_KERNEL_ATTR_NUM_PARAMS;
}

// The image list with every struct whole and every format resolved, or a refusal.
INFINIRT_COLD infiniStatus_t resolveImages(const infinirtModuleImage_t *images, size_t count,
                                           std::vector<infinirtModuleImage_t> &out) {
    static const char *fn = "infinirtModuleLoad";
    out.resize(count);
    for (size_t i = 0; i < count; ++i) {
        char what[64];
        std::snprintf(what, sizeof what, "%s: images[%zu]", fn, i);
        const infiniStatus_t st = checkStructSize(what, &images[i]);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        infinirtModuleImage_t img = widened(&images[i]);
        if (img.data == nullptr) {
            return fail(INFINI_STATUS_NULL_POINTER, "%s: images[%zu].data is NULL", fn, i);
        }
        if (img.size == 0) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: images[%zu].size is 0", fn, i);
        }
        int f = 0; // read as an int: the caller's value may be no enumerator at all
        std::memcpy(&f, &img.format, sizeof f);
        if (f < INFINIRT_MODULE_FORMAT_AUTO || f > INFINIRT_MODULE_FORMAT_HOST_SO) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: images[%zu].format %d is not an infinirtModuleFormat_t", fn, i, f);
        }
        if (img.format == INFINIRT_MODULE_FORMAT_AUTO) {
            std::string why;
            img.format = sniffFormat(img.data, img.size, why);
            if (img.format == INFINIRT_MODULE_FORMAT_AUTO) {
                return fail(INFINI_STATUS_BAD_PARAM, "%s: images[%zu] (%zu bytes) has no format AUTO can tell: %s; name its format",
                            fn, i, img.size, why.c_str());
            }
        }
        out[i] = img;
    }
    return INFINI_STATUS_SUCCESS;
}

// ---- launch validation -------------------------------------------------------------------------

INFINIRT_COLD infiniStatus_t badLaunch(const KernelRecord *k, const char *fmt, ...) INFINIRT_PRINTF(2, 3);
infiniStatus_t badLaunch(const KernelRecord *k, const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(INFINI_STATUS_BAD_PARAM, "infinirtLaunchKernel: kernel %s: %s", k->name.c_str(), what);
}

// A POINTER argument holding device memory of (type, device), another device type than the kernel's.
INFINIRT_COLD infiniStatus_t otherTypesDeviceMemory(const KernelRecord *k, const HandleSlot *ks, uint32_t index,
                                                    const void *ptr, int type, int device) {
    if (type == kUnmappedType) {
        return badLaunch(k, "argument %u (%p) lies in a reserved address range with nothing mapped there", index, ptr);
    }
    return badLaunch(k, "argument %u (%p) is device memory of %s:%d; the kernel runs on %s:%d", index, ptr,
                     typeName(type), device, typeName(ks->type), ks->device);
}

// A pointer argument's address, checked against what infinirt and the backend know.
INFINIRT_COLD infiniStatus_t checkForeignPointer(const KernelRecord *k, const HandleSlot *ks, uint32_t index,
                                                 const void *ptr) {
    Backend *b = k->module->backend;
    if (b->table.pointer_get_attributes != nullptr) {
        infinirtPointerAttributes_t a{};
        a.struct_size = sizeof a;
        if (b->table.pointer_get_attributes(ptr, &a) == INFINI_STATUS_SUCCESS && enumInt(a.kind) != INFINIRT_MEMORY_UNKNOWN) {
            if (enumInt(a.kind) == INFINIRT_MEMORY_DEVICE && enumInt(a.device_type) != ks->type) {
                return otherTypesDeviceMemory(k, ks, index, ptr, enumInt(a.device_type), a.device_id);
            }
            return INFINI_STATUS_SUCCESS;
        }
    }
    const int n = g_pointer_warnings.fetch_add(1, std::memory_order_relaxed);
    if (n < kPointerWarnings) {
        logf(INFINIRT_LOG_WARN,
             "infinirtLaunchKernel: kernel %s on %s:%d: argument %u (%p) is no memory infinirt allocated or %s "
             "recognises; passed on as it is%s",
             k->name.c_str(), typeName(ks->type), ks->device, index, ptr, b->name.c_str(),
             n + 1 == kPointerWarnings ? " (further such warnings are not shown)" : "");
    }
    return INFINI_STATUS_SUCCESS;
}

INFINIRT_INLINE infiniStatus_t checkPointer(const detail::LookupCache &cache, const KernelRecord *k,
                                           const HandleSlot *ks, uint32_t index, const void *ptr) {
    if (ptr == nullptr) {
        return INFINI_STATUS_SUCCESS; // an optional buffer left out
    }
    const Allocation *a = lookupAllocation(cache, ptr); // the thread's cached record, nothing copied
    if (INFINIRT_LIKELY(a != nullptr)) {
        if (INFINIRT_UNLIKELY(a->type != ks->type && a->kind == INFINIRT_MEMORY_DEVICE)) {
            return otherTypesDeviceMemory(k, ks, index, ptr, a->type, a->device);
        }
        if (INFINIRT_UNLIKELY((a->type != ks->type || a->device != ks->device) && !a->notedUser(ks->type, ks->device))) {
            noteForeignUser(a->base, ks->type, ks->device); // Free waits for this device too (api_memory.cpp)
        }
        return INFINI_STATUS_SUCCESS;
    }
    return checkForeignPointer(k, ks, index, ptr);
}

// The threads of the config's block in `threads`; false when the product is past 64 bits (the
// product of two 32-bit dimensions fits, the third may carry it past).
INFINIRT_INLINE bool blockThreads(const infinirtLaunchConfig_t &c, uint64_t &threads) {
    return !__builtin_mul_overflow(static_cast<uint64_t>(c.block[0]) * c.block[1], static_cast<uint64_t>(c.block[2]),
                                   &threads);
}

// Everything infinirtLaunchKernel's contract lists, before the plugin sees the launch.
// `cache` is the calling thread's lookup cache (threadLookups()). The fast path's launchIsPlain
// must refuse whatever this refuses (the bad-launch conformance tests go through both).
INFINIRT_INLINE infiniStatus_t checkLaunch(const detail::LookupCache &cache, const KernelRecord *k, const HandleSlot *ks,
                                           const infinirtLaunchConfig_t &c, const infinirtKernelArg_t *args,
                                           uint32_t num_args) {
    if (INFINIRT_UNLIKELY(c.grid[0] == 0 || c.grid[1] == 0 || c.grid[2] == 0)) {
        return badLaunch(k, "grid {%u, %u, %u} has a zero dimension (each must be >= 1)", c.grid[0], c.grid[1], c.grid[2]);
    }
    if (INFINIRT_UNLIKELY(c.block[0] == 0 || c.block[1] == 0 || c.block[2] == 0)) {
        return badLaunch(k, "block {%u, %u, %u} has a zero dimension (each must be >= 1)", c.block[0], c.block[1],
                         c.block[2]);
    }
    uint64_t threads = 0;
    const bool past_64_bits = !blockThreads(c, threads);
    if (INFINIRT_UNLIKELY(k->max_threads >= 0 && (past_64_bits || threads > static_cast<uint64_t>(k->max_threads)))) {
        return badLaunch(k, "block {%u, %u, %u} is %s%llu threads, over its MAX_THREADS_PER_BLOCK of %lld", c.block[0],
                         c.block[1], c.block[2], past_64_bits ? "more than " : "",
                         static_cast<unsigned long long>(past_64_bits ? UINT64_MAX : threads),
                         static_cast<long long>(k->max_threads));
    }
    if (INFINIRT_UNLIKELY((c.flags & ~INFINIRT_LAUNCH_COOPERATIVE) != 0)) {
        return badLaunch(k, "flags 0x%x has unknown bits (0x%x)", c.flags, c.flags & ~INFINIRT_LAUNCH_COOPERATIVE);
    }
    if (INFINIRT_UNLIKELY(k->num_params >= 0 && num_args != static_cast<uint64_t>(k->num_params))) {
        return badLaunch(k, "%u arguments given; it takes %lld", num_args, static_cast<long long>(k->num_params));
    }
    size_t shared = c.dynamic_shared_bytes;
    for (uint32_t i = 0; i < num_args; ++i) {
        const infinirtKernelArg_t &a = args[i];
        int kind = 0; // read as an int: the caller's value may be no enumerator at all
        std::memcpy(&kind, &a.kind, sizeof kind);
        switch (kind) {
        case INFINIRT_KERNEL_ARG_VALUE:
            if (INFINIRT_UNLIKELY(a.value == nullptr)) {
                return fail(INFINI_STATUS_NULL_POINTER, "infinirtLaunchKernel: kernel %s: argument %u (VALUE) has a NULL value",
                            k->name.c_str(), i);
            }
            if (INFINIRT_UNLIKELY(a.size == 0)) {
                return badLaunch(k, "argument %u (VALUE) has size 0", i);
            }
            break;
        case INFINIRT_KERNEL_ARG_POINTER: {
            if (INFINIRT_UNLIKELY(a.value == nullptr)) {
                return fail(INFINI_STATUS_NULL_POINTER,
                            "infinirtLaunchKernel: kernel %s: argument %u (POINTER) has a NULL value (it must point at "
                            "a void * holding the address)",
                            k->name.c_str(), i);
            }
            if (INFINIRT_UNLIKELY(a.size != sizeof(void *))) {
                return badLaunch(k, "argument %u (POINTER) has size %zu; it must be sizeof(void *) = %zu", i, a.size,
                                 sizeof(void *));
            }
            const infiniStatus_t st = checkPointer(cache, k, ks, i, *static_cast<void *const *>(a.value));
            if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
                return st;
            }
            break;
        }
        case INFINIRT_KERNEL_ARG_LOCAL:
            if (INFINIRT_UNLIKELY(a.value != nullptr)) {
                return badLaunch(k, "argument %u (LOCAL) has a value; a LOCAL argument's value must be NULL", i);
            }
            if (INFINIRT_UNLIKELY(a.size == 0)) {
                return badLaunch(k, "argument %u (LOCAL) has size 0", i);
            }
            shared = alignUp(shared, kLocalAlignment) + a.size; // the offset rule (infinirt.h)
            break;
        default:
            return badLaunch(k, "argument %u has kind %d, which is no infinirtKernelArgKind_t", i, kind);
        }
    }
    const int64_t limit = k->max_dynamic_shared.load(std::memory_order_relaxed);
    if (INFINIRT_UNLIKELY(limit >= 0 && shared > static_cast<uint64_t>(limit))) {
        return badLaunch(k,
                         "dynamic shared memory of %zu bytes (dynamic_shared_bytes %zu plus LOCAL arguments) is over "
                         "its MAX_DYNAMIC_SHARED_BYTES of %lld",
                         shared, c.dynamic_shared_bytes, static_cast<long long>(limit));
    }
    return INFINI_STATUS_SUCCESS;
}

// Whether any of the six grid and block dimensions is 0: with SSE2 (every x86-64), one compare of
// all six against zero.
INFINIRT_INLINE bool hasZeroDimension(const infinirtLaunchConfig_t &c) {
    static_assert(offsetof(infinirtLaunchConfig_t, block) == offsetof(infinirtLaunchConfig_t, grid) + 12,
                  "grid and block are six consecutive uint32_t");
#if defined(__SSE2__)
    const char *dims = reinterpret_cast<const char *>(c.grid);
    const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i *>(dims));      // grid[0..2], block[0]
    const __m128i rest = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(dims + 16)); // block[1..2]
    const __m128i zero = _mm_setzero_si128();
    // The upper half of `rest` is zero: compare it as the block's last two dimensions again.
    const __m128i zeros = _mm_or_si128(_mm_cmpeq_epi32(first, zero),
                                       _mm_cmpeq_epi32(_mm_unpacklo_epi64(rest, rest), zero));
    return _mm_movemask_epi8(zeros) != 0;
#else
    return c.grid[0] == 0 || c.grid[1] == 0 || c.grid[2] == 0 || c.block[0] == 0 || c.block[1] == 0 || c.block[2] == 0;
#endif
}

// The fast path's test: everything checkLaunch checks holds, and nothing of the launch needs a
// note or a question to anyone: each POINTER argument is NULL or found in the thread's cache
// (`cache`) as memory of the kernel's device. Makes no call, so the fast path keeps its values in
// registers; false sends the launch to launchGeneral, which checks it again and says what is wrong
// (or notes the foreign user, asks the plugin about memory infinirt did not allocate).
INFINIRT_INLINE bool launchIsPlain(const detail::LookupCache &cache, const KernelRecord *k, const HandleSlot *ks,
                                   const infinirtLaunchConfig_t &c, const infinirtKernelArg_t *args,
                                   uint32_t num_args) {
    if (INFINIRT_UNLIKELY(hasZeroDimension(c) || (c.flags & ~INFINIRT_LAUNCH_COOPERATIVE) != 0)) {
        return false;
    }
    uint64_t threads = 0;
    if (INFINIRT_UNLIKELY(!blockThreads(c, threads) || threads > static_cast<uint64_t>(k->max_threads) ||
                          (k->num_params >= 0 && num_args != static_cast<uint64_t>(k->num_params)))) {
        return false; // max_threads -1 (unknown) is the largest uint64_t
    }
    size_t shared = c.dynamic_shared_bytes;
    if (num_args != 0) {
        if (INFINIRT_UNLIKELY(!detail::cacheIsCurrent(cache))) {
            return false;
        }
        const uint64_t owner = detail::ownerBits(ks->type, ks->device);
        for (uint32_t i = 0; i < num_args; ++i) {
            const infinirtKernelArg_t &a = args[i];
            int kind = 0; // read as an int: the caller's value may be no enumerator at all
            std::memcpy(&kind, &a.kind, sizeof kind);
            if (kind == INFINIRT_KERNEL_ARG_POINTER) {
                if (INFINIRT_UNLIKELY(a.value == nullptr || a.size != sizeof(void *))) {
                    return false;
                }
                const void *ptr = *static_cast<void *const *>(a.value);
                if (ptr != nullptr) {
                    const int at = detail::cachedRange(cache, reinterpret_cast<uintptr_t>(ptr));
                    if (INFINIRT_UNLIKELY(at < 0 || cache.owner[at] != owner)) {
                        return false;
                    }
                }
            } else if (kind == INFINIRT_KERNEL_ARG_VALUE) {
                if (INFINIRT_UNLIKELY(a.value == nullptr || a.size == 0)) {
                    return false;
                }
            } else if (kind == INFINIRT_KERNEL_ARG_LOCAL && a.value == nullptr && a.size != 0) {
                shared = alignUp(shared, kLocalAlignment) + a.size; // the offset rule (infinirt.h)
            } else {
                return false;
            }
        }
    }
    return shared <= static_cast<uint64_t>(k->max_dynamic_shared.load(std::memory_order_relaxed));
}

// Records the launch in a generic capture: copies of config and argument bytes, and a reference
// that keeps the module loaded while the graph lives.
INFINIRT_COLD infiniStatus_t captureLaunch(CaptureGraph *g, KernelRecord *k, const infinirtLaunchConfig_t &c,
                                           const infinirtKernelArg_t *args, uint32_t num_args) {
    INFINIRT_GUARD_BEGIN
    auto l = std::make_shared<CapturedLaunch>();
    l->module = ModuleRef(k->module);
    l->kernel = k->native;
    l->config = c;
    l->args.assign(args, args + num_args);
    size_t total = 0;
    for (uint32_t i = 0; i < num_args; ++i) {
        if (args[i].kind != INFINIRT_KERNEL_ARG_LOCAL) {
            total = alignUp(total, kLocalAlignment) + args[i].size;
        }
    }
    l->bytes.resize(total);
    size_t off = 0;
    for (uint32_t i = 0; i < num_args; ++i) {
        if (args[i].kind != INFINIRT_KERNEL_ARG_LOCAL) {
            off = alignUp(off, kLocalAlignment);
            std::memcpy(l->bytes.data() + off, args[i].value, args[i].size);
            l->args[i].value = l->bytes.data() + off;
            off += args[i].size;
        }
    }
    CapturedOp op(CapturedOp::Kind::Launch);
    op.launch = std::move(l);
    return captureAppend(g, op);
    INFINIRT_GUARD_END("infinirtLaunchKernel")
}

// Under a plugin's native capture: the graph will launch this module's code, so it keeps it.
INFINIRT_COLD infiniStatus_t noteNativeCapture(ModuleRefs *refs, ModuleRecord *m) {
    INFINIRT_GUARD_BEGIN
    refs->add(m);
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END("infinirtLaunchKernel")
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtModuleLoad(infinirtModule_t *module, infiniDevice_t device, int device_id,
                                           const infinirtModuleImage_t *images, size_t count, char *log,
                                           size_t log_size) {
    INFINIRT_ENTER();
    if (log != nullptr && log_size > 0) {
        log[0] = '\0';
    }
    if (module == nullptr) {
        return nullArgument("infinirtModuleLoad", "module");
    }
    if (images == nullptr) {
        return nullArgument("infinirtModuleLoad", "images");
    }
    if (count == 0 || count > kMaxImages) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtModuleLoad: count is %zu; give 1 to %zu images", count, kMaxImages);
    }
    INFINIRT_GUARD_BEGIN
    std::vector<infinirtModuleImage_t> resolved;
    infiniStatus_t st = resolveImages(images, count, resolved);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Backend *b = nullptr;
    st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (b->table.module_load == nullptr) {
        return notImplemented(b, "module_load");
    }
    std::unique_ptr<ModuleRecord> m(new ModuleRecord()); // before the load: nothing to undo if it throws
    void *native = nullptr;
    st = INFINIRT_DEVICE_CALL(b, module_load, device_id, resolved.data(), count, log, log_size, &native);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    m->backend = b;
    m->type = device;
    m->device = device_id;
    m->native = native;
    void *h = nullptr;
    st = handleOrUndo(h, "infinirtModuleLoad", HandleKind::Module, device, device_id, native, 0, m.get(),
                      [&] { destroyPluginObject(b->table.module_unload, device_id, native); });
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    m.release();
    *module = h;
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END("infinirtModuleLoad")
}

__export infiniStatus_t infinirtModuleUnload(infinirtModule_t module) {
    INFINIRT_ENTER();
    HandleSlot *slot = handles().lookup(module, HandleKind::Module);
    if (slot == nullptr || !handles().claim(module, slot)) {
        return invalidHandle("infinirtModuleUnload", "module", module);
    }
    ModuleRecord *m = moduleOf(slot);
    {
        std::lock_guard<std::mutex> lock(m->mutex);
        for (auto &entry : m->kernels) {
            void *kh = entry.second->handle;
            HandleSlot *ks = handles().lookup(kh, HandleKind::Kernel);
            if (ks != nullptr && handles().claim(kh, ks)) {
                handles().release(kh);
            }
        }
    }
    handles().release(module);
    return m->release(true);
}

__export infiniStatus_t infinirtModuleGetKernel(infinirtKernel_t *kernel, infinirtModule_t module, const char *name) {
    INFINIRT_ENTER();
    if (kernel == nullptr) {
        return nullArgument("infinirtModuleGetKernel", "kernel");
    }
    HandleSlot *slot = handles().lookup(module, HandleKind::Module);
    if (slot == nullptr) {
        return invalidHandle("infinirtModuleGetKernel", "module", module);
    }
    if (name == nullptr) {
        return nullArgument("infinirtModuleGetKernel", "name");
    }
    ModuleRecord *m = moduleOf(slot);
    Backend *b = m->backend;
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(m->mutex);
    auto it = m->kernels.find(name);
    if (it != m->kernels.end()) {
        *kernel = it->second->handle;
        return INFINI_STATUS_SUCCESS;
    }
    if (b->table.module_get_kernel == nullptr) {
        return notImplemented(b, "module_get_kernel");
    }
    void *native = nullptr;
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, module_get_kernel, m->device, m->native, name, &native);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    auto k = std::make_unique<KernelRecord>();
    k->module = m;
    k->native = native;
    k->name = name;
    // What launches are validated against; the plugin's contract makes them finite. A query that
    // fails leaves the figure unknown (-1: not checked); its detail is never read.
    auto query = [&](infinirtKernelAttribute_t attr) -> int64_t {
        int64_t v = -1;
        if (b->table.kernel_get_attribute == nullptr ||
            b->table.kernel_get_attribute(m->device, native, attr, &v) != INFINI_STATUS_SUCCESS) {
            return -1;
        }
        return v;
    };
    k->max_threads = query(INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK);
    k->num_params = query(INFINIRT_KERNEL_ATTR_NUM_PARAMS);
    k->max_dynamic_shared.store(query(INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES), std::memory_order_relaxed);
    void *h = nullptr;
    st = handleOrUndo(h, "infinirtModuleGetKernel", HandleKind::Kernel, m->type, m->device, native, 0, k.get(),
                      [] {}); // the plugin's kernel belongs to its module: nothing to destroy
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    k->handle = h;
    m->kernels.emplace(k->name, std::move(k));
    *kernel = h;
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END("infinirtModuleGetKernel")
}

__export infiniStatus_t infinirtModuleGetGlobal(void **ptr, size_t *size, infinirtModule_t module, const char *name) {
    INFINIRT_ENTER();
    if (ptr == nullptr) {
        return nullArgument("infinirtModuleGetGlobal", "ptr");
    }
    HandleSlot *slot = handles().lookup(module, HandleKind::Module);
    if (slot == nullptr) {
        return invalidHandle("infinirtModuleGetGlobal", "module", module);
    }
    if (name == nullptr) {
        return nullArgument("infinirtModuleGetGlobal", "name");
    }
    ModuleRecord *m = moduleOf(slot);
    void *p = nullptr;
    size_t n = 0;
    infiniStatus_t st = INFINIRT_DEVICE_CALL(m->backend, module_get_global, m->device, m->native, name, &p, &n);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *ptr = p;
    if (size != nullptr) {
        *size = n;
    }
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtKernelGetAttribute(int64_t *value, infinirtKernelAttribute_t attr,
                                                   infinirtKernel_t kernel) {
    INFINIRT_ENTER();
    if (value == nullptr) {
        return nullArgument("infinirtKernelGetAttribute", "value");
    }
    HandleSlot *ks = handles().lookup(kernel, HandleKind::Kernel);
    if (ks == nullptr) {
        return invalidHandle("infinirtKernelGetAttribute", "kernel", kernel);
    }
    if (!attributeInRange(attr)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtKernelGetAttribute: attr %d is not an infinirtKernelAttribute_t",
                    enumInt(attr));
    }
    Backend *b = g_registry.by_type[ks->type];
    int64_t v = 0;
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, kernel_get_attribute, ks->device, ks->native, attr, &v);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *value = v;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtKernelSetAttribute(infinirtKernel_t kernel, infinirtKernelAttribute_t attr,
                                                   int64_t value) {
    INFINIRT_ENTER();
    HandleSlot *ks = handles().lookup(kernel, HandleKind::Kernel);
    if (ks == nullptr) {
        return invalidHandle("infinirtKernelSetAttribute", "kernel", kernel);
    }
    if (!attributeInRange(attr)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtKernelSetAttribute: attr %d is not an infinirtKernelAttribute_t",
                    enumInt(attr));
    }
    if (attr != INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infinirtKernelSetAttribute: attr %d is read-only; only INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES "
                    "(%d) is settable",
                    enumInt(attr), static_cast<int>(INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES));
    }
    if (value < 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtKernelSetAttribute: MAX_DYNAMIC_SHARED_BYTES of %lld is negative",
                    static_cast<long long>(value));
    }
    Backend *b = g_registry.by_type[ks->type];
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, kernel_set_attribute, ks->device, ks->native, attr, value);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    kernelOf(ks)->max_dynamic_shared.store(value, std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"

namespace {
// LaunchKernel on any stream: the NULL stream, a capturing one, a config of another size, an
// invalid handle or argument (infinirtLaunchKernel's fast path takes the common case).
__attribute__((noinline)) infiniStatus_t launchGeneral(infinirtKernel_t kernel, const infinirtLaunchConfig_t *config,
                                                       const infinirtKernelArg_t *args, uint32_t num_args,
                                                       infinirtStream_t stream) {
    HandleSlot *ks = handles().lookup(kernel, HandleKind::Kernel);
    if (INFINIRT_UNLIKELY(ks == nullptr)) {
        return invalidHandle("infinirtLaunchKernel", "kernel", kernel);
    }
    if (INFINIRT_UNLIKELY(config == nullptr)) {
        return nullArgument("infinirtLaunchKernel", "config");
    }
    if (INFINIRT_UNLIKELY(args == nullptr && num_args > 0)) {
        return fail(INFINI_STATUS_NULL_POINTER, "infinirtLaunchKernel: args is NULL with num_args %u", num_args);
    }
    StreamRef s;
    infiniStatus_t st = resolveStream("infinirtLaunchKernel", stream, s);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    KernelRecord *k = kernelOf(ks);
    if (INFINIRT_UNLIKELY(s.type != ks->type || s.device != ks->device)) {
        return badLaunch(k, "the kernel belongs to %s:%d, the stream to %s:%d", typeName(ks->type), ks->device,
                         typeName(s.type), s.device);
    }
    const infinirtLaunchConfig_t *c = config;
    infinirtLaunchConfig_t whole;
    if (INFINIRT_UNLIKELY(config->struct_size != sizeof(infinirtLaunchConfig_t))) {
        st = checkStructSize("infinirtLaunchKernel: config", config);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        whole = widened(config);
        c = &whole;
    }
    st = checkLaunch(threadLookups(), k, ks, *c, args, num_args);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    Backend *b = s.backend;
    if (INFINIRT_UNLIKELY(b->table.launch_kernel == nullptr)) {
        return notImplemented(b, "launch_kernel");
    }
    if (s.slot != nullptr) {
        if (INFINIRT_UNLIKELY(captureOf(s) != nullptr)) {
            ActiveCapture capture(s.slot);
            if (capture.graph() != nullptr) {
                return captureLaunch(capture.graph(), k, *c, args, num_args);
            }
        }
        // The launch is a submission like the others (capture.h, native captures).
        return submitTo(
            s.slot,
            [&] {
                return checked(b, s.device, "launch_kernel",
                               INFINIRT_PLUGIN_STATUS_BEGUN(b, launch_kernel, s.device, ks->native, c, args,
                                                            num_args, s.native));
            },
            [&](ModuleRefs *refs) { return noteNativeCapture(refs, k->module); });
    }
    return checked(b, s.device, "launch_kernel",
                   INFINIRT_PLUGIN_STATUS(b, launch_kernel, s.device, ks->native, c, args, num_args, s.native));
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtLaunchKernel(infinirtKernel_t kernel, const infinirtLaunchConfig_t *config,
                                             const infinirtKernelArg_t *args, uint32_t num_args,
                                             infinirtStream_t stream) {
    // No INFINIRT_ENTER: the handles' and the NULL stream's paths check (dispatch.h). The fast path:
    // a live kernel and a live stream of its device that is not capturing (markSubmitting checks
    // that), a config of this header's size and the arguments given, a launch that checkLaunch
    // would pass with nothing to note (launchIsPlain). Everything else, refusals included, takes
    // launchGeneral.
    HandleSlot *const ks = handles().lookup(kernel, HandleKind::Kernel);
    if (INFINIRT_LIKELY(ks != nullptr && config != nullptr && (args != nullptr || num_args == 0))) {
        HandleSlot *const slot = handles().lookup(stream, HandleKind::Stream);
        if (INFINIRT_LIKELY(slot != nullptr && slot->type == ks->type && slot->device == ks->device &&
                            config->struct_size == sizeof(infinirtLaunchConfig_t))) {
            ThreadHot *const hot = threadHot();
            infinirtPluginLaunchKernelFn *const launch = slot->backend->table.launch_kernel;
            if (INFINIRT_LIKELY(launchIsPlain(hot->lookups, kernelOf(ks), ks, *config, args, num_args) &&
                                launch != nullptr && markSubmitting(hot, slot))) {
                return submittedStatus(hot, "launch_kernel",
                                       launch(slot->device, ks->native, config, args, num_args, slot->native));
            }
        }
    }
    return launchGeneral(kernel, config, args, num_args, stream);
}

} // extern "C"
