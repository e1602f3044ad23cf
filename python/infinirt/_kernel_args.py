"""Kernel arguments: how each Python argument becomes an infinirtKernelArg_t.

Two ways, with the same result: marshal() converts every argument of one call into a fresh array;
prepare() builds, once per tuple of argument types, an ArgPlan: the array, the storage its values
point at, and a fill() made for those types, so that a launch with them only writes its values
into the array. Types a prepared array cannot serve (bytes, a 0-d ndarray, anything refused) get
a plan whose fill() is marshal(), which raises the refusals.
"""
import ctypes
import sys

from . import _abi
from ._abi import KernelArgKind
from ._buffer import Buffer
from ._dlpack import View

_POINTER = int(KernelArgKind.POINTER)
_VALUE = int(KernelArgKind.VALUE)
_LOCAL = int(KernelArgKind.LOCAL)
_POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)
_CTYPES_VALUES = (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array)


class LocalMemory:
    """A LOCAL kernel argument: `nbytes` of per-block shared memory."""

    def __init__(self, nbytes):
        if int(nbytes) <= 0:
            raise ValueError("LocalMemory: %r bytes" % (nbytes,))
        self.nbytes = int(nbytes)

    def __repr__(self):
        return "LocalMemory(%d)" % self.nbytes


def _convert(i, a):
    """(kind, size, ctypes object holding the value or None) for argument i."""
    P = KernelArgKind.POINTER
    if isinstance(a, (Buffer, View)):
        return P, _POINTER_SIZE, ctypes.pointer(ctypes.c_void_p(a.ptr))
    if a is None:
        return P, _POINTER_SIZE, ctypes.pointer(ctypes.c_void_p(None))
    if isinstance(a, LocalMemory):
        return KernelArgKind.LOCAL, a.nbytes, None
    if isinstance(a, bool):
        raise TypeError("kernel argument %d: a Python bool is ambiguous; pass numpy.bool_ or ctypes.c_bool/"
                        "c_int" % i)
    if isinstance(a, int):
        return P, _POINTER_SIZE, ctypes.pointer(ctypes.c_void_p(a))
    if type(a).__module__ == "numpy" and getattr(a, "ndim", None) == 0 and hasattr(a, "tobytes"):
        data = a.tobytes()  # before the float refusal: numpy.float64 is a float
    elif isinstance(a, float):
        raise TypeError("kernel argument %d: a Python float is ambiguous; pass numpy.float32(x), "
                        "numpy.float64(x) or a ctypes value" % i)
    elif isinstance(a, _CTYPES_VALUES):
        data = ctypes.string_at(ctypes.addressof(a), ctypes.sizeof(a))
    elif isinstance(a, (bytes, bytearray)):
        data = bytes(a)
    else:
        raise TypeError("kernel argument %d: cannot pass %s (Buffer, View, int address, None, LocalMemory, "
                        "NumPy scalar, ctypes value or bytes)" % (i, type(a).__name__))
    if not data:
        raise ValueError("kernel argument %d: a value of 0 bytes" % i)
    return KernelArgKind.VALUE, len(data), ctypes.create_string_buffer(data, len(data))


def marshal(args):
    """A fresh infinirtKernelArg_t array for `args` (at least one slot); the objects its values
    point at are kept in its `_keep` attribute, alive as long as the array."""
    argv = (_abi.KernelArg * max(len(args), 1))()
    keep = []
    for i, a in enumerate(args):
        slot = argv[i]
        kind, size, value = _convert(i, a)
        slot.kind, slot.size = int(kind), size
        if value is not None:
            keep.append(value)
            slot.value = ctypes.cast(value, ctypes.c_void_p)
    argv._keep = keep
    return argv


# ---- plans: one prepared array per tuple of argument types -------------------------------------
class ArgPlan:
    """The infinirtKernelArg_t array of one tuple of argument types (`types`, `count` of them).

    fill(args) writes a call's values into `argv` and returns it (or, where the plan marshals per
    call and `argv` is None, returns marshal(args)), or returns None, writing nothing, when the
    types of `args` are not `types`. A plan is written by one launch at a time:
    the kernel takes it for the call and gives it back after.
    """
    __slots__ = ("types", "count", "c_count", "argv", "fill")


