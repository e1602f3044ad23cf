// The loader's registrations of host-device memory for host-direct copies (host_pins.h).
#include "host_pins.h"
#include "never_destroyed.h"

#include "allocations.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <new>
#include <utility>

namespace infinirt {

namespace {

// One (allocation, backend) pair.
struct Pin {
    enum class State : uint8_t {
        Counting,    // large copies add their bytes until half the allocation's size
        Registering, // host_register runs (outside the lock)
        Registered,  // host_unregister on `device` gives it back
        Refused,     // the backend refused: copies stay pageable, never tried again
    };
    State state = State::Counting;
    int device = 0; // the device host_register ran on
    size_t counted = 0;
};

struct Pins {
    std::mutex mutex;
    std::condition_variable settled;                       // a Registering pin became Registered or Refused
    std::map<std::pair<uintptr_t, int>, Pin> by_base_type; // (allocation base, backend type)
    std::atomic<size_t> count{0};                          // by_base_type.size(), read without the lock
};
Pins &pins() {
    static NeverDestroyed<Pins> p_storage; // never destroyed: frees may come during exit
    Pins *const p = &p_storage.get();
    return *p;
}

// Caller holds the lock and changed the record.
void recount(Pins &p) {
    p.count.store(p.by_base_type.size(), std::memory_order_release);
}

// Caller holds `lock`: waits until no pin `selected` is Registering.
template <typename Selected> void waitSettled(Pins &p, std::unique_lock<std::mutex> &lock, Selected selected) {
    p.settled.wait(lock, [&] {
        for (const auto &entry : p.by_base_type) {
            if (entry.second.state == Pin::State::Registering && selected(entry.first, entry.second)) {
                return false;
            }
        }
        return true;
    });
}

// Caller holds the lock, no selected pin Registering: unregisters the Registered ones, forgets
// the others; a pin whose unregistration failed stays. Returns the first failure.
template <typename Selected> infiniStatus_t unpinSelected(Pins &p, Selected selected) {
    infiniStatus_t first = INFINI_STATUS_SUCCESS;
    for (auto it = p.by_base_type.begin(); it != p.by_base_type.end();) {
        const Pin &pin = it->second;
        if (!selected(it->first, pin)) {
            ++it;
            continue;
        }
        if (pin.state == Pin::State::Registered) {
            Backend *b = g_registry.by_type[it->first.second];
            void *base = reinterpret_cast<void *>(it->first.first);
            const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, host_unregister, pin.device, base);
            if (st != INFINI_STATUS_SUCCESS) {
                first = first == INFINI_STATUS_SUCCESS ? st : first;
                ++it;
                continue;
            }
        }
        it = p.by_base_type.erase(it);
    }
    recount(p);
    return first;
}

} // namespace

void pinForHostDirectCopy(const void *host, int host_type, int host_id, Backend *b, int type, int id, size_t size) {
    if (b->table.host_register == nullptr) {
        return;
    }
    const Allocation *a = lookupAllocation(host);
    if (a == nullptr || a->origin != Origin::Malloc || a->kind != INFINIRT_MEMORY_DEVICE || a->type != host_type ||
        a->device != host_id) {
        return;
    }
    void *base = a->base; // the lookup's answer lives until this thread's next lookup
    const size_t bytes = a->size;
    const std::pair<uintptr_t, int> key{reinterpret_cast<uintptr_t>(base), type};
    Pins &p = pins();
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        Pin *pin = nullptr;
        try {
            pin = &p.by_base_type[key];
        } catch (const std::bad_alloc &) {
            return; // unrecorded: this copy stays pageable, a later one counts again
        }
        recount(p);
        if (pin->state != Pin::State::Counting) {
            return;
        }
        pin->counted += size < bytes - pin->counted ? size : bytes - pin->counted;
        if (pin->counted < bytes / 2) {
            return;
        }
        pin->state = Pin::State::Registering;
        pin->device = id;
    }
    // A probe: its failure is no failure of the copy, so its status is not reported.
    const bool registered = b->table.host_register(id, base, bytes, 0) == INFINI_STATUS_SUCCESS;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        // Still there: unpinning waits for a Registering pin.
        p.by_base_type[key].state = registered ? Pin::State::Registered : Pin::State::Refused;
    }
    p.settled.notify_all();
}

infiniStatus_t unpinHostMemory(const void *base) {
    Pins &p = pins();
    if (p.count.load(std::memory_order_acquire) == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    const uintptr_t key = reinterpret_cast<uintptr_t>(base);
    auto selected = [key](const std::pair<uintptr_t, int> &k, const Pin &) { return k.first == key; };
    std::unique_lock<std::mutex> lock(p.mutex);
    waitSettled(p, lock, selected);
    return unpinSelected(p, selected);
}

infiniStatus_t unpinOnDevice(int type, int id) {
    Pins &p = pins();
    if (p.count.load(std::memory_order_acquire) == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    auto selected = [type, id](const std::pair<uintptr_t, int> &k, const Pin &pin) {
        return k.second == type && pin.state != Pin::State::Counting && pin.device == id;
    };
    std::unique_lock<std::mutex> lock(p.mutex);
    waitSettled(p, lock, selected);
    return unpinSelected(p, selected);
}

} // namespace infinirt
