"""Devices, streams, events, graphs and buffers over the C ABI."""
import contextlib
import ctypes
import threading

from . import _abi, _handles
from ._abi import DeviceType, MemcpyKind, PeerAttribute, Status
from ._errors import BadParamError, DeviceNotFoundError, DeviceTypeNotSupportedError, Error, \
    InvalidHandleError, call, error_for
from ._lib import library

_TYPE_NAMES = [t.name.lower() for t in DeviceType if t != DeviceType.TYPE_COUNT]


def _closed(what):
    return InvalidHandleError(Status.INVALID_HANDLE, "the %s was closed" % what, what)


# ---- devices --------------------------------------------------------------------------------
def _current():
    t, i = _abi.c_enum(), ctypes.c_int()
    call("infinirtGetDevice", ctypes.byref(t), ctypes.byref(i))
    return t.value, i.value


@contextlib.contextmanager
def _on(device):
    """Makes `device` current for the block if it is not already (internal: no stack needed)."""
    prev = _current()
    key = (int(device._type), device.index)
    if prev == key:
        yield
        return
    call("infinirtSetDevice", key[0], key[1])
    try:
        yield
    finally:
        library().infinirtSetDevice(prev[0], prev[1])


class Device:
    """A device, named "type:index" ("nvidia:0", "cpu", "opencl:1"), or (type, index).

    `with device:` makes it the calling thread's current device and restores the previous one
    afterwards (nestable, per thread).
    """

    def __init__(self, spec="cpu:0", index=None):
        if isinstance(spec, Device):
            t, i = spec._type, spec.index
        elif isinstance(spec, str):
            name, sep, rest = spec.strip().partition(":")
            name = name.lower()
            if name not in _TYPE_NAMES:
                raise DeviceTypeNotSupportedError(
                    Status.DEVICE_TYPE_NOT_SUPPORTED,
                    "unknown device type %r (known: %s)" % (name, ", ".join(_TYPE_NAMES)), "Device")
            t = DeviceType[name.upper()]
            if sep:
                if index is not None:
                    raise ValueError("Device(%r, %r): the index is given twice" % (spec, index))
                try:
                    i = int(rest)
                except ValueError:
                    raise ValueError("Device(%r): the index after ':' is not a number" % spec) from None
            else:
                i = 0 if index is None else int(index)
        elif isinstance(spec, int) and not isinstance(spec, bool):
            if not 0 <= spec < DeviceType.TYPE_COUNT:
                raise DeviceTypeNotSupportedError(Status.DEVICE_TYPE_NOT_SUPPORTED,
                                                  "device type %d is out of range" % spec, "Device")
            t, i = DeviceType(spec), 0 if index is None else int(index)
        else:
            raise TypeError("Device() takes 'type:index', a Device or (type, index), not %r" % (spec,))
        count = ctypes.c_int()
        call("infinirtGetDeviceCount", int(t), ctypes.byref(count))
        if not 0 <= i < count.value:
            raise DeviceNotFoundError(
                Status.DEVICE_NOT_FOUND,
                "%s:%d: no such device (%s has %d)" % (t.name.lower(), i, t.name.lower(), count.value), "Device")
        self._type = t
        self.index = i
        self._tls = threading.local()

    @property
    def type(self):
        """The device type's name: "cpu", "nvidia", "amd", "opencl", ..."""
        return self._type.name.lower()

    @property
    def type_id(self):
        """The infiniDevice_t value."""
        return int(self._type)

    @property
    def name(self):
        return self.properties()["name"]

    def properties(self):
        """infinirtDeviceProperties_t as a dict (strings decoded, uuid as 16 bytes or None)."""
        props = _abi.DeviceProperties()
        props.struct_size = ctypes.sizeof(props)
        call("infinirtGetDeviceProperties", int(self._type), self.index, ctypes.byref(props))
        out = {}
        for field, _ in props._fields_:
            if field == "struct_size":
                continue
            value = getattr(props, field)
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            elif field == "uuid":
                value = bytes(value)
            elif isinstance(value, ctypes.Array):
                value = tuple(value)
            out[field] = value
        for flag in ("has_uuid", "graphs_native"):
            if flag in out:
                out[flag] = bool(out[flag])
        if "has_uuid" in out and not out["has_uuid"]:
            out["uuid"] = None
        if "device_kind" in out:
            try:
                out["device_kind"] = _abi.DeviceKind(out["device_kind"]).name.lower()
            except ValueError:
                pass  # a kind newer than this package: the number
        return out

    def mem_info(self):
        """(free, total) bytes."""
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        call("infinirtGetMemInfo", int(self._type), self.index, ctypes.byref(free), ctypes.byref(total))
        return free.value, total.value

    def synchronize(self):
        """Waits for the work queued on every stream of this device."""
        with _on(self):
            call("infinirtDeviceSynchronize")

    def native_context(self):
        """The backend's context (CUcontext, cl_context) as an int; NotSupportedError on cpu."""
        p = ctypes.c_void_p()
        call("infinirtDeviceGetNativeContext", int(self._type), self.index, ctypes.byref(p))
        return p.value or 0

    def can_access_peer(self, peer):
        """Whether this device can be given access to `peer`'s memory (enable_peer_access)."""
        peer = _device_arg(peer)
        v = ctypes.c_int()
        call("infinirtDeviceCanAccessPeer", ctypes.byref(v), int(self._type), self.index, int(peer._type), peer.index)
        return bool(v.value)

    def peer_attribute(self, peer, attr):
        """infinirtDeviceGetPeerAttribute: `attr` is a PeerAttribute or its name ("performance_rank")."""
        peer = _device_arg(peer)
        if isinstance(attr, str):
            attr = PeerAttribute[attr.upper()]
        v = ctypes.c_int()
        call("infinirtDeviceGetPeerAttribute", ctypes.byref(v), int(attr), int(self._type), self.index,
             int(peer._type), peer.index)
        return v.value

    def enable_peer_access(self, peer):
        """Lets this device access `peer`'s memory (one direction; enabling twice is fine)."""
        peer = _device_arg(peer)
        call("infinirtDeviceEnablePeerAccess", int(self._type), self.index, int(peer._type), peer.index, 0)

    def disable_peer_access(self, peer):
        """Undoes enable_peer_access (BadParamError when it is not enabled)."""
        peer = _device_arg(peer)
        call("infinirtDeviceDisablePeerAccess", int(self._type), self.index, int(peer._type), peer.index)

    @staticmethod
    def current():
        """The calling thread's current device."""
        t, i = _current()
        return Device(int(t), i)

    def __enter__(self):
        prev = _current()
        call("infinirtSetDevice", int(self._type), self.index)
        stack = getattr(self._tls, "stack", None)
        if stack is None:
            stack = self._tls.stack = []
        stack.append(prev)
        return self

    def __exit__(self, *exc):
        prev = self._tls.stack.pop()
        call("infinirtSetDevice", prev[0], prev[1])
        return False

    def __eq__(self, other):
        return isinstance(other, Device) and (self._type, self.index) == (other._type, other.index)

    def __hash__(self):
        return hash((int(self._type), self.index))

    def __str__(self):
        return "%s:%d" % (self.type, self.index)

    def __repr__(self):
        return "Device(%r)" % str(self)