# What fill() does per position, by the argument's type (cN: the c_void_p the slot points at,
# sN: the slot, vN: the NumPy 0-d array the slot points at). None writes nothing.
_WRITE_ADDRESS = "c{i}.value = a{i}.ptr"
_WRITE_INT = "c{i}.value = a{i}"
_WRITE_LOCAL = "s{i}.size = a{i}.nbytes"
_WRITE_CTYPES = "s{i}.value = addressof(a{i})"
_WRITE_NUMPY = "v{i}[()] = a{i}"


def _fill_source(count, writes):
    """fill(args)'s source: unpack, check every type, write (one statement per position)."""
    if not count:
        return "def fill(args):\n    return None if args else argv\n"
    names = ", ".join("a%d" % i for i in range(count)) + ","
    checks = " or ".join("type(a%d) is not T%d" % (i, i) for i in range(count))
    body = "".join("    %s\n" % w for w in writes)
    return ("def fill(args):\n"
            "    try:\n"
            "        %s = args\n"
            "    except ValueError:\n"
            "        return None\n"
            "    if %s:\n"
            "        return None\n"
            "%s"
            "    return argv\n") % (names, checks, body)


def _marshalling(types):
    """fill() of a plan whose types a prepared array cannot serve: marshal() per call."""
    def fill(args):
        return marshal(args) if tuple(map(type, args)) == types else None
    return fill


def prepare(args):
    """The ArgPlan for the types of `args`. Each type is classified as _convert() classifies it;
    where a type alone does not fix the kind and size (bytes, a 0-d ndarray) or is refused, the
    plan's fill() is marshal(), which raises the refusals. Otherwise fill() is a function made
    for these types (its source from _fill_source) that writes the values into a prepared array:
    the per-call work is an unpacking, a type check and one store per argument."""
    plan = ArgPlan()
    plan.types = types = tuple(map(type, args))
    plan.count = count = len(args)
    plan.c_count = ctypes.c_uint32(count)
    plan.argv = argv = (_abi.KernelArg * max(count, 1))()
    numpy = sys.modules.get("numpy")
    env = {"argv": argv, "addressof": ctypes.addressof}
    writes = []
    for i, (t, a) in enumerate(zip(types, args)):
        env["T%d" % i] = t
        slot = env["s%d" % i] = argv[i]
        cell = None
        if issubclass(t, (Buffer, View)):
            cell, write = ctypes.c_void_p(), _WRITE_ADDRESS
        elif a is None:
            cell, write = ctypes.c_void_p(), None
        elif issubclass(t, LocalMemory):
            slot.kind, write = _LOCAL, _WRITE_LOCAL
        elif issubclass(t, int) and not issubclass(t, bool):
            cell, write = ctypes.c_void_p(), _WRITE_INT
        elif issubclass(t, _CTYPES_VALUES) and ctypes.sizeof(t):
            slot.kind, slot.size, write = _VALUE, ctypes.sizeof(t), _WRITE_CTYPES
        elif numpy is not None and issubclass(t, (numpy.number, numpy.bool_)) and t.__module__ == "numpy":
            value = env["v%d" % i] = numpy.zeros((), t)
            slot.kind, slot.size, slot.value, write = _VALUE, value.nbytes, value.ctypes.data, _WRITE_NUMPY
        else:
            plan.argv = None
            plan.fill = _marshalling(types)
            return plan
        if cell is not None:
            env["c%d" % i] = cell
            slot.kind, slot.size, slot.value = _POINTER, _POINTER_SIZE, ctypes.addressof(cell)
        if write is not None:
            writes.append(write.format(i=i))
    exec(compile(_fill_source(count, writes), "<infinirt kernel arguments>", "exec"), env)
    plan.fill = env["fill"]
    return plan
