#!/usr/bin/env python3
"""infinirt-bench as a user meets it (issue 15), on one device, with --quick (no timing is judged).

--json: one document with schema_version 1, the device asked for, every bandwidth direction at
every size from 4 KiB to the largest, the latencies (kernel launch included), every figure a
positive number, native figures and ratios where the backend has an anchor (cpu: memcpy for the
copies; opencl: OpenCL for everything), and the text tables with --json=FILE. Bad arguments exit 2
with a message; --plot checks for matplotlib before measuring, and draws an SVG when it is there.
Usage: infinirt_bench_test.py <infinirt-bench> <version> <device> <native|copies|none>
"""
import json
import os
import subprocess
import sys
import tempfile

bench, version, device, anchored = sys.argv[1:5]
failures = []
DIRECTIONS = ["h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable", "d2d"]
LATENCIES = ["event_record", "event_query", "stream_sync", "copy_h2d_small", "copy_d2h_small", "copy_d2d_small",
             "kernel_launch", "kernel_launch_sync"]
COPIES = {"copy_h2d_small", "copy_d2h_small", "copy_d2d_small"}


def check(condition, message):
    if not condition:
        failures.append(message)


def run(*args, env=None, expect=0):
    done = subprocess.run([bench, *args], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **(env or {})))
    check(done.returncode == expect,
          f"infinirt-bench {' '.join(args)} exited {done.returncode}, expected {expect}: {done.stderr}")
    return done


def positive(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


check(run("--version").stdout.strip() == f"infinirt-bench {version}", "--version does not print the version")
done = run("--device", device, "--quick", "--max-size", "256K", "--json")
doc = json.loads(done.stdout)
check(doc.get("schema_version") == 1, f"schema_version is {doc.get('schema_version')!r}")
check(doc.get("tool") == "infinirt-bench" and doc.get("infinirt_version") == version, "tool or version wrong")
dev = doc["device"]
want_type, _, want_id = device.partition(":")
check(dev["type"] == want_type and dev["id"] == int(want_id or 0), f"device {dev} is not {device}")
check(dev["name"] != "" and dev["backend"] != "", f"device name or backend empty: {dev}")
check(doc["settings"] == {"quick": True, "max_size": 256 * 1024, "rounds": 1}, f"settings {doc['settings']}")
check((doc["native"] is None) == (anchored == "none"), f"native is {doc['native']!r} on {device}")
check(sorted(doc["bandwidth"]) == sorted(DIRECTIONS), f"bandwidth keys {sorted(doc['bandwidth'])}")
for key, points in doc["bandwidth"].items():
    sizes = [p["size"] for p in points]
    check(sizes == [4096, 16384, 65536, 262144], f"{key}: sizes {sizes}")
    for p in points:
        check(positive(p["infinirt_gbps"]), f"{key} {p['size']}: infinirt_gbps {p['infinirt_gbps']!r}")
        if anchored == "none":
            check(p["native_gbps"] is None and p["ratio"] is None, f"{key}: a native figure without an anchor")
        else:
            check(positive(p["native_gbps"]) and positive(p["ratio"]), f"{key} {p['size']}: native figure {p}")
check(sorted(doc["latency"]) == sorted(LATENCIES), f"latency keys {sorted(doc['latency'])}; skipped {doc['skipped']}")
check(doc["skipped"] == {}, f"skipped: {doc['skipped']}")
for key, row in doc["latency"].items():
    check(positive(row["infinirt_ns"]) and row["what"] != "", f"{key}: {row}")
    native = anchored == "native" or (anchored == "copies" and key in COPIES)
    if native:
        check(positive(row["native_ns"]) and positive(row["ratio"]), f"{key}: no native figure: {row}")
    else:
        check(row["native_ns"] is None and row["ratio"] is None, f"{key}: a native figure without an anchor: {row}")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "bench.json")
    done = run("--device", device, "--quick", f"--json={path}")
    with open(path) as f:
        again = json.load(f)
    check(again["settings"]["max_size"] == 1 << 20, f"--quick's largest size is {again['settings']['max_size']}")
    for title in ("bandwidth, host to device, pinned host memory", "latency (ns per call", "ratio"):
        check(title in done.stdout, f"the tables lack '{title}':\n{done.stdout}")
    check("\r" not in done.stderr, "a progress line was written to a pipe")

    # Bad input: exit 2 and a message, nothing measured.
    for args, words in ((["--device", "nonsense"], "unknown device type"), (["--device", "cpu:x"], "index"),
                        (["--device", "cpu:99"], "there is"), (["--max-size", "12X"], "not a size"),
                        (["--max-size", "1K"], "at least 4K"), (["--plot", os.path.join(tmp, "p.txt")], ".png or .svg"),
                        (["--frobnicate"], "unknown argument"), (["--device"], "needs a value")):
        done = run(*args, expect=2)
        check(words in done.stderr, f"{args}: stderr lacks '{words}': {done.stderr!r}")
    done = run("--device", device, "--quick", "--plot", os.path.join(tmp, "p.png"),
               env={"INFINIRT_PYTHON": "/nonexistent/python3"}, expect=2)
    check("matplotlib" in done.stderr and "INFINIRT_PYTHON" in done.stderr, f"no clear error: {done.stderr!r}")
    check(not os.path.exists(os.path.join(tmp, "p.png")), "a plot was written without a python")

    has_matplotlib = any(subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0
                         for py in ("python3", "/usr/bin/python3") if py == "python3" or os.path.exists(py))
    if has_matplotlib:
        svg = os.path.join(tmp, "bandwidth.svg")
        done = run("--device", device, "--quick", "--max-size", "64K", "--plot", svg)
        check(os.path.exists(svg) and "<svg" in open(svg).read(), f"--plot wrote no SVG: {done.stderr}")
    else:
        print("matplotlib not found: the plot itself is not drawn (python3-matplotlib)")

for f in failures:
    print("FAIL:", f)
print(f"infinirt-bench on {device}: {'FAILED' if failures else 'ok'}")
sys.exit(1 if failures else 0)