def _device_arg(device):
    if device is None:
        return Device.current()
    return device if isinstance(device, Device) else Device(device)


def devices():
    """Every device of every loaded backend, in infiniDevice_t order."""
    counts = (ctypes.c_int * DeviceType.TYPE_COUNT)()
    call("infinirtGetAllDeviceCountSized", counts, DeviceType.TYPE_COUNT)
    return [Device(t, i) for t in range(DeviceType.TYPE_COUNT) for i in range(counts[t])]


def backends():
    """Every plugin found, as dicts (name, device_type, path, interface_version, device_count,
    state, reason)."""
    count = ctypes.c_int()
    call("infinirtGetBackendCount", ctypes.byref(count))
    out = []
    for i in range(count.value):
        info = _abi.BackendInfo()
        info.struct_size = ctypes.sizeof(info)
        call("infinirtGetBackendInfo", i, ctypes.byref(info))
        t = info.device_type
        out.append({
            "name": info.name.decode("utf-8", "replace"),
            "device_type": DeviceType(t).name.lower() if 0 <= t < DeviceType.TYPE_COUNT else None,
            "path": info.path.decode("utf-8", "replace"),
            "interface_version": info.interface_version,
            "device_count": info.device_count,
            "state": _abi.BackendState(info.state).name.lower(),
            "reason": info.reason.decode("utf-8", "replace"),
        })
    return out


