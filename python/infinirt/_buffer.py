"""Buffers: device memory (alloc), pinned host memory (alloc_host), and the memory of other
objects that infinirt reads and writes (from_dlpack, Module.get_global)."""
import ctypes
import threading

from . import _abi, _handles
from ._abi import DeviceType, MemcpyKind, Status
from ._dlpack import View, sweep
from ._errors import call, error_for
from ._host_view import _HostView
from ._lib import library
from ._runtime import _closed, _device_arg, _on, _stream_handle

_HOST_KINDS = ("host", "foreign-host")


class Buffer:
    """A range of memory: `kind` is "device" (alloc), "host" (alloc_host: pinned), "foreign-host"
    or "foreign-device" (from_dlpack: the producer's memory), "global" (Module.get_global) or
    "ipc" (ipc_open: another process's device memory)."""

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
        return View(self, dtype, shape, offset)

    def ipc_handle(self, offset=0):
        """128 bytes naming the device memory at `offset`, which another process opens with
        infinirt.ipc_open (pickle them, send them any way). This process must keep the memory
        alive while others use it. NotSupportedError for memory the backend cannot share (cpu:
        infinirtMalloc memory; share a mapping of shareable physical memory, docs/memory.md)."""
        from ._sharing import mem_handle
        if not 0 <= offset < self.nbytes:
            raise ValueError("ipc_handle: offset %d is outside the Buffer's %d bytes" % (offset, self.nbytes))
        return mem_handle(self.ptr + offset)

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


def _allocate(nbytes, device, kind, malloc, free):
    dev = _device_arg(device)
    p = ctypes.c_void_p()
    with _on(dev):
        call(malloc, ctypes.byref(p), int(nbytes))
    ptr = p.value
    return Buffer(ptr, int(nbytes), dev, kind, lambda b: _handles.register(b, free, ptr))


def alloc(nbytes, device=None):
    """Device memory on `device` (default: the current device), uninitialised."""
    return _allocate(nbytes, device, "device", "infinirtMalloc", "infinirtFree")


def alloc_host(nbytes, device=None):
    """Host memory for copies with `device` (pinned where the backend pins), uninitialised."""
    return _allocate(nbytes, device, "host", "infinirtMallocHost", "infinirtFreeHost")
