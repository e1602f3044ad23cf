"""The C ABI as ctypes sees it: every enum value, struct layout and function signature the package
uses, mirrored from include/infinicore.h and include/infinirt.h (and nowhere else in the package).

tests/python/test_abi.py checks this file against the headers (field names and order, sizes and
offsets through the system C compiler, every enum constant, every exported function's parameter
count), so an edit of a header that is not mirrored here fails the tests.
"""
import ctypes
import enum

c_int, c_size_t, c_void_p, c_char_p = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
c_uint32, c_uint64, c_int64, c_float = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int64, ctypes.c_float


# ---- enums: each class maps to one C typedef; a member's C name is `prefix + member name` ------
class Status(enum.IntEnum):
    SUCCESS = 0
    INTERNAL_ERROR = 1
    NOT_IMPLEMENTED = 2
    BAD_PARAM = 3
    NULL_POINTER = 4
    DEVICE_TYPE_NOT_SUPPORTED = 5
    DEVICE_NOT_FOUND = 6
    DEVICE_NOT_INITIALIZED = 7
    DEVICE_ARCHITECTURE_NOT_SUPPORTED = 8
    BAD_TENSOR_DTYPE = 10
    BAD_TENSOR_SHAPE = 11
    BAD_TENSOR_STRIDES = 12
    INSUFFICIENT_WORKSPACE = 13
    OUT_OF_MEMORY = 100
    INVALID_HANDLE = 101
    NOT_READY = 102
    BACKEND_UNAVAILABLE = 103
    DRIVER_ERROR = 104
    BUILD_FAILED = 105
    SYMBOL_NOT_FOUND = 106


class DeviceType(enum.IntEnum):
    CPU = 0
    NVIDIA = 1
    CAMBRICON = 2
    ASCEND = 3
    METAX = 4
    MOORE = 5
    ILUVATAR = 6
    KUNLUN = 7
    HYGON = 8
    QY = 9
    ALI = 10
    AMD = 11
    OPENCL = 12
    VULKAN = 13
    TYPE_COUNT = 14


class Dtype(enum.IntEnum):
    INVALID = 0
    BYTE = 1
    BOOL = 2
    I8 = 3
    I16 = 4
    I32 = 5
    I64 = 6
    U8 = 7
    U16 = 8
    U32 = 9
    U64 = 10
    F8 = 11
    F16 = 12
    F32 = 13
    F64 = 14
    C16 = 15
    C32 = 16
    C64 = 17
    C128 = 18
    BF16 = 19


class ResourceField(enum.IntFlag):
    NONE = 0
    MEMORY_CAPACITY = 1 << 0
    COMPUTE_UTILIZATION = 1 << 1
    MEMORY_BANDWIDTH_UTILIZATION = 1 << 2
    KERNEL_TIME_RATIO = 1 << 3
    COMMUNICATION = 1 << 4


class EventStatus(enum.IntEnum):
    COMPLETE = 0
    NOT_READY = 1


class EventFlags(enum.IntFlag):
    DEFAULT = 0x0
    DISABLE_TIMING = 0x1
    BLOCKING_SYNC = 0x2


class MemcpyKind(enum.IntEnum):
    H2H = 0
    H2D = 1
    D2H = 2
    D2D = 3
    DEFAULT = 4


class StreamCaptureMode(enum.IntEnum):
    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class BackendState(enum.IntEnum):
    LOADED = 0
    UNAVAILABLE = 1
    FAILED = 2
    SHADOWED = 3


class MemoryKind(enum.IntEnum):
    UNKNOWN = 0
    DEVICE = 1
    PINNED_HOST = 2
    HOST = 3


class MemGranularity(enum.IntEnum):
    MINIMUM = 0
    RECOMMENDED = 1


class ModuleFormat(enum.IntEnum):
    AUTO = 0
    PTX = 1
    CUBIN = 2
    FATBIN = 3
    HSACO = 4
    OPENCL_C = 5
    SPIRV = 6
    DEVICE_BINARY = 7
    HOST_SO = 8


class Limit(enum.IntEnum):
    STACK_SIZE = 0
    PRINTF_FIFO_SIZE = 1
    MALLOC_HEAP_SIZE = 2


