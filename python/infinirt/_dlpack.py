"""DLPack in ctypes: dlpack.h's layouts, the PyCapsule calls, and the producer: View, the typed
window Buffer.view() gives, and its __dlpack__ (the consumer, from_dlpack, is _from_dlpack.py).

Layouts are DLPack's (dlpack.h): DLManagedTensor of v0.8, exchanged in a PyCapsule named
"dltensor" (renamed "used_dltensor" by the consumer that takes it), and DLManagedTensorVersioned
of v1.x in "dltensor_versioned", produced when the consumer passes max_version >= (1, 0).
"""
import ctypes
import gc
import sys
import threading

# ---- dlpack.h -----------------------------------------------------------------------------
kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal, kDLVPI, kDLROCM, kDLROCMHost = \
    1, 2, 3, 4, 7, 8, 9, 10, 11
kDLCUDAManaged, kDLOneAPI = 13, 14
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 4, 5, 6
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_VERSION = (1, 0)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


# void (*deleter)(struct DLManagedTensor *self): the argument is taken as an address.
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# ---- PyCapsule through the C API ---------------------------------------------------------------
_api = ctypes.pythonapi
_PyCapsule_New = _api.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_PyCapsule_GetPointer = _api.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetName = _api.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]
_PyCapsule_SetName = _api.PyCapsule_SetName
_PyCapsule_SetName.restype = ctypes.c_int
_PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
# Capsule names must outlive every capsule: PyCapsule keeps the char pointer, not a copy.
_NAMES = {n: ctypes.create_string_buffer(n) for n in
          (b"dltensor", b"used_dltensor", b"dltensor_versioned", b"used_dltensor_versioned")}


def _name(n):
    return ctypes.addressof(_NAMES[n])


# ---- producer ------------------------------------------------------------------------------
_exports_lock = threading.Lock()
_exports = {}  # address of a DLManagedTensor(Versioned) we made -> its _Export


class _Export:
    """What one produced tensor keeps alive: the struct, its shape, the View (and so the Buffer)."""

    def __init__(self, view, versioned, readonly):
        self.view = view
        n = len(view.shape)
        self.shape = (ctypes.c_int64 * max(n, 1))(*view.shape)
        if versioned:
            m = self.managed = DLManagedTensorVersioned()
            m.version.major, m.version.minor = DLPACK_VERSION
            m.flags = DLPACK_FLAG_BITMASK_READ_ONLY if readonly else 0
        else:
            m = self.managed = DLManagedTensor()
        t = m.dl_tensor
        t.data = view.buffer.ptr
        t.byte_offset = view.offset
        t.device.device_type, t.device.device_id = view.__dlpack_device__()
        t.ndim = n
        t.dtype.code, t.dtype.bits, t.dtype.lanes = view._dl_dtype
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = None  # compact row-major
        m.deleter = ctypes.cast(_deleter, ctypes.c_void_p).value
        self.address = ctypes.addressof(m)


def _release_export(address):
    with _exports_lock:
        export = _exports.pop(address, None)
    if export is not None:
        buf = export.view.buffer
        with buf._lock:
            buf._exports -= 1


# The consumer calls the deleter when it is done with a tensor it took. A capsule that no consumer
# took must release its tensor when it dies, but a capsule destructor written in Python (a ctypes
# callback) runs while the consumer's error is pending (a consumer refusing a tensor drops the
# capsule before returning its error) and would replace that error. So capsules get no
# destructor: the package keeps a reference to each capsule it made until only that reference
# is left, then releases the tensor if the capsule still carries its unused name. sweep() does
# that: at each export, in Buffer.free(), and after each garbage collection.
_capsules = {}  # address -> the capsule made for it, until a sweep finds it dropped


def sweep():
    """Releases the tensors of capsules that every consumer dropped without taking them."""
    with _exports_lock:
        # getrefcount(_capsules[a]) is 2 (the dict's reference and the argument's) when nobody
        # else holds the capsule.
        dropped = [a for a in list(_capsules) if sys.getrefcount(_capsules[a]) <= 2]
        dropped = [(a, _capsules.pop(a)) for a in dropped]
    for address, capsule in dropped:
        if _PyCapsule_GetName(capsule) in (b"dltensor", b"dltensor_versioned"):
            _release_export(address)  # never taken; a taken one is released by its deleter


def _gc_callback(phase, info):
    if phase == "stop" and _capsules:
        try:
            sweep()
        except Exception:
            pass


gc.callbacks.append(_gc_callback)


def _deleter_impl(address):
    try:
        _release_export(address)
    except Exception:  # never let an exception cross into the consumer's C code
        pass


_deleter = DELETER(_deleter_impl)
# Consumers may call the deleter while the interpreter shuts down: the callback is made immortal
# so its C entry point stays valid for the whole process.
_api.Py_IncRef.argtypes = [ctypes.py_object]
_api.Py_IncRef(_deleter)


