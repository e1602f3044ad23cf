"""Modules and kernels: load device code, launch it with Python arguments."""
import ctypes

from . import _abi
from ._abi import KernelArgKind, KernelAttribute, ModuleFormat, Status
from ._errors import BuildFailedError, call, error_for
from ._lib import library
from ._buffer import Buffer
from ._dlpack import View
from ._runtime import _device_arg, _on, _Owner, _stream_handle

_LOG_BYTES = 64 * 1024


def _format(fmt):
    if isinstance(fmt, str):
        key = fmt.strip().upper().replace("-", "_")
        key = {"OPENCL": "OPENCL_C", "CL": "OPENCL_C", "SO": "HOST_SO", "SPIR_V": "SPIRV"}.get(key, key)
        try:
            return ModuleFormat[key]
        except KeyError:
            raise ValueError("unknown module format %r (known: %s)"
                             % (fmt, ", ".join(f.name.lower() for f in ModuleFormat))) from None
    return ModuleFormat(int(fmt))


def _image_bytes(image):
    if isinstance(image, str):
        return image.encode("utf-8")
    if isinstance(image, (bytes, bytearray, memoryview)):
        return bytes(image)
    raise TypeError("a module image is bytes or str (source text), not %s" % type(image).__name__)


class Module(_Owner):
    """Device code loaded onto `device` (default: the current device).

    image: bytes (PTX, cubin, fatbin, SPIR-V, a cpu shared object, ...) or str (OpenCL C or PTX
    text), or a list of them to link into one module. format: "auto" (sniffed), "ptx", "cubin",
    "fatbin", "hsaco", "opencl_c", "spirv", "device_binary", "host_so" or a ModuleFormat.
    options: build/JIT options (str). .log has the build log; a failed build raises
    BuildFailedError with the log in .log.
    """
    _destroy = "infinirtModuleUnload"
    _what = "Module"

    def __init__(self, image, format="auto", device=None, options=None):
        self.device = _device_arg(device)
        fmt = _format(format)
        images = image if isinstance(image, (list, tuple)) else [image]
        if not images:
            raise ValueError("Module: no image")
        datas = [_image_bytes(i) for i in images]
        opts = options.encode("utf-8") if isinstance(options, str) else options
        arr = (_abi.ModuleImage * len(datas))()
        for slot, data in zip(arr, datas):
            slot.struct_size = ctypes.sizeof(_abi.ModuleImage)
            slot.format = int(fmt)
            slot.data = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p)
            slot.size = len(data)
            slot.options = opts
        log = ctypes.create_string_buffer(_LOG_BYTES)
        h = ctypes.c_void_p()
        status = library().infinirtModuleLoad(ctypes.byref(h), self.device.type_id, self.device.index, arr,
                                              len(datas), log, len(log))
        self.log = log.value.decode("utf-8", "replace")
        if status != Status.SUCCESS:
            err = error_for(status, "infinirtModuleLoad")
            if isinstance(err, BuildFailedError):
                err.log = self.log
            raise err
        self._own(h.value)
        self._kernels = {}

    def kernel(self, name):
        """The kernel `name` (SymbolNotFoundError if there is none)."""
        k = self._kernels.get(name)
        if k is None:
            h = ctypes.c_void_p()
            call("infinirtModuleGetKernel", ctypes.byref(h), self._h(), name.encode("utf-8"))
            k = self._kernels[name] = Kernel(self, name, h.value)
        return k

    def get_global(self, name):
        """The module variable `name` as a Buffer (read and written with copy_to/copy_from; it
        lives as long as the module, and keeps the module alive)."""
        p, size = ctypes.c_void_p(), ctypes.c_size_t()
        call("infinirtModuleGetGlobal", ctypes.byref(p), ctypes.byref(size), self._h(), name.encode("utf-8"))
        return Buffer(p.value, size.value, self.device, "global", owner=self)

    def unload(self):
        """Unloads now (kernels taken from it become invalid); again: does nothing."""
        self.close()

    def __repr__(self):
        return "<infinirt.Module on %s%s>" % (self.device, " unloaded" if self.closed else "")


class LocalMemory:
    """A LOCAL kernel argument: `nbytes` of per-block shared memory."""

    def __init__(self, nbytes):
        if int(nbytes) <= 0:
            raise ValueError("LocalMemory: %r bytes" % (nbytes,))
        self.nbytes = int(nbytes)

    def __repr__(self):
        return "LocalMemory(%d)" % self.nbytes


def _dims(v, what):
    if isinstance(v, int):
        v = (v,)
    v = tuple(int(x) for x in v)
    if not 1 <= len(v) <= 3:
        raise ValueError("%s: 1 to 3 dimensions, not %r" % (what, v))
    return v + (1,) * (3 - len(v))


def _attr(a):
    if isinstance(a, str):
        return KernelAttribute[a.upper()]
    return KernelAttribute(int(a))


