"""Devices, streams, events, graphs, buffers and errors through the package, on every device."""
import threading

import numpy
import pytest

import infinirt


def test_devices_and_device_attributes():
    devs = infinirt.devices()
    assert infinirt.Device("cpu:0") in devs
    d = infinirt.Device("cpu")
    assert d == infinirt.Device("cpu:0") == infinirt.Device(0, 0) and hash(d) == hash(infinirt.Device("cpu:0"))
    assert (d.type, d.index, str(d)) == ("cpu", 0, "cpu:0")
    assert isinstance(d.name, str) and d.name
    props = d.properties()
    assert props["name"] == d.name and props["total_memory"] > 0 and "struct_size" not in props
    free, total = d.mem_info()
    assert 0 < free <= total
    assert any(b["name"] == "cpu" and b["state"] == "loaded" for b in infinirt.backends())


def test_every_device_has_a_name_and_memory(device):
    assert device.name
    free, total = device.mem_info()
    assert 0 < total and free <= total
    assert device.properties()["total_memory"] == total or device.type != "cpu"


def test_bad_device_names():
    with pytest.raises(infinirt.DeviceTypeNotSupportedError):
        infinirt.Device("warpdrive:0")
    with pytest.raises(infinirt.DeviceNotFoundError) as e:
        infinirt.Device("cpu:99")
    assert isinstance(e.value, infinirt.Error) and e.value.status == "INFINI_STATUS_DEVICE_NOT_FOUND"
    assert "cpu:99" in str(e.value)
    with pytest.raises(ValueError):
        infinirt.Device("cpu:x")


def test_with_device_sets_and_restores_per_thread(device, cpu):
    before = infinirt.current_device()
    with device:
        assert infinirt.current_device() == device
        with cpu:
            assert infinirt.current_device() == cpu
        assert infinirt.current_device() == device
        seen = []
        t = threading.Thread(target=lambda: seen.append(infinirt.current_device()))
        t.start()
        t.join()
        assert seen[0] == before  # another thread keeps the process default
    assert infinirt.current_device() == before


def test_errors_carry_status_and_message(cpu):
    with pytest.raises(infinirt.BadParamError) as e:
        infinirt.alloc(0, cpu)
    err = e.value
    assert isinstance(err, infinirt.Error) and isinstance(err, ValueError)
    assert err.status == "INFINI_STATUS_BAD_PARAM" and err.code == infinirt.Status.BAD_PARAM
    assert err.message and err.message in str(err) and "size 0" in str(err)
    with pytest.raises(infinirt.OutOfMemoryError) as e:
        infinirt.alloc(1 << 62, cpu)
    assert isinstance(e.value, MemoryError) and e.value.status == "INFINI_STATUS_OUT_OF_MEMORY"
    assert infinirt.error_name(infinirt.Status.INVALID_HANDLE) == "INFINI_STATUS_INVALID_HANDLE"


def test_closed_handles_raise_invalid_handle(cpu):
    s = infinirt.Stream(cpu)
    s.close()
    with pytest.raises(infinirt.InvalidHandleError):
        s.synchronize()
    e = infinirt.Event(cpu)
    e.close()
    with pytest.raises(infinirt.InvalidHandleError):
        e.query()
    b = infinirt.alloc(16, cpu)
    b.free()
    with pytest.raises(infinirt.InvalidHandleError):
        b.ptr


def test_copies_fill_and_views(device):
    n = 1 << 16
    src = numpy.arange(n, dtype=numpy.uint32)
    with infinirt.alloc(src.nbytes, device) as a, infinirt.alloc(src.nbytes, device) as b:
        assert a.kind == "device" and a.device == device and a.nbytes == src.nbytes and a.ptr
        a.copy_from(src)
        b.copy_from(a)
        out = numpy.empty_like(src)
        b.copy_to(out)
        assert (out == src).all()
        b.fill(0xAB)
        assert b.tobytes() == b"\xab" * src.nbytes
        b.copy_from(b"\x01\x02\x03")  # bytes (read-only) into the start
        assert b.tobytes()[:4] == b"\x01\x02\x03\xab"
        small = bytearray(5)
        b.copy_to(small)
        assert small == b"\x01\x02\x03\xab\xab"
        b.copy_from(memoryview(bytearray(b"xyz")))
        assert b.tobytes()[:3] == b"xyz"
        with pytest.raises(ValueError):
            b.copy_from(bytes(src.nbytes + 1))
        with pytest.raises(BufferError):
            b.copy_to(b"immutable")  # a destination must be writable
        with pytest.raises(BufferError):
            b.copy_to(numpy.zeros((8, 8), dtype=numpy.uint8)[:, ::2])  # not contiguous
        with pytest.raises(ValueError):
            b.fill(256)
        with pytest.raises(TypeError):
            b.copy_from(12345)


