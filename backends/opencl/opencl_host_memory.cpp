// Memory beyond malloc on OpenCL. Host registration is real where the device has fine-grain
// system SVM: it then reaches any host memory as it is, so there is nothing to pin and the
// loader's record is the whole of it. OpenCL has nothing else of it: no page-locking of existing
// memory without system SVM, no virtual address reservation and no mapping of physical memory
// into one (an SVM allocation's address is the implementation's choice): mem_get_granularity says
// so, and the other virtual-memory entries are left NULL (the loader asks the granularity before
// any reservation or physical allocation, so none of this backend ever exists).
#include "opencl_backend.h"
#include "opencl_device.h"
#include "opencl_native_api.h"

namespace infinirt::opencl {

namespace {
constexpr const char *kNoVirtualMemory =
    "OpenCL has no virtual address reservations or physical allocations to map into them (an SVM allocation's "
    "address is the implementation's choice); use infinirtMalloc";
} // namespace

infiniStatus_t hostRegister(int device, void *, size_t, uint32_t) {
    cl_device_svm_capabilities svm = 0;
    if (nativeApi().clGetDeviceInfo(opencl::device(device).id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm,
                                    nullptr) != CL_SUCCESS ||
        !(svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "opencl:%d has no fine-grain system SVM, and OpenCL cannot pin memory the program already "
                            "has without it; copy through infinirtMallocHost memory instead",
                            device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t hostUnregister(int, void *) { return INFINI_STATUS_SUCCESS; }

infiniStatus_t memGetGranularity(int, infinirtMemGranularity_t, size_t *) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s", kNoVirtualMemory);
}

} // namespace infinirt::opencl
