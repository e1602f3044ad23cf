// Loader handles for streams, events, graphs, graph execs, modules, kernels and physical memory.
//
// A handle is not a pointer: it encodes a tag for its kind, a slot index and the slot's generation.
// Slots live in chunks that are never freed, so validating any value -- a destroyed handle, a
// handle of another kind, garbage, a forged value with an even or zero generation -- only reads
// loader memory and can never crash. Live generations are odd and only odd ones validate; a slot
// also remembers its kind's tag, so only the kind it was made for validates. Destroying a
// handle bumps the slot's generation, so every copy of the old value stops validating at once.
//
// Thread safety: lookup() is lock-free; create/destroy take a mutex for the free list only.
#pragma once

#include "internal.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace infinirt {

enum class HandleKind : uint8_t { Stream = 1, Event = 2, Graph = 3, Exec = 4, Module = 5, Kernel = 6, PhysicalMem = 7 };

struct CaptureGraph; // capture.h
struct ModuleRefs;   // modules.h

// One cache line per slot: a call validates and reads its handles with one line each.
struct alignas(64) HandleSlot {
    // The whole value of the slot's handle: (tag << 56) | (generation << 24) | index. The
    // generation is odd while live and even once destroyed; the tag names the kind the slot was
    // last made for, so a value forged with another kind's tag over a live slot does not validate
    // either. 0 for a slot never handed out.
    std::atomic<uint64_t> key{0};
    int type = 0;                 // infiniDevice_t of the owning backend
    int device = 0;
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
    HandleKind kind = HandleKind::Stream;
};

constexpr uint32_t kGenericGraph = 1u;

class HandleTable {
public:
    static constexpr uint32_t kChunkBits = 12;
    static constexpr uint32_t kChunkSize = 1u << kChunkBits;
    static constexpr uint32_t kMaxChunks = 1u << (24 - kChunkBits);

    constexpr HandleTable() noexcept = default;

    // Validates `h` as a live handle of kind `k`; nullptr if it is not one.
    HandleSlot *lookup(const void *h, HandleKind k) const {
        const uint64_t v = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
        // Only a value with an odd (live) generation can pass: a slot's key holds an even one once
        // destroyed (and 0 before its first use), so a value forged to equal it stops here.
        if (INFINIRT_UNLIKELY((v & kLiveBit) == 0)) {
            return nullptr;
        }
        HandleSlot *chunk = chunks_[(v >> kChunkBits) & (kMaxChunks - 1)].load(std::memory_order_acquire);
        if (INFINIRT_UNLIKELY(chunk == nullptr)) {
            return nullptr;
        }
        HandleSlot *slot = &chunk[v & (kChunkSize - 1)];
        // The whole value against the slot's (tag, generation and index in one compare), then the
        // kind asked for against the kind the live slot was made for.
        if (INFINIRT_UNLIKELY(slot->key.load(std::memory_order_acquire) != v || slot->kind != k)) {
            return nullptr;
        }
        return slot;
    }

    // Makes a live handle for the given payload. Returns nullptr when the table is full (16M live
    // handles) or memory runs out.
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
    // In a forked child (the only thread), forgets every chunk, so that no handle of the parent
    // validates: the entries that skip the init check rely on it (invalidHandle). The chunks leak.
    void forgetInForkedChild() {
        for (std::atomic<HandleSlot *> &chunk : chunks_) {
            chunk.store(nullptr, std::memory_order_relaxed);
        }
    }

private:
    static constexpr uint64_t kTagBase = 0xA0;
    static constexpr uint64_t kLiveBit = uint64_t{1} << 24; // the generation's low bit in a value
    std::atomic<HandleSlot *> chunks_[kMaxChunks] = {};
};

// The one table: a namespace-scope object initialised at load time (constant initialisation, no
// guard) and never destroyed (trivial destructor), so handles stay valid during exit and a lookup
// reaches the chunk list at a fixed address.
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