# ---- handle owners --------------------------------------------------------------------------
class _Owner:
    """An object owning one C handle, released once by `_destroy` (see _handles)."""
    _destroy = None
    _what = "object"

    def _own(self, handle):
        self._handle = handle
        self._finalizer = _handles.register(self, self._destroy, handle)

    def _h(self):
        if not self._finalizer.alive:
            raise _closed(self._what)
        return self._handle

    @property
    def handle(self):
        """The C handle as an int."""
        return self._h()

    @property
    def closed(self):
        return not self._finalizer.alive

    def close(self):
        """Releases the handle now; raises the C call's error. Closing again does nothing."""
        if self._finalizer.detach() is None:
            return
        status = getattr(library(), self._destroy)(self._handle)
        if status not in (Status.SUCCESS, Status.INVALID_HANDLE):
            self._finalizer = _handles.register(self, self._destroy, self._handle)  # still ours
        if status != Status.SUCCESS:
            raise error_for(status, self._destroy)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# ---- streams, events, graphs ----------------------------------------------------------------
class Stream(_Owner):
    """An in-order stream on `device` (default: the current device).

    Host objects that async copies read or write are kept alive until synchronize() or a query()
    that answers True.
    """
    _destroy = "infinirtStreamDestroy"
    _what = "Stream"

    def __init__(self, device=None):
        self.device = _device_arg(device)
        self._keep = []
        h = ctypes.c_void_p()
        with _on(self.device):
            call("infinirtStreamCreate", ctypes.byref(h))
        self._own(h.value)

    def synchronize(self):
        call("infinirtStreamSynchronize", self._h())
        self._keep.clear()

    def query(self):
        """True when all work submitted so far has completed."""
        status = library().infinirtStreamQuery(self._h())
        if status == Status.SUCCESS:
            self._keep.clear()
            return True
        if status == Status.NOT_READY:
            return False
        raise error_for(status, "infinirtStreamQuery")

    def wait(self, event):
        """Work submitted after this waits for `event`'s latest recording."""
        call("infinirtStreamWaitEvent", self._h(), event._h())

    def native_handle(self):
        """CUstream / hipStream_t / cl_command_queue as an int (NotSupportedError on cpu)."""
        p = ctypes.c_void_p()
        call("infinirtStreamGetNativeHandle", self._h(), ctypes.byref(p))
        return p.value or 0

    @contextlib.contextmanager
    def capture(self, mode="global"):
        """`with stream.capture() as graph:` records the work submitted to the stream in the block
        into `graph`, ready to graph.launch() after the block."""
        if isinstance(mode, str):
            mode = _abi.StreamCaptureMode[mode.upper()]
        graph = Graph(self.device)
        first_kept = len(self._keep)
        call("infinirtStreamBeginCapture", self._h(), int(mode))
        try:
            yield graph
        except BaseException:
            g = ctypes.c_void_p()
            if library().infinirtStreamEndCapture(self._handle, ctypes.byref(g)) == Status.SUCCESS:
                library().infinirtGraphDestroy(g)
            raise
        g = ctypes.c_void_p()
        call("infinirtStreamEndCapture", self._h(), ctypes.byref(g))
        graph._set(g.value, self._keep[first_kept:])

    def _hold(self, obj):
        self._keep.append(obj)

    def __repr__(self):
        return "<infinirt.Stream on %s%s>" % (self.device, " closed" if self.closed else "")


def _stream_handle(stream):
    if stream is None:
        return None
    if not isinstance(stream, Stream):
        raise TypeError("stream must be an infinirt.Stream or None, not %r" % type(stream).__name__)
    return stream._h()


class _GraphExec(_Owner):
    _destroy = "infinirtGraphExecDestroy"
    _what = "Graph"

    def __init__(self, handle):
        self._own(handle)