def export(view, stream, max_version, dl_device, copy):
    """The capsule for View.__dlpack__ (see there)."""
    sweep()
    buf = view.buffer
    if copy:
        raise BufferError("infinirt views are exported without a copy (copy=True refused)")
    if dl_device is not None and tuple(dl_device) != tuple(view.__dlpack_device__()):
        raise BufferError("the view is on DLPack device %r; %r was asked for"
                          % (view.__dlpack_device__(), tuple(dl_device)))
    if stream != -1:
        # Data written by infinirt work still queued must be complete for the consumer (whatever
        # its stream): wait for the buffer's device.
        buf.device.synchronize()
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    e = _Export(view, versioned, buf.readonly)
    with buf._lock:
        if buf._freed:
            raise BufferError("the Buffer was freed")
        buf._exports += 1
    with _exports_lock:
        _exports[e.address] = e
    name = b"dltensor_versioned" if versioned else b"dltensor"
    try:
        capsule = _PyCapsule_New(e.address, _name(name), None)
    except BaseException:
        _release_export(e.address)
        raise
    with _exports_lock:
        _capsules[e.address] = capsule
    return capsule


# ---- views ---------------------------------------------------------------------------------
_DTYPES = {
    "bool": (kDLBool, 8), "int8": (kDLInt, 8), "int16": (kDLInt, 16), "int32": (kDLInt, 32),
    "int64": (kDLInt, 64), "uint8": (kDLUInt, 8), "uint16": (kDLUInt, 16), "uint32": (kDLUInt, 32),
    "uint64": (kDLUInt, 64), "float16": (kDLFloat, 16), "float32": (kDLFloat, 32),
    "float64": (kDLFloat, 64), "bfloat16": (kDLBfloat, 16), "complex64": (kDLComplex, 64),
    "complex128": (kDLComplex, 128),
}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "f2": "float16", "f4": "float32",
            "f8": "float64", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8",
            "u2": "uint16", "u4": "uint32", "u8": "uint64", "b1": "bool", "c8": "complex64",
            "c16": "complex128", "?": "bool", "byte": "uint8"}


def dtype_name(dtype):
    """The canonical name of a dtype given as a name ("float32", "f4"), a NumPy dtype or scalar
    type, or a PyTorch dtype."""
    if isinstance(dtype, str):
        name = dtype
    elif isinstance(dtype, type):
        name = dtype.__name__  # numpy.float32 (the type)
    elif hasattr(dtype, "name") and isinstance(dtype.name, str):
        name = dtype.name  # numpy.dtype
    else:
        name = str(dtype)  # torch.float32
    name = name.lower().replace("torch.", "").lstrip("<>=|")
    name = _ALIASES.get(name, name)
    if name not in _DTYPES:
        raise TypeError("unsupported dtype %r (supported: %s)" % (dtype, ", ".join(sorted(_DTYPES))))
    return name


def _dl_device_of(buf):
    t = buf.device.type
    if buf.is_host or t == "cpu":
        return kDLCPU, 0
    if t == "nvidia":
        return kDLCUDA, buf.device.index
    if t == "amd":
        return kDLROCM, buf.device.index
    if t == "opencl":
        return kDLOpenCL, buf.device.index
    if t == "vulkan":
        return kDLVulkan, buf.device.index
    raise BufferError("DLPack has no device type for %s memory" % t)


class View:
    """A typed, C-contiguous window on a Buffer, exchanged with DLPack (keeps the Buffer alive)."""

    def __init__(self, buffer, dtype, shape, offset):
        self.buffer = buffer
        self.dtype = dtype_name(dtype)
        code, bits = _DTYPES[self.dtype]
        self._dl_dtype = (code, bits, 1)
        self.itemsize = bits // 8
        self.offset = int(offset)
        if not 0 <= self.offset <= buffer.nbytes:
            raise ValueError("view: offset %d is outside the Buffer's %d bytes" % (self.offset, buffer.nbytes))
        if shape is None:
            shape = ((buffer.nbytes - self.offset) // self.itemsize,)
        elif isinstance(shape, int):
            shape = (shape,)
        self.shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in self.shape):
            raise ValueError("view: negative dimension in %r" % (self.shape,))
        count = 1
        for n in self.shape:
            count *= n
        self.nbytes = count * self.itemsize
        if self.offset + self.nbytes > buffer.nbytes:
            raise ValueError("view: %s %r at offset %d needs %d bytes, the Buffer has %d"
                             % (self.dtype, self.shape, self.offset, self.offset + self.nbytes, buffer.nbytes))
        _dl_device_of(buffer)  # refuse memory DLPack cannot name now, not at export

    @property
    def ptr(self):
        return self.buffer.ptr + self.offset

    @property
    def device(self):
        return self.buffer.device

    def __dlpack_device__(self):
        return _dl_device_of(self.buffer)

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """A PyCapsule with the tensor. stream: the consumer's stream (None, or -1 for "do not
        synchronise"; any other value: infinirt first waits for the buffer's device, so data
        written by queued work is there). max_version >= (1, 0) gives a versioned capsule
        ("dltensor_versioned"), else "dltensor". copy=True is refused (BufferError)."""
        return export(self, stream, max_version, dl_device, copy)

    def __repr__(self):
        return "<infinirt.View %s%r of %r>" % (self.dtype, self.shape, self.buffer)
