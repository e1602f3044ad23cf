"""Device.register (host registration as a context manager) and memory shared between two
processes through IPC handles that are plain, pickle-able bytes (docs/memory.md)."""
import ctypes
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import infinirt
from infinirt import _abi
from infinirt._errors import call

# The child: opens the handle it reads (pickled) on stdin twice, checks the bytes, writes its own
# and closes.
CHILD = r"""
import pickle, sys
import numpy as np
import infinirt
msg = pickle.loads(sys.stdin.buffer.read())
dev = infinirt.Device(msg["device"])
if msg["event"] is not None:
    infinirt.ipc_open_event(msg["event"], dev).synchronize()
a = infinirt.ipc_open(msg["handle"], dev)
b = infinirt.ipc_open(msg["handle"], dev)
assert a.ptr == b.ptr, "the same handle opened twice gives the same address"
got = np.frombuffer(a.tobytes()[:msg["nbytes"]], dtype=np.float32)
assert (got == np.arange(msg["nbytes"] // 4, dtype=np.float32)).all(), got[:8]
a.copy_from(np.full(msg["nbytes"] // 4, 7.0, dtype=np.float32))
dev.synchronize()
b.free()
a.free()
"""


class Shared:
    """Device memory of `device` that the backend can export: alloc() where that memory is
    shareable (cuda), else a mapping of shareable physical memory (cpu), through the C API."""

    def __init__(self, device, nbytes):
        self.device, self._mapping = device, None
        self.buffer = infinirt.alloc(nbytes, device)
        try:
            self.handle = self.buffer.ipc_handle()
            return
        except infinirt.NotSupportedError as e:
            self.buffer.free()
            reason = str(e)
        g = ctypes.c_size_t()
        t, i = int(device.type_id), device.index
        try:
            call("infinirtMemGetAllocationGranularity", ctypes.byref(g), t, i, int(_abi.MemGranularity.MINIMUM))
        except infinirt.NotSupportedError:
            pytest.skip("%s shares no memory: %s" % (device, reason))
        size = (nbytes + g.value - 1) // g.value * g.value
        base, mem = ctypes.c_void_p(), ctypes.c_void_p()
        call("infinirtMemAddressReserve", ctypes.byref(base), t, i, size, 0)
        call("infinirtMemCreate", ctypes.byref(mem), t, i, size, _abi.MEM_CREATE_SHAREABLE)
        call("infinirtMemMap", base.value, size, mem.value, 0)
        self._mapping = (base.value, size, mem.value)
        self.buffer = infinirt.Buffer(base.value, size, device, "device")
        self.handle = self.buffer.ipc_handle()

    def close(self):
        if self._mapping is None:
            self.buffer.free()
            return
        base, size, mem = self._mapping
        call("infinirtMemUnmap", base, size)
        call("infinirtMemRelease", mem)
        call("infinirtMemAddressFree", base, size)


def run_child(message):
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", CHILD], input=pickle.dumps(message), env=env, capture_output=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors="replace")


def test_register_is_a_context_manager(device):
    host = np.arange(4096, dtype=np.uint8)
    try:
        reg = device.register(host)
    except infinirt.NotSupportedError as e:
        pytest.skip(str(e))
    with reg:
        assert reg.registered and reg.ptr == host.ctypes.data and reg.nbytes == host.nbytes
        with pytest.raises(infinirt.BadParamError):
            device.register(host)  # overlaps
        d = infinirt.alloc(host.nbytes, device).copy_from(host)
        back = np.zeros_like(host)
        d.copy_to(back)
        assert (back == host).all()
        d.free()
    assert not reg.registered
    reg.unregister()  # again: nothing
    with device.register(host, read_only=True):
        pass


def test_memory_shared_with_another_process(device):
    n = 1 << 16
    shared = Shared(device, n * 4)
    try:
        data = np.arange(n, dtype=np.float32)
        shared.buffer.copy_from(data)
        device.synchronize()
        handle = shared.handle
        assert isinstance(handle, bytes) and len(handle) == 128
        assert pickle.loads(pickle.dumps(handle)) == handle
        event = None
        try:
            ev = infinirt.Event(device, interprocess=True).record()
            event = ev.ipc_handle()
        except infinirt.NotSupportedError:
            assert device.type != "nvidia", "cuda shares events"
        run_child({"device": str(device), "handle": handle, "nbytes": n * 4, "event": event})
        got = np.zeros(n, dtype=np.float32)
        shared.buffer.copy_to(got)
        assert (got == 7.0).all()
    finally:
        shared.close()


def test_garbage_handles_are_refused(cpu):
    with pytest.raises(infinirt.BadParamError):
        infinirt.ipc_open(bytes(128), cpu)
    with pytest.raises(ValueError):
        infinirt.ipc_open(b"short", cpu)
    with pytest.raises(infinirt.BadParamError):
        infinirt.Event(cpu).ipc_handle()  # not interprocess
