#include "handles.h"

#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

namespace infinirt {

namespace {
struct FreeList {
    std::mutex mutex;
    std::vector<uint32_t> free; // slot indices (chunk << kChunkBits | place); 0 is never used
    uint32_t next = 1;
};
// One per kind (each kind has its own slots).
FreeList &freeList(HandleKind k) {
    static FreeList *lists = new FreeList[kHandleKinds]; // never destroyed: handles may be used during exit
    return lists[static_cast<int>(k)];
}
uint64_t valueOf(const void *h) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h)); }
uint32_t indexOf(const void *h) { return static_cast<uint32_t>(valueOf(h) & 0xffffffu); }
} // namespace

static_assert(std::is_trivially_destructible<HandleTable>::value, "the handle table must outlive every exit path");
HandleTable g_handles;

void *HandleTable::create(HandleKind k, int type, int device, void *native, uint32_t flags, void *record) {
    FreeList &fl = freeList(k);
    std::lock_guard<std::mutex> lock(fl.mutex);
    uint32_t idx;
    std::atomic<HandleSlot *> *chunks = chunks_[kindIndex(k)];
    if (!fl.free.empty()) {
        idx = fl.free.back();
        fl.free.pop_back();
    } else {
        if (fl.next >= kMaxChunks * kChunkSize) {
            return nullptr;
        }
        idx = fl.next;
        const uint32_t chunk = idx >> kChunkBits;
        if (chunks[chunk].load(std::memory_order_relaxed) == nullptr) {
            HandleSlot *fresh = new (std::nothrow) HandleSlot[kChunkSize];
            if (fresh == nullptr) {
                return nullptr;
            }
            if (chunk == 0) {
                fresh[0].key.store(1, std::memory_order_relaxed); // index 0: no value reaching it equals 1
            }
            chunks[chunk].store(fresh, std::memory_order_release);
        }
        ++fl.next;
    }
    HandleSlot *slot = &chunks[idx >> kChunkBits].load(std::memory_order_relaxed)[idx & (kChunkSize - 1)];
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
    uint32_t gen = static_cast<uint32_t>(previous >> 24) + 1; // even (destroyed) -> odd (live)
    if ((gen & 1u) == 0) {
        ++gen;
    }
    // Bits 0..23 the index, 24..55 the generation (32 bits), 56..63 the 0xA? tag of the kind.
    const uint64_t v = ((kTagBase | static_cast<uint64_t>(k)) << 56) | (static_cast<uint64_t>(gen) << 24) | idx;
    slot->key.store(v, std::memory_order_release);
    return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
}

bool HandleTable::claim(const void *h, HandleSlot *slot) {
    uint64_t expected = valueOf(h);
    if ((expected & kLiveBit) == 0) { // only a live (odd) generation can be claimed
        return false;
    }
    // The complement of the value with the generation's next (even) value, which stays within
    // its 32 bits, below the tag.
    const uint64_t next = (expected & ~(uint64_t{0xffffffff} << 24)) | (((expected >> 24) + 1) & 0xffffffffu) << 24;
    return slot->key.compare_exchange_strong(expected, ~next, std::memory_order_acq_rel);
}

void HandleTable::restore(const void *h, HandleSlot *slot) {
    slot->key.store(valueOf(h), std::memory_order_release);
}

void HandleTable::release(const void *h) {
    const HandleKind k = static_cast<HandleKind>(valueOf(h) >> 56 & 0x0f);
    FreeList &fl = freeList(k);
    std::lock_guard<std::mutex> lock(fl.mutex);
    fl.free.push_back(indexOf(h));
}

std::vector<void *> HandleTable::live(HandleKind k, int type, int device) const {
    FreeList &fl = freeList(k);
    std::lock_guard<std::mutex> lock(fl.mutex);
    std::vector<void *> out;
    const std::atomic<HandleSlot *> *chunks = chunks_[kindIndex(k)];
    for (uint32_t idx = 1; idx < fl.next; ++idx) {
        const HandleSlot *slot =
            &chunks[idx >> kChunkBits].load(std::memory_order_acquire)[idx & (kChunkSize - 1)];
        const uint64_t key = slot->key.load(std::memory_order_acquire);
        // A live key is the handle itself: its own index and an odd generation.
        if ((key & kIndexMask) == idx && (key & kLiveBit) != 0 && slot->type == type && slot->device == device) {
            out.push_back(reinterpret_cast<void *>(static_cast<uintptr_t>(key)));
        }
    }
    return out;
}

} // namespace infinirt
