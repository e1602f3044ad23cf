/*
 * infinicore.h - status codes, device types and data types shared by the infinirt C ABI.
 *
 * Source-compatible with the published InfiniCore header: every name and value below that is
 * not marked as an extension is exactly as published. Extensions only append values.
 * Compiles as C99 and as C++.
 */
#ifndef __INFINICORE_API_H__
#define __INFINICORE_API_H__

#if defined(_WIN32)
#define __export __declspec(dllexport)
#elif defined(__GNUC__) && ((__GNUC__ >= 4) || (__GNUC__ == 3 && __GNUC_MINOR__ >= 3))
#define __export __attribute__((visibility("default")))
#else
#define __export
#endif

#ifdef __cplusplus
#define __INFINI_C extern "C"
#include <cstddef>
#else
#define __INFINI_C
#include <stddef.h>
#endif

/* Older published headers also defined a macro named __C. We do not: it breaks compiler headers
 * that use __C as a parameter name (e.g. gcc's <emmintrin.h>) when included after this one. */

typedef enum {
    /* What each status means when an infinirt call returns it (infinirt.h says which call gives
     * which); infinirtGetLastErrorMessage() has the detail of every failure. */
    /* The call did what it says; its outputs are written. */
    INFINI_STATUS_SUCCESS = 0,
    /* General errors */
    /* A fault inside infinirt or a plugin (an unexpected exception, a broken backend). */
    INFINI_STATUS_INTERNAL_ERROR = 1,
    /* The backend serving the device lacks this operation (e.g. native handles on cpu). */
    INFINI_STATUS_NOT_IMPLEMENTED = 2,
    /* An argument is refused: size 0, bad enum/flags, foreign pointer, wrong device, capture. */
    INFINI_STATUS_BAD_PARAM = 3,
    /* A required pointer argument (an output, or a copy's or memset's data) is NULL. */
    INFINI_STATUS_NULL_POINTER = 4,
    /* The infiniDevice_t value is outside [0, INFINI_DEVICE_TYPE_COUNT). */
    INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED = 5,
    /* No such device: the type has no devices, the id is out of range, or there is no device. */
    INFINI_STATUS_DEVICE_NOT_FOUND = 6,
    /* A child forked after init (infinirt cannot serve it), or cuda/hip: driver not initialised. */
    INFINI_STATUS_DEVICE_NOT_INITIALIZED = 7,
    /* The driver has no code for this device's architecture (cuda/hip). */
    INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED = 8,
    /* Operator errors: never returned by infinirt calls */
    /* A tensor's data type is not supported by the operator. */
    INFINI_STATUS_BAD_TENSOR_DTYPE = 10,
    /* A tensor's shape is not supported by the operator. */
    INFINI_STATUS_BAD_TENSOR_SHAPE = 11,
    /* A tensor's strides are not supported by the operator. */
    INFINI_STATUS_BAD_TENSOR_STRIDES = 12,
    /* The workspace given to the operator is too small. */
    INFINI_STATUS_INSUFFICIENT_WORKSPACE = 13,
    /* infinirt extensions (from 100 up) */
    /* Device, host or loader memory (1M live handles of a kind at most) could not be allocated. */
    INFINI_STATUS_OUT_OF_MEMORY = 100,
    /* A handle is destroyed, never created or of another kind (or the driver refused one). */
    INFINI_STATUS_INVALID_HANDLE = 101,
    /* Work still pending: StreamQuery's answer (not a failure); EventElapsedTime's refusal. */
    INFINI_STATUS_NOT_READY = 102,
    /* A native call found the vendor library or driver unusable (stub library, mismatch). */
    INFINI_STATUS_BACKEND_UNAVAILABLE = 103,
    /* A native call failed in a way no other code describes. */
    INFINI_STATUS_DRIVER_ERROR = 104,
    /* A module image did not build, JIT-compile, link or load; the last-error message has the
     * first lines of the build log (infinirtModuleLoad's `log` has it whole, as room allows). */
    INFINI_STATUS_BUILD_FAILED = 105,
    /* A module has no kernel or global of that name; the message names it (and, where the
     * backend can list them, a few names that exist). */
    INFINI_STATUS_SYMBOL_NOT_FOUND = 106
} infiniStatus_t;

typedef enum {
    INFINI_DEVICE_CPU = 0,
    INFINI_DEVICE_NVIDIA = 1,
    INFINI_DEVICE_CAMBRICON = 2,
    INFINI_DEVICE_ASCEND = 3,
    INFINI_DEVICE_METAX = 4,
    INFINI_DEVICE_MOORE = 5,
    INFINI_DEVICE_ILUVATAR = 6,
    INFINI_DEVICE_KUNLUN = 7,
    INFINI_DEVICE_HYGON = 8,
    INFINI_DEVICE_QY = 9,
    INFINI_DEVICE_ALI = 10,
    /* infinirt extensions */
    INFINI_DEVICE_AMD = 11,    /* the hip backend */
    INFINI_DEVICE_OPENCL = 12, /* the opencl backend */
    INFINI_DEVICE_VULKAN = 13, /* the vulkan backend */
    INFINI_DEVICE_TYPE_COUNT
} infiniDevice_t;

typedef enum {
    INFINI_DTYPE_INVALID = 0,
    INFINI_DTYPE_BYTE = 1,
    INFINI_DTYPE_BOOL = 2,
    INFINI_DTYPE_I8 = 3,
    INFINI_DTYPE_I16 = 4,
    INFINI_DTYPE_I32 = 5,
    INFINI_DTYPE_I64 = 6,
    INFINI_DTYPE_U8 = 7,
    INFINI_DTYPE_U16 = 8,
    INFINI_DTYPE_U32 = 9,
    INFINI_DTYPE_U64 = 10,
    INFINI_DTYPE_F8 = 11,
    INFINI_DTYPE_F16 = 12,
    INFINI_DTYPE_F32 = 13,
    INFINI_DTYPE_F64 = 14,
    INFINI_DTYPE_C16 = 15,
    INFINI_DTYPE_C32 = 16,
    INFINI_DTYPE_C64 = 17,
    INFINI_DTYPE_C128 = 18,
    INFINI_DTYPE_BF16 = 19
} infiniDtype_t;

#endif /* __INFINICORE_API_H__ */
