"""Modules and kernels from Python: a cpu kernel built here with the system C compiler (HOST_SO),
OpenCL C on every OpenCL device (PoCL in CI), and the conformance kernels' Vulkan SPIR-V on every
Vulkan device (lavapipe in CI). Arguments: Buffers and int addresses
(POINTER), LocalMemory (LOCAL), NumPy scalars, ctypes values and structs (VALUE)."""
import ctypes

import numpy
import pytest

import infinirt
from conftest import build_cpu_kernel

CPU_SOURCE = r"""
#include <infinirt_cpu_kernel.h>
#include <stdint.h>

typedef struct { int32_t tag; _Alignas(16) float v[4]; } Packet;
int32_t g_value = 7;

#define ARG(T, i) (*(T const *)args[i])

int vector_add(const infinirtCpuLaunch_t *l, void *const *args) {
    const float *a = ARG(const float *, 0), *b = ARG(const float *, 1);
    float *c = ARG(float *, 2);
    int32_t n = ARG(int32_t, 3);
    for (uint32_t t = 0; t < l->block[0]; ++t) {
        int64_t i = (int64_t)l->block_id[0] * l->block[0] + t;
        if (i < n) c[i] = a[i] + b[i];
    }
    return 0;
}

/* y = a * x + b + k + p.tag + p.v[0..3] */
int saxpy_mixed(const infinirtCpuLaunch_t *l, void *const *args) {
    float *y = ARG(float *, 0);
    const float *x = ARG(const float *, 1);
    float a = ARG(float, 2);
    double b = ARG(double, 3);
    int64_t k = ARG(int64_t, 4);
    const Packet *p = (const Packet *)args[5];
    int32_t n = ARG(int32_t, 6);
    float add = (float)b + (float)k + (float)p->tag + p->v[0] + p->v[1] + p->v[2] + p->v[3];
    for (uint32_t t = 0; t < l->block[0]; ++t) {
        int64_t i = (int64_t)l->block_id[0] * l->block[0] + t;
        if (i < n) y[i] = a * x[i] + add;
    }
    return 0;
}

/* out[block] = sum of in[block's range], through the LOCAL scratch */
int block_sum(const infinirtCpuLaunch_t *l, void *const *args) {
    const int32_t *in = ARG(const int32_t *, 0);
    int32_t *out = ARG(int32_t *, 1);
    int32_t *scratch = ARG(int32_t *, 2);
    int64_t s = 0;
    for (uint32_t t = 0; t < l->block[0]; ++t) scratch[t] = in[l->block_id[0] * l->block[0] + t];
    for (uint32_t t = 0; t < l->block[0]; ++t) s += scratch[t];
    out[l->block_id[0]] = (int32_t)s;
    return 0;
}

int add_global(const infinirtCpuLaunch_t *l, void *const *args) {
    int32_t *out = ARG(int32_t *, 0);
    (void)l;
    out[0] += g_value;
    return 0;
}

int fail_always(const infinirtCpuLaunch_t *l, void *const *args) {
    (void)l; (void)args;
    return 5;
}
"""

OPENCL_SOURCE = r"""
typedef struct { int tag; float4 v; } Packet;

__kernel void vector_add(__global const float *a, __global const float *b, __global float *c, int n) {
    int i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

__kernel void saxpy_mixed(__global float *y, __global const float *x, float a, double b, long k,
                          Packet p, int n) {
    int i = get_global_id(0);
    float add = (float)b + (float)k + (float)p.tag + p.v.x + p.v.y + p.v.z + p.v.w;
    if (i < n) y[i] = a * x[i] + add;
}

__kernel void block_sum(__global const int *in, __global int *out, __local int *scratch) {
    int t = get_local_id(0);
    scratch[t] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
        int s = 0;
        for (int j = 0; j < (int)get_local_size(0); ++j) s += scratch[j];
        out[get_group_id(0)] = s;
    }
}
"""


class Packet(ctypes.Structure):
    """The kernels' by-value struct: int32 tag, then 4 floats 16-byte aligned (sizeof 32)."""
    _fields_ = [("tag", ctypes.c_int32), ("_pad", ctypes.c_int32 * 3), ("v", ctypes.c_float * 4)]


