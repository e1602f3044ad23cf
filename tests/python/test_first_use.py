"""What a newcomer meets first: `import infinirt` from the repository's root, where the C++ folder
infinirt/ comes first on sys.path, loads the installed package if there is one and otherwise fails
saying why (never an empty namespace package); DeviceNotFoundError carries the backend's own
reason."""
import os
import subprocess
import sys

import pytest

import infinirt

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))


def _import_in(folder, *flags, env=None):
    code = "import infinirt; print(infinirt.__file__); print(len(infinirt.devices()))"
    return subprocess.run([sys.executable, *flags, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120)


def test_import_from_the_repository_root_without_a_package_says_why():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = _import_in(SOURCE_DIR, "-S", env=env)  # -S: no site-packages, so no installed package either
    assert done.returncode != 0
    assert "ImportError" in done.stderr and "C++ folder infinirt/" in done.stderr, done.stderr
    assert "AttributeError" not in done.stderr


def test_import_from_the_repository_root_finds_the_installed_package():
    done = _import_in(SOURCE_DIR)  # PYTHONPATH names python/, as a venv's site-packages would hold it
    assert done.returncode == 0, done.stderr
    path, count = done.stdout.split()
    assert path == os.path.realpath(infinirt.__file__) or path == infinirt.__file__
    assert not path.startswith(os.path.join(SOURCE_DIR, "infinirt") + os.sep)
    assert int(count) >= 1


def test_import_elsewhere_finds_the_package(tmp_path):
    done = _import_in(str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[1]) >= 1


def test_device_not_found_names_a_type_without_plugin():
    served = {b["device_type"] for b in infinirt.backends() if b["state"] in ("loaded", "unavailable")}
    if "cambricon" in served:
        pytest.skip("a cambricon plugin is installed here")
    with pytest.raises(infinirt.DeviceNotFoundError) as e:
        infinirt.Device("cambricon:0")
    assert e.value.reason == "no backend plugin serves cambricon"
    assert "cambricon:0: no such device (cambricon has 0: no backend plugin serves cambricon)" in str(e.value)


def test_device_not_found_carries_the_backends_reason():
    unavailable = [b for b in infinirt.backends() if b["state"] == "unavailable" and b["reason"]]
    if not unavailable:
        pytest.skip("every backend here has a device")
    b = unavailable[0]
    with pytest.raises(infinirt.DeviceNotFoundError) as e:
        infinirt.Device(b["device_type"] + ":0")
    assert e.value.reason == b["reason"]
    assert b["reason"] in str(e.value)


def test_device_not_found_past_the_last_device_has_no_reason():
    with pytest.raises(infinirt.DeviceNotFoundError) as e:
        infinirt.Device("cpu:99")
    assert e.value.reason == "" and "cpu:99: no such device (cpu has " in str(e.value)
