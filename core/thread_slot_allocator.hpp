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

// A slot of kThreadSlotSize bytes aligned for any scalar type; throws std::bad_alloc.
void *takeThreadSlot();
// Gives back a slot from takeThreadSlot(), on any thread. Never throws.
void giveThreadSlot(void *slot) noexcept;

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
