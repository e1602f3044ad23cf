"""Modules and kernels: load device code, launch it with Python arguments."""
import ctypes

from . import _abi
from ._abi import KernelAttribute, ModuleFormat, Status
from ._errors import BuildFailedError, call, error_for
from ._kernel_args import prepare
from ._lib import library
from ._buffer import Buffer
from ._runtime import Stream, _device_arg, _on, _Owner, _stream_handle

_LOG_BYTES = 64 * 1024
_CONFIGS_KEPT = 64  # launch configurations kept per kernel (more: the table starts over)


def _raw_launch():
    """infinirtLaunchKernel without argument conversion: every argument is passed as a ctypes
    value made in advance (the handle, byref(config), the array, the count, the stream), which
    ctypes hands over as it is instead of converting each one per call."""
    f = library()["infinirtLaunchKernel"]  # a function object of its own: its argtypes are ours
    f.argtypes = None
    f.restype = ctypes.c_int
    return f


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
        self._launch = _raw_launch()
        self._c_handle = ctypes.c_void_p(handle)
        self._configs = {}  # (grid, block, ...) -> byref(LaunchConfig); the C call checks it every time
        self._last = (None, None, None, None, None, None)  # grid, block, shared, cooperative, cluster, config
        self._ready = []  # the plan of the latest launch's argument types, while no launch uses it
        self._plans = {}  # tuple of argument types -> ArgPlan, for the types of earlier launches

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

        The launch configuration and the argument array are prepared once per configuration and
        per tuple of argument types (_kernel_args.prepare); a call then only writes its values.
        """
        # The same objects as the latest launch's: its configuration (no key to build or hash).
        last = self._last
        if (grid is last[0] and block is last[1] and shared is last[2] and cooperative is last[3]
                and cluster is last[4]):
            cfg = last[5]
        else:
            # Types in the key: 1.0 == 1, but a float grid is refused where an int one is not.
            key = (type(grid), grid, type(block), block, shared, cooperative, type(cluster), cluster)
            try:
                cfg = self._configs[key]
            except (KeyError, TypeError):  # TypeError: an unhashable grid (a list), never kept
                cfg = self._config(key, grid, block, shared, cooperative, cluster)
            self._last = (grid, block, shared, cooperative, cluster, cfg)
        try:
            plan = self._ready.pop()  # taken: no other thread writes its array meanwhile
        except IndexError:
            plan = None
        argv = None if plan is None else plan.fill(args)
        if argv is None:
            plan = self._plan_for(args, plan)
            argv = plan.fill(args)
        # A closed module's kernel or a closed stream is refused by the C call (its handle is
        # dead): the Python checks, which name the closed object, run only after a failure.
        module = self.module
        if stream is None:
            with _on(module.device):
                status = self._launch(self._c_handle, cfg, argv, plan.c_count, None)
        else:
            sh = stream._c_handle if type(stream) is Stream else ctypes.c_void_p(_stream_handle(stream))
            status = self._launch(self._c_handle, cfg, argv, plan.c_count, sh)
            if status == 0:
                stream._keep.append((module, args))  # Stream._hold, without a call
        self._ready.append(plan)
        if status != 0:
            module._h()
            _stream_handle(stream)
            raise error_for(status, "infinirtLaunchKernel(%s)" % self.name)

    def _plan_for(self, args, other):
        """The ArgPlan for the types of `args` (prepared the first time), taken out of the table;
        `other`, the ready plan of other types (or None), is put into the table."""
        if other is not None:
            self._plans[other.types] = other
        return self._plans.pop(tuple(map(type, args)), None) or prepare(args)

    def _config(self, key, grid, block, shared, cooperative, cluster):
        """byref(the infinirtLaunchConfig_t of these launch parameters), kept under `key` for the
        next calls."""
        cfg = _abi.LaunchConfig()
        cfg.struct_size = ctypes.sizeof(cfg)
        cfg.grid[:] = _dims(grid, "grid")
        cfg.block[:] = _dims(block, "block")
        cfg.dynamic_shared_bytes = int(shared)
        cfg.flags = _abi.LAUNCH_COOPERATIVE if cooperative else 0
        if cluster is not None:
            cfg.cluster[:] = _dims(cluster, "cluster")
        ref = ctypes.byref(cfg)  # holds cfg
        if len(self._configs) >= _CONFIGS_KEPT:
            self._configs.clear()
        try:
            self._configs[key] = ref
        except TypeError:
            pass  # unhashable: built again next time
        return ref

    def __call__(self, grid, block, *args, **kw):
        return self.launch(grid, block, *args, **kw)

    def __repr__(self):
        return "<infinirt.Kernel %s on %s>" % (self.name, self.device)
