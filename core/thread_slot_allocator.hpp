// ThreadSlotAllocator<T>: a standard allocator whose one-object allocations come from a per-thread
// list of recycled fixed-size slots, so that an object made and destroyed once per call (the
// shared_ptr control block of each Memory the context hands out) costs no heap call once its
// thread has freed one before.
//
// A slot freed on any thread joins that thread's list (up to kThreadSlots of them); beyond that,
// and once the thread is exiting, slots go back to the heap. A thread's list is freed when the
// thread exits. Arrays and objects larger than a slot use the heap directly.
//
// Thread safety: stateless; each thread touches only its own list.
#ifndef INFINICORE_CORE_THREAD_SLOT_ALLOCATOR_HPP
#define INFINICORE_CORE_THREAD_SLOT_ALLOCATOR_HPP

#include <cstddef>
#include <new>

namespace infinicore::detail {

inline constexpr size_t kThreadSlotSize = 128;
inline constexpr size_t kThreadSlots = 256;

// The calling thread's free slots. `room` is how many more slots the list may take: 0 until the
// thread's list is armed (its first give), and again once the thread is exiting. Plain __thread of
// a trivial type with a constant initialiser, initial-exec: the inline take and give below reach it
// without a TLS wrapper or __tls_get_addr call. Touched only by thread_slot_allocator.cpp and them.
struct ThreadFreeSlot {
    ThreadFreeSlot *next;
};
struct ThreadFreeSlots {
    ThreadFreeSlot *head;
    size_t room;
    bool armed;
};
#if defined(__GNUC__)
extern __thread ThreadFreeSlots t_free_slots __attribute__((tls_model("initial-exec")));
#else
extern thread_local ThreadFreeSlots t_free_slots;
#endif

// takeThreadSlot() when the thread's list is empty: a slot from the heap.
void *takeThreadSlotFromHeap();
// giveThreadSlot() when the list has no room: arms the thread's list at its first slot; else the
// list is full or the thread is exiting, and the slot goes to the heap.
void giveThreadSlotWithoutRoom(void *slot) noexcept;

// A slot of kThreadSlotSize bytes aligned for any scalar type; throws std::bad_alloc.
inline void *takeThreadSlot() {
    ThreadFreeSlots &slots = t_free_slots;
    if (ThreadFreeSlot *slot = slots.head) {
        slots.head = slot->next;
        ++slots.room;
        return slot;
    }
    return takeThreadSlotFromHeap();
}
// Gives back a slot from takeThreadSlot(), on any thread. Never throws.
inline void giveThreadSlot(void *slot) noexcept {
    ThreadFreeSlots &slots = t_free_slots;
    if (slots.room == 0) {
        giveThreadSlotWithoutRoom(slot);
        return;
    }
    auto *free_slot = static_cast<ThreadFreeSlot *>(slot);
    free_slot->next = slots.head;
    slots.head = free_slot;
    --slots.room;
}

template <typename T>
class ThreadSlotAllocator {
public:
    using value_type = T;

    ThreadSlotAllocator() noexcept = default;
    template <typename U>
    ThreadSlotAllocator(const ThreadSlotAllocator<U> &) noexcept {}

    T *allocate(size_t n) {
        if (fitsSlot(n)) {
            return static_cast<T *>(takeThreadSlot());
        }
        return static_cast<T *>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    }
    void deallocate(T *p, size_t n) noexcept {
        if (fitsSlot(n)) {
            giveThreadSlot(p);
            return;
        }
        ::operator delete(p, std::align_val_t(alignof(T)));
    }

    template <typename U>
    bool operator==(const ThreadSlotAllocator<U> &) const noexcept {
        return true;
    }
    template <typename U>
    bool operator!=(const ThreadSlotAllocator<U> &) const noexcept {
        return false;
    }

private:
    static constexpr bool fitsSlot(size_t n) {
        return sizeof(T) <= kThreadSlotSize && alignof(T) <= alignof(std::max_align_t) && n == 1;
    }
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_THREAD_SLOT_ALLOCATOR_HPP
