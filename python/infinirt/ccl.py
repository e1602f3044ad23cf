"""infiniccl for Python: collectives over infinirt devices (libinfiniccl.so, include/infiniccl.h)
on DLPack arrays (NumPy arrays, PyTorch tensors, infinirt Views), without copies.

    import numpy, infinirt.ccl as ccl
    comm = ccl.init_from_env("cpu")        # torchrun / mpirun / Slurm variables, MASTER_ADDR:PORT
    x = numpy.ones(1024, dtype=numpy.float32)
    comm.all_reduce(x)                     # in place; comm.all_reduce(x, out) out of place
    comm.destroy()

libinfiniccl.so.0 is found beside libinfinirt (infinirt.library_path()), else through
INFINICCL_LIBRARY or the system search path. Failures raise infinirt's exceptions (DriverError,
BadParamError...), carrying the C status and message. docs/collectives.md is the guide.
"""
import ctypes
import os
import threading

from . import _lib
from ._abi import Dtype
from ._dlpack import kDLBfloat, kDLBool, kDLFloat, kDLInt, kDLUInt
from ._errors import check
from ._from_dlpack import consume
from ._runtime import Device, push_device

__all__ = ["Comm", "init_from_env", "init_all", "init_rank", "unique_id", "OPS", "library"]

OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3, "avg": 4}

_DTYPES = {
    (kDLFloat, 16): Dtype.F16, (kDLFloat, 32): Dtype.F32, (kDLFloat, 64): Dtype.F64, (kDLBfloat, 16): Dtype.BF16,
    (kDLInt, 8): Dtype.I8, (kDLInt, 16): Dtype.I16, (kDLInt, 32): Dtype.I32, (kDLInt, 64): Dtype.I64,
    (kDLUInt, 8): Dtype.U8, (kDLUInt, 16): Dtype.U16, (kDLUInt, 32): Dtype.U32, (kDLUInt, 64): Dtype.U64,
    (kDLBool, 8): Dtype.BOOL,
}

_P, _I, _Z = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
_SIGNATURES = {
    "infinicclCommInitAll": [_I, ctypes.POINTER(_P), _I, ctypes.POINTER(_I)],
    "infinicclGetUniqueId": [ctypes.c_char_p],
    "infinicclCommInitRank": [ctypes.POINTER(_P), _I, ctypes.c_char * 128, _I],
    "infinicclCommInitFromEnv": [ctypes.POINTER(_P), _I],
    "infinicclCommDestroy": [_P],
    "infinicclCommGetRank": [_P, ctypes.POINTER(_I)],
    "infinicclCommGetSize": [_P, ctypes.POINTER(_I)],
    "infinicclCommGetDevice": [_P, ctypes.POINTER(_I), ctypes.POINTER(_I)],
    "infinicclGroupStart": [_P],
    "infinicclGroupEnd": [_P],
    "infinicclAllReduce": [_P, _P, _Z, _I, _I, _P, _P],
    "infinicclReduce": [_P, _P, _Z, _I, _I, _I, _P, _P],
    "infinicclBroadcast": [_P, _P, _Z, _I, _I, _P, _P],
    "infinicclAllGather": [_P, _P, _Z, _I, _P, _P],
    "infinicclReduceScatter": [_P, _P, _Z, _I, _I, _P, _P],
    "infinicclSend": [_P, _Z, _I, _I, _P, _P],
    "infinicclRecv": [_P, _Z, _I, _I, _P, _P],
}


class _UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


_SIGNATURES["infinicclGetUniqueId"] = [ctypes.POINTER(_UniqueId)]
_SIGNATURES["infinicclCommInitRank"] = [ctypes.POINTER(_P), _I, _UniqueId, _I]

_lock = threading.Lock()
_ccl = None


