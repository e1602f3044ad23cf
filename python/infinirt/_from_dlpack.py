"""The DLPack consumer: from_dlpack, a Buffer over another library's tensor (NumPy, PyTorch...),
without a copy; the layouts and capsule calls are _dlpack.py's."""
from . import _handles
from ._buffer import Buffer
from ._dlpack import DELETER, DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_VERSION, DLManagedTensor, \
    DLManagedTensorVersioned, _PyCapsule_GetName, _PyCapsule_GetPointer, _PyCapsule_SetName, _name, kDLCPU, \
    kDLCUDA, kDLCUDAHost, kDLCUDAManaged, kDLOpenCL, kDLROCM, kDLROCMHost, kDLVulkan
from ._errors import call
from ._runtime import Device, _on


def _call_deleter(deleter, address):
    if deleter and not _handles.forked():
        try:
            DELETER(deleter)(address)
        except Exception:
            pass


def _compact(shape, strides):
    if not strides:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def from_dlpack(obj):
    """A Buffer over the memory of `obj` (anything with __dlpack__ and __dlpack_device__: a
    NumPy array, a PyTorch tensor...), without a copy. The Buffer keeps `obj` alive and gives the
    tensor back to its producer when freed; it must be C-contiguous."""
    return consume(obj)[0]


def consume(obj):
    """from_dlpack's Buffer, with the tensor's element type as DLPack gives it: (code, bits, lanes)."""
    if not hasattr(obj, "__dlpack__") or not hasattr(obj, "__dlpack_device__"):
        raise TypeError("from_dlpack: %s has no __dlpack__/__dlpack_device__" % type(obj).__name__)
    dl_type, dl_id = (int(v) for v in obj.__dlpack_device__())
    if dl_type in (kDLCPU, kDLCUDAHost, kDLROCMHost):
        device, host, stream = Device("cpu:0"), True, None
    elif dl_type in (kDLCUDA, kDLCUDAManaged):
        device, host, stream = Device("nvidia", dl_id), False, 1  # 1: CUDA's legacy default stream
    elif dl_type == kDLROCM:
        device, host, stream = Device("amd", dl_id), False, 0  # 0: HIP's null stream
    elif dl_type == kDLOpenCL:
        device, host, stream = Device("opencl", dl_id), False, None
    elif dl_type == kDLVulkan:
        device, host, stream = Device("vulkan", dl_id), False, None
    else:
        raise BufferError("from_dlpack: DLPack device type %d has no infinirt device" % dl_type)
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=DLPACK_VERSION)
    except TypeError:  # a producer older than DLPack 2023.12 (no max_version)
        capsule = obj.__dlpack__(stream=stream)
    name = _PyCapsule_GetName(capsule)
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise BufferError("from_dlpack: __dlpack__ gave a capsule named %r" % name)
    address = _PyCapsule_GetPointer(capsule, name)
    versioned = name == b"dltensor_versioned"
    if versioned:
        m = DLManagedTensorVersioned.from_address(address)
        if m.version.major != DLPACK_VERSION[0]:
            # Not ours to read: left unconsumed, the producer's capsule destructor frees it.
            raise BufferError("from_dlpack: DLPack %d.%d is not supported (major %d only)"
                              % (m.version.major, m.version.minor, DLPACK_VERSION[0]))
        readonly = bool(m.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
    else:
        m = DLManagedTensor.from_address(address)
        readonly = False
    if _PyCapsule_SetName(capsule, _name(b"used_" + name)) != 0:
        raise BufferError("from_dlpack: the capsule could not be marked used")
    deleter = m.deleter
    try:
        t = m.dl_tensor
        shape = [t.shape[i] for i in range(t.ndim)]
        strides = [t.strides[i] for i in range(t.ndim)] if t.strides else None
        if not _compact(shape, strides):
            raise BufferError("from_dlpack: the tensor is not C-contiguous (shape %r, strides %r)"
                              % (shape, strides))
        count = 1
        for n in shape:
            count *= n
        nbytes = count * ((t.dtype.bits * t.dtype.lanes + 7) // 8)
        ptr = (t.data or 0) + t.byte_offset
        if stream is not None:
            # The producer made the data ready on the device's default stream: wait for it there,
            # so work on any infinirt stream sees it.
            with _on(device):
                call("infinirtStreamSynchronize", None)
    except BaseException:
        _call_deleter(deleter, address)
        raise
    kind = "foreign-host" if host else "foreign-device"
    return Buffer(ptr, nbytes, device, kind,
                  lambda b: _handles.register_call(b, _call_deleter, deleter, address),
                  owner=obj, readonly=readonly), (t.dtype.code, t.dtype.bits, t.dtype.lanes)
