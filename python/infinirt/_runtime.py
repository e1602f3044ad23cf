"""Devices, streams, events and graphs over the C ABI (buffers: _buffer.py)."""
import contextlib
import ctypes

from . import _abi, _handles
from ._abi import DeviceType, Limit, PeerAttribute, Status
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


@contextlib.contextmanager
def push_device(device):
    """Makes `device` current for the block (infinirtPushDevice) and gives the thread back exactly
    what it had after it (infinirtPopDevice): infinirt's current device and the backend's native
    state (on cuda, the CUDA context that was current, or none). Nestable, per thread, 64 deep."""
    device = _device_arg(device)
    call("infinirtPushDevice", int(device._type), device.index)
    try:
        yield device
    finally:
        call("infinirtPopDevice", None, None)


def _limit_arg(limit):
    return Limit[limit.upper()] if isinstance(limit, str) else Limit(limit)


class Device:
    """A device, named "type:index" ("nvidia:0", "cpu", "opencl:1"), or (type, index).

    `with device:` is push_device(device): it makes it the calling thread's current device and
    gives back exactly what was current before afterwards (nestable, per thread).
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
            name = t.name.lower()
            reason = _backend_reason(name)
            err = DeviceNotFoundError(
                Status.DEVICE_NOT_FOUND,
                "%s:%d: no such device (%s has %d%s)" % (name, i, name, count.value, ": " + reason if reason else ""),
                "Device")
            err.reason = reason
            raise err
        self._type = t
        self.index = i

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
        for flag in ("has_uuid", "graphs_native", "memory_is_host"):
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

    def register(self, obj, read_only=False):
        """Registers the memory of `obj` (a contiguous buffer: bytearray, NumPy array, mmap...)
        with this device, so copies with it take the pinned path: a Registration, a context
        manager that unregisters at the end of the block (or call unregister())."""
        from ._sharing import Registration
        return Registration(self, obj, read_only)

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

    def get_limit(self, limit):
        """infinirtDeviceGetLimit: `limit` is a Limit or its name ("stack_size")."""
        v = ctypes.c_size_t()
        call("infinirtDeviceGetLimit", ctypes.byref(v), int(self._type), self.index, int(_limit_arg(limit)))
        return v.value

    def set_limit(self, limit, value):
        """infinirtDeviceSetLimit (NotSupportedError where the backend cannot honour the limit)."""
        call("infinirtDeviceSetLimit", int(self._type), self.index, int(_limit_arg(limit)), int(value))

    def stream_priority_range(self):
        """(least, greatest) as CUDA numbers them: greatest is the highest priority, <= least."""
        least, greatest = ctypes.c_int(), ctypes.c_int()
        call("infinirtDeviceGetStreamPriorityRange", ctypes.byref(least), ctypes.byref(greatest), int(self._type),
             self.index)
        return least.value, greatest.value

    def reset(self):
        """infinirtDeviceReset: waits for the device's work, then destroys every stream, event, graph and
        module of the device made through infinirt and frees its memory (BadParamError while a stream
        of the device captures). Objects of the device made before are dead afterwards."""
        call("infinirtDeviceReset", int(self._type), self.index)

    def reset_count(self):
        """How many times the device was reset in this process (infinirtDeviceGetResetCount)."""
        v = ctypes.c_uint64()
        call("infinirtDeviceGetResetCount", int(self._type), self.index, ctypes.byref(v))
        return v.value

    @staticmethod
    def current():
        """The calling thread's current device."""
        t, i = _current()
        return Device(int(t), i)

    def __enter__(self):
        call("infinirtPushDevice", int(self._type), self.index)
        return self

    def __exit__(self, *exc):
        call("infinirtPopDevice", None, None)
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


def _backend_reason(type_name):
    """Why the backend serving `type_name` has no (such) device, as it says: its reason
    ("libcuda.so.1 not found: ..."), or that no plugin serves that type."""
    serving = [b for b in backends() if b["device_type"] == type_name and b["state"] in ("loaded", "unavailable")]
    if not serving:
        return "no backend plugin serves %s" % type_name
    return serving[0]["reason"]


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

    def __init__(self, device=None, priority=None):
        """`priority`: within device.stream_priority_range() (BadParamError outside it); None: an
        ordinary stream (priority 0)."""
        self.device = _device_arg(device)
        self._keep = []
        h = ctypes.c_void_p()
        with _on(self.device):
            if priority is None:
                call("infinirtStreamCreate", ctypes.byref(h))
            else:
                call("infinirtStreamCreateWithPriority", ctypes.byref(h), int(priority))
        self._own(h.value)
        self._c_handle = h  # the handle as a ctypes value, for calls that pass it without conversion

    @property
    def priority(self):
        """The priority the stream was created with."""
        v = ctypes.c_int()
        call("infinirtStreamGetPriority", ctypes.byref(v), self._h())
        return v.value

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

    def __init__(self, device=None, timing=True, blocking_sync=False, interprocess=False):
        """interprocess=True: ipc_handle() exports it to other processes (it is then untimed)."""
        self.device = _device_arg(device)
        flags = int(_abi.EventFlags.DEFAULT)
        if not timing or interprocess:
            flags |= _abi.EventFlags.DISABLE_TIMING
        if blocking_sync:
            flags |= _abi.EventFlags.BLOCKING_SYNC
        if interprocess:
            flags |= _abi.EVENT_INTERPROCESS
        h = ctypes.c_void_p()
        with _on(self.device):
            call("infinirtEventCreateWithFlags", ctypes.byref(h), int(flags))
        self._own(h.value)

    @classmethod
    def _opened(cls, handle, device):
        """An Event owning `handle`, opened from another process's event (infinirt.ipc_open_event)."""
        e = cls.__new__(cls)
        e.device = device
        e._own(handle)
        return e

    def ipc_handle(self):
        """128 bytes another process opens with infinirt.ipc_open_event (pickle them, send them
        any way); for an Event made with interprocess=True."""
        from ._sharing import event_handle
        return event_handle(self)

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


def synchronize():
    """infinirtDeviceSynchronize on the current device."""
    call("infinirtDeviceSynchronize")
