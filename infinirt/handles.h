// Loader handles for streams, events, graphs, graph execs, modules, kernels and physical memory.
//
// A handle is not a pointer: it encodes its slot's offset, the slot's generation and a tag for its
// kind. Each kind has its own slots, in one region of address space reserved when the library is
// loaded (readable zero pages until a chunk of slots is first used, never unmapped), and a lookup
// reads the slot at the region's base plus the handle's offset bits. So validating any value -- a
// destroyed handle, a handle of another kind, garbage -- only reads loader memory and can never
// crash. A value validates when it equals its slot's key: the slot's live handle, whole. A handle
// of another kind is looked up among this kind's slots, whose keys hold this kind's tag. Destroying
// a handle stores the complement of its next value (its offset bits differ from the slot's own, so
// no value that reaches the slot can equal it), and every copy of the old value stops validating.
//
// Thread safety: lookup() is lock-free; create/destroy take a mutex for the free list only.
#pragma once

#include "internal.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace infinirt {

enum class HandleKind : uint8_t { Stream = 1, Event = 2, Graph = 3, Exec = 4, Module = 5, Kernel = 6, PhysicalMem = 7 };
constexpr int kHandleKinds = 8; // HandleKind's values are below it

struct CaptureGraph; // capture.h
struct ModuleRefs;   // modules.h

// One cache line per slot: a call validates and reads its handles with one line each.
struct alignas(64) HandleSlot {
    constexpr HandleSlot() noexcept = default;
    constexpr explicit HandleSlot(uint64_t k) noexcept : key(k) {}
    // While live, the whole value of the slot's handle: (generation << 30) | (index << 6) | tag,
    // the generation odd. Once destroyed, the complement of the value with the next (even)
    // generation. 0 for a slot never handed out (kNoHandle for index 0, which never is).
    std::atomic<uint64_t> key{0};
    int type = 0;                 // infiniDevice_t of the owning backend
    int device = 0;
    Backend *backend = nullptr;   // g_registry.by_type[type], read by the hot entries without the registry
    uint32_t flags = 0;           // event: creation flags; graph/exec: kGenericGraph; stream: its priority (an int)
    void *native = nullptr;       // the plugin's object (or the loader's, for generic graphs)
    // Streams under the loader's generic capture: the graph being recorded.
    std::atomic<CaptureGraph *> capture{nullptr};
    // Streams under a plugin's native capture: the modules whose kernels the capture launched,
    // handed to the graph at its end (modules.h). Graphs and execs: those modules (native
    // graphs; generic ones keep them in their ops).
    std::atomic<ModuleRefs *> module_refs{nullptr};
    // The loader's record behind a module or kernel handle (modules.h).
    void *record = nullptr;
};

static_assert(sizeof(HandleSlot) == 64, "a slot is one cache line");

constexpr uint32_t kGenericGraph = 1u;

// Slot 0's key: its offset bits name slot 1, so no value reaching slot 0 (NULL among them) equals it.
constexpr uint64_t kNoHandle = uint64_t{1} << 6;
// Where every kind's lookups go until the library's constructor has reserved the regions (or when
// it could not): two slots that no value validates in (slot 1's key 0 names slot 0).
extern HandleSlot g_no_slots[2] INFINIRT_HIDDEN;

class HandleTable {
public:
    static constexpr uint32_t kIndexBits = 24;   // a handle's index field; the capacity is at most 1 << 20
    static constexpr uint32_t kChunkSlots = 4096; // slots made writable at a time (256 KiB)

    constexpr HandleTable() noexcept
        : regions_{g_no_slots, g_no_slots, g_no_slots, g_no_slots, g_no_slots, g_no_slots, g_no_slots, g_no_slots} {}

    // Validates `h` as a live handle of kind `k`; nullptr if it is not one.
    HandleSlot *lookup(const void *h, HandleKind k) const {
        const uint64_t v = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
        HandleSlot *const slot = reinterpret_cast<HandleSlot *>(reinterpret_cast<char *>(regions_[kindIndex(k)]) +
                                                                (v & offset_mask_));
        // The whole value against the slot's live handle: tag, generation and index in one compare.
        if (INFINIRT_UNLIKELY(!keyIs(slot, v))) {
            return nullptr;
        }
        if (slot == nullptr) {
            __builtin_unreachable(); // a slot that was read: callers' checks of the answer need not test it again
        }
        return slot;
    }

