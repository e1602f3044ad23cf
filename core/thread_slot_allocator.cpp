#include "thread_slot_allocator.hpp"

namespace infinicore::detail {

namespace {

struct Slot {
    Slot *next;
};

// The calling thread's free slots. Trivially destructible and initial-exec, so that reaching it
// costs no TLS wrapper or __tls_get_addr call. `room` is how many more slots the list may take:
// 0 until the thread's reaper is armed, and again once it has run.
struct FreeSlots {
    Slot *head;
    size_t room;
    bool armed;
};
#if defined(__GNUC__)
__attribute__((tls_model("initial-exec")))
#endif
thread_local FreeSlots t_slots{nullptr, 0, false};

// Frees the thread's list when the thread exits; slots freed afterwards go to the heap.
struct Reaper {
    FreeSlots *slots = nullptr; // set when armed
    ~Reaper() {
        if (slots == nullptr) {
            return;
        }
        slots->room = 0;
        while (Slot *slot = slots->head) {
            slots->head = slot->next;
            ::operator delete(slot);
        }
    }
};
thread_local Reaper t_reaper;

} // namespace

void *takeThreadSlot() {
    FreeSlots &slots = t_slots;
    if (Slot *slot = slots.head) {
        slots.head = slot->next;
        ++slots.room;
        return slot;
    }
    return ::operator new(kThreadSlotSize);
}

namespace {

// giveThreadSlot() when the list has no room: arms the thread's list at its first slot; else the
// list is full or the thread is exiting, and the slot goes to the heap.
[[gnu::noinline]] void giveThreadSlotWithoutRoom(void *p) noexcept {
    FreeSlots &slots = t_slots;
    if (slots.armed) {
        ::operator delete(p);
        return;
    }
    // This first use of the reaper constructs it and registers its destructor.
    t_reaper.slots = &slots;
    slots.armed = true;
    slots.room = kThreadSlots;
    giveThreadSlot(p);
}

} // namespace

void giveThreadSlot(void *p) noexcept {
    FreeSlots &slots = t_slots;
    if (slots.room == 0) {
        giveThreadSlotWithoutRoom(p);
        return;
    }
    Slot *slot = static_cast<Slot *>(p);
    slot->next = slots.head;
    slots.head = slot;
    --slots.room;
}

} // namespace infinicore::detail