def test_async_copies_with_stream_and_events(device):
    n = 1 << 20
    src = (numpy.arange(n, dtype=numpy.uint8) * 7).astype(numpy.uint8)
    s = infinirt.Stream(device)
    assert s.device == device
    start, end = infinirt.Event(device), infinirt.Event(device)
    pinned = infinirt.alloc_host(n, device)
    assert pinned.kind == "host" and pinned.is_host
    dev = infinirt.alloc(n, device)
    out = numpy.zeros(n, dtype=numpy.uint8)
    start.record(s)
    dev.copy_from(src, stream=s)
    pinned.copy_from(dev, stream=s)
    dev.fill(0, stream=s)
    dev.copy_to(out, stream=s)
    end.record(s)
    end.synchronize()
    assert end.query() and start.query()
    s.synchronize()
    assert s.query() is True
    assert isinstance(start.elapsed_time(end), float)
    assert (out == 0).all()
    assert pinned.tobytes() == src.tobytes()
    waiter = infinirt.Stream(device)
    waiter.wait(end)
    waiter.synchronize()
    untimed = infinirt.Event(device, timing=False).record(s)
    untimed.synchronize()
    with pytest.raises(infinirt.BadParamError):
        start.elapsed_time(untimed)
    start.record()  # None: the event's device's default stream, whatever device is current
    start.synchronize()


def test_graph_capture_and_replay(device):
    s = infinirt.Stream(device)
    a = infinirt.alloc(4096, device)
    b = infinirt.alloc(4096, device)
    a.fill(0, stream=s)
    with s.capture() as graph:
        b.copy_from(a, stream=s)
        a.fill(0x11, stream=s)
    s.synchronize()
    assert a.tobytes() == bytes(4096)  # captured, not run
    graph.launch(s)
    s.synchronize()
    assert a.tobytes() == b"\x11" * 4096 and b.tobytes() == bytes(4096)
    graph.launch(s)
    s.synchronize()
    assert b.tobytes() == b"\x11" * 4096
    graph.launch()  # the graph's device's default stream
    infinirt.Device(device).synchronize()
    graph.close()
    graph.close()
    with pytest.raises(infinirt.InvalidHandleError):
        graph.launch(s)


def test_capture_ends_when_the_block_raises(device):
    s = infinirt.Stream(device)
    a = infinirt.alloc(64, device)
    with pytest.raises(KeyError):
        with s.capture():
            a.fill(1, stream=s)
            raise KeyError("inside")
    a.fill(2, stream=s)  # the stream is usable again: no capture left open
    s.synchronize()
    assert a.tobytes() == b"\x02" * 64


def test_async_copy_keeps_the_host_object_alive(cpu):
    s = infinirt.Stream(cpu)
    dev = infinirt.alloc(1 << 20, cpu)
    dev.copy_from(bytes(range(256)) * 4096, stream=s)  # the temporary must live until s has run it
    s.synchronize()
    assert dev.tobytes()[:512] == bytes(range(256)) * 2


def test_peers_between_every_two_devices():
    devs = [d for d in infinirt.devices() if d.type in ("cpu", "opencl", "nvidia", "amd", "vulkan")]
    pairs = [(a, b) for a in devs for b in devs if a != b]
    if not pairs:
        pytest.skip("one device: nothing to pair")
    for a, b in pairs:
        same = a.type == b.type
        assert a.can_access_peer(b) in (True, False)
        if not same:
            host_direct = a.properties()["memory_is_host"] or b.properties()["memory_is_host"]
            assert not a.can_access_peer(b)
            assert a.peer_attribute(b, "copy_without_staging") == int(bool(host_direct))
            with pytest.raises(infinirt.BadParamError):
                a.enable_peer_access(b)
        assert a.peer_attribute(b, infinirt.PeerAttribute.ACCESS_SUPPORTED) == int(a.can_access_peer(b))
        data = numpy.arange(1001, dtype=numpy.uint8)
        with infinirt.alloc(1001, a) as src, infinirt.alloc(1001, b) as dst:
            src.copy_from(data)
            dst.copy_from(src)  # two devices' memory: the peer path
            out = bytearray(1001)
            dst.copy_to(out)
            assert bytes(out) == data.tobytes()
    with pytest.raises(infinirt.BadParamError):
        devs[0].enable_peer_access(devs[0])


def test_push_device_restores_what_was_current(device, cpu):
    before = infinirt.current_device()
    with infinirt.push_device(device) as d:
        assert d == device and infinirt.current_device() == device
        with infinirt.push_device(cpu):
            assert infinirt.current_device() == cpu
        assert infinirt.current_device() == device
    assert infinirt.current_device() == before
    with pytest.raises(infinirt.DeviceNotFoundError):
        with infinirt.push_device("cpu:99"):
            pass
    assert infinirt.current_device() == before


def test_stream_priorities(device):
    least, greatest = device.stream_priority_range()
    assert greatest <= least
    for p in range(greatest, least + 1):
        with infinirt.Stream(device, priority=p) as s:
            assert s.priority == p
    with infinirt.Stream(device) as s:
        assert s.priority == 0
    with pytest.raises(infinirt.BadParamError):
        infinirt.Stream(device, priority=least + 1)


def test_limits(device):
    for limit in infinirt.Limit:
        try:
            value = device.get_limit(limit)
        except infinirt.NotSupportedError as e:
            assert "INFINIRT_LIMIT_" in str(e)
            continue
        assert value > 0
    if device.type == "cpu":
        device.set_limit("stack_size", 1 << 20)
        assert device.get_limit("stack_size") >= 1 << 20
    with pytest.raises(ValueError):
        device.get_limit(7)


def test_reset(device):
    count = device.reset_count()
    stream = infinirt.Stream(device)
    device.reset()
    assert device.reset_count() == count + 1
    with pytest.raises(infinirt.InvalidHandleError):
        stream.close()
    with infinirt.Stream(device) as fresh:  # the device works afterwards
        fresh.synchronize()
