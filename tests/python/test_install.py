"""Finding libinfinirt, `pip install` of python/ (offline, Debian's setuptools), the package
that `cmake --install` puts in the prefix finding the prefix's library, and the install that
docs/python.md starts with (a venv, `cmake --install` into it), run as written there."""
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR, run_python

PACKAGE_DIR = os.path.join(SOURCE_DIR, "python")
NO_LIB_ENV = {"INFINIRT_LIBRARY": "", "LD_LIBRARY_PATH": ""}


def test_not_found_names_every_path_tried(tmp_path):
    missing = str(tmp_path / "nowhere" / "libinfinirt.so.0")
    r = run_python("import infinirt\n"
                   "try:\n    infinirt.devices()\n"
                   "except infinirt.LibraryNotFoundError as e:\n    print(e)\n",
                   env={"INFINIRT_LIBRARY": missing, "LD_LIBRARY_PATH": ""})
    assert r.returncode == 0, r.stderr
    if "not found" not in r.stdout:
        pytest.skip("a libinfinirt is installed in the system search path")
    assert missing in r.stdout and "INFINIRT_LIBRARY" in r.stdout and "libinfinirt.so.0" in r.stdout
    assert "system search path" in r.stdout


def test_not_found_shows_the_documented_install(tmp_path):
    r = run_python("import infinirt\n"
                   "try:\n    infinirt.devices()\n"
                   "except infinirt.LibraryNotFoundError as e:\n    print(e)\n",
                   env={"INFINIRT_LIBRARY": str(tmp_path / "nowhere"), "LD_LIBRARY_PATH": ""})
    assert r.returncode == 0, r.stderr
    if "not found" not in r.stdout:
        pytest.skip("a libinfinirt is installed in the system search path")
    for line in documented_install():
        assert line in r.stdout, r.stdout
    assert "docs/python.md" in r.stdout


def documented_install():
    """The first ```sh block of docs/python.md: the commands a user types to install."""
    with open(os.path.join(SOURCE_DIR, "docs", "python.md")) as f:
        m = re.search(r"^```sh\n(.*?)^```", f.read(), re.S | re.M)
    assert m, "docs/python.md has no ```sh block"
    return [line for line in m.group(1).splitlines() if line.strip()]


