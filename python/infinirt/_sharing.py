"""Memory beyond allocation: host memory the program already has registered with a device
(Device.register), and memory and events shared between processes through handles that are plain
bytes (Buffer.ipc_handle, Event.ipc_handle, ipc_open, ipc_open_event). See docs/memory.md."""
import ctypes

from . import _abi, _handles
from ._errors import call
from ._host_view import _HostView

_HANDLE_BYTES = ctypes.sizeof(_abi.IpcMemHandle)


class Registration:
    """A host buffer registered with a device (infinirtHostRegister): copies between it and the
    device take the pinned path until unregister() (or the end of the `with` block). The object
    keeps the buffer exported meanwhile, so it cannot be resized or freed under the device."""

    def __init__(self, device, obj, read_only=False):
        self.device = device
        self._view = _HostView(obj, not read_only)
        self.ptr, self.nbytes = self._view.ptr, self._view.nbytes
        try:
            call("infinirtHostRegister", int(device._type), device.index, self.ptr, self.nbytes,
                 _abi.HOST_REGISTER_READ_ONLY if read_only else 0)
        except BaseException:
            self._view.release()
            raise
        self._finalizer = _handles.register(self, "infinirtHostUnregister", self.ptr)

    @property
    def registered(self):
        return self._finalizer.alive

    def unregister(self):
        """Waits for the device's queued work, then unregisters; again: does nothing."""
        if self._finalizer.detach() is None:
            return
        try:
            call("infinirtHostUnregister", self.ptr)
        finally:
            self._view.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.unregister()
        return False

    def __repr__(self):
        return "<infinirt.Registration %d bytes at 0x%x with %s%s>" % (
            self.nbytes, self.ptr, self.device, "" if self.registered else " unregistered")


def _to_handle(cls, handle):
    data = bytes(handle)
    if len(data) != _HANDLE_BYTES:
        raise ValueError("an IPC handle has %d bytes, not %d" % (_HANDLE_BYTES, len(data)))
    h = cls()
    ctypes.memmove(h.bytes, data, _HANDLE_BYTES)
    return h


def mem_handle(ptr):
    """infinirtIpcGetMemHandle of `ptr` as bytes."""
    h = _abi.IpcMemHandle()
    call("infinirtIpcGetMemHandle", ctypes.byref(h), ptr)
    return bytes(h.bytes)


def event_handle(event):
    """infinirtIpcGetEventHandle of an Event as bytes."""
    h = _abi.IpcEventHandle()
    call("infinirtIpcGetEventHandle", ctypes.byref(h), event._h())
    return bytes(h.bytes)


def ipc_open(handle, device=None):
    """The memory of `handle` (bytes from Buffer.ipc_handle in another process) opened on
    `device` (default: the current device, which must be of the exporter's backend): a Buffer
    from the exported pointer to the end of the exported memory, closed by free() or at
    collection. Opening one handle twice gives the same address, counted."""
    from ._buffer import Buffer
    from ._runtime import _device_arg
    dev = _device_arg(device)
    h = _to_handle(_abi.IpcMemHandle, handle)
    p = ctypes.c_void_p()
    call("infinirtIpcOpenMemHandle", ctypes.byref(p), int(dev._type), dev.index, ctypes.byref(h))
    ptr = p.value
    a = _abi.PointerAttributes()
    a.struct_size = ctypes.sizeof(a)
    call("infinirtPointerGetAttributes", ctypes.byref(a), ptr)
    nbytes = (a.base or 0) + a.size - ptr
    return Buffer(ptr, nbytes, dev, "ipc", lambda b: _handles.register(b, "infinirtIpcCloseMemHandle", ptr))


def ipc_open_event(handle, device=None):
    """The event of `handle` (bytes from Event.ipc_handle in another process) on `device`
    (default: the current device, which must be of the exporter's backend). Recording and waiting
    on it here or there see one event; it cannot be timed."""
    from ._runtime import Event, _device_arg, _on
    dev = _device_arg(device)
    h = _to_handle(_abi.IpcEventHandle, handle)
    e = ctypes.c_void_p()
    with _on(dev):
        call("infinirtIpcOpenEventHandle", ctypes.byref(e), ctypes.byref(h))
    return Event._opened(e.value, dev)
