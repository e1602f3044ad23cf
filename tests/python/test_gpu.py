"""PyTorch on an NVIDIA GPU: torch.from_dlpack of infinirt memory and infinirt.from_dlpack of
torch tensors, values checked both ways. Skipped (with the reason) without torch, without CUDA in
torch, or without an infinirt nvidia device. Runs without pytest too:
`python3 tests/python/test_gpu.py` (scripts/gpu-verify.sh does that where pytest is missing)."""
import sys

try:
    import pytest
except ImportError:  # the script mode below
    pytest = None

import numpy

import infinirt


class Skip(Exception):
    pass


def _skip(reason):
    if pytest is not None:
        pytest.skip(reason)
    raise Skip(reason)


def _torch_and_device():
    try:
        import torch
    except ImportError:
        _skip("PyTorch is not installed for %s" % sys.executable)
    if not torch.cuda.is_available():
        _skip("PyTorch has no CUDA device")
    try:
        dev = infinirt.Device("nvidia:0")
    except infinirt.Error as e:
        _skip("no infinirt nvidia device: %s" % e)
    return torch, dev


def test_torch_consumes_infinirt_device_memory():
    torch, dev = _torch_and_device()
    n = 1 << 20
    src = numpy.arange(n, dtype=numpy.float32)
    buf = infinirt.alloc(src.nbytes, dev)
    s = infinirt.Stream(dev)
    buf.copy_from(src, stream=s)  # still queued: __dlpack__ waits for the device
    t = torch.from_dlpack(buf.view("float32", (n // 1024, 1024)))
    assert t.is_cuda and t.device.index == 0 and t.shape == (n // 1024, 1024) and t.dtype == torch.float32
    assert t.data_ptr() == buf.ptr
    assert torch.equal(t.flatten().cpu(), torch.from_numpy(src))
    t.mul_(2)  # torch writes, infinirt reads
    torch.cuda.synchronize()
    out = numpy.empty_like(src)
    buf.copy_to(out)
    assert (out == 2 * src).all()
    del t
    torch.cuda.synchronize()
    import gc
    gc.collect()
    buf.free()


def test_torch_consumes_pinned_host_memory():
    torch, dev = _torch_and_device()
    h = infinirt.alloc_host(4096, dev)
    h.copy_from(numpy.arange(1024, dtype=numpy.int32))
    t = torch.from_dlpack(h.view("int32"))
    assert t.device.type == "cpu" and t.data_ptr() == h.ptr
    assert torch.equal(t, torch.arange(1024, dtype=torch.int32))


def test_infinirt_consumes_torch_tensors():
    torch, dev = _torch_and_device()
    t = torch.arange(4096, dtype=torch.float32, device="cuda:0") * 3  # queued on torch's stream
    buf = infinirt.from_dlpack(t)
    assert buf.kind == "foreign-device" and buf.device == dev and buf.nbytes == 4096 * 4
    assert buf.ptr == t.data_ptr() and buf.owner is t
    attrs = buf.pointer_attributes()
    assert attrs["device_type"] == "nvidia" and attrs["kind"] == "device"
    out = numpy.empty(4096, dtype=numpy.float32)
    buf.copy_to(out)  # infinirt reads what torch wrote
    assert (out == numpy.arange(4096, dtype=numpy.float32) * 3).all()
    buf.copy_from(numpy.full(4096, 7, dtype=numpy.float32))  # infinirt writes, torch reads
    assert torch.equal(t.cpu(), torch.full((4096,), 7.0))
    s = infinirt.Stream(dev)
    buf.fill(0, stream=s)
    s.synchronize()
    assert int(t.count_nonzero()) == 0
    # a copy between torch memory and infinirt memory on the device
    mine = infinirt.alloc(buf.nbytes, dev)
    mine.copy_from(numpy.ones(4096, dtype=numpy.float32))
    buf.copy_from(mine)
    assert torch.equal(t.cpu(), torch.ones(4096))
    buf.free()
    with pytest.raises(BufferError) if pytest else _NoRaise():
        infinirt.from_dlpack(torch.zeros(8, 8, device="cuda:0")[:, 1])  # strided


def test_infinirt_consumes_torch_cpu_tensor():
    torch, _ = _torch_and_device()
    t = torch.arange(10, dtype=torch.int64)
    buf = infinirt.from_dlpack(t)
    assert buf.kind == "foreign-host"
    buf.fill(0)
    assert int(t.sum()) == 0


class _NoRaise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            raise AssertionError("expected BufferError")
        return issubclass(exc[0], BufferError)


if __name__ == "__main__":
    pytest = None  # script mode: skips are reported here, not raised as pytest's
    failed = 0
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                print("PASSED", name)
            except Skip as e:
                print("SKIPPED", name, e)
            except Exception as e:  # report and go on
                failed += 1
                print("FAILED", name, repr(e))
    sys.exit(1 if failed else 0)
