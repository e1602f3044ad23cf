// opencl_errors.cpp - the one table from OpenCL error codes to names and infinirt statuses, and
// nativeFailure, which reports a failed OpenCL call through common::fail.
#include "opencl_backend.h"

#include <CL/cl_ext.h>

#include <cstdarg>
#include <cstdio>

namespace infinirt::opencl {
namespace {

struct Entry {
    cl_int code;
    const char *name;
    infiniStatus_t status;
};

#define E(code, status) {code, #code, INFINI_STATUS_##status}
// Allocation failures of any kind are OUT_OF_MEMORY (CL_OUT_OF_RESOURCES is the device-side
// allocation failure); invalid objects are INVALID_HANDLE; everything about arguments is
// BAD_PARAM; what an implementation may lack is NOT_IMPLEMENTED.
constexpr Entry kTable[] = {
    E(CL_SUCCESS, SUCCESS),
    E(CL_DEVICE_NOT_FOUND, DEVICE_NOT_FOUND),
    E(CL_DEVICE_NOT_AVAILABLE, DRIVER_ERROR),
    E(CL_COMPILER_NOT_AVAILABLE, NOT_IMPLEMENTED),
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE, OUT_OF_MEMORY),
    E(CL_OUT_OF_RESOURCES, OUT_OF_MEMORY),
    E(CL_OUT_OF_HOST_MEMORY, OUT_OF_MEMORY),
    E(CL_PROFILING_INFO_NOT_AVAILABLE, NOT_READY),
    E(CL_MEM_COPY_OVERLAP, BAD_PARAM),
    E(CL_IMAGE_FORMAT_MISMATCH, BAD_PARAM),
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED, NOT_IMPLEMENTED),
    E(CL_BUILD_PROGRAM_FAILURE, DRIVER_ERROR),
    E(CL_MAP_FAILURE, DRIVER_ERROR),
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET, BAD_PARAM),
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, DRIVER_ERROR),
    E(CL_COMPILE_PROGRAM_FAILURE, DRIVER_ERROR),
    E(CL_LINKER_NOT_AVAILABLE, NOT_IMPLEMENTED),
    E(CL_LINK_PROGRAM_FAILURE, DRIVER_ERROR),
    E(CL_DEVICE_PARTITION_FAILED, DRIVER_ERROR),
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, NOT_IMPLEMENTED),
    E(CL_INVALID_VALUE, BAD_PARAM),
    E(CL_INVALID_DEVICE_TYPE, DEVICE_TYPE_NOT_SUPPORTED),
    E(CL_INVALID_PLATFORM, DEVICE_NOT_FOUND),
    E(CL_INVALID_DEVICE, DEVICE_NOT_FOUND),
    E(CL_INVALID_CONTEXT, INVALID_HANDLE),
    E(CL_INVALID_QUEUE_PROPERTIES, NOT_IMPLEMENTED),
    E(CL_INVALID_COMMAND_QUEUE, INVALID_HANDLE),
    E(CL_INVALID_HOST_PTR, BAD_PARAM),
    E(CL_INVALID_MEM_OBJECT, INVALID_HANDLE),
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, BAD_PARAM),
    E(CL_INVALID_IMAGE_SIZE, BAD_PARAM),
    E(CL_INVALID_SAMPLER, INVALID_HANDLE),
    E(CL_INVALID_BINARY, BAD_PARAM),
    E(CL_INVALID_BUILD_OPTIONS, BAD_PARAM),
    E(CL_INVALID_PROGRAM, INVALID_HANDLE),
    E(CL_INVALID_PROGRAM_EXECUTABLE, BAD_PARAM),
    E(CL_INVALID_KERNEL_NAME, BAD_PARAM),
    E(CL_INVALID_KERNEL_DEFINITION, BAD_PARAM),
    E(CL_INVALID_KERNEL, INVALID_HANDLE),
    E(CL_INVALID_ARG_INDEX, BAD_PARAM),
    E(CL_INVALID_ARG_VALUE, BAD_PARAM),
    E(CL_INVALID_ARG_SIZE, BAD_PARAM),
    E(CL_INVALID_KERNEL_ARGS, BAD_PARAM),
    E(CL_INVALID_WORK_DIMENSION, BAD_PARAM),
    E(CL_INVALID_WORK_GROUP_SIZE, BAD_PARAM),
    E(CL_INVALID_WORK_ITEM_SIZE, BAD_PARAM),
    E(CL_INVALID_GLOBAL_OFFSET, BAD_PARAM),
    E(CL_INVALID_EVENT_WAIT_LIST, BAD_PARAM),
    E(CL_INVALID_EVENT, INVALID_HANDLE),
    E(CL_INVALID_OPERATION, NOT_IMPLEMENTED),
    E(CL_INVALID_GL_OBJECT, INVALID_HANDLE),
    E(CL_INVALID_BUFFER_SIZE, BAD_PARAM),
    E(CL_INVALID_MIP_LEVEL, BAD_PARAM),
    E(CL_INVALID_GLOBAL_WORK_SIZE, BAD_PARAM),
    E(CL_INVALID_PROPERTY, BAD_PARAM),
    E(CL_INVALID_IMAGE_DESCRIPTOR, BAD_PARAM),
    E(CL_INVALID_COMPILER_OPTIONS, BAD_PARAM),
    E(CL_INVALID_LINKER_OPTIONS, BAD_PARAM),
    E(CL_INVALID_DEVICE_PARTITION_COUNT, BAD_PARAM),
    E(CL_INVALID_PIPE_SIZE, BAD_PARAM),
    E(CL_INVALID_DEVICE_QUEUE, INVALID_HANDLE),
    E(CL_INVALID_SPEC_ID, BAD_PARAM),
    E(CL_MAX_SIZE_RESTRICTION_EXCEEDED, BAD_PARAM),
    E(CL_PLATFORM_NOT_FOUND_KHR, DEVICE_NOT_FOUND),
};
#undef E

const Entry *findEntry(cl_int code) noexcept {
    for (const Entry &e : kTable) {
        if (e.code == code) {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

const char *nativeErrorName(cl_int code) noexcept {
    const Entry *e = findEntry(code);
    return e ? e->name : "CL_UNKNOWN_ERROR";
}

infiniStatus_t nativeStatus(cl_int code) noexcept {
    const Entry *e = findEntry(code);
    return e ? e->status : INFINI_STATUS_DRIVER_ERROR;
}

infiniStatus_t nativeFailure(const char *call, cl_int code, const char *what_format, ...) noexcept {
    char what[common::kMessageCapacity];
    va_list args;
    va_start(args, what_format);
    std::vsnprintf(what, sizeof what, what_format, args);
    va_end(args);
    return common::fail(nativeStatus(code), "%s failed: %s (%d)%s%s", call, nativeErrorName(code),
                        static_cast<int>(code), what[0] != '\0' ? " " : "", what);
}

} // namespace infinirt::opencl