class Kernel:
    """An entry point of a Module (keeps the module loaded)."""

    def __init__(self, module, name, handle):
        self.module = module
        self.name = name
        self._handle = handle

    @property
    def device(self):
        return self.module.device

    @property
    def handle(self):
        self.module._h()
        return self._handle

    def attribute(self, attr):
        """An infinirtKernelAttribute_t ("max_threads_per_block", "num_params", ...)."""
        v = ctypes.c_int64()
        call("infinirtKernelGetAttribute", ctypes.byref(v), int(_attr(attr)), self.handle)
        return v.value

    def attributes(self):
        return {a.name.lower(): self.attribute(a) for a in KernelAttribute}

    def set_attribute(self, attr, value):
        call("infinirtKernelSetAttribute", self.handle, int(_attr(attr)), int(value))

    def launch(self, grid, block, *args, shared=0, stream=None, cooperative=False, cluster=None):
        """Runs the kernel on `stream` (None: the kernel's device's default stream).

        grid, block: an int or 1 to 3 ints. Arguments, in order: a Buffer, a View, an int (an
        address) or None -> POINTER; LocalMemory(n) -> LOCAL; a NumPy scalar, a ctypes value
        (c_float, a Structure...) or bytes -> VALUE, its bytes as they are. A Python float or
        bool is refused (say which C type: numpy.float32(x), ctypes.c_double(x)).
        shared: dynamic shared memory bytes.
        """
        cfg = _abi.LaunchConfig()
        cfg.struct_size = ctypes.sizeof(cfg)
        cfg.grid[:] = _dims(grid, "grid")
        cfg.block[:] = _dims(block, "block")
        cfg.dynamic_shared_bytes = int(shared)
        cfg.flags = _abi.LAUNCH_COOPERATIVE if cooperative else 0
        if cluster is not None:
            cfg.cluster[:] = _dims(cluster, "cluster")
        argv = (_abi.KernelArg * max(len(args), 1))()
        keep = []
        buffers = []
        for i, a in enumerate(args):
            slot = argv[i]
            kind, size, value = _convert(i, a, buffers)
            slot.kind, slot.size = int(kind), size
            if value is not None:
                keep.append(value)
                slot.value = ctypes.cast(value, ctypes.c_void_p)
        h = self.handle
        if stream is None:
            with _on(self.device):
                status = library().infinirtLaunchKernel(h, ctypes.byref(cfg), argv, len(args), None)
        else:
            status = library().infinirtLaunchKernel(h, ctypes.byref(cfg), argv, len(args),
                                                    _stream_handle(stream))
            if status == Status.SUCCESS:
                stream._hold((self.module, buffers))
        if status != Status.SUCCESS:
            raise error_for(status, "infinirtLaunchKernel(%s)" % self.name)

    def __call__(self, grid, block, *args, **kw):
        return self.launch(grid, block, *args, **kw)

    def __repr__(self):
        return "<infinirt.Kernel %s on %s>" % (self.name, self.device)


def _convert(i, a, buffers):
    """(kind, size, ctypes object holding the value or None) for argument i."""
    P = KernelArgKind.POINTER
    if isinstance(a, Buffer):
        buffers.append(a)
        return P, ctypes.sizeof(ctypes.c_void_p), ctypes.pointer(ctypes.c_void_p(a.ptr))
    if isinstance(a, View):
        buffers.append(a)
        return P, ctypes.sizeof(ctypes.c_void_p), ctypes.pointer(ctypes.c_void_p(a.ptr))
    if a is None:
        return P, ctypes.sizeof(ctypes.c_void_p), ctypes.pointer(ctypes.c_void_p(None))
    if isinstance(a, LocalMemory):
        return KernelArgKind.LOCAL, a.nbytes, None
    if isinstance(a, bool):
        raise TypeError("kernel argument %d: a Python bool is ambiguous; pass numpy.bool_ or ctypes.c_bool/"
                        "c_int" % i)
    if isinstance(a, int):
        return P, ctypes.sizeof(ctypes.c_void_p), ctypes.pointer(ctypes.c_void_p(a))
    if isinstance(a, float):
        raise TypeError("kernel argument %d: a Python float is ambiguous; pass numpy.float32(x), "
                        "numpy.float64(x) or a ctypes value" % i)
    if isinstance(a, (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array)):
        data = ctypes.string_at(ctypes.addressof(a), ctypes.sizeof(a))
    elif isinstance(a, (bytes, bytearray)):
        data = bytes(a)
    elif type(a).__module__ == "numpy" and getattr(a, "ndim", None) == 0 and hasattr(a, "tobytes"):
        data = a.tobytes()
    else:
        raise TypeError("kernel argument %d: cannot pass %s (Buffer, View, int address, None, LocalMemory, "
                        "NumPy scalar, ctypes value or bytes)" % (i, type(a).__name__))
    if not data:
        raise ValueError("kernel argument %d: a value of 0 bytes" % i)
    return KernelArgKind.VALUE, len(data), ctypes.create_string_buffer(data, len(data))
