"""Release-exactly-once for every object that owns a C handle.

Each owner registers a weakref.finalize: it runs once, whichever comes first of an explicit
close()/free(), garbage collection, or interpreter exit (finalize's atexit hook, newest first, so
a kernel's module, a graph's stream or a buffer's producer outlive what was made from them).
Errors while releasing at collection or exit are swallowed (there is no caller to tell); an
explicit close() raises them. In a child forked after the parent used infinirt the handles are the
parent's: nothing is released there.
"""
import os
import weakref

from ._lib import library

_forked = False


def _after_fork_in_child():
    global _forked
    _forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def forked():
    return _forked


def _release_quietly(function, handle):
    if _forked:
        return
    try:
        getattr(library(), function)(handle)
    except Exception:  # interpreter shutting down, library gone: nothing left to tell
        pass


def register(owner, function, handle):
    """A finalizer calling the C function `function(handle)` once for `owner`."""
    return weakref.finalize(owner, _release_quietly, function, handle)


def register_call(owner, fn, *args):
    """A finalizer calling fn(*args) once for `owner` (fn must not raise)."""
    return weakref.finalize(owner, fn, *args)
