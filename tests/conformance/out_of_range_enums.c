/* See out_of_range_enums.h: out-of-range enum values passed the way a C caller passes them. */
#include "out_of_range_enums.h"

infiniStatus_t oorSetDevice(int device_type, int device_id) {
    return infinirtSetDevice((infiniDevice_t)device_type, device_id);
}

infiniStatus_t oorGetDeviceCount(int device_type, int *count) {
    return infinirtGetDeviceCount((infiniDevice_t)device_type, count);
}

infiniStatus_t oorGetMemInfo(int device_type, int device_id, size_t *free_bytes, size_t *total_bytes) {
    return infinirtGetMemInfo((infiniDevice_t)device_type, device_id, free_bytes, total_bytes);
}

infiniStatus_t oorMemcpy(void *dst, const void *src, size_t size, int kind) {
    return infinirtMemcpy(dst, src, size, (infinirtMemcpyKind_t)kind);
}

infiniStatus_t oorMemcpyAsync(void *dst, const void *src, size_t size, int kind, infinirtStream_t stream) {
    return infinirtMemcpyAsync(dst, src, size, (infinirtMemcpyKind_t)kind, stream);
}

infiniStatus_t oorStreamBeginCapture(infinirtStream_t stream, int mode) {
    return infinirtStreamBeginCapture(stream, (infinirtStreamCaptureMode_t)mode);
}

infiniStatus_t oorGetDeviceProperties(int device_type, int device_id, infinirtDeviceProperties_t *properties) {
    return infinirtGetDeviceProperties((infiniDevice_t)device_type, device_id, properties);
}

infiniStatus_t oorGetDeviceResourceSnapshot(int device_type, int device_id, infinirtDeviceResourceSnapshot_t *snapshot) {
    return infinirtGetDeviceResourceSnapshot((infiniDevice_t)device_type, device_id, snapshot);
}

infiniStatus_t oorDeviceGetNativeContext(int device_type, int device_id, void **native) {
    return infinirtDeviceGetNativeContext((infiniDevice_t)device_type, device_id, native);
}

const char *oorGetErrorName(int status) { return infinirtGetErrorName((infiniStatus_t)status); }

const char *oorGetErrorString(int status) { return infinirtGetErrorString((infiniStatus_t)status); }