class DeviceKind(enum.IntEnum):
    UNKNOWN = 0
    CPU = 1
    GPU = 2
    ACCELERATOR = 3


class KernelAttribute(enum.IntEnum):
    MAX_THREADS_PER_BLOCK = 0
    STATIC_SHARED_BYTES = 1
    PRIVATE_BYTES_PER_THREAD = 2
    NUM_REGISTERS = 3
    PREFERRED_BLOCK_MULTIPLE = 4
    MAX_DYNAMIC_SHARED_BYTES = 5
    NUM_PARAMS = 6


class KernelArgKind(enum.IntEnum):
    VALUE = 0
    POINTER = 1
    LOCAL = 2


class PeerAttribute(enum.IntEnum):
    ACCESS_SUPPORTED = 0
    NATIVE_ATOMICS_SUPPORTED = 1
    COPY_WITHOUT_STAGING = 2
    PERFORMANCE_RANK = 3


# C typedef name -> (Python enum, prefix of the C constants)
ENUMS = {
    "infiniStatus_t": (Status, "INFINI_STATUS_"),
    "infiniDevice_t": (DeviceType, "INFINI_DEVICE_"),
    "infiniDtype_t": (Dtype, "INFINI_DTYPE_"),
    "infinirtResourceField_t": (ResourceField, "INFINIRT_RESOURCE_FIELD_"),
    "infinirtEventStatus_t": (EventStatus, "INFINIRT_EVENT_"),
    "infinirtEventFlags_t": (EventFlags, "INFINIRT_EVENT_"),
    "infinirtMemcpyKind_t": (MemcpyKind, "INFINIRT_MEMCPY_"),
    "infinirtStreamCaptureMode_t": (StreamCaptureMode, "INFINIRT_STREAM_CAPTURE_MODE_"),
    "infinirtBackendState_t": (BackendState, "INFINIRT_BACKEND_"),
    "infinirtMemoryKind_t": (MemoryKind, "INFINIRT_MEMORY_"),
    "infinirtMemGranularity_t": (MemGranularity, "INFINIRT_MEM_GRANULARITY_"),
    "infinirtDeviceKind_t": (DeviceKind, "INFINIRT_DEVICE_KIND_"),
    "infinirtLimit_t": (Limit, "INFINIRT_LIMIT_"),
    "infinirtModuleFormat_t": (ModuleFormat, "INFINIRT_MODULE_FORMAT_"),
    "infinirtKernelAttribute_t": (KernelAttribute, "INFINIRT_KERNEL_ATTR_"),
    "infinirtKernelArgKind_t": (KernelArgKind, "INFINIRT_KERNEL_ARG_"),
    "infinirtPeerAttribute_t": (PeerAttribute, "INFINIRT_PEER_ATTR_"),
}

# #define constants
LAUNCH_COOPERATIVE = 0x1
HOST_REGISTER_READ_ONLY = 0x1
MEM_CREATE_SHAREABLE = 0x1
MEM_ACCESS_NONE = 0x0
MEM_ACCESS_READ = 0x1
MEM_ACCESS_READWRITE = 0x3
EVENT_INTERPROCESS = 0x4
DEFINES = {
    "INFINIRT_LAUNCH_COOPERATIVE": LAUNCH_COOPERATIVE,
    "INFINIRT_HOST_REGISTER_READ_ONLY": HOST_REGISTER_READ_ONLY,
    "INFINIRT_MEM_CREATE_SHAREABLE": MEM_CREATE_SHAREABLE,
    "INFINIRT_MEM_ACCESS_NONE": MEM_ACCESS_NONE,
    "INFINIRT_MEM_ACCESS_READ": MEM_ACCESS_READ,
    "INFINIRT_MEM_ACCESS_READWRITE": MEM_ACCESS_READWRITE,
    "INFINIRT_EVENT_INTERPROCESS": EVENT_INTERPROCESS,
}

# A C enum is an int on every ABI infinirt builds for.
c_enum = c_int


