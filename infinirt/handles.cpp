#include "handles.h"
#include "never_destroyed.h"

#include <algorithm>
#include <array>

#include <cstdlib>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <type_traits>
#include <vector>

namespace infinirt {

namespace {
struct FreeList {
    std::mutex mutex;
    std::vector<uint32_t> free; // slot indices; 0 is never used
    uint32_t next = 1;
};
// One per kind (each kind has its own slots).
FreeList &freeList(HandleKind k) {
    static NeverDestroyed<std::array<FreeList, kHandleKinds>> storage; // never destroyed: handles may be used during exit
    FreeList *const lists = storage.get().data();
    return lists[static_cast<int>(k)];
}
uint64_t valueOf(const void *h) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h)); }
uint32_t indexOf(const void *h) {
    return static_cast<uint32_t>(valueOf(h) >> 6) & ((1u << HandleTable::kIndexBits) - 1);
}
// The most slots a kind's region holds, and the fewest reserve() settles for.
constexpr uint32_t kMostSlots = 1u << 20;
constexpr uint32_t kFewestSlots = HandleTable::kChunkSlots;
// Every kind's region reserved as one mapping, the kinds' regions back to back.
size_t regionsBytes(uint32_t capacity) { return size_t{kHandleKinds} * capacity * sizeof(HandleSlot); }
} // namespace

#if defined(__SANITIZE_ADDRESS__)
#define INFINIRT_LEAK_CHECKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INFINIRT_LEAK_CHECKS 1
#endif
#endif
#if defined(INFINIRT_LEAK_CHECKS)
// LeakSanitizer's (sanitizer/lsan_interface.h), weak: resolved from the sanitizer runtime when
// there is one.
extern "C" void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));
#endif

namespace {
// LeakSanitizer scans the heap, globals, stacks and TLS for pointers, not a private mapping: what
// live handles hold (a plugin's event, a graph's recorded ops) is reached through the slots, so
// the slots made writable are roots for its scan. Nothing without a sanitizer.
void slotsAreLeakCheckRoots(const void *p, size_t size) {
#if defined(INFINIRT_LEAK_CHECKS)
    if (__lsan_register_root_region != nullptr) {
        __lsan_register_root_region(p, size);
    }
#else
    (void)p;
    (void)size;
#endif
}
} // namespace

HandleSlot g_no_slots[2] = {HandleSlot(kNoHandle), HandleSlot()};

static_assert(std::is_trivially_destructible<HandleTable>::value, "the handle table must outlive every exit path");
HandleTable g_handles;

// Before any code of the library can be called: a lookup reaches the regions from the first call.
__attribute__((constructor)) static void reserveHandleRegions() { g_handles.reserve(); }

// The most slots a kind's region may hold: kMostSlots, or INFINIRT_MAX_HANDLES's value (a decimal,
// to limit the address space reserved, or to test a full table) rounded down to a power of two,
// at least kFewestSlots. An unparsable value is ignored.
namespace {
uint32_t mostSlots() noexcept {
    const char *text = std::getenv("INFINIRT_MAX_HANDLES");
    if (text == nullptr || *text == '\0') {
        return kMostSlots;
    }
    char *end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (*end != '\0' || *text == '-') {
        return kMostSlots;
    }
    uint32_t most = kFewestSlots;
    while (most < kMostSlots && uint64_t{most} * 2 <= value) {
        most *= 2;
    }
    return most;
}
} // namespace

void HandleTable::reserve() noexcept {
    // Readable, never written, zero pages until commit(): no memory and no commit charge behind
    // the part not used. Where the address space is limited, the largest of the smaller sizes.
    for (uint32_t capacity = mostSlots(); capacity >= kFewestSlots; capacity /= 2) {
        void *m = mmap(nullptr, regionsBytes(capacity), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            continue;
        }
        auto *const first = static_cast<HandleSlot *>(m);
        bool committed = true;
        for (int k = 0; k < kHandleKinds && committed; ++k) {
            regions_[k] = first + static_cast<size_t>(k) * capacity;
            committed_[k] = 0;
            committed = commit(k, kChunkSlots); // slot 0's key, before the mask lets any value reach it
        }
        if (!committed) {
            for (HandleSlot *&r : regions_) {
                r = g_no_slots;
            }
            munmap(m, regionsBytes(capacity));
            continue;
        }
        capacity_ = capacity;
        offset_mask_ = (uint64_t{capacity} - 1) << 6;
        return;
    }
}

bool HandleTable::commit(int k, uint32_t slots) noexcept {
    HandleSlot *const region = regions_[k];
    const uint32_t from = committed_[k];
    if (mprotect(region + from, size_t{slots - from} * sizeof(HandleSlot), PROT_READ | PROT_WRITE) != 0) {
        return false;
    }
    slotsAreLeakCheckRoots(region + from, size_t{slots - from} * sizeof(HandleSlot));
    if (from == 0) {
        region[0].key.store(kNoHandle, std::memory_order_relaxed);
    }
    committed_[k] = slots;
    return true;
}

