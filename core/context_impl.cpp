#include "context_impl.hpp"

#include "check.hpp"

namespace infinicore::detail {

#if defined(__GNUC__)
__thread CurrentMemo t_current = {~uint64_t(0), nullptr};
#else
thread_local CurrentMemo t_current = {~uint64_t(0), nullptr};
#endif

namespace {

// infinirtDeviceReset's callback: the runtime of the device, if created, starts afresh.
void onDeviceReset(infiniDevice_t type, int index, void *context) {
    try {
        if (Runtime *rt = static_cast<ContextImpl *>(context)->find(
                Device(static_cast<Device::Type>(type), static_cast<Device::Index>(index)))) {
            rt->restart();
        }
    } catch (...) {
        // A device the context cannot name has no runtime to restart.
    }
}

} // namespace

ContextImpl &ContextImpl::instance() {
    static ContextImpl *context = [] {
        auto *made = new ContextImpl;
        check(infinirtDeviceAddResetCallback(&onDeviceReset, made), "infinirtDeviceAddResetCallback");
        return made;
    }();
    return *context;
}

ContextImpl::Slots &ContextImpl::slots(Device::Type type) {
    auto &entry = types_[static_cast<int>(type)];
    if (Slots *slots = entry.load(std::memory_order_acquire)) {
        return *slots;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (Slots *slots = entry.load(std::memory_order_acquire)) {
        return *slots;
    }
    int count = 0;
    check(infinirtGetDeviceCount(static_cast<infiniDevice_t>(type), &count), "infinirtGetDeviceCount");
    auto slots = std::make_unique<Slots>();
    slots->count = count;
    slots->runtimes = std::make_unique<std::atomic<Runtime *>[]>(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
        slots->runtimes[i].store(nullptr, std::memory_order_relaxed);
    }
    entry.store(slots.get(), std::memory_order_release);
    return *slots.release();
}

size_t ContextImpl::deviceCount(Device::Type type) {
    if (static_cast<int>(type) < 0 || type >= Device::Type::COUNT) {
        throw Error(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "getDeviceCount",
                    "no device type " + std::to_string(static_cast<int>(type)));
    }
    return static_cast<size_t>(slots(type).count);
}

void ContextImpl::validate(Device device, const std::string &call) {
    const Device::Type type = device.getType();
    if (static_cast<int>(type) < 0 || type >= Device::Type::COUNT) {
        throw Error(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, call,
                    "no device type " + std::to_string(static_cast<int>(type)));
    }
    const size_t count = static_cast<size_t>(slots(type).count);
    if (device.getIndex() >= count) {
        throw Error(INFINI_STATUS_DEVICE_NOT_FOUND, call,
                    "no device " + device.toString() + ": " + Device::toString(type) + " has " + std::to_string(count) +
                        " device(s)");
    }
}

Runtime *ContextImpl::find(Device device) {
    validate(device, "find runtime of " + device.toString());
    return slots(device.getType()).runtimes[device.getIndex()].load(std::memory_order_acquire);
}

Runtime &ContextImpl::runtime(Device device) {
    validate(device, "runtime of " + device.toString());
    auto &slot = slots(device.getType()).runtimes[device.getIndex()];
    if (Runtime *rt = slot.load(std::memory_order_acquire)) {
        return *rt;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (Runtime *rt = slot.load(std::memory_order_acquire)) {
        return *rt;
    }
    auto rt = std::make_unique<Runtime>(device);
    slot.store(rt.get(), std::memory_order_release);
    return *rt.release();
}

Device ContextImpl::currentDevice() {
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int index = 0;
    check(infinirtGetDevice(&type, &index), "infinirtGetDevice");
    return Device(static_cast<Device::Type>(type), static_cast<Device::Index>(index));
}

Runtime &ContextImpl::rememberCurrent(infiniDevice_t type, int index) {
    Runtime &rt =
        instance().runtime(Device(static_cast<Device::Type>(type), static_cast<Device::Index>(index)));
    t_current = CurrentMemo{deviceKey(type, index), &rt};
    return rt;
}

} // namespace infinicore::detail