class Graph(_Owner):
    """Work captured from a stream (Stream.capture), launched as a whole with launch()."""
    _destroy = "infinirtGraphDestroy"
    _what = "Graph"

    def __init__(self, device):
        self.device = device
        self._exec = None
        self._keep = []
        self._finalizer = None

    def _set(self, handle, keep):
        self._own(handle)
        self._keep = list(keep)
        e = ctypes.c_void_p()
        log = ctypes.create_string_buffer(1024)
        status = library().infinirtGraphInstantiate(ctypes.byref(e), handle, None, log, len(log))
        if status != Status.SUCCESS:
            err = error_for(status, "infinirtGraphInstantiate")
            if log.value:
                err.args = (err.args[0] + " (" + log.value.decode("utf-8", "replace") + ")",)
            raise err
        self._exec = _GraphExec(e.value)

    def _h(self):
        if self._finalizer is None:
            raise _closed("Graph (capture not finished)")
        return _Owner._h(self)

    @property
    def closed(self):
        return self._finalizer is None or not self._finalizer.alive

    def launch(self, stream=None):
        """Enqueues the captured work on `stream` (None: the graph's device's default stream)."""
        self._h()
        if self._exec is None:
            raise _closed("Graph (not instantiated)")
        if stream is None:
            with _on(self.device):
                call("infinirtGraphLaunch", self._exec._h(), None)
        else:
            call("infinirtGraphLaunch", self._exec._h(), _stream_handle(stream))
            stream._hold(self)

    def close(self):
        if self._exec is not None:
            self._exec.close()
        if self._finalizer is not None:
            _Owner.close(self)


class Event(_Owner):
    """An event on `device` (default: the current device); timing=False makes it untimed."""
    _destroy = "infinirtEventDestroy"
    _what = "Event"

    def __init__(self, device=None, timing=True, blocking_sync=False):
        self.device = _device_arg(device)
        flags = _abi.EventFlags.DEFAULT
        if not timing:
            flags |= _abi.EventFlags.DISABLE_TIMING
        if blocking_sync:
            flags |= _abi.EventFlags.BLOCKING_SYNC
        h = ctypes.c_void_p()
        with _on(self.device):
            call("infinirtEventCreateWithFlags", ctypes.byref(h), int(flags))
        self._own(h.value)

    def record(self, stream=None):
        """Captures the work submitted to `stream` so far (None: the event's device's default
        stream)."""
        if stream is None:
            with _on(self.device):
                call("infinirtEventRecord", self._h(), None)
        else:
            call("infinirtEventRecord", self._h(), _stream_handle(stream))
        return self

    def synchronize(self):
        call("infinirtEventSynchronize", self._h())

    def query(self):
        """True when the latest recording's work has completed (or it was never recorded)."""
        s = _abi.c_enum()
        call("infinirtEventQuery", self._h(), ctypes.byref(s))
        return s.value == _abi.EventStatus.COMPLETE

    def elapsed_time(self, end):
        """Milliseconds from this event's recording to `end`'s (NotReadyError while pending)."""
        ms = ctypes.c_float()
        call("infinirtEventElapsedTime", ctypes.byref(ms), self._h(), end._h())
        return ms.value

    def native_handle(self):
        p = ctypes.c_void_p()
        call("infinirtEventGetNativeHandle", self._h(), ctypes.byref(p))
        return p.value or 0

    def __repr__(self):
        return "<infinirt.Event on %s%s>" % (self.device, " closed" if self.closed else "")


# ---- host memory of Python objects -----------------------------------------------------------
class _PyBuffer(ctypes.Structure):
    """CPython's Py_buffer (stable ABI since 3.11, unchanged since 3.3)."""
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


_PyBUF_WRITABLE = 0x0001
_PyBUF_ANY_CONTIGUOUS = 0x0080 | 0x0010 | 0x0008
_GetBuffer = ctypes.pythonapi.PyObject_GetBuffer
_GetBuffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_GetBuffer.restype = ctypes.c_int
_ReleaseBuffer = ctypes.pythonapi.PyBuffer_Release
_ReleaseBuffer.argtypes = [ctypes.POINTER(_PyBuffer)]
_ReleaseBuffer.restype = None


def _release_view(view):
    _ReleaseBuffer(ctypes.byref(view))


