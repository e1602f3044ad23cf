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
FreeList &freeList() {
    static FreeList *list = new FreeList(); // never destroyed: handles may be used during exit
    return *list;
}
// The slot key a value names: the value itself.
uint64_t keyOf(const void *h) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h)); }
uint32_t indexOf(const void *h) {
    return static_cast<uint32_t>(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h)) & 0xffffffu);
}
} // namespace

static_assert(std::is_trivially_destructible<HandleTable>::value, "the handle table must outlive every exit path");
HandleTable g_handles;

void *HandleTable::create(HandleKind k, int type, int device, void *native, uint32_t flags, void *record) {
    FreeList &fl = freeList();
    std::lock_guard<std::mutex> lock(fl.mutex);
    uint32_t idx;
    if (!fl.free.empty()) {
        idx = fl.free.back();
        fl.free.pop_back();
    } else {
        if (fl.next >= kMaxChunks * kChunkSize) {
            return nullptr;
        }
        idx = fl.next;
        const uint32_t chunk = idx >> kChunkBits;
        if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
            HandleSlot *fresh = new (std::nothrow) HandleSlot[kChunkSize];
            if (fresh == nullptr) {
                return nullptr;
            }
            chunks_[chunk].store(fresh, std::memory_order_release);
        }
        ++fl.next;
    }
    HandleSlot *slot = &chunks_[idx >> kChunkBits].load(std::memory_order_relaxed)[idx & (kChunkSize - 1)];
    slot->kind = k;
    slot->type = type;
    slot->device = device;
    slot->native = native;
    slot->flags = flags;
    slot->capture.store(nullptr, std::memory_order_relaxed);
    slot->module_refs.store(nullptr, std::memory_order_relaxed);
    slot->record = record;
    uint32_t gen = static_cast<uint32_t>(slot->key.load(std::memory_order_relaxed) >> 24) + 1; // even (free) -> odd (live)
    if ((gen & 1u) == 0) {
        ++gen;
    }
    // Bits 0..23 the index, 24..55 the generation (32 bits), 56..63 the 0xA? tag of the kind.
    const uint64_t v = ((kTagBase | static_cast<uint64_t>(k)) << 56) | (static_cast<uint64_t>(gen) << 24) | idx;
    slot->key.store(v, std::memory_order_release);
    return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
}

bool HandleTable::claim(const void *h, HandleSlot *slot) {
    uint64_t expected = keyOf(h);
    if ((expected & kLiveBit) == 0) { // only a live (odd) generation can be claimed
        return false;
    }
    // The generation's next (even) value; it stays within its 32 bits, below the tag.
    const uint64_t destroyed = (expected & ~(uint64_t{0xffffffff} << 24)) | (((expected >> 24) + 1) & 0xffffffffu) << 24;
    return slot->key.compare_exchange_strong(expected, destroyed, std::memory_order_acq_rel);
}

void HandleTable::restore(const void *h, HandleSlot *slot) {
    slot->key.store(keyOf(h), std::memory_order_release);
}

void HandleTable::release(const void *h) {
    FreeList &fl = freeList();
    std::lock_guard<std::mutex> lock(fl.mutex);
    fl.free.push_back(indexOf(h));
}

std::vector<void *> HandleTable::live(HandleKind k, int type, int device) const {
    FreeList &fl = freeList();
    std::lock_guard<std::mutex> lock(fl.mutex);
    std::vector<void *> out;
    for (uint32_t idx = 1; idx < fl.next; ++idx) {
        const HandleSlot *slot =
            &chunks_[idx >> kChunkBits].load(std::memory_order_acquire)[idx & (kChunkSize - 1)];
        const uint64_t key = slot->key.load(std::memory_order_acquire);
        if ((key & kLiveBit) != 0 && (key >> 56) == (kTagBase | static_cast<uint64_t>(k)) && slot->type == type &&
            slot->device == device) {
            out.push_back(reinterpret_cast<void *>(static_cast<uintptr_t>(key)));
        }
    }
    return out;
}

} // namespace infinirt
