"""Finding libinfinirt, `pip install` of python/ (offline, Debian's setuptools), and the package
that `cmake --install` puts in the prefix finding the prefix's library."""
import os
import shutil
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
