"""Finds and loads libinfinirt.so, once, on first use.

Search order: the INFINIRT_LIBRARY environment variable (the library file, or a folder holding
it); the install prefix the package was installed with by `cmake --install` (recorded in
_install.py, relative to the package, so the prefix stays relocatable); the system search path
(LD_LIBRARY_PATH, the ldconfig cache). A failure names every path tried and the documented
install (INSTALL_HINT), which needs no environment variable.
"""
import ctypes
import ctypes.util
import os
import threading

from . import _abi

_NAMES = ("libinfinirt.so.0", "libinfinirt.so")

# How to get a package that finds its library (docs/python.md), for LibraryNotFoundError.
INSTALL_HINT = (
    "Install the package together with the library (docs/python.md), from the source tree after "
    "./scripts/quickstart.sh has built build/:\n"
    "    python3 -m venv --system-site-packages ~/infinirt-venv\n"
    "    cmake --install build --prefix ~/infinirt-venv\n"
    "    ~/infinirt-venv/bin/python -c \"import infinirt; print(infinirt.devices())\"\n"
    "or set INFINIRT_LIBRARY to libinfinirt.so.0 (e.g. build/lib/libinfinirt.so.0) or to its folder.")

_lock = threading.Lock()
_lib = None
_path = None


class LibraryNotFoundError(OSError):
    """libinfinirt.so could not be loaded; the message lists every path tried and why."""


def _candidates():
    """(path, where-it-came-from) in search order."""
    out = []
    env = os.environ.get("INFINIRT_LIBRARY")
    if env:
        if os.path.isdir(env):
            out += [(os.path.join(env, n), "INFINIRT_LIBRARY") for n in _NAMES]
        else:
            out.append((env, "INFINIRT_LIBRARY"))
    try:
        from . import _install  # written by cmake --install
    except ImportError:
        _install = None
    if _install is not None:
        here = os.path.dirname(os.path.abspath(__file__))
        out.append((os.path.normpath(os.path.join(here, _install.LIBRARY)), "install prefix"))
    found = ctypes.util.find_library("infinirt")
    for n in ((found,) if found else ()) + _NAMES:
        out.append((n, "system search path"))
    return out


def library():
    """The loaded ctypes.CDLL, with every function of _abi.FUNCTIONS typed."""
    global _lib, _path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        lib = None
        for path, origin in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append("%s (%s): no such file" % (path, origin))
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s): %s" % (path, origin, e))
                continue
            if not hasattr(lib, "infinirtGetLastErrorMessage"):
                tried.append("%s (%s): not libinfinirt (no infinirtGetLastErrorMessage)" % (path, origin))
                lib = None
                continue
            _path = path
            break
        if lib is None:
            raise LibraryNotFoundError("infinirt: libinfinirt.so not found. " + INSTALL_HINT + "\nTried:\n  "
                                       + "\n  ".join(tried))
        for name, (restype, argtypes) in _abi.FUNCTIONS.items():
            fn = getattr(lib, name, None)
            if fn is None:
                continue  # an older library: calling it raises AttributeError from Lib
            fn.restype = restype
            fn.argtypes = argtypes
        _lib = lib
        return lib


def path():
    """The path libinfinirt was loaded from (loads it if needed)."""
    library()
    return _path