def test_documented_venv_install(tmp_path):
    """docs/python.md's three commands, as written there, with python3 (the interpreter running the
    tests), this build as build/, a fresh HOME and no network, INFINIRT_LIBRARY or PYTHONPATH; then
    the venv's python moves data through device memory with NumPy."""
    build = os.environ.get("INFINIRT_TEST_BUILD_DIR")
    # An absolute path: the shim below is itself named cmake, and one that ran "cmake" would run itself.
    cmake = shutil.which(os.environ.get("INFINIRT_TEST_CMAKE") or "cmake")
    if not build:
        pytest.skip("INFINIRT_TEST_BUILD_DIR is not set (ctest sets it)")
    if cmake is None:
        pytest.skip("no cmake found (INFINIRT_TEST_CMAKE or PATH)")
    r = subprocess.run([sys.executable, "-c", "import venv, ensurepip"], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("python3 -m venv is unavailable for %s (Debian: apt-get install python3-venv): %s"
                    % (sys.executable, (r.stderr.strip().splitlines() or [""])[-1]))
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        pydir = re.search(r"^INFINIRT_INSTALL_PYTHONDIR:\w+=(.*)$", f.read(), re.M)
    if pydir and os.path.isabs(pydir.group(1)):
        pytest.skip("INFINIRT_INSTALL_PYTHONDIR is absolute (%s): the package is not installed into the venv"
                    % pydir.group(1))
    lines = documented_install()
    assert len(lines) == 3 and lines[0].startswith("python3 -m venv ") and "cmake --install build" in lines[1] \
        and "infinirt.devices()" in lines[2], lines
    venv = tmp_path / "home" / "infinirt-venv"
    assert "~/infinirt-venv" in lines[0], "the test expects the venv at ~/infinirt-venv"

    # python3 and cmake as the shell finds them: this interpreter and this build's cmake.
    shims = tmp_path / "bin"
    shims.mkdir()
    for name, target in (("python3", sys.executable), ("cmake", cmake)):
        shim = shims / name
        shim.write_text('#!/bin/sh\nexec "%s" "$@"\n' % target)
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    src = tmp_path / "src"  # the source tree as the user has it: build/ in the current folder
    src.mkdir()
    os.symlink(build, str(src / "build"))
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("INFINIRT_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "INFINIRT_PLUGIN_PATH",
                        "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(HOME=str(tmp_path / "home"), PATH="%s:/usr/bin:/bin" % shims, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    r = subprocess.run(["bash", "-e", "-x", "-c", "\n".join(lines)], cwd=str(src), env=env,
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr + "\n" + r.stdout[-2000:]
    assert "Device('cpu:0')" in r.stdout, r.stderr + "\n" + r.stdout[-2000:]
    assert (venv / "pyvenv.cfg").exists()

    # The venv's python, elsewhere: the installed package, the venv's library, NumPy, a round trip.
    # --system-site-packages gives the venv the *base* interpreter's site-packages: where the tests
    # run under an interpreter that is itself a venv (a GPU machine's PyTorch venv), NumPy may be
    # there only; the round trip then uses bytes. On Debian (CI) NumPy is the system's: required.
    numpy_in_base = subprocess.run([str(venv / "bin" / "python"), "-c", "import numpy"], env=env,
                                   capture_output=True, text=True).returncode == 0
    if not numpy_in_base and sys.prefix != sys.base_prefix:
        prog = ("import sys, infinirt\n"
                "x = bytes(range(256)) * 256\n"
                "y = bytearray(len(x))\n"
                "with infinirt.alloc(len(x), 'cpu:0') as buf:\n"
                "    buf.copy_from(x)\n"
                "    buf.copy_to(y)\n"
                "assert bytes(y) == x, 'round trip changed the data'\n"
                "print(infinirt.__file__)\n"
                "print(infinirt.library_path())\n"
                "print(sys.prefix)\n"
                "print('round trip ok')\n")
    else:
        prog = None
    prog = prog or ("import sys, numpy, infinirt\n"
            "x = (numpy.arange(1 << 16, dtype=numpy.float32) * 1.5 - 7).reshape(256, 256)\n"
            "y = numpy.zeros_like(x)\n"
            "with infinirt.alloc(x.nbytes, 'cpu:0') as buf:\n"
            "    buf.copy_from(x)\n"
            "    buf.copy_to(y)\n"
            "    z = numpy.from_dlpack(buf.view('float32', x.shape)).copy()\n"
            "assert (y == x).all() and (z == x).all(), 'round trip changed the data'\n"
            "print(infinirt.__file__)\n"
            "print(infinirt.library_path())\n"
            "print(sys.prefix)\n"
            "print('round trip ok')\n")
    r = subprocess.run([str(venv / "bin" / "python"), "-c", prog], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout.splitlines()
    assert out[0].startswith(str(venv)), out  # the package the install put in the venv
    assert out[1].startswith(str(venv / "lib")) and "libinfinirt.so" in out[1], out  # the venv's library
    assert out[2] == str(venv) and out[3] == "round trip ok", out


def test_pip_install_offline(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("pip is not installed for %s (python3-pip)" % sys.executable)
    src = tmp_path / "src"
    shutil.copytree(PACKAGE_DIR, src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    target = tmp_path / "target"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        "--no-deps", "--disable-pip-version-check", "--target", str(target), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_python("import infinirt; print(infinirt.__file__); print(infinirt.devices())",
                   env={"PYTHONPATH": str(target)}, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(str(target)) and "Device('cpu:0')" in r.stdout


def test_cmake_install_puts_the_package_in_the_prefix(tmp_path):
    build = os.environ.get("INFINIRT_TEST_BUILD_DIR")
    cmake = os.environ.get("INFINIRT_TEST_CMAKE", "cmake")
    if not build:
        pytest.skip("INFINIRT_TEST_BUILD_DIR is not set (ctest sets it)")
    prefix = tmp_path / "prefix"
    r = subprocess.run([cmake, "--install", build, "--prefix", str(prefix)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    found = [root for root, dirs, files in os.walk(prefix) if "_install.py" in files and root.endswith("infinirt")]
    assert len(found) == 1, "no installed package with _install.py under %s" % prefix
    site = os.path.dirname(found[0])
    moved = tmp_path / "moved"  # the prefix is relocatable
    shutil.move(str(prefix), str(moved))
    site = str(moved) + site[len(str(prefix)):]
    r = run_python("import infinirt; print(infinirt.library_path()); print(infinirt.devices()); "
                   "print(infinirt.alloc(64, 'cpu').fill(3).tobytes()[:2])",
                   env=dict(NO_LIB_ENV, PYTHONPATH=site, INFINIRT_PLUGIN_PATH=""), cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(str(moved)) and "libinfinirt.so" in lines[0], lines
    assert "Device('cpu:0')" in lines[1] and lines[2] == "b'\\x03\\x03'"