def library():
    """libinfiniccl (ctypes.CDLL), loaded once: INFINICCL_LIBRARY, else beside libinfinirt, else the
    system search path."""
    global _ccl
    with _lock:
        if _ccl is not None:
            return _ccl
        _lib.library()  # libinfinirt first: libinfiniccl needs it, and its messages are infinirt's
        tried = []
        candidates = []
        if os.environ.get("INFINICCL_LIBRARY"):
            candidates.append(os.environ["INFINICCL_LIBRARY"])
        rt = _lib.path()
        if rt and os.sep in rt:
            candidates.append(os.path.join(os.path.dirname(rt), "libinfiniccl.so.0"))
        candidates.append("libinfiniccl.so.0")
        for c in candidates:
            try:
                lib = ctypes.CDLL(c)
            except OSError as e:
                tried.append("%s: %s" % (c, e))
                continue
            for name, args in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.argtypes = args
                fn.restype = ctypes.c_int
            _ccl = lib
            return lib
        raise _lib.LibraryNotFoundError("libinfiniccl.so.0 not found: " + "; ".join(tried))


def _call(name, *args):
    check(getattr(library(), name)(*args), name)


class _Array:
    """A DLPack array's memory for one call: pointer, element count and infiniDtype_t."""

    def __init__(self, obj, what):
        self.buffer, dl = consume(obj)
        code, bits, lanes = dl
        if lanes != 1 or (code, bits) not in _DTYPES:
            self.buffer.free()
            raise TypeError("%s: DLPack dtype code %d, %d bits x %d lanes has no infiniDtype_t" % (what, code, bits,
                                                                                                  lanes))
        self.dtype = int(_DTYPES[(code, bits)])
        self.count = self.buffer.nbytes // (bits // 8)
        self.ptr = self.buffer.ptr

    def release(self):
        self.buffer.free()


def _arrays(*pairs):
    out = []
    try:
        for obj, what in pairs:
            out.append(_Array(obj, what) if obj is not None else None)
    except BaseException:
        for a in out:
            if a is not None:
                a.release()
        raise
    return out


def _op(op):
    if isinstance(op, str):
        if op.lower() not in OPS:
            raise ValueError("op %r: one of %s" % (op, ", ".join(OPS)))
        return OPS[op.lower()]
    return int(op)


def _stream(stream):
    return None if stream is None else stream._h()