class _HostView:
    """The memory of an object with the buffer protocol (bytes, bytearray, memoryview, NumPy
    array, ...), held until release(): contiguous, writable if asked."""

    def __init__(self, obj, writable):
        view = _PyBuffer()
        try:
            _GetBuffer(obj, ctypes.byref(view), _PyBUF_ANY_CONTIGUOUS | (_PyBUF_WRITABLE if writable else 0))
        except (BufferError, ValueError) as e:  # NumPy says ValueError for strided arrays
            raise BufferError("%s: %s (a contiguous%s buffer is needed)"
                              % (type(obj).__name__, e, " writable" if writable else "")) from None
        except TypeError:
            raise TypeError("expected an infinirt.Buffer or an object with the buffer protocol, not %s"
                            % type(obj).__name__) from None
        self.ptr = view.buf or 0
        self.nbytes = view.len
        self._view = view
        self._finalizer = _handles.register_call(self, _release_view, view)

    def release(self):
        self._finalizer()


# ---- buffers --------------------------------------------------------------------------------
_HOST_KINDS = ("host", "foreign-host")


class Buffer:
    """A range of memory: `kind` is "device" (alloc), "host" (alloc_host: pinned), "foreign-host"
    or "foreign-device" (from_dlpack: the producer's memory) or "global" (Module.get_global)."""

    def __init__(self, ptr, nbytes, device, kind, release=None, owner=None, readonly=False):
        self._ptr = ptr
        self.nbytes = nbytes
        self.device = device
        self.kind = kind
        self.owner = owner
        self.readonly = readonly
        self._exports = 0
        self._lock = threading.Lock()
        self._finalizer = release(self) if release else None
        self._freed = False

    @property
    def ptr(self):
        """The address as an int."""
        if self._freed:
            raise _closed("Buffer")
        return self._ptr

    @property
    def is_host(self):
        """True for memory the host addresses directly (pinned, or a foreign host buffer)."""
        return self.kind in _HOST_KINDS

    @property
    def freed(self):
        return self._freed

    def free(self):
        """Frees the memory now (for a foreign buffer: gives it back to its producer); again: does
        nothing. BufferError while DLPack consumers still use it; the C call's error is raised."""
        if self._exports:
            from ._dlpack import sweep
            sweep()  # capsules made and dropped without a consumer no longer count
        with self._lock:
            if self._freed:
                return
            if self._exports:
                raise BufferError("the Buffer is exported through DLPack (%d consumer(s) still use it)"
                                  % self._exports)
            self._freed = True
        fin, self._finalizer = self._finalizer, None
        self.owner = None  # a foreign buffer's producer, a global's module: no longer needed here
        detached = fin.detach() if fin is not None else None
        if detached is None:
            return
        _, fn, args, _ = detached
        if fn is _handles._release_quietly:
            function, ptr = args
            status = getattr(library(), function)(ptr)
            if status != Status.SUCCESS:
                raise error_for(status, function)
        else:
            fn(*args)

    # -- copies
    def _side(self, other, writable):
        """(ptr, nbytes, is_host, keep-alive object) of a copy's other side."""
        if isinstance(other, Buffer):
            if writable and other.readonly:
                raise BufferError("the destination Buffer is read-only (its DLPack producer said so)")
            return other.ptr, other.nbytes, other.is_host, other
        if hasattr(other, "__dlpack__") and isinstance(getattr(other, "buffer", None), Buffer):
            b = other.buffer  # one of our views
            return other.ptr, other.nbytes, b.is_host, other
        hv = _HostView(other, writable)
        return hv.ptr, hv.nbytes, True, hv

    def _copy(self, dst, src, n, dst_host, src_host, stream, keep):
        kind = {(True, True): MemcpyKind.H2H, (True, False): MemcpyKind.H2D,
                (False, True): MemcpyKind.D2H, (False, False): MemcpyKind.D2D}[(src_host, dst_host)]
        if stream is None:
            with _on(self.device):
                call("infinirtMemcpy", dst, src, n, int(kind))
            return
        call("infinirtMemcpyAsync", dst, src, n, int(kind), _stream_handle(stream))
        stream._hold((self, keep))

    def copy_from(self, src, stream=None):
        """Copies all of `src` (a Buffer, a view, bytes, bytearray, memoryview, NumPy array...) to
        the start of this buffer; async on `stream` when given (src is kept alive until the
        stream is synchronised)."""
        if self.readonly:
            raise BufferError("the Buffer is read-only (its DLPack producer said so)")
        ptr, n, host, keep = self._side(src, False)
        if n > self.nbytes:
            raise ValueError("copy_from: the source has %d bytes, the Buffer %d" % (n, self.nbytes))
        try:
            if n:
                self._copy(self.ptr, ptr, n, self.is_host, host, stream, keep)
        finally:
            if stream is None and isinstance(keep, _HostView):
                keep.release()
        return self

    def copy_to(self, dst, stream=None):
        """Copies the first len(dst) bytes of this buffer into `dst` (a Buffer, a view or a
        writable buffer-protocol object); async on `stream` when given."""
        ptr, n, host, keep = self._side(dst, True)
        if n > self.nbytes:
            raise ValueError("copy_to: the destination has %d bytes, the Buffer %d" % (n, self.nbytes))
        try:
            if n:
                self._copy(ptr, self.ptr, n, host, self.is_host, stream, keep)
        finally:
            if stream is None and isinstance(keep, _HostView):
                keep.release()
        return dst

    def tobytes(self):
        """The contents as bytes (a synchronous copy)."""
        out = bytearray(self.nbytes)
        self.copy_to(out)
        return bytes(out)

    def fill(self, byte, stream=None):
        """Sets every byte to `byte` (0-255); async on `stream` when given. Host buffers are
        filled by the host when no stream is given."""
        if not 0 <= int(byte) <= 255:
            raise ValueError("fill: %r is not a byte value (0-255)" % (byte,))
        if self.readonly:
            raise BufferError("the Buffer is read-only (its DLPack producer said so)")
        if stream is not None:
            call("infinirtMemsetAsync", self.ptr, int(byte), self.nbytes, _stream_handle(stream))
            stream._hold(self)
        elif self.is_host:
            ctypes.memset(self.ptr, int(byte), self.nbytes)
        else:
            with _on(self.device):
                call("infinirtMemset", self.ptr, int(byte), self.nbytes)
        return self

    def view(self, dtype="uint8", shape=None, offset=0):
        """A typed, C-contiguous view with __dlpack__ / __dlpack_device__ (numpy.from_dlpack,
        torch.from_dlpack). shape=None: as many elements as fit after `offset` bytes."""
        from ._dlpack import View
        return View(self, dtype, shape, offset)

    def pointer_attributes(self):
        """infinirtPointerGetAttributes of ptr, as a dict."""
        a = _abi.PointerAttributes()
        a.struct_size = ctypes.sizeof(a)
        call("infinirtPointerGetAttributes", ctypes.byref(a), self.ptr)
        return {"device_type": DeviceType(a.device_type).name.lower(), "device_id": a.device_id,
                "kind": _abi.MemoryKind(a.kind).name.lower(), "base": a.base or 0, "size": a.size}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False

    def __repr__(self):
        state = " freed" if self._freed else " 0x%x" % self._ptr
        return "<infinirt.Buffer %s %d bytes on %s%s>" % (self.kind, self.nbytes, self.device, state)


def alloc(nbytes, device=None):
    """Device memory on `device` (default: the current device), uninitialised."""
    dev = _device_arg(device)
    p = ctypes.c_void_p()
    with _on(dev):
        call("infinirtMalloc", ctypes.byref(p), int(nbytes))
    ptr = p.value
    return Buffer(ptr, int(nbytes), dev, "device", lambda b: _handles.register(b, "infinirtFree", ptr))


def alloc_host(nbytes, device=None):
    """Host memory for copies with `device` (pinned where the backend pins), uninitialised."""
    dev = _device_arg(device)
    p = ctypes.c_void_p()
    with _on(dev):
        call("infinirtMallocHost", ctypes.byref(p), int(nbytes))
    ptr = p.value
    return Buffer(ptr, int(nbytes), dev, "host", lambda b: _handles.register(b, "infinirtFreeHost", ptr))


def synchronize():
    """infinirtDeviceSynchronize on the current device."""
    call("infinirtDeviceSynchronize")
