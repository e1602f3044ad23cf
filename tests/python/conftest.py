"""Shared fixtures of the Python package's tests (tests/python/, run by ctest: see CMakeLists.txt).

Environment (ctest sets it): INFINIRT_LIBRARY (the build's libinfinirt), PYTHONPATH (python/),
INFINIRT_TEST_INCLUDE (include/, for the cpu kernels compiled here), INFINIRT_TEST_BUILD_DIR and
INFINIRT_TEST_CMAKE (for the cmake --install test).
"""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
INCLUDE_DIR = os.environ.get("INFINIRT_TEST_INCLUDE", os.path.join(SOURCE_DIR, "include"))

import infinirt  # noqa: E402  (after the paths above are known)


def all_devices():
    return infinirt.devices()


def device_ids():
    try:
        return [str(d) for d in all_devices()]
    except Exception:  # reported by the tests that need a device
        return []


@pytest.fixture(params=device_ids() or ["cpu:0"])
def device(request):
    """Every device infinirt reports (cpu and PoCL's OpenCL in CI)."""
    return infinirt.Device(request.param)


@pytest.fixture
def cpu():
    return infinirt.Device("cpu:0")


def cc_path():
    return shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")


def build_cpu_kernel(tmp_path, source, name="kernels"):
    """Compiles a cpu kernel shared object with the system C compiler; skips without one."""
    cc = cc_path()
    if cc is None:
        pytest.skip("no system C compiler (cc) to build the cpu kernel")
    src = tmp_path / (name + ".c")
    out = tmp_path / (name + ".so")
    src.write_text(source)
    r = subprocess.run([cc, "-O1", "-fPIC", "-shared", "-std=c11", "-I", INCLUDE_DIR, str(src), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, "cc failed:\n" + r.stdout + r.stderr
    return out.read_bytes()


def run_python(code, env=None, cwd=None):
    """Runs `code` in a fresh interpreter (this one), returns the CompletedProcess."""
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, cwd=cwd,
                          timeout=120)
