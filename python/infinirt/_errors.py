"""infinirt.Error and its subclasses, one per status worth catching on its own."""
from . import _abi
from ._lib import library

Status = _abi.Status


class Error(RuntimeError):
    """A call returned a failure status.

    .status is the status name ("INFINI_STATUS_BAD_PARAM"), .code its value, .function the C
    function, .message the calling thread's last-error message at the time (also in str()).
    """

    def __init__(self, status, message="", function=""):
        self.code = int(status)
        try:
            self.status = "INFINI_STATUS_" + Status(self.code).name
        except ValueError:
            self.status = "INFINI_STATUS_UNKNOWN"
        self.message = message
        self.function = function
        text = "%s: %s" % (function, self.status) if function else self.status
        if message:
            text += ": " + message
        super().__init__(text)


class OutOfMemoryError(Error, MemoryError):
    pass


class InvalidHandleError(Error):
    pass


class DeviceNotFoundError(Error):
    """No such device. Raised by Device(): .reason is the backend's own account ("libcuda.so.1
    not found: ...", "" when it has devices, just fewer), also in str()."""
    reason = ""


class DeviceTypeNotSupportedError(DeviceNotFoundError):
    pass


class BadParamError(Error, ValueError):
    pass


class NullPointerError(Error, ValueError):
    pass


class NotSupportedError(Error):
    """INFINI_STATUS_NOT_IMPLEMENTED: the backend serving the device lacks the operation."""


class NotReadyError(Error):
    pass


class DriverError(Error):
    pass


class BackendUnavailableError(Error):
    pass


class BuildFailedError(Error):
    """A module image did not build; .log has the build log."""
    log = ""


class SymbolNotFoundError(Error, KeyError):
    def __str__(self):  # KeyError would quote the text
        return Error.__str__(self)


_CLASSES = {
    Status.OUT_OF_MEMORY: OutOfMemoryError,
    Status.INVALID_HANDLE: InvalidHandleError,
    Status.DEVICE_NOT_FOUND: DeviceNotFoundError,
    Status.DEVICE_TYPE_NOT_SUPPORTED: DeviceTypeNotSupportedError,
    Status.BAD_PARAM: BadParamError,
    Status.NULL_POINTER: NullPointerError,
    Status.NOT_IMPLEMENTED: NotSupportedError,
    Status.NOT_READY: NotReadyError,
    Status.DRIVER_ERROR: DriverError,
    Status.BACKEND_UNAVAILABLE: BackendUnavailableError,
    Status.BUILD_FAILED: BuildFailedError,
    Status.SYMBOL_NOT_FOUND: SymbolNotFoundError,
}


def error_for(status, function=""):
    """The exception for a failure status, with this thread's last-error message."""
    message = library().infinirtGetLastErrorMessage()
    message = message.decode("utf-8", "replace") if message else ""
    return _CLASSES.get(status, Error)(status, message, function)


def check(status, function=""):
    if status != 0:
        raise error_for(status, function)


def call(name, *args):
    """Calls the C function `name`; raises the matching Error on a failure status."""
    status = getattr(library(), name)(*args)
    if status != 0:
        raise error_for(status, name)