# ---- structs: `_c_name_` is the C typedef; field names are the C names ------------------------
class DeviceResourceSnapshot(ctypes.Structure):
    _c_name_ = "infinirtDeviceResourceSnapshot_t"
    _fields_ = [
        ("device_type", c_enum),
        ("device_id", c_int),
        ("valid_fields", c_uint64),
        ("estimated_fields", c_uint64),
        ("free_bytes", c_size_t),
        ("total_bytes", c_size_t),
        ("used_bytes", c_size_t),
        ("reserved_bytes", c_size_t),
        ("compute_utilization", c_float),
        ("memory_bandwidth_utilization", c_float),
        ("kernel_time_ratio", c_float),
        ("communication_time_ratio", c_float),
        ("communication_bytes", c_uint64),
    ]


class BackendInfo(ctypes.Structure):
    _c_name_ = "infinirtBackendInfo_t"
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", ctypes.c_char * 64),
        ("device_type", c_enum),
        ("path", ctypes.c_char * 1024),
        ("interface_version", c_uint32),
        ("device_count", c_int),
        ("state", c_enum),
        ("reason", ctypes.c_char * 512),
        ("host_staging_rank", c_int),
    ]


class DeviceProperties(ctypes.Structure):
    _c_name_ = "infinirtDeviceProperties_t"
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", ctypes.c_char * 256),
        ("vendor", ctypes.c_char * 128),
        ("platform", ctypes.c_char * 128),
        ("driver_version", ctypes.c_char * 64),
        ("total_memory", c_size_t),
        ("compute_capability_major", c_int),
        ("compute_capability_minor", c_int),
        ("architecture", ctypes.c_char * 64),
        ("multiprocessor_count", c_int),
        ("uuid", ctypes.c_ubyte * 16),
        ("has_uuid", c_int),
        ("pci_bus_id", ctypes.c_char * 32),
        ("device_kind", c_enum),
        ("clock_rate_khz", c_int),
        ("memory_clock_rate_khz", c_int),
        ("memory_bus_width_bits", c_int),
        ("cache_bytes", c_size_t),
        ("max_threads_per_block", c_int),
        ("max_block_dim", c_int * 3),
        ("max_grid_dim", c_int * 3),
        ("shared_memory_per_block", c_size_t),
        ("graphs_native", c_int),
        ("memory_is_host", c_int),
    ]


class PointerAttributes(ctypes.Structure):
    _c_name_ = "infinirtPointerAttributes_t"
    _fields_ = [
        ("struct_size", c_size_t),
        ("device_type", c_enum),
        ("device_id", c_int),
        ("kind", c_enum),
        ("base", c_void_p),
        ("size", c_size_t),
    ]


class ModuleImage(ctypes.Structure):
    _c_name_ = "infinirtModuleImage_t"
    _fields_ = [
        ("struct_size", c_size_t),
        ("format", c_enum),
        ("data", c_void_p),
        ("size", c_size_t),
        ("options", c_char_p),
    ]


class KernelArg(ctypes.Structure):
    _c_name_ = "infinirtKernelArg_t"
    _fields_ = [
        ("kind", c_enum),
        ("size", c_size_t),
        ("value", c_void_p),
    ]


class LaunchConfig(ctypes.Structure):
    _c_name_ = "infinirtLaunchConfig_t"
    _fields_ = [
        ("struct_size", c_size_t),
        ("grid", c_uint32 * 3),
        ("block", c_uint32 * 3),
        ("dynamic_shared_bytes", c_size_t),
        ("flags", c_uint32),
        ("cluster", c_uint32 * 3),
    ]


class IpcMemHandle(ctypes.Structure):
    _c_name_ = "infinirtIpcMemHandle_t"
    _fields_ = [("bytes", ctypes.c_ubyte * 128)]


class IpcEventHandle(ctypes.Structure):
    _c_name_ = "infinirtIpcEventHandle_t"
    _fields_ = [("bytes", ctypes.c_ubyte * 128)]


STRUCTS = [DeviceResourceSnapshot, BackendInfo, DeviceProperties, PointerAttributes, ModuleImage, KernelArg,
           LaunchConfig, IpcMemHandle, IpcEventHandle]

# ---- functions: name -> (restype, argtypes) -----------------------------------------------------
_st = c_enum  # infiniStatus_t
_p = ctypes.POINTER
_vp = c_void_p
_pvp = _p(c_void_p)

