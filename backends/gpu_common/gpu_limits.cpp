/* gpu_limits.cpp - a device's limits and stream priorities: the plugin entries, for cuda and hip
 * over the vendor table (gpu_vendor.h), in the device's context (cuda: the primary context). */
#include "gpu_backend.h"

#include "common/host_services.hpp"
#include "common/text.hpp"

namespace infinirt::gpu {

using common::limitName;

namespace {

infiniStatus_t noLimits(infinirtLimit_t limit) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED, "the %s backend does not implement %s", vendorTable().name,
                        limitName(limit));
}

} // namespace

infiniStatus_t deviceGetLimit(int device, infinirtLimit_t limit, size_t *value) {
    const VendorApi &v = vendorTable();
    if (v.get_limit.call == nullptr) {
        return noLimits(limit);
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    size_t got = 0;
    if (NativeStatus rc = v.get_limit.call(&got, static_cast<int>(limit))) {
        return nativeFailure(v.get_limit.name, rc, "reading %s of %s:%d", limitName(limit), v.name, device);
    }
    *value = got;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSetLimit(int device, infinirtLimit_t limit, size_t value) {
    const VendorApi &v = vendorTable();
    if (v.set_limit.call == nullptr) {
        return noLimits(limit);
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = v.set_limit.call(static_cast<int>(limit), value)) {
        return nativeFailure(v.set_limit.name, rc, "setting %s of %s:%d to %zu", limitName(limit), v.name, device,
                             value);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceGetStreamPriorityRange(int device, int *least, int *greatest) {
    const VendorApi &v = vendorTable();
    int l = 0;
    int g = 0;
    if (v.stream_priority_range.call != nullptr) {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        if (NativeStatus rc = v.stream_priority_range.call(&l, &g)) {
            return nativeFailure(v.stream_priority_range.name, rc, "reading the stream priorities of %s:%d", v.name,
                                 device);
        }
    }
    *least = l;
    *greatest = g;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamCreateWithPriority(int device, int priority, void **stream) {
    const VendorApi &v = vendorTable();
    if (v.stream_create_with_priority.call == nullptr) {
        return streamCreate(device, stream); /* the range is (0, 0) */
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *created = nullptr;
    if (NativeStatus rc = v.stream_create_with_priority.call(&created, v.stream_non_blocking, priority)) {
        return nativeFailure(v.stream_create_with_priority.name, rc, "creating a stream of priority %d on %s:%d",
                             priority, v.name, device);
    }
    *stream = created;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
