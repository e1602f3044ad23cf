"""What one Kernel.launch from Python costs (issue 24, "Python launch"): a kernel of 4 arguments
(3 buffers and an int32) on an explicit stream, per call, beside the anchor measured in the same
run: a bare ctypes call of infinirtLaunchKernel with its argument array built once.

On cpu:0 (always; a cpu kernel built with the system C compiler, as tests/python does) and, where
infinirt has an nvidia device, on nvidia:0 (a PTX kernel), with two more rows there where they are
importable: CuPy's RawModule function call over the same PTX, and Triton's launcher for a Triton
kernel of 4 arguments beside Kernel.launch of the cubin Triton compiled for it.

Rounds alternate the rows; each figure is the median over rounds of a batch's microseconds per
call, `added` the median over rounds of ours minus the anchor. The goal (<= 10 us on nvidia:0) is
judged in the table's last column and on the closing `goal:` line; the program exits 0 whatever
the figures (1 only when infinirt itself fails).

    INFINIRT_LIBRARY=build/lib/libinfinirt.so.0 PYTHONPATH=python python3 bench/python/launch_bench.py [--quick]
"""
import argparse
import ctypes
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
try:
    import infinirt
except ImportError:  # run from the source tree without PYTHONPATH
    sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
    import infinirt
import numpy

from infinirt import _abi
from infinirt._lib import library

GOAL_US = 10.0
N = 1 << 20  # elements of the kernels' buffers (float32)
BLOCK = 128

CPU_SOURCE = r"""
#include <infinirt_cpu_kernel.h>
int add4(const infinirtCpuLaunch_t *l, void *const *args) { (void)l; (void)args; return 0; }
"""

# add4(const float *, const float *, float *, int): does nothing, for sm_52 and newer (JIT by the driver).
PTX = """.version 7.0
.target sm_52
.address_size 64
.visible .entry add4(.param .u64 add4_param_0, .param .u64 add4_param_1, .param .u64 add4_param_2,
                     .param .u32 add4_param_3)
{
\tret;
}
"""