void HandleTable::forgetInForkedChild() noexcept {
    if (capacity_ == 0) {
        return;
    }
    // The parent's slots become zero pages again, in place (the regions stay where lookups go).
    void *const first = regions_[0];
    if (mmap(first, regionsBytes(capacity_), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
             0) == MAP_FAILED) {
        // Cannot happen for an existing mapping; were it to, no lookup may find the parent's slots.
        for (HandleSlot *&r : regions_) {
            r = g_no_slots;
        }
        offset_mask_ = kNoHandle;
        return;
    }
    for (int k = 0; k < kHandleKinds; ++k) {
        committed_[k] = 0;
        if (!commit(k, kChunkSlots)) {
            regions_[k] = g_no_slots; // no slot of this kind validates in the child
        }
    }
}

void *HandleTable::create(HandleKind k, int type, int device, void *native, uint32_t flags, void *record) {
    FreeList &fl = freeList(k);
    std::lock_guard<std::mutex> lock(fl.mutex);
    const int kind = kindIndex(k);
    uint32_t idx;
    if (!fl.free.empty()) {
        idx = fl.free.back();
        fl.free.pop_back();
    } else {
        if (fl.next >= capacity_) {
            return nullptr;
        }
        idx = fl.next;
        if (idx >= committed_[kind] && !commit(kind, committed_[kind] + kChunkSlots)) {
            return nullptr;
        }
        // Room for every slot ever made on the free list, so that release never allocates (a
        // destroy cannot fail for want of memory); nullptr when even that is not to be had.
        if (fl.free.capacity() < idx) {
            try {
                fl.free.reserve(std::max<size_t>(idx, 2 * fl.free.capacity()));
            } catch (const std::bad_alloc &) {
                return nullptr;
            }
        }
        ++fl.next;
    }
    HandleSlot *slot = &regions_[kind][idx];
    slot->type = type;
    slot->device = device;
    slot->backend = g_registry.by_type[type];
    slot->native = native;
    slot->flags = flags;
    slot->capture.store(nullptr, std::memory_order_relaxed);
    slot->module_refs.store(nullptr, std::memory_order_relaxed);
    slot->record = record;
    // The previous value: the complement of a destroyed one, or none (key 0: generation 0 next).
    const uint64_t key = slot->key.load(std::memory_order_relaxed);
    const uint64_t previous = key == 0 ? 0 : ~key;
    uint64_t gen = (previous >> 30) + 1; // even (destroyed) -> odd (live)
    if ((gen & 1u) == 0) {
        ++gen;
    }
    // Bits 0..5 the tag of the kind, 6..29 the index, 30..63 the generation (34 bits, wrapping).
    const uint64_t v = (gen << 30) | (uint64_t{idx} << 6) | (kTagBase | static_cast<uint64_t>(kind));
    slot->key.store(v, std::memory_order_release);
    return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
}

bool HandleTable::claim(const void *h, HandleSlot *slot) {
    uint64_t expected = valueOf(h);
    if ((expected & kLiveBit) == 0) { // only a live (odd) generation can be claimed
        return false;
    }
    // The complement of the value with the generation's next (even) value, which wraps within its
    // bits above the index.
    const uint64_t next = expected + kLiveBit;
    return slot->key.compare_exchange_strong(expected, ~next, std::memory_order_acq_rel);
}

void HandleTable::restore(const void *h, HandleSlot *slot) {
    slot->key.store(valueOf(h), std::memory_order_release);
}

void HandleTable::release(const void *h) {
    const HandleKind k = static_cast<HandleKind>(valueOf(h) & 0x07);
    FreeList &fl = freeList(k);
    std::lock_guard<std::mutex> lock(fl.mutex);
    fl.free.push_back(indexOf(h)); // within the capacity create reserved: never allocates
}

std::vector<void *> HandleTable::live(HandleKind k, int type, int device) const {
    FreeList &fl = freeList(k);
    std::lock_guard<std::mutex> lock(fl.mutex);
    std::vector<void *> out;
    const HandleSlot *const region = regions_[kindIndex(k)];
    for (uint32_t idx = 1; idx < fl.next; ++idx) {
        const HandleSlot *slot = &region[idx];
        const uint64_t key = slot->key.load(std::memory_order_acquire);
        // A live key is the handle itself: its own index and an odd generation.
        if ((key & kIndexField) == (uint64_t{idx} << 6) && (key & kLiveBit) != 0 && slot->type == type &&
            slot->device == device) {
            out.push_back(reinterpret_cast<void *>(static_cast<uintptr_t>(key)));
        }
    }
    return out;
}

} // namespace infinirt
