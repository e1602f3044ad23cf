// Per-device state of the loader that is made when the device is first used, never sized by a
// plugin's device count ahead of use: one slot per device of every type (the loader serves at
// most INFINIRT_MAX_DEVICES_PER_TYPE devices of a type), the state allocated on the slot's first
// get and never freed (calls may come during exit). The slots are constant-initialised, so an
// instance with static storage is ready before any constructor runs and costs no memory until a
// device's slot is written.
#pragma once

#include "internal.h"

#include <atomic>
#include <new>

namespace infinirt {

template <typename T> class PerDevice {
public:
    // The state of (type, id) (valid: type < kTypeCount, 0 <= id < the type's device count), made
    // now if this is its first use; nullptr when host memory for it could not be allocated.
    T *get(int type, int id) noexcept {
        std::atomic<T *> &slot = slots_[type][id];
        T *p = slot.load(std::memory_order_acquire);
        return INFINIRT_LIKELY(p != nullptr) ? p : make(slot);
    }
    // The state of (type, id) if a get made it; nullptr otherwise (nothing is made).
    T *find(int type, int id) const noexcept { return slots_[type][id].load(std::memory_order_acquire); }

private:
    INFINIRT_COLD static T *make(std::atomic<T *> &slot) noexcept {
        T *fresh = new (std::nothrow) T();
        if (fresh == nullptr) {
            return nullptr;
        }
        T *seen = nullptr;
        if (slot.compare_exchange_strong(seen, fresh, std::memory_order_acq_rel)) {
            return fresh;
        }
        delete fresh; // another thread made it first
        return seen;
    }
    std::atomic<T *> slots_[kTypeCount][INFINIRT_MAX_DEVICES_PER_TYPE] = {};
};

} // namespace infinirt