def cpu_image(tmp):
    """The cpu kernel as a shared object built with the system C compiler."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        raise RuntimeError("no system C compiler (cc) to build the cpu kernel")
    include = os.environ.get("INFINIRT_TEST_INCLUDE", os.path.join(SOURCE_DIR, "include"))
    src, out = os.path.join(tmp, "add4.c"), os.path.join(tmp, "add4.so")
    with open(src, "w") as f:
        f.write(CPU_SOURCE)
    subprocess.run([cc, "-O1", "-fPIC", "-shared", "-std=c11", "-I", include, src, "-o", out], check=True)
    with open(out, "rb") as f:
        return f.read()


class Row:
    """One line of the table: `run(calls)` makes that many calls, `sync()` waits for them."""

    def __init__(self, what, run, sync, limit_us=None):
        self.what, self.run, self.sync, self.limit_us = what, run, sync, limit_us
        self.us = []

    def batch(self, calls):
        t0 = time.perf_counter()
        self.run(calls)
        t = time.perf_counter() - t0
        self.sync()
        self.us.append(t / calls * 1e6)


def infinirt_rows(device, kernel, stream, label):
    """Kernel.launch and the anchor: the same kernel, arguments and stream."""
    bufs = [infinirt.alloc(4 * N, device) for _ in range(3)]
    n = numpy.int32(N)
    grid = (N + BLOCK - 1) // BLOCK
    a, b, c = bufs

    def ours(calls):
        for _ in range(calls):
            kernel.launch(grid, BLOCK, a, b, c, n, stream=stream)

    cfg = _abi.LaunchConfig()
    cfg.struct_size = ctypes.sizeof(cfg)
    cfg.grid[:] = (grid, 1, 1)
    cfg.block[:] = (BLOCK, 1, 1)
    cells = [ctypes.c_void_p(x.ptr) for x in bufs] + [ctypes.c_int32(N)]
    argv = (_abi.KernelArg * 4)()
    for slot, cell in zip(argv, cells):
        slot.kind = int(_abi.KernelArgKind.POINTER if isinstance(cell, ctypes.c_void_p) else _abi.KernelArgKind.VALUE)
        slot.size = ctypes.sizeof(cell)
        slot.value = ctypes.addressof(cell)
    fn, h, sh = library().infinirtLaunchKernel, kernel.handle, stream.handle

    def anchor(calls):
        for _ in range(calls):
            fn(h, cfg, argv, 4, sh)  # the struct itself: ctypes passes it by reference

    anchor.keep = (bufs, cells, cfg)
    goal = GOAL_US if device.type == "nvidia" else None
    return [Row("bare ctypes infinirtLaunchKernel (%s)" % label, anchor, stream.synchronize),
            Row("python launch, 4 args, stream (%s)" % label, ours, stream.synchronize, goal)]


def cupy_row(ptx_path):
    """CuPy's RawModule function call over the same PTX, 4 arguments, on a CuPy stream."""
    import cupy
    mod = cupy.RawModule(path=ptx_path)
    f = mod.get_function("add4")
    a, b, c = (cupy.zeros(N, dtype=cupy.float32) for _ in range(3))
    n = numpy.int32(N)
    s = cupy.cuda.Stream(non_blocking=True)
    grid = ((N + BLOCK - 1) // BLOCK,)

    def run(calls):
        for _ in range(calls):
            f(grid, (BLOCK,), (a, b, c, n), stream=s)

    run.keep = (mod, a, b, c)
    return Row("cupy RawModule function call (nvidia:0)", run, s.synchronize)


def entry_params(ptx, name):
    """How many parameters the PTX entry `name` has."""
    m = re.search(r"\.entry\s+%s\s*\((.*?)\)" % re.escape(name), ptx, re.S)
    return m.group(1).count(".param") if m else 4


def metadata(compiled, key):
    md = getattr(compiled, "metadata", None)
    if isinstance(md, dict):
        return md[key]
    if md is not None and hasattr(md, key):
        return getattr(md, key)
    return getattr(compiled, key)


def triton_rows(device, stream):
    """Triton's launcher for its add4 kernel, and Kernel.launch of the cubin it compiled."""
    import torch
    sys.path.insert(0, HERE)
    from triton_add4 import add4
    x, y, out = (torch.zeros(N, device="cuda", dtype=torch.float32) for _ in range(3))
    grid = ((N + 1023) // 1024,)
    compiled = add4[grid](x, y, out, N, BLOCK=1024)
    torch.cuda.synchronize()
    ts = torch.cuda.Stream()

    def triton_run(calls):
        with torch.cuda.stream(ts):
            for _ in range(calls):
                add4[grid](x, y, out, N, BLOCK=1024)

    name = metadata(compiled, "name")
    extra = entry_params(compiled.asm["ptx"], name) - 4  # Triton's own scratch pointers (NULL here)
    shared = metadata(compiled, "shared")
    module = infinirt.Module(compiled.asm["cubin"], format="cubin", device=device)
    kernel = module.kernel(name)
    block = 32 * metadata(compiled, "num_warps")
    bufs = [infinirt.alloc(4 * N, device) for _ in range(3)]
    a, b, c = bufs
    n = numpy.int32(N)
    nulls = (None,) * extra

    def ours(calls):
        for _ in range(calls):
            kernel.launch(grid, block, a, b, c, n, *nulls, shared=shared, stream=stream)

    ours.keep = (module, bufs)
    return [Row("triton launcher, add4 (nvidia:0)", triton_run, ts.synchronize),
            Row("python launch of triton's cubin (nvidia:0)", ours, stream.synchronize)]


def optional(what, make, *args):
    try:
        return make(*args)
    except Exception as e:  # not installed, no CUDA in it, an API of another version...
        print("%s: skipped (%s: %s)" % (what, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        return []


def table(title, rows, anchor):
    print("\n%s\n  anchor: %s" % (title, anchor.what))
    print("%-44s %5s %12s %12s %8s %10s  %-26s %s" % ("what", "unit", "per call", "anchor", "ratio", "added",
                                                      "limit", "verdict"))
    ref = statistics.median(anchor.us)
    for r in rows:
        ours = statistics.median(r.us)
        added = statistics.median(o - a for o, a in zip(r.us, anchor.us))
        limit = "ours <= %g us" % r.limit_us if r.limit_us else "-"
        verdict = ("met" if ours <= r.limit_us else "MISSED") if r.limit_us else "info"
        print("%-44s %5s %12.2f %12.2f %8.3f %10.2f  %-26s %s" % (r.what, "us", ours, ref, ours / ref, added, limit,
                                                                 verdict))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few short rounds: only checks that it runs")
    opts = ap.parse_args()
    rounds, calls = (3, 50) if opts.quick else (15, 2000)
    devices = [d for d in infinirt.devices() if d.type in ("cpu", "nvidia") and d.index == 0]
    judged = None
    with tempfile.TemporaryDirectory() as tmp:
        for device in devices:
            label = str(device)
            stream = infinirt.Stream(device)
            if device.type == "cpu":
                module = infinirt.Module(cpu_image(tmp), format="host_so", device=device)
            else:
                module = infinirt.Module(PTX, format="ptx", device=device)
            rows = infinirt_rows(device, module.kernel("add4"), stream, label)
            if device.type == "nvidia":
                ptx_path = os.path.join(tmp, "add4.ptx")
                with open(ptx_path, "w") as f:
                    f.write(PTX)
                rows += optional("cupy", lambda path: [cupy_row(path)], ptx_path)
                rows += optional("triton", triton_rows, device, stream)
            for r in rows:  # warm-up: plans, JIT caches, lazy loading
                r.batch(calls // 10 or 1)
                r.us.clear()
            for i in range(rounds):
                for r in (rows if i % 2 == 0 else rows[::-1]):
                    r.batch(calls)
            table("Python launch of a 4-argument kernel on %s (%s), %d rounds of %d calls"
                  % (label, device.properties()["name"], rounds, calls), rows, rows[0])
            if device.type == "nvidia":
                judged = rows[1]
    print()
    if judged is None:
        print("goal: not judged (Kernel.launch <= %g us is judged on nvidia:0; no nvidia device here)" % GOAL_US)
    else:
        us = statistics.median(judged.us)
        print("goal: Kernel.launch, 4 args, explicit stream on nvidia:0 <= %g us: %s (%.2f us)"
              % (GOAL_US, "met" if us <= GOAL_US else "MISSED", us))
    return 0


if __name__ == "__main__":
    sys.exit(main())