FUNCTIONS = {
    "infinirtInit": (_st, []),
    "infinirtGetAllDeviceCount": (_st, [_p(c_int)]),
    "infinirtGetAllDeviceCountSized": (_st, [_p(c_int), c_int]),
    "infinirtGetDeviceCount": (_st, [c_enum, _p(c_int)]),
    "infinirtSetDevice": (_st, [c_enum, c_int]),
    "infinirtGetDevice": (_st, [_p(c_enum), _p(c_int)]),
    "infinirtGetMemInfo": (_st, [c_enum, c_int, _p(c_size_t), _p(c_size_t)]),
    "infinirtGetDeviceResourceSnapshot": (_st, [c_enum, c_int, _p(DeviceResourceSnapshot)]),
    "infinirtDeviceSynchronize": (_st, []),
    "infinirtPushDevice": (_st, [c_enum, c_int]),
    "infinirtPopDevice": (_st, [_p(c_enum), _p(c_int)]),
    "infinirtDeviceGetLimit": (_st, [_p(c_size_t), c_enum, c_int, c_enum]),
    "infinirtDeviceSetLimit": (_st, [c_enum, c_int, c_enum, c_size_t]),
    "infinirtDeviceGetStreamPriorityRange": (_st, [_p(c_int), _p(c_int), c_enum, c_int]),
    "infinirtStreamCreateWithPriority": (_st, [_pvp, c_int]),
    "infinirtStreamGetPriority": (_st, [_p(c_int), _vp]),
    "infinirtDeviceReset": (_st, [c_enum, c_int]),
    "infinirtDeviceGetResetCount": (_st, [c_enum, c_int, _p(c_uint64)]),
    "infinirtDeviceAddResetCallback": (_st, [_vp, _vp]),
    "infinirtStreamCreate": (_st, [_pvp]),
    "infinirtStreamDestroy": (_st, [_vp]),
    "infinirtStreamSynchronize": (_st, [_vp]),
    "infinirtStreamWaitEvent": (_st, [_vp, _vp]),
    "infinirtEventCreate": (_st, [_pvp]),
    "infinirtEventCreateWithFlags": (_st, [_pvp, c_uint32]),
    "infinirtEventRecord": (_st, [_vp, _vp]),
    "infinirtEventQuery": (_st, [_vp, _p(c_enum)]),
    "infinirtEventSynchronize": (_st, [_vp]),
    "infinirtEventDestroy": (_st, [_vp]),
    "infinirtEventElapsedTime": (_st, [_p(c_float), _vp, _vp]),
    "infinirtMalloc": (_st, [_pvp, c_size_t]),
    "infinirtMallocHost": (_st, [_pvp, c_size_t]),
    "infinirtFree": (_st, [_vp]),
    "infinirtFreeHost": (_st, [_vp]),
    "infinirtMemcpy": (_st, [_vp, _vp, c_size_t, c_enum]),
    "infinirtMemcpyAsync": (_st, [_vp, _vp, c_size_t, c_enum, _vp]),
    "infinirtMallocAsync": (_st, [_pvp, c_size_t, _vp]),
    "infinirtFreeAsync": (_st, [_vp, _vp]),
    "infinirtMemset": (_st, [_vp, c_int, c_size_t]),
    "infinirtMemsetAsync": (_st, [_vp, c_int, c_size_t, _vp]),
    "infinirtStreamBeginCapture": (_st, [_vp, c_enum]),
    "infinirtStreamEndCapture": (_st, [_vp, _pvp]),
    "infinirtGraphDestroy": (_st, [_vp]),
    "infinirtGraphInstantiate": (_st, [_pvp, _vp, _pvp, ctypes.c_char_p, c_size_t]),
    "infinirtGraphExecDestroy": (_st, [_vp]),
    "infinirtGraphLaunch": (_st, [_vp, _vp]),
    "infinirtGraphLuanch": (_st, [_vp, _vp]),
    "infinirtGetErrorName": (c_char_p, [c_enum]),
    "infinirtGetErrorString": (c_char_p, [c_enum]),
    "infinirtGetDeviceTypeName": (c_char_p, [c_enum]),
    "infinirtGetLastErrorMessage": (c_char_p, []),
    "infinirtSetLastErrorMessage": (_st, [c_enum, c_char_p]),
    "infinirtGetBackendCount": (_st, [_p(c_int)]),
    "infinirtGetBackendInfo": (_st, [c_int, _p(BackendInfo)]),
    "infinirtGetDeviceProperties": (_st, [c_enum, c_int, _p(DeviceProperties)]),
    "infinirtStreamQuery": (_st, [_vp]),
    "infinirtStreamGetDevice": (_st, [_vp, _p(c_enum), _p(c_int)]),
    "infinirtPointerGetAttributes": (_st, [_p(PointerAttributes), _vp]),
    "infinirtGetLiveAllocations": (_st, [_p(c_size_t), _p(c_size_t)]),
    "infinirtHostRegister": (_st, [c_enum, c_int, _vp, c_size_t, c_uint32]),
    "infinirtHostUnregister": (_st, [_vp]),
    "infinirtMemGetAllocationGranularity": (_st, [_p(c_size_t), c_enum, c_int, c_enum]),
    "infinirtMemAddressReserve": (_st, [_pvp, c_enum, c_int, c_size_t, c_size_t]),
    "infinirtMemAddressFree": (_st, [_vp, c_size_t]),
    "infinirtMemCreate": (_st, [_pvp, c_enum, c_int, c_size_t, c_uint32]),
    "infinirtMemRelease": (_st, [_vp]),
    "infinirtMemMap": (_st, [_vp, c_size_t, _vp, c_size_t]),
    "infinirtMemUnmap": (_st, [_vp, c_size_t]),
    "infinirtMemSetAccess": (_st, [_vp, c_size_t, c_enum, c_int, c_uint32]),
    "infinirtIpcGetMemHandle": (_st, [_p(IpcMemHandle), _vp]),
    "infinirtIpcOpenMemHandle": (_st, [_pvp, c_enum, c_int, _p(IpcMemHandle)]),
    "infinirtIpcCloseMemHandle": (_st, [_vp]),
    "infinirtIpcGetEventHandle": (_st, [_p(IpcEventHandle), _vp]),
    "infinirtIpcOpenEventHandle": (_st, [_pvp, _p(IpcEventHandle)]),
    "infinirtStreamGetNativeHandle": (_st, [_vp, _pvp]),
    "infinirtEventGetNativeHandle": (_st, [_vp, _pvp]),
    "infinirtDeviceGetNativeContext": (_st, [c_enum, c_int, _pvp]),
    "infinirtModuleLoad": (_st, [_pvp, c_enum, c_int, _p(ModuleImage), c_size_t, ctypes.c_char_p, c_size_t]),
    "infinirtModuleLoadFile": (_st, [_pvp, c_enum, c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, c_size_t]),
    "infinirtModuleUnload": (_st, [_vp]),
    "infinirtModuleGetKernel": (_st, [_pvp, _vp, c_char_p]),
    "infinirtModuleGetGlobal": (_st, [_pvp, _p(c_size_t), _vp, c_char_p]),
    "infinirtKernelGetAttribute": (_st, [_p(c_int64), c_enum, _vp]),
    "infinirtKernelSetAttribute": (_st, [_vp, c_enum, c_int64]),
    "infinirtLaunchKernel": (_st, [_vp, _p(LaunchConfig), _p(KernelArg), c_uint32, _vp]),
    "infinirtDeviceCanAccessPeer": (_st, [_p(c_int), c_enum, c_int, c_enum, c_int]),
    "infinirtDeviceGetPeerAttribute": (_st, [_p(c_int), c_enum, c_enum, c_int, c_enum, c_int]),
    "infinirtDeviceEnablePeerAccess": (_st, [c_enum, c_int, c_enum, c_int, c_uint32]),
    "infinirtDeviceDisablePeerAccess": (_st, [c_enum, c_int, c_enum, c_int]),
    "infinirtMemcpyPeer": (_st, [_vp, c_enum, c_int, _vp, c_enum, c_int, c_size_t]),
    "infinirtMemcpyPeerAsync": (_st, [_vp, c_enum, c_int, _vp, c_enum, c_int, c_size_t, _vp]),
}
