#!/usr/bin/env python3
"""A Python client of the C ABI through ctypes only (no compiled glue).

Usage: ctypes_client.py <path to libinfinirt.so>

Lists the backends, then on every device: allocates, copies through a stream, records events and
checks the data; also checks a refused call's status, name and message. Exit code 0 on success.
"""
import ctypes
import sys

SUCCESS = 0
BAD_PARAM = 3
DEVICE_TYPE_COUNT = 14
MEMCPY_H2D = 1
MEMCPY_D2H = 2
MEMCPY_D2D = 3
EVENT_COMPLETE = 0
BACKEND_LOADED = 0


class BackendInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("name", ctypes.c_char * 64),
        ("device_type", ctypes.c_int),
        ("path", ctypes.c_char * 1024),
        ("interface_version", ctypes.c_uint32),
        ("device_count", ctypes.c_int),
        ("state", ctypes.c_int),
        ("reason", ctypes.c_char * 512),
    ]


def load(path):
    lib = ctypes.CDLL(path)
    vp = ctypes.c_void_p
    pvp = ctypes.POINTER(ctypes.c_void_p)
    signatures = {
        "infinirtGetAllDeviceCount": [ctypes.POINTER(ctypes.c_int)],
        "infinirtSetDevice": [ctypes.c_int, ctypes.c_int],
        "infinirtGetBackendCount": [ctypes.POINTER(ctypes.c_int)],
        "infinirtGetBackendInfo": [ctypes.c_int, ctypes.POINTER(BackendInfo)],
        "infinirtMalloc": [pvp, ctypes.c_size_t],
        "infinirtMallocHost": [pvp, ctypes.c_size_t],
        "infinirtFree": [vp],
        "infinirtFreeHost": [vp],
        "infinirtMemcpyAsync": [vp, vp, ctypes.c_size_t, ctypes.c_int, vp],
        "infinirtMemsetAsync": [vp, ctypes.c_int, ctypes.c_size_t, vp],
        "infinirtStreamCreate": [pvp],
        "infinirtStreamDestroy": [vp],
        "infinirtStreamSynchronize": [vp],
        "infinirtEventCreate": [pvp],
        "infinirtEventRecord": [vp, vp],
        "infinirtEventSynchronize": [vp],
        "infinirtEventQuery": [vp, ctypes.POINTER(ctypes.c_int)],
        "infinirtEventDestroy": [vp],
    }
    for name, argtypes in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = ctypes.c_int
    lib.infinirtGetErrorName.argtypes = [ctypes.c_int]
    lib.infinirtGetErrorName.restype = ctypes.c_char_p
    lib.infinirtGetLastErrorMessage.argtypes = []
    lib.infinirtGetLastErrorMessage.restype = ctypes.c_char_p
    return lib


class Failure(Exception):
    pass


def check(lib, status, what):
    if status != SUCCESS:
        raise Failure("%s failed: %s: %s" % (what, lib.infinirtGetErrorName(status).decode(),
                                             lib.infinirtGetLastErrorMessage().decode()))


def list_backends(lib):
    count = ctypes.c_int(0)
    check(lib, lib.infinirtGetBackendCount(ctypes.byref(count)), "GetBackendCount")
    loaded = 0
    for i in range(count.value):
        info = BackendInfo()
        info.struct_size = ctypes.sizeof(BackendInfo)
        check(lib, lib.infinirtGetBackendInfo(i, ctypes.byref(info)), "GetBackendInfo")
        print("backend %s state %d devices %d %s" % (info.name.decode(), info.state, info.device_count,
                                                     info.reason.decode()))
        loaded += info.state == BACKEND_LOADED
    if loaded == 0:
        raise Failure("no backend is LOADED")


def exercise_device(lib, device_type, device_id):
    size = 1 << 16
    check(lib, lib.infinirtSetDevice(device_type, device_id), "SetDevice")
    a = ctypes.c_void_p()
    b = ctypes.c_void_p()
    pinned = ctypes.c_void_p()
    stream = ctypes.c_void_p()
    event = ctypes.c_void_p()
    check(lib, lib.infinirtMalloc(ctypes.byref(a), size), "Malloc")
    check(lib, lib.infinirtMalloc(ctypes.byref(b), size), "Malloc")
    check(lib, lib.infinirtMallocHost(ctypes.byref(pinned), size), "MallocHost")
    check(lib, lib.infinirtStreamCreate(ctypes.byref(stream)), "StreamCreate")
    check(lib, lib.infinirtEventCreate(ctypes.byref(event)), "EventCreate")

    source = bytes((i * 13 + device_id) & 0xFF for i in range(size))
    ctypes.memmove(pinned, source, size)
    result = ctypes.create_string_buffer(size)
    check(lib, lib.infinirtMemcpyAsync(a, pinned, size, MEMCPY_H2D, stream), "MemcpyAsync H2D")
    check(lib, lib.infinirtMemcpyAsync(b, a, size, MEMCPY_D2D, stream), "MemcpyAsync D2D")
    check(lib, lib.infinirtMemsetAsync(a, 0, size, stream), "MemsetAsync")
    check(lib, lib.infinirtMemcpyAsync(result, b, size, MEMCPY_D2H, stream), "MemcpyAsync D2H")
    check(lib, lib.infinirtEventRecord(event, stream), "EventRecord")
    check(lib, lib.infinirtEventSynchronize(event), "EventSynchronize")
    status = ctypes.c_int(-1)
    check(lib, lib.infinirtEventQuery(event, ctypes.byref(status)), "EventQuery")
    if status.value != EVENT_COMPLETE:
        raise Failure("event not COMPLETE after EventSynchronize")
    if result.raw != source:
        raise Failure("data mismatch after the stream round trip on %d:%d" % (device_type, device_id))

    check(lib, lib.infinirtEventDestroy(event), "EventDestroy")
    check(lib, lib.infinirtStreamDestroy(stream), "StreamDestroy")
    check(lib, lib.infinirtFreeHost(pinned), "FreeHost")
    check(lib, lib.infinirtFree(a), "Free")
    check(lib, lib.infinirtFree(b), "Free")


def check_refusal(lib):
    p = ctypes.c_void_p()
    status = lib.infinirtMalloc(ctypes.byref(p), 0)
    message = lib.infinirtGetLastErrorMessage().decode()
    if status != BAD_PARAM or p.value is not None or not message:
        raise Failure("Malloc(0) gave %d, pointer %r, message %r" % (status, p.value, message))
    if lib.infinirtGetErrorName(status).decode() != "INFINI_STATUS_BAD_PARAM":
        raise Failure("GetErrorName(BAD_PARAM) is %r" % lib.infinirtGetErrorName(status))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib = load(sys.argv[1])
    try:
        list_backends(lib)
        counts = (ctypes.c_int * DEVICE_TYPE_COUNT)()
        check(lib, lib.infinirtGetAllDeviceCount(counts), "GetAllDeviceCount")
        devices = [(t, i) for t in range(DEVICE_TYPE_COUNT) for i in range(counts[t])]
        if not devices:
            raise Failure("no devices")
        for device_type, device_id in devices:
            exercise_device(lib, device_type, device_id)
        check_refusal(lib)
    except Failure as failure:
        print("ctypes client: FAILED: %s" % failure, file=sys.stderr)
        return 1
    print("ctypes client: OK on %d device(s)" % len(devices))
    return 0


if __name__ == "__main__":
    sys.exit(main())
