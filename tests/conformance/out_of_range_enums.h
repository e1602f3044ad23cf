// Calls that pass values outside an enum's enumerators (bad device types, memcpy kinds, status
// codes). In C++ converting such a value to an enum without a fixed underlying type is undefined
// (and trips -fsanitize=enum), so the conversion is done in C (out_of_range_enums.c), where enum
// types are integer types and the call is what a C caller would make.
#ifndef INFINIRT_TESTS_OUT_OF_RANGE_ENUMS_H
#define INFINIRT_TESTS_OUT_OF_RANGE_ENUMS_H

#include <infinirt.h>

#ifdef __cplusplus
extern "C" {
#endif

infiniStatus_t oorSetDevice(int device_type, int device_id);
infiniStatus_t oorGetDeviceCount(int device_type, int *count);
infiniStatus_t oorGetMemInfo(int device_type, int device_id, size_t *free_bytes, size_t *total_bytes);
infiniStatus_t oorMemcpy(void *dst, const void *src, size_t size, int kind);
infiniStatus_t oorMemcpyAsync(void *dst, const void *src, size_t size, int kind, infinirtStream_t stream);
infiniStatus_t oorStreamBeginCapture(infinirtStream_t stream, int mode);
infiniStatus_t oorGetDeviceProperties(int device_type, int device_id, infinirtDeviceProperties_t *properties);
infiniStatus_t oorGetDeviceResourceSnapshot(int device_type, int device_id, infinirtDeviceResourceSnapshot_t *snapshot);
infiniStatus_t oorDeviceGetNativeContext(int device_type, int device_id, void **native);
const char *oorGetErrorName(int status);
const char *oorGetErrorString(int status);

#ifdef __cplusplus
}
#endif

#endif // INFINIRT_TESTS_OUT_OF_RANGE_ENUMS_H