assert ctypes.sizeof(Packet) == 32 and Packet.v.offset == 16


@pytest.fixture(scope="module")
def cpu_image(tmp_path_factory):
    return build_cpu_kernel(tmp_path_factory.mktemp("kernels"), CPU_SOURCE)


def opencl_devices():
    try:
        return [str(d) for d in infinirt.devices() if d.type == "opencl"]
    except Exception:
        return []


def check_vector_add(module, device, n=1000):
    k = module.kernel("vector_add")
    assert k is module.kernel("vector_add") and k.name == "vector_add" and k.device == device
    a = numpy.arange(n, dtype=numpy.float32)
    b = numpy.full(n, 0.5, dtype=numpy.float32)
    da, db, dc = (infinirt.alloc(a.nbytes, device) for _ in range(3))
    da.copy_from(a)
    db.copy_from(b)
    dc.fill(0)
    s = infinirt.Stream(device)
    k.launch((n + 127) // 128, 128, da, db.ptr, dc, numpy.int32(n), stream=s)  # db as an int address
    s.synchronize()
    out = numpy.empty_like(a)
    dc.copy_to(out)
    assert (out == a + b).all()
    dc.fill(0)
    k((n + 255) // 256, (256,), da, db, dc, ctypes.c_int32(n))  # default stream of the kernel's device
    device.synchronize()
    dc.copy_to(out)
    assert (out == a + b).all()


def check_saxpy_mixed(module, device, n=300):
    k = module.kernel("saxpy_mixed")
    x = numpy.arange(n, dtype=numpy.float32)
    dx, dy = infinirt.alloc(x.nbytes, device), infinirt.alloc(x.nbytes, device)
    dx.copy_from(x)
    p = Packet(tag=3)
    p.v[:] = [1.0, 2.0, 3.0, 4.0]
    k.launch((n + 63) // 64, 64, dy, dx, numpy.float32(2.0), ctypes.c_double(0.5), numpy.int64(10), p,
             numpy.int32(n))
    device.synchronize()
    y = numpy.empty_like(x)
    dy.copy_to(y)
    assert (y == 2.0 * x + (0.5 + 10 + 3 + 10)).all()


def check_block_sum(module, device, blocks=4, block=64):
    k = module.kernel("block_sum")
    data = numpy.arange(blocks * block, dtype=numpy.int32)
    din, dout = infinirt.alloc(data.nbytes, device), infinirt.alloc(4 * blocks, device)
    din.copy_from(data)
    k.launch(blocks, block, din, dout, infinirt.LocalMemory(4 * block))
    device.synchronize()
    out = numpy.empty(blocks, dtype=numpy.int32)
    dout.copy_to(out)
    assert (out == data.reshape(blocks, block).sum(axis=1)).all()


def test_cpu_kernels(cpu, cpu_image):
    m = infinirt.Module(cpu_image, format="host_so", device=cpu)
    assert m.device == cpu and isinstance(m.log, str)
    check_vector_add(m, cpu)
    check_saxpy_mixed(m, cpu)
    check_block_sum(m, cpu)
    attrs = m.kernel("vector_add").attributes()
    assert attrs["max_threads_per_block"] >= 128
    m.unload()
    m.unload()


def test_cpu_module_global_and_auto_format(cpu, cpu_image):
    m = infinirt.Module(cpu_image, device=cpu)  # AUTO: an ELF shared object on cpu
    g = m.get_global("g_value")
    assert g.kind == "global" and g.nbytes == 4 and g.owner is m
    assert numpy.frombuffer(g.tobytes(), dtype=numpy.int32)[0] == 7
    g.copy_from(numpy.int32(40))
    out = infinirt.alloc(4, cpu)
    out.copy_from(numpy.int32(2))
    m.kernel("add_global").launch(1, 1, out)
    cpu.synchronize()
    assert numpy.frombuffer(out.tobytes(), dtype=numpy.int32)[0] == 42
    with pytest.raises(infinirt.SymbolNotFoundError) as e:
        m.get_global("nope")
    assert "nope" in str(e.value)


def test_cpu_kernel_errors(cpu, cpu_image):
    m = infinirt.Module(cpu_image, device=cpu)
    with pytest.raises(infinirt.SymbolNotFoundError) as e:
        m.kernel("no_such_kernel")
    assert e.value.status == "INFINI_STATUS_SYMBOL_NOT_FOUND" and "no_such_kernel" in str(e.value)
    k = m.kernel("vector_add")
    with pytest.raises(TypeError):
        k.launch(1, 1, 1.5)  # a Python float names no C type
    with pytest.raises(TypeError):
        k.launch(1, 1, True)
    with pytest.raises(TypeError):
        k.launch(1, 1, "text")
    with pytest.raises(ValueError):
        k.launch((1, 1, 1, 1), 1)
    with pytest.raises(infinirt.BadParamError):
        k.launch(0, 1, None, None, None, numpy.int32(0))  # a zero grid dimension
    with pytest.raises(infinirt.BadParamError):
        k.launch(1, 1 << 20, None, None, None, numpy.int32(0))  # over MAX_THREADS_PER_BLOCK
    s = infinirt.Stream(cpu)
    m.kernel("fail_always").launch(1, 1, stream=s)
    with pytest.raises(infinirt.DriverError) as e:
        s.synchronize()
    assert "fail_always" in str(e.value)
    with pytest.raises(infinirt.Error):
        infinirt.Module(b"\x7fELF definitely not a shared object", format="host_so", device=cpu)
    with pytest.raises(ValueError):
        infinirt.Module(b"x", format="no-such-format", device=cpu)
    m.unload()
    with pytest.raises(infinirt.InvalidHandleError):
        k.launch(1, 1, None, None, None, numpy.int32(0))


def test_cpu_kernel_in_a_graph(cpu, cpu_image):
    m = infinirt.Module(cpu_image, device=cpu)
    out = infinirt.alloc(4, cpu)
    out.copy_from(numpy.int32(0))
    s = infinirt.Stream(cpu)
    with s.capture() as graph:
        m.kernel("add_global").launch(1, 1, out, stream=s)
    for _ in range(3):
        graph.launch(s)
    s.synchronize()
    assert numpy.frombuffer(out.tobytes(), dtype=numpy.int32)[0] == 21


@pytest.mark.parametrize("dev", opencl_devices() or [pytest.param("opencl:0", marks=pytest.mark.skip(
    reason="no OpenCL device (CI has PoCL's)"))])
def test_opencl_kernels(dev):
    device = infinirt.Device(dev)
    m = infinirt.Module(OPENCL_SOURCE, format="opencl_c", device=device)
    check_vector_add(m, device)
    check_block_sum(m, device)
    assert m.kernel("vector_add").attribute("num_params") == 4
    check_saxpy_mixed(m, device)  # a double argument: PoCL and NVIDIA's OpenCL have cl_khr_fp64


@pytest.mark.parametrize("dev", opencl_devices() or [pytest.param("opencl:0", marks=pytest.mark.skip(
    reason="no OpenCL device (CI has PoCL's)"))])
def test_opencl_build_failure_has_the_log(dev):
    device = infinirt.Device(dev)
    with pytest.raises(infinirt.BuildFailedError) as e:
        infinirt.Module("__kernel void broken(__global int *p) { p[0] = undefined_name; }", device=device)
    assert "undefined_name" in e.value.log and e.value.status == "INFINI_STATUS_BUILD_FAILED"
    m = infinirt.Module(OPENCL_SOURCE, device=device)  # AUTO: text is OpenCL C
    with pytest.raises(infinirt.BadParamError):
        m.kernel("vector_add").launch(1, 1, None)  # NUM_PARAMS is known on opencl: 4 expected


def test_cpu_kernel_arguments_of_changing_kinds(cpu, cpu_image):
    """Launches reuse a prepared argument array per tuple of argument types: every call writes its
    own values, a kind changing in a position (Buffer, View, int; NumPy, ctypes, bytes) is still
    served, and what was refused is still refused after the accepted calls."""
    m = infinirt.Module(cpu_image, device=cpu)
    k = m.kernel("saxpy_mixed")
    n = 64
    x = numpy.arange(n, dtype=numpy.float32)
    dx, dy = infinirt.alloc(x.nbytes, cpu), infinirt.alloc(x.nbytes, cpu)
    dx.copy_from(x)
    p = Packet(tag=1)
    p.v[:] = [0.0, 0.0, 0.0, 0.0]
    s = infinirt.Stream(cpu)
    y = numpy.empty_like(x)
    # (arguments, scale, added, elements written): y = scale * x + added over the elements.
    cases = [
        ((dy, dx, numpy.float32(2.0), ctypes.c_double(0.5), numpy.int64(1), p, numpy.int32(n)), 2, 2.5, n),
        ((dy, dx, numpy.float32(3.0), ctypes.c_double(1.5), numpy.int64(2), p, numpy.int32(n)), 3, 4.5, n),
        ((dy.ptr, dx.view("float32"), ctypes.c_float(4.0), numpy.float64(2.5), ctypes.c_int64(3), p,
          ctypes.c_int32(n)), 4, 6.5, n),
        ((dy.view("float32"), dx.ptr, numpy.float32(5.0).tobytes(), bytes(ctypes.c_double(3.5)),
          bytearray(numpy.int64(4).tobytes()), bytes(p), numpy.array(n, dtype=numpy.int32)), 5, 8.5, n),
        ((dy, dx, numpy.float32(2.0), ctypes.c_double(0.5), numpy.int64(1), p, numpy.int32(n // 2)), 2, 2.5, n // 2),
    ]
    for args, scale, added, count in cases:
        dy.fill(0)
        k.launch(1, n, *args, stream=s)
        s.synchronize()
        dy.copy_to(y)
        assert (y[:count] == scale * x[:count] + added).all() and (y[count:] == 0).all()
    first = cases[0][0]
    with pytest.raises(TypeError):
        k.launch(1, n, dy, dx, 2.0, ctypes.c_double(0.5), numpy.int64(1), p, numpy.int32(n))  # a Python float
    with pytest.raises(TypeError):
        k.launch(1, n, dy, dx, numpy.float32(2.0), ctypes.c_double(0.5), True, p, numpy.int32(n))
    with pytest.raises(ValueError):
        k.launch(1, n, dy, dx, numpy.float32(2.0), (ctypes.c_char * 0)(), numpy.int64(1), p, numpy.int32(n))
    with pytest.raises(TypeError):
        k.launch(1.0, n, *first)  # a float grid, refused though 1 was launched with
    with pytest.raises(TypeError):
        k.launch(numpy.int64(1), n, *first)
    dx.free()
    with pytest.raises(infinirt.InvalidHandleError):
        k.launch(1, n, *first)  # a freed Buffer, in a position prepared for Buffers
    s.synchronize()


def test_cpu_kernel_local_memory_sizes_and_closed_stream(cpu, cpu_image):
    m = infinirt.Module(cpu_image, device=cpu)
    k = m.kernel("block_sum")
    data = numpy.arange(256, dtype=numpy.int32)
    din, dout = infinirt.alloc(data.nbytes, cpu), infinirt.alloc(4 * 8, cpu)
    din.copy_from(data)
    s = infinirt.Stream(cpu)
    for blocks, block in ((4, 64), (8, 32), (2, 128)):  # LOCAL's size written per call
        k.launch(blocks, block, din, dout, infinirt.LocalMemory(4 * block), stream=s)
        s.synchronize()
        out = numpy.empty(blocks, dtype=numpy.int32)
        dout.copy_to(out)
        assert (out == data[:blocks * block].reshape(blocks, block).sum(axis=1)).all()
    s.close()
    with pytest.raises(infinirt.InvalidHandleError) as e:
        k.launch(2, 128, din, dout, infinirt.LocalMemory(512), stream=s)
    assert "Stream was closed" in str(e.value)
    with pytest.raises(TypeError):
        k.launch(2, 128, din, dout, infinirt.LocalMemory(512), stream="not a stream")
    m.unload()
    with pytest.raises(infinirt.InvalidHandleError) as e:
        k.launch(2, 128, din, dout, infinirt.LocalMemory(512), stream=infinirt.Stream(cpu))
    assert "Module was closed" in str(e.value)


def test_cpu_kernel_launched_from_threads(cpu, cpu_image):
    """Threads launching one kernel with the same argument types never share an argument array
    while a launch uses it: each thread's values reach its own launches."""
    import threading
    m = infinirt.Module(cpu_image, device=cpu)
    k = m.kernel("vector_add")
    n = 256
    a = numpy.arange(n, dtype=numpy.float32)
    da = infinirt.alloc(a.nbytes, cpu)
    da.copy_from(a)
    errors = []

    def work(t):
        try:
            s = infinirt.Stream(cpu)
            db, dc = infinirt.alloc(a.nbytes, cpu), infinirt.alloc(a.nbytes, cpu)
            db.copy_from(numpy.full(n, float(t), dtype=numpy.float32))
            out = numpy.empty_like(a)
            for _ in range(200):
                k.launch(1, n, da, db, dc, numpy.int32(n), stream=s)
            s.synchronize()
            dc.copy_to(out)
            assert (out == a + t).all(), t
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def vulkan_devices():
    try:
        return [str(d) for d in infinirt.devices() if d.type == "vulkan"]
    except Exception:
        return []


def vulkan_kernel_set():
    """The conformance kernel set as one Vulkan SPIR-V module, as this build made it (glslc)."""
    import os
    path = os.path.join(os.environ.get("INFINIRT_TEST_BUILD_DIR", ""), "tests", "conformance", "kernels",
                        "kernels.spv")
    if not os.path.exists(path):
        pytest.skip("this build has no Vulkan SPIR-V kernels (%s; glslc or spirv-link not found)" % path)
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("dev", vulkan_devices() or [pytest.param("vulkan:0", marks=pytest.mark.skip(
    reason="no Vulkan device (CI has lavapipe)"))])
def test_vulkan_kernels_with_dlpack_arrays(dev):
    device = infinirt.Device(dev)
    image = vulkan_kernel_set()
    m = infinirt.Module(image, format="spirv", device=device)
    assert "vector_add" in m.log
    k = m.kernel("vector_add")
    assert k.attribute("num_params") == 4
    n = 1000
    a = numpy.arange(n, dtype=numpy.float32)
    b = numpy.full(n, 0.5, dtype=numpy.float32)
    da, db, dc = (infinirt.alloc(a.nbytes, device) for _ in range(3))
    da.copy_from(a)
    db.copy_from(b)
    dc.fill(0)
    va, vb, vc = (buf.view("float32") for buf in (da, db, dc))
    assert vc.__dlpack_device__() == (7, device.index)  # kDLVulkan
    s = infinirt.Stream(device)
    k.launch((n + 127) // 128, 128, va, vb, vc, numpy.int32(n), stream=s)
    s.synchronize()
    out = numpy.empty_like(a)
    dc.copy_to(out)
    assert (out == a + b).all()

    blocks, block = 4, 64
    data = numpy.arange(blocks * block, dtype=numpy.float32)
    din, dout = infinirt.alloc(data.nbytes, device), infinirt.alloc(4 * blocks, device)
    din.copy_from(data)
    m.kernel("block_sum").launch(blocks, block, din.view("float32"), dout.view("float32"),
                                 infinirt.LocalMemory(4 * block))
    device.synchronize()
    sums = numpy.empty(blocks, dtype=numpy.float32)
    dout.copy_to(sums)
    assert (sums == data.reshape(blocks, block).sum(axis=1)).all()

    auto = infinirt.Module(image, device=device)  # AUTO: the SPIR-V magic number
    with pytest.raises(infinirt.BadParamError):
        auto.kernel("vector_add").launch(1, 1, va)  # NUM_PARAMS is read from the module: 4 expected
    opencl_flavour = numpy.array([0x07230203, 0x00010000, 0, 8, 0, (2 << 16) | 17, 6], dtype=numpy.uint32)
    with pytest.raises(infinirt.BadParamError) as e:
        infinirt.Module(opencl_flavour.tobytes(), format="spirv", device=device)
    assert "OpenCL SPIR-V" in str(e.value)
