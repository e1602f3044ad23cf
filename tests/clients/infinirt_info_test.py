#!/usr/bin/env python3
"""infinirt-info as a user meets it (issues 13 and 49): --version, --json and the text listing.

--json: one document with schema_version 2 and infinirt_version; devices carry no placeholder
values (no "-1.-1" compute capability, no empty strings, no zero or negative figures: unknown is
left out); every device has a kind (cpu / gpu / accelerator) and says whether graphs are native;
the default device follows the rule (first GPU or accelerator, else cpu:0); a hip backend without
an AMD GPU says so in words. Issue 49: the peer flags are true/false like every other flag; a
device whose memory is host memory copies to and from another backend's devices without staging
(the text's claim, the matrix's D and the JSON agree); the text has no internal terms (the plugin
interface's "v2" column, "architecture -") and calls the cpu's driver version the OS kernel's.
Usage: infinirt_info_test.py <infinirt-info> <version>
"""
import json
import os
import subprocess
import sys

info, version = sys.argv[1], sys.argv[2]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run(*args):
    done = subprocess.run([info, *args], capture_output=True, text=True, timeout=120)
    check(done.returncode == 0, f"infinirt-info {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


check(run("--version").strip() == f"infinirt-info {version}", "--version does not print 'infinirt-info <version>'")
text = run()
doc = json.loads(run("--json"))
check(doc.get("schema_version") == 2, f"schema_version is {doc.get('schema_version')!r}, expected 2")
check(doc.get("infinirt_version") == version, f"infinirt_version is {doc.get('infinirt_version')!r}")

KINDS = {"cpu", "gpu", "accelerator"}
for d in doc["devices"]:
    where = f"{d['type']}:{d['id']}"
    for key, value in d.items():
        if isinstance(value, str):
            check(value != "", f"{where}: {key} is an empty string (leave unknown values out)")
        elif isinstance(value, (int, float)) and key != "id":
            check(value > 0, f"{where}: {key} is {value} (leave unknown values out)")
        elif isinstance(value, list):
            check(all(v > 0 for v in value), f"{where}: {key} is {value}")
    check("-1" not in d.get("compute_capability", ""), f"{where}: compute_capability {d.get('compute_capability')}")
    check(d.get("kind") in KINDS, f"{where}: kind is {d.get('kind')!r}")
    check(d.get("graphs") in ("native", "emulated"), f"{where}: graphs is {d.get('graphs')!r}")
    check(d.get("memory") in ("host", "device"), f"{where}: memory is {d.get('memory')!r}")
    if d["type"] == "cpu":
        check(d.get("memory") == "host", f"{where}: the cpu backend's memory is host memory")
        check(d.get("kind") == "cpu", f"{where}: the cpu backend's device is not of kind cpu")
        check(d.get("graphs") == "emulated", f"{where}: cpu graphs are the loader's record/replay")
    check(f"kind {d.get('kind')}" in text, f"the text listing does not show kind {d.get('kind')}")

if "INFINICORE_DEFAULT_DEVICE" not in os.environ and doc["devices"]:
    accelerators = [d for d in doc["devices"] if d["type"] != "cpu" and d.get("kind") != "cpu"]
    cpus = [d for d in doc["devices"] if d["type"] == "cpu"]
    expected = (accelerators or cpus or doc["devices"])[0]
    got = doc["default_device"]
    check(got == {"type": expected["type"], "id": expected["id"]},
          f"default device {got}, expected {expected['type']}:{expected['id']} (first GPU or accelerator, else cpu:0)")

for b in doc["backends"]:
    if b["name"] == "hip" and ("hipErrorInvalidDevice" in b["reason"] or "hipErrorNoDevice" in b["reason"]):
        check(b["reason"].startswith("no AMD GPU found (hipInit: "), f"hip reason reads like an error: {b['reason']}")

# Issue 49: one boolean style, and the host-memory claim agrees with the peers.
by_device = {(d["type"], d["id"]): d for d in doc["devices"]}
for p in doc["peers"]:
    where = f"peer {p['from']} -> {p['to']}"
    for flag in ("access_supported", "native_atomics", "copy_without_staging"):
        check(isinstance(p.get(flag), bool), f"{where}: {flag} is {p.get(flag)!r}, not true/false")
    a, b = by_device[(p["from"]["type"], p["from"]["id"])], by_device[(p["to"]["type"], p["to"]["id"])]
    if a["type"] != b["type"]:
        host_direct = a.get("memory") == "host" or b.get("memory") == "host"
        check(p["copy_without_staging"] == host_direct,
              f"{where}: copy_without_staging {p['copy_without_staging']} but memory {a.get('memory')}/{b.get('memory')}")
if any(d.get("memory") == "host" for d in doc["devices"]):
    check("host memory (other backends' devices copy to and from it directly)" in text,
          "the text does not say how host memory copies")
check(" v1 " not in text and " v2 " not in text, "the text shows the plugin interface's version column")
check("architecture -" not in text, "the text shows 'architecture -' for an unknown architecture")
for d in doc["devices"]:
    if d["type"] == "cpu" and d.get("driver_version"):
        check(f"OS kernel {d['driver_version']}" in text, "the cpu's driver version is not called the OS kernel's")
        check(f"driver {d['driver_version']}" not in text, "the cpu's OS kernel is called its driver")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"infinirt-info: OK ({len(doc['devices'])} devices, default {doc['default_device']})")
