"""DLPack: NumPy consuming our views, infinirt consuming NumPy arrays and its own views, the
__dlpack__ keywords, and the capsule's lifetime (taken, refused, never taken)."""
import ctypes
import gc
import weakref

import numpy
import pytest

import infinirt

_IsValid = ctypes.pythonapi.PyCapsule_IsValid
_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_IsValid.restype = ctypes.c_int


def capsule_name(c):
    for name in (b"dltensor", b"used_dltensor", b"dltensor_versioned", b"used_dltensor_versioned"):
        if _IsValid(c, name):
            return name.decode()
    return None


def host_buffers(device):
    """Buffers of `device` the host can address: pinned host memory, and cpu device memory."""
    out = [infinirt.alloc_host(4096, device)]
    if device.type == "cpu":
        out.append(infinirt.alloc(4096, device))
    return out


def test_numpy_from_dlpack_shares_host_memory(device):
    for buf in host_buffers(device):
        assert buf.view("float32").__dlpack_device__() == (1, 0)  # kDLCPU
        buf.copy_from(numpy.arange(1024, dtype=numpy.float32))
        arr = numpy.from_dlpack(buf.view("float32", (32, 32)))
        assert arr.shape == (32, 32) and arr.dtype == numpy.float32
        assert (arr.ravel() == numpy.arange(1024)).all()
        buf.copy_from(numpy.float32(42.0))  # the same memory (NumPy before 2 makes it read-only)
        assert arr[0, 0] == 42.0 and arr[0, 1] == 1.0
        with pytest.raises(BufferError):
            buf.free()  # NumPy still uses it
        del arr
        gc.collect()
        buf.free()
        buf.free()


def test_device_memory_names_its_dlpack_device_type(device):
    """DLPack's device type of device memory: kDLCPU 1 for cpu, kDLCUDA 2, kDLOpenCL 4, kDLVulkan 7,
    kDLROCM 10, with the device's index."""
    codes = {"cpu": 1, "nvidia": 2, "opencl": 4, "vulkan": 7, "amd": 10}
    with infinirt.alloc(4096, device) as buf:
        index = 0 if device.type == "cpu" else device.index
        assert buf.view("uint8").__dlpack_device__() == (codes[device.type], index)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float16", "float64", "complex64",
                                   numpy.float32, numpy.dtype("uint64"), "f4"])
def test_view_dtypes(cpu, dtype):
    buf = infinirt.alloc(256, cpu)
    buf.fill(1)
    arr = numpy.from_dlpack(buf.view(dtype, offset=8))
    assert arr.dtype == numpy.dtype(dtype if dtype != "bool" else numpy.bool_)
    assert arr.nbytes == (256 - 8) // arr.itemsize * arr.itemsize
    assert arr.view(numpy.uint8).tobytes() == b"\x01" * arr.nbytes
    del arr


def test_view_checks(cpu):
    buf = infinirt.alloc(64, cpu)
    with pytest.raises(ValueError):
        buf.view("float32", (4, 5))  # 80 bytes
    with pytest.raises(ValueError):
        buf.view("uint8", 8, offset=60)
    with pytest.raises(TypeError):
        buf.view("float128")
    v = buf.view("int32", (4, 4))
    assert (v.shape, v.dtype, v.nbytes, v.ptr) == ((4, 4), "int32", 64, buf.ptr)


def test_dlpack_keywords_and_capsule_names(cpu):
    buf = infinirt.alloc(64, cpu)
    v = buf.view("uint8")
    assert capsule_name(v.__dlpack__()) == "dltensor"
    assert capsule_name(v.__dlpack__(stream=None)) == "dltensor"
    assert capsule_name(v.__dlpack__(None)) == "dltensor"
    assert capsule_name(v.__dlpack__(stream=None, max_version=(0, 8))) == "dltensor"
    assert capsule_name(v.__dlpack__(stream=None, max_version=(1, 0))) == "dltensor_versioned"
    assert capsule_name(v.__dlpack__(stream=-1, max_version=(1, 2), dl_device=(1, 0), copy=False)) \
        == "dltensor_versioned"
    with pytest.raises(BufferError):
        v.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        v.__dlpack__(dl_device=(2, 0))
    gc.collect()
    buf.free()  # every capsule above was dropped untaken: none holds the buffer


def test_untaken_capsule_releases_its_tensor(cpu):
    buf = infinirt.alloc(64, cpu)
    cap = buf.view().__dlpack__()
    with pytest.raises(BufferError):
        buf.free()  # the capsule could still be taken
    del cap
    buf.free()


def test_refused_capsule_keeps_the_consumers_error(device):
    if device.type in ("cpu", "nvidia"):
        pytest.skip("NumPy takes cpu memory; the refusal is tested with another device's memory")
    buf = infinirt.alloc(64, device)
    for _ in range(3):
        with pytest.raises(Exception) as e:
            numpy.from_dlpack(buf.view("uint8"))
        assert not isinstance(e.value, SystemError), e.value  # NumPy's own error, not lost
    buf.free()


def test_infinirt_from_numpy(cpu):
    arr = numpy.arange(100, dtype=numpy.float64)
    ref = weakref.ref(arr)
    buf = infinirt.from_dlpack(arr)
    assert buf.kind == "foreign-host" and buf.is_host and buf.nbytes == 800 and buf.owner is arr
    assert buf.ptr == arr.ctypes.data
    del arr
    gc.collect()
    assert ref() is not None  # kept alive by the buffer
    dev = infinirt.alloc(800, cpu)
    dev.copy_from(buf)
    buf.copy_from(numpy.zeros(50))
    assert (ref()[:50] == 0).all() and (ref()[50:] == numpy.arange(50, 100)).all()
    assert numpy.frombuffer(dev.tobytes(), dtype=numpy.float64)[99] == 99.0
    buf.fill(0)
    assert not ref().any()
    buf.free()
    buf.free()
    gc.collect()
    assert ref() is None  # given back to its producer


def test_from_dlpack_refuses_strided(cpu):
    with pytest.raises(BufferError):
        infinirt.from_dlpack(numpy.zeros((4, 4))[:, 1])
    b = infinirt.from_dlpack(numpy.zeros((4, 4))[1:3])  # contiguous rows: fine
    assert b.nbytes == 64
    assert infinirt.from_dlpack(numpy.zeros((3, 1, 2))).nbytes == 48


def test_from_dlpack_of_own_views_both_versions(device):
    src = infinirt.alloc(256, device)
    src.fill(7)
    for kw in ({}, {"max_version": None}):
        class Legacy:  # a producer without max_version
            def __dlpack__(self, stream=None):
                return src.view("uint8").__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return src.view().__dlpack_device__()
        b = infinirt.from_dlpack(Legacy())
        assert b.ptr == src.ptr and b.nbytes == 256 and b.device == (device if device.type != "cpu" else
                                                                       infinirt.Device("cpu:0"))
        b.free()
    b = infinirt.from_dlpack(src.view("int32", (8, 8)))  # versioned: max_version=(1, 0) is passed
    assert b.ptr == src.ptr and b.nbytes == 256 and not b.readonly
    assert b.tobytes() == b"\x07" * 256
    with pytest.raises(BufferError):
        src.free()
    b.free()
    src.free()


def test_from_dlpack_needs_the_protocol():
    with pytest.raises(TypeError):
        infinirt.from_dlpack(b"bytes")