class Comm:
    """One rank of a communicator. Every collective takes DLPack arrays (C-contiguous), counts in
    their elements, and an optional infinirt Stream of the comm's device (None: the comm's device's
    default stream; the device is made current for the call)."""

    def __init__(self, handle):
        self._handle = ctypes.c_void_p(handle)
        r, n, t, i = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        _call("infinicclCommGetRank", self._handle, ctypes.byref(r))
        _call("infinicclCommGetSize", self._handle, ctypes.byref(n))
        _call("infinicclCommGetDevice", self._handle, ctypes.byref(t), ctypes.byref(i))
        self.rank, self.size = r.value, n.value
        self.device = Device(t.value, i.value)

    def destroy(self):
        if self._handle is not None and self._handle.value:
            h, self._handle = self._handle, None
            _call("infinicclCommDestroy", h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    def __repr__(self):
        return "<infiniccl Comm rank %d of %d on %s:%d>" % (self.rank, self.size, self.device.type, self.device.index)

    def _run(self, stream, name, *args):
        # stream None is the current device's default stream: the comm's device is made current for
        # the call, so that any thread may drive any rank.
        if stream is not None:
            return _call(name, *args)
        with push_device(self.device):
            return _call(name, *args)

    def _h(self):
        if self._handle is None:
            raise ValueError("the comm was destroyed")
        return self._handle

    def all_reduce(self, send, recv=None, op="sum", stream=None):
        """recv = op over ranks of send (recv None: in place, into send)."""
        s, r = _arrays((send, "all_reduce send"), (recv, "all_reduce recv"))
        try:
            self._run(stream, "infinicclAllReduce", s.ptr, (r or s).ptr, s.count, s.dtype, _op(op),
                              self._h(), _stream(stream))
        finally:
            for a in (s, r):
                a and a.release()

    def reduce(self, send, recv=None, op="sum", root=0, stream=None):
        """root's recv = op over ranks of send (recv None on root: in place; ignored elsewhere)."""
        s, r = _arrays((send, "reduce send"), (recv, "reduce recv"))
        try:
            out = (r or s).ptr if self.rank == root else (r.ptr if r else None)
            self._run(stream, "infinicclReduce", s.ptr, out, s.count, s.dtype, _op(op), int(root), self._h(),
                              _stream(stream))
        finally:
            for a in (s, r):
                a and a.release()

    def broadcast(self, buf, root=0, stream=None):
        """buf = root's buf, on every rank (in place)."""
        (b,) = _arrays((buf, "broadcast buf"))
        try:
            self._run(stream, "infinicclBroadcast", b.ptr, b.ptr, b.count, b.dtype, int(root), self._h(),
                              _stream(stream))
        finally:
            b.release()

    def all_gather(self, send, recv, stream=None):
        """recv (size x send's elements) = every rank's send, in rank order."""
        s, r = _arrays((send, "all_gather send"), (recv, "all_gather recv"))
        try:
            if r.count != s.count * self.size:
                raise ValueError("all_gather: recv holds %d elements, %d ranks x %d are needed"
                                 % (r.count, self.size, s.count))
            self._run(stream, "infinicclAllGather", s.ptr, r.ptr, s.count, s.dtype, self._h(), _stream(stream))
        finally:
            s.release()
            r.release()

    def reduce_scatter(self, send, recv, op="sum", stream=None):
        """recv = op over ranks of block `rank` of send (size blocks of recv's elements)."""
        s, r = _arrays((send, "reduce_scatter send"), (recv, "reduce_scatter recv"))
        try:
            if s.count != r.count * self.size:
                raise ValueError("reduce_scatter: send holds %d elements, %d ranks x %d are needed"
                                 % (s.count, self.size, r.count))
            self._run(stream, "infinicclReduceScatter", s.ptr, r.ptr, r.count, r.dtype, _op(op), self._h(),
                              _stream(stream))
        finally:
            s.release()
            r.release()

    def send(self, buf, peer, stream=None):
        (b,) = _arrays((buf, "send buf"))
        try:
            self._run(stream, "infinicclSend", b.ptr, b.count, b.dtype, int(peer), self._h(), _stream(stream))
        finally:
            b.release()

    def recv(self, buf, peer, stream=None):
        (b,) = _arrays((buf, "recv buf"))
        try:
            self._run(stream, "infinicclRecv", b.ptr, b.count, b.dtype, int(peer), self._h(), _stream(stream))
        finally:
            b.release()

    def group(self):
        """`with comm.group():` GroupStart/GroupEnd: the calls inside are launched together (a Send
        and a Recv that pair up between two ranks go in one group)."""
        comm = self

        class _Group:
            def __enter__(self):
                _call("infinicclGroupStart", comm._h())

            def __exit__(self, *exc):
                _call("infinicclGroupEnd", comm._h())

        return _Group()


def _device_type(device_type):
    return Device(device_type).type_id if isinstance(device_type, str) else int(device_type)


def init_from_env(device_type="cpu"):
    """infinicclCommInitFromEnv: a Comm from the launcher's variables (torchrun's RANK, WORLD_SIZE,
    LOCAL_RANK, MASTER_ADDR, MASTER_PORT; mpirun's OMPI_COMM_WORLD_*; Slurm's SLURM_*)."""
    h = ctypes.c_void_p()
    _call("infinicclCommInitFromEnv", ctypes.byref(h), _device_type(device_type))
    return Comm(h.value)


def init_all(device_type, n, device_ids=None):
    """infinicclCommInitAll: n Comms of this process, rank i on device_ids[i] (default 0..n-1)."""
    handles = (ctypes.c_void_p * n)()
    ids = (ctypes.c_int * n)(*device_ids) if device_ids is not None else None
    _call("infinicclCommInitAll", _device_type(device_type), handles, n, ids)
    return [Comm(h) for h in handles]


def unique_id():
    """infinicclGetUniqueId for the current device type: 128 bytes to give the other ranks."""
    uid = _UniqueId()
    _call("infinicclGetUniqueId", ctypes.byref(uid))
    return ctypes.string_at(ctypes.addressof(uid), 128)


def init_rank(nranks, uid, rank):
    """infinicclCommInitRank on the current device, with the bytes unique_id() gave rank 0."""
    if len(uid) != 128:
        raise ValueError("unique id: 128 bytes, not %d" % len(uid))
    u = _UniqueId()
    ctypes.memmove(ctypes.addressof(u), bytes(uid), 128)
    h = ctypes.c_void_p()
    _call("infinicclCommInitRank", ctypes.byref(h), int(nranks), u, int(rank))
    return Comm(h.value)