    // Reserves each kind's region (the library's constructor): 1M slots a kind, or fewer where
    // INFINIRT_MAX_HANDLES says so or the address space is short; where none can be reserved, no
    // handle can be made.
    void reserve() noexcept;

    // Makes a live handle for the given payload. Returns nullptr when the kind's region is full
    // (1M live handles, fewer where reserve() reserved less) or memory runs out.
    void *create(HandleKind k, int type, int device, void *native, uint32_t flags, void *record = nullptr);

    // Claims a live handle for destruction: afterwards it no longer validates. Returns false if
    // another thread destroyed it first. Follow with release() or restore().
    bool claim(const void *h, HandleSlot *slot);
    // Puts a claimed handle back (its destruction failed in the plugin).
    void restore(const void *h, HandleSlot *slot);
    // Returns a claimed slot to the free list.
    void release(const void *h);
    // The handles of kind `k` live now whose owner is device (type, device).
    std::vector<void *> live(HandleKind k, int type, int device) const;
    // In a forked child (the only thread), replaces every region by fresh zero pages, so that no
    // handle of the parent validates: the entries that skip the init check rely on it
    // (invalidHandle). The child makes no handle (the loader refuses every call there).
    void forgetInForkedChild() noexcept;

private:
    // slot->key == v, read with acquire ordering. On x86-64 the compare reads the key itself (an
    // aligned 8-byte load is atomic there, and ordered before later loads; the compiler barrier
    // keeps the slot's other fields after it), which saves the separate load an atomic needs;
    // elsewhere, and under ThreadSanitizer (which must see the acquire), the atomic load.
    static bool keyIs(const HandleSlot *slot, uint64_t v) {
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(__SANITIZE_THREAD__)
        bool equal;
        __asm__("cmpq %1, %2" : "=@ccz"(equal) : "r"(v), "m"(slot->key));
        std::atomic_signal_fence(std::memory_order_acquire);
        return equal;
#else
        return slot->key.load(std::memory_order_acquire) == v;
#endif
    }
    static constexpr uint64_t kTagBase = 0x28;                      // 0b101kkk: the kind in the low 3 bits
    static constexpr uint64_t kLiveBit = uint64_t{1} << 30;         // the generation's low bit in a value
    static constexpr uint64_t kIndexField = ((uint64_t{1} << kIndexBits) - 1) << 6;
    static constexpr int kindIndex(HandleKind k) { return static_cast<int>(k); }
    // Makes the first `slots` slots of kind k's region writable (false if the system refused).
    bool commit(int k, uint32_t slots) noexcept;
    // The offset bits of a value within this table's regions: (capacity - 1) << 6.
    uint64_t offset_mask_ = kNoHandle;
    uint32_t capacity_ = 0;          // slots per kind; 0 until reserve() succeeds
    uint32_t committed_[kHandleKinds] = {}; // per kind, the slots made writable so far
    HandleSlot *regions_[kHandleKinds];
};

// The one table: a namespace-scope object initialised at load time (constant initialisation, no
// guard) and never destroyed (trivial destructor), so handles stay valid during exit and a lookup
// reaches its kind's region and the offset mask at fixed addresses.
extern HandleTable g_handles INFINIRT_HIDDEN;
inline HandleTable &handles() { return g_handles; }

// Makes the handle for `native`, the object C entry `function` just created (through a plugin
// entry or in the loader), and stores it in `h`. When no handle can be made, `undo()` destroys the
// object, so that a failed create leaves nothing behind, and the result is OUT_OF_MEMORY.
template <typename Undo>
infiniStatus_t handleOrUndo(void *&h, const char *function, HandleKind k, int type, int device, void *native,
                            uint32_t flags, void *record, Undo &&undo) {
    h = handles().create(k, type, device, native, flags, record);
    if (h == nullptr) {
        undo();
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: no room for another handle", function);
    }
    return INFINI_STATUS_SUCCESS;
}

// The undo of a plugin's create: its destroy entry `destroy` (stream_destroy, event_destroy, ...;
// NULL where the plugin has none) on the object, whose status goes unreported (the create failed).
inline void destroyPluginObject(infiniStatus_t (*destroy)(int, void *), int device, void *native) {
    if (destroy != nullptr) {
        destroy(device, native);
    }
}

} // namespace infinirt
