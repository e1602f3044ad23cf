// C ABI: a device's limits (infinirtDeviceGetLimit, infinirtDeviceSetLimit).
#include "dispatch.h"

using namespace infinirt;

namespace {

const char *limitName(int limit) {
    switch (limit) {
    case INFINIRT_LIMIT_STACK_SIZE:
        return "INFINIRT_LIMIT_STACK_SIZE";
    case INFINIRT_LIMIT_PRINTF_FIFO_SIZE:
        return "INFINIRT_LIMIT_PRINTF_FIFO_SIZE";
    case INFINIRT_LIMIT_MALLOC_HEAP_SIZE:
        return "INFINIRT_LIMIT_MALLOC_HEAP_SIZE";
    default:
        return nullptr;
    }
}

// The device's backend, once the device and the limit are valid.
infiniStatus_t resolve(const char *function, infiniDevice_t device, int device_id, int limit, Backend *&b) {
    infiniStatus_t st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (limitName(limit) == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %d is not an infinirtLimit_t", function, limit);
    }
    return INFINI_STATUS_SUCCESS;
}

INFINIRT_COLD infiniStatus_t noLimits(const char *function, const Backend *b, int limit) {
    return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: backend %s does not implement %s", function, b->name.c_str(),
                limitName(limit));
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtDeviceGetLimit(size_t *value, infiniDevice_t device, int device_id,
                                               infinirtLimit_t limit) {
    INFINIRT_ENTER();
    if (value == nullptr) {
        return nullArgument("infinirtDeviceGetLimit", "value");
    }
    Backend *b = nullptr;
    const int l = enumInt(limit);
    infiniStatus_t st = resolve("infinirtDeviceGetLimit", device, device_id, l, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (b->table.device_get_limit == nullptr) {
        return noLimits("infinirtDeviceGetLimit", b, l);
    }
    size_t v = 0;
    st = checked(b, device_id, "device_get_limit", INFINIRT_PLUGIN_STATUS(b, device_get_limit, device_id, limit, &v));
    if (st == INFINI_STATUS_SUCCESS) {
        *value = v;
    }
    return st;
}

__export infiniStatus_t infinirtDeviceSetLimit(infiniDevice_t device, int device_id, infinirtLimit_t limit,
                                               size_t value) {
    INFINIRT_ENTER();
    Backend *b = nullptr;
    const int l = enumInt(limit);
    infiniStatus_t st = resolve("infinirtDeviceSetLimit", device, device_id, l, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (b->table.device_set_limit == nullptr) {
        return noLimits("infinirtDeviceSetLimit", b, l);
    }
    return checked(b, device_id, "device_set_limit", INFINIRT_PLUGIN_STATUS(b, device_set_limit, device_id, limit, value));
}

} // extern "C"
