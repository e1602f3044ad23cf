#include "thread_slot_allocator.hpp"

namespace infinicore::detail {

#if defined(__GNUC__)
__thread ThreadFreeSlots t_free_slots = {nullptr, 0, false};
#else
thread_local ThreadFreeSlots t_free_slots = {nullptr, 0, false};
#endif

namespace {

// Frees the thread's list when the thread exits; slots freed afterwards go to the heap.
struct Reaper {
    ThreadFreeSlots *slots = nullptr; // set when armed
    ~Reaper() {
        if (slots == nullptr) {
            return;
        }
        slots->room = 0;
        while (ThreadFreeSlot *slot = slots->head) {
            slots->head = slot->next;
            ::operator delete(slot);
        }
    }
};
thread_local Reaper t_reaper;

} // namespace

void *takeThreadSlotFromHeap() { return ::operator new(kThreadSlotSize); }

void giveThreadSlotWithoutRoom(void *slot) noexcept {
    ThreadFreeSlots &slots = t_free_slots;
    if (slots.armed) {
        ::operator delete(slot);
        return;
    }
    // This first use of the reaper constructs it and registers its destructor.
    t_reaper.slots = &slots;
    slots.armed = true;
    slots.room = kThreadSlots;
    giveThreadSlot(slot);
}

} // namespace infinicore::detail
