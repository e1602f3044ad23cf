"""infinirt for Python: the infinirt C ABI (libinfinirt.so) through ctypes, with objects that own
their handles, exceptions that carry the C status and message, and DLPack exchange with NumPy and
PyTorch. See docs/python.md.

Install it with the library it needs, from the source tree once build/ is built (offline, no pip):

    python3 -m venv --system-site-packages ~/infinirt-venv
    cmake --install build --prefix ~/infinirt-venv

then, in ~/infinirt-venv/bin/python (or any python with INFINIRT_LIBRARY set to libinfinirt.so.0):

    import infinirt, numpy
    dev = infinirt.devices()[0]
    buf = infinirt.alloc(4096, dev).copy_from(numpy.arange(1024, dtype=numpy.float32))
    arr = numpy.from_dlpack(infinirt.alloc_host(4096, dev).copy_from(buf).view("float32", (1024,)))
"""
from ._abi import DeviceType, KernelAttribute, Limit, ModuleFormat, PeerAttribute, Status, StreamCaptureMode
from ._buffer import Buffer, alloc, alloc_host
from ._dlpack import View
from ._errors import BackendUnavailableError, BadParamError, BuildFailedError, DeviceNotFoundError, \
    DeviceTypeNotSupportedError, DriverError, Error, InvalidHandleError, NotReadyError, NotSupportedError, \
    NullPointerError, OutOfMemoryError, SymbolNotFoundError
from ._from_dlpack import from_dlpack
from ._kernel_args import LocalMemory
from ._kernels import Kernel, Module
from ._lib import LibraryNotFoundError
from ._lib import path as library_path
from ._runtime import Device, Event, Graph, Stream, backends, devices, push_device, synchronize
from ._sharing import Registration, ipc_open, ipc_open_event

__version__ = "0.1.0"


def current_device():
    """The calling thread's current device."""
    return Device.current()


def error_name(status):
    """infinirtGetErrorName(status) as a str."""
    from ._lib import library
    return library().infinirtGetErrorName(int(status)).decode()


__all__ = [
    "Buffer", "Device", "Event", "Graph", "Kernel", "LocalMemory", "Module", "Registration", "Stream", "View",
    "alloc", "alloc_host", "backends", "current_device", "devices", "error_name", "from_dlpack",
    "ipc_open", "ipc_open_event", "library_path", "push_device", "synchronize",
    "Error", "OutOfMemoryError", "InvalidHandleError", "DeviceNotFoundError", "DeviceTypeNotSupportedError",
    "BadParamError", "NullPointerError", "NotSupportedError", "NotReadyError", "DriverError",
    "BackendUnavailableError", "BuildFailedError", "SymbolNotFoundError", "LibraryNotFoundError",
    "DeviceType", "KernelAttribute", "Limit", "ModuleFormat", "PeerAttribute", "Status", "StreamCaptureMode",
]
