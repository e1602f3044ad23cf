"""Every object releases its handle exactly once: by close()/free(), by garbage collection, or at
interpreter exit; closing or freeing again is harmless."""
import gc
import json
import textwrap

import numpy
import pytest

import infinirt
from conftest import INCLUDE_DIR, build_cpu_kernel, run_python

KERNEL = "#include <infinirt_cpu_kernel.h>\nint noop(const infinirtCpuLaunch_t *l, void *const *a) {(void)l; (void)a; return 0;}\n"


def test_close_and_free_twice_are_harmless(device):
    s, e = infinirt.Stream(device), infinirt.Event(device)
    b, h = infinirt.alloc(64, device), infinirt.alloc_host(64, device)
    with s.capture() as g:
        b.fill(0, stream=s)
    for obj in (s, e, g):
        obj.close()
        obj.close()
        assert obj.closed
    for buf in (b, h):
        buf.free()
        buf.free()
        assert buf.freed
    with infinirt.Stream(device) as s2, infinirt.Event(device) as e2, infinirt.alloc(8, device) as b2:
        pass
    assert s2.closed and e2.closed and b2.freed
    s2.close()
    b2.free()


def test_collected_objects_release_their_handles(cpu):
    s = infinirt.Stream(cpu)
    fin = s._finalizer
    del s
    gc.collect()
    assert not fin.alive
    b = infinirt.alloc(64, cpu)
    fin = b._finalizer
    del b
    gc.collect()
    assert not fin.alive


# Run in a fresh interpreter: counts every release call per handle (wrapping the library's
# functions before any object exists), leaves objects of every kind alive, and prints the counts
# from an atexit hook registered before the package's own, so it runs after the releases.
EXIT_SCRIPT = textwrap.dedent(r'''
    import atexit, collections, ctypes, json, sys, weakref
    import numpy
    import infinirt
    from infinirt import _lib
    calls = collections.Counter()
    statuses = []
    lib = _lib.library()
    for name in ("infinirtStreamDestroy", "infinirtEventDestroy", "infinirtFree", "infinirtFreeHost",
                 "infinirtGraphDestroy", "infinirtGraphExecDestroy", "infinirtModuleUnload"):
        real = getattr(lib, name)
        def wrapper(handle, _real=real, _name=name):
            calls["%s %s" % (_name, handle)] += 1
            status = _real(handle)
            statuses.append((_name, status))
            return status
        setattr(lib, name, wrapper)
    def report():
        print(json.dumps({"calls": calls, "statuses": statuses}))
    atexit.register(report)
    weakref.finalize(report, lambda: None)  # the package's finalizers run before report()

    keep = []
    for dev in infinirt.devices():
        s = infinirt.Stream(dev)
        e = infinirt.Event(dev).record(s)
        b = infinirt.alloc(4096, dev)
        h = infinirt.alloc_host(4096, dev)
        b.copy_from(bytes(4096), stream=s)  # queued work at exit
        with s.capture() as g:
            b.fill(1, stream=s)
        g.launch(s)
        cap = b.view("uint8").__dlpack__()  # never taken
        arr = numpy.from_dlpack(h.view("float32"))  # taken by NumPy, alive at exit
        keep += [s, e, b, h, g, cap, arr]
    foreign = infinirt.from_dlpack(numpy.zeros(16))
    keep.append(foreign)
    if len(sys.argv) > 1:
        m = infinirt.Module(open(sys.argv[1], "rb").read(), device="cpu")
        k = m.kernel("noop")
        k.launch(1, 1)
        keep += [m, k]
    freed_early = infinirt.alloc(64, "cpu")
    freed_early.free()
    print("alive", len(keep))
''')


def test_objects_alive_at_exit_are_released_once(tmp_path):
    script = tmp_path / "exit_script.py"
    script.write_text(EXIT_SCRIPT)
    args = []
    try:
        so = tmp_path / "noop.so"
        so.write_bytes(build_cpu_kernel(tmp_path, KERNEL, "noop"))
        args.append(str(so))
    except pytest.skip.Exception:
        pass  # no compiler: the rest still runs
    code = "import sys; sys.argv = %r; exec(open(%r).read())" % (["x"] + args, str(script))
    r = run_python(code, env={"INFINIRT_TEST_INCLUDE": INCLUDE_DIR})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == "", r.stderr  # no "Exception ignored", no warning, no crash report
    lines = r.stdout.splitlines()
    assert lines[0].startswith("alive ")
    report = json.loads(lines[-1])
    calls = report["calls"]
    n_devices = len(infinirt.devices())
    kinds = {}
    for key, count in calls.items():
        assert count == 1, "%s released %d times" % (key, count)
        kinds[key.split()[0]] = kinds.get(key.split()[0], 0) + 1
    assert kinds["infinirtStreamDestroy"] == n_devices
    assert kinds["infinirtEventDestroy"] == n_devices
    assert kinds["infinirtFree"] == n_devices + 1  # + freed_early
    assert kinds["infinirtFreeHost"] == n_devices
    assert kinds["infinirtGraphDestroy"] == kinds["infinirtGraphExecDestroy"] == n_devices
    if args:
        assert kinds["infinirtModuleUnload"] == 1
    assert all(status == 0 for _, status in report["statuses"]), report["statuses"]


def test_forked_child_releases_nothing(cpu):
    code = textwrap.dedent('''
        import os, infinirt
        b = infinirt.alloc(64, "cpu"); s = infinirt.Stream("cpu")
        pid = os.fork()
        if pid == 0:
            os._exit(0 if infinirt._handles.forked() else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
    ''')
    r = run_python(code)
    assert r.returncode == 0 and r.stdout.strip() == "0", r.stdout + r.stderr
