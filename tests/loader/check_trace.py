#!/usr/bin/env python3
"""Runs trace_program with INFINIRT_TRACE (and INFINIRT_TRACE_DEVICE=1) and checks the trace:
valid JSON in Chrome's trace-event format, one complete event per plugin call of the program,
named by its C ABI function, with the arguments that matter, threads named, and device spans
of the copies and the fill on the device's track.
Usage: check_trace.py <trace_program> <output.json>"""
import json
import os
import subprocess
import sys


def fail(message):
    print("check_trace: FAIL:", message)
    sys.exit(1)


def main():
    program, path = sys.argv[1], sys.argv[2]
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, INFINIRT_TRACE=path, INFINIRT_TRACE_DEVICE="1")
    run = subprocess.run([program], env=env, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        fail(f"{program} exited {run.returncode}: {run.stderr}")
    words = run.stdout.split()
    device_ptr, host_ptr, size = words[1], words[3], int(words[5])

    with open(path) as f:
        trace = json.load(f)  # the whole file is one JSON object
    events = trace["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") == "api"]
    device = [e for e in events if e.get("ph") == "X" and e.get("cat") == "device"]
    names = [e for e in events if e.get("ph") == "M" and e["name"] == "thread_name"]
    for e in spans + device:
        for key in ("name", "ts", "dur", "pid", "tid", "args"):
            if key not in e:
                fail(f"event without {key}: {e}")
        if e["dur"] < 0:
            fail(f"negative duration: {e}")

    def calls(name):
        return [e for e in spans if e["name"] == name]

    expected = {"infinirtMalloc": 2, "infinirtMallocHost": 1, "infinirtStreamCreate": 1, "infinirtEventCreate": 1,
                "infinirtMemcpyAsync": 2, "infinirtMemsetAsync": 1, "infinirtEventRecord": 1,
                "infinirtStreamSynchronize": 1, "infinirtEventSynchronize": 1, "infinirtMemset": 1,
                "infinirtFree": 2, "infinirtFreeHost": 1, "infinirtEventDestroy": 1, "infinirtStreamDestroy": 1}
    for name, count in expected.items():
        if len(calls(name)) != count:
            fail(f"{name}: {len(calls(name))} events, expected {count}: {calls(name)}")

    big = [e for e in calls("infinirtMalloc") if e["args"]["size"] == size]
    if len(big) != 1 or big[0]["args"]["ptr"] != device_ptr or big[0]["args"]["device"] != 0:
        fail(f"infinirtMalloc of {size} bytes should have ptr {device_ptr} on device 0: {big}")
    if big[0]["args"]["backend"] != "cpu" or big[0]["args"]["status"] != "INFINI_STATUS_SUCCESS":
        fail(f"backend/status: {big[0]}")
    stream = calls("infinirtStreamCreate")[0]["args"]["stream"]
    h2d = calls("infinirtMemcpyAsync")[0]["args"]
    if (h2d["dst"], h2d["src"], h2d["size"], h2d["stream"], h2d["kind"]) != (device_ptr, host_ptr, size, stream, 1):
        fail(f"the H2D copy's arguments: {h2d} (device {device_ptr}, host {host_ptr}, stream {stream})")
    if calls("infinirtStreamDestroy")[0]["args"]["stream"] != stream:
        fail("the destroyed stream is not the created one")

    main_tid = big[0]["tid"]
    other = calls("infinirtMemset")[0]["tid"]
    if other == main_tid:
        fail("the second thread's calls are on the main thread's track")
    named = {e["tid"] for e in names}
    if main_tid not in named or other not in named:
        fail(f"threads {main_tid} and {other} should be named: {names}")
    # The calls of one thread are in order and do not overlap.
    mine = sorted((e for e in spans if e["tid"] == main_tid), key=lambda e: e["ts"])
    for a, b in zip(mine, mine[1:]):
        if a["ts"] + a["dur"] > b["ts"] + 1e-3:
            fail(f"overlapping calls on one thread: {a['name']} and {b['name']}")

    # Device spans: both copies and the fill, on the device's own track, in stream order.
    kinds = sorted(e["name"] for e in device)
    if kinds != ["infinirtMemcpyAsync (device)"] * 2 + ["infinirtMemsetAsync (device)"]:
        fail(f"device spans: {kinds}")
    tracks = {e["tid"] for e in device}
    if len(tracks) != 1 or tracks & {e["tid"] for e in spans} or not tracks <= named:
        fail(f"device spans should share one named track of their own: {tracks}")
    ordered = sorted(device, key=lambda e: e["ts"])
    if [e["args"]["size"] for e in ordered] != [size, size // 2, size]:
        fail(f"device spans out of stream order: {[e['args'] for e in ordered]}")
    print(f"check_trace: OK: {len(spans)} calls, {len(device)} device spans, {len(named)} named tracks")


if __name__ == "__main__":
    main()
