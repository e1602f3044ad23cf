"""The memory of a Python object with the buffer protocol, through CPython's Py_buffer: what a
Buffer copies from or into when the other side of a copy is not infinirt memory."""
import ctypes

from . import _handles


class _PyBuffer(ctypes.Structure):
    """CPython's Py_buffer (stable ABI since 3.11, unchanged since 3.3)."""
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


_PyBUF_WRITABLE = 0x0001
_PyBUF_ANY_CONTIGUOUS = 0x0080 | 0x0010 | 0x0008
_GetBuffer = ctypes.pythonapi.PyObject_GetBuffer
_GetBuffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_GetBuffer.restype = ctypes.c_int
_ReleaseBuffer = ctypes.pythonapi.PyBuffer_Release
_ReleaseBuffer.argtypes = [ctypes.POINTER(_PyBuffer)]
_ReleaseBuffer.restype = None


def _release_view(view):
    _ReleaseBuffer(ctypes.byref(view))


class _HostView:
    """The memory of an object with the buffer protocol (bytes, bytearray, memoryview, NumPy
    array, ...), held until release(): contiguous, writable if asked."""

    def __init__(self, obj, writable):
        view = _PyBuffer()
        try:
            _GetBuffer(obj, ctypes.byref(view), _PyBUF_ANY_CONTIGUOUS | (_PyBUF_WRITABLE if writable else 0))
        except (BufferError, ValueError) as e:  # NumPy says ValueError for strided arrays
            raise BufferError("%s: %s (a contiguous%s buffer is needed)"
                              % (type(obj).__name__, e, " writable" if writable else "")) from None
        except TypeError:
            raise TypeError("expected an infinirt.Buffer or an object with the buffer protocol, not %s"
                            % type(obj).__name__) from None
        self.ptr = view.buf or 0
        self.nbytes = view.len
        self._view = view
        self._finalizer = _handles.register_call(self, _release_view, view)

    def release(self):
        self._finalizer()
