#!/usr/bin/env python3
"""Draws infinirt-bench's bandwidth sweeps: one panel per direction, GB/s against transfer size,
infinirt solid and the native anchor dashed (infinirt-bench --plot runs this).

Usage: infinirt-bench-plot.py RESULTS.json OUT.png|OUT.svg
       infinirt-bench-plot.py --check     (exit 0 when matplotlib imports, 3 when it does not)
"""
import json
import sys

NO_MATPLOTLIB = 3


def size_text(v):
    v = int(v)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if v >= 1 << shift and v % (1 << shift) == 0:
            return "%d%s" % (v >> shift, unit)
    return str(v)


def main(argv):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as e:
        if argv[1:] == ["--check"]:
            return NO_MATPLOTLIB
        print("infinirt-bench-plot: matplotlib is not available (%s); Debian: apt-get install "
              "python3-matplotlib" % e, file=sys.stderr)
        return NO_MATPLOTLIB
    if argv[1:] == ["--check"]:
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    if doc.get("schema_version") != 1:
        print("infinirt-bench-plot: schema_version %r, this script reads 1" % doc.get("schema_version"),
              file=sys.stderr)
        return 2
    sweeps = doc["bandwidth"]
    titles = {
        "h2d_pinned": "host to device, pinned",
        "h2d_pageable": "host to device, pageable",
        "d2h_pinned": "device to host, pinned",
        "d2h_pageable": "device to host, pageable",
        "d2d": "device to device",
    }
    keys = [k for k in titles if k in sweeps] + [k for k in sweeps if k not in titles]
    cols = min(3, len(keys))
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.8 * rows), squeeze=False)
    axes = [ax for row in axes for ax in row]
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    native = doc.get("native") or "native"
    for ax, key in zip(axes, keys):
        points = sweeps[key]
        sizes = [p["size"] for p in points]
        ax.plot(sizes, [p["infinirt_gbps"] for p in points], "o-", label="infinirt")
        if any(p.get("native_gbps") is not None for p in points):
            ax.plot(sizes, [p.get("native_gbps") for p in points], "s--", label=native)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: size_text(v)))
        ax.tick_params(axis="x", labelrotation=45)
        ax.set_ylim(bottom=0)
        ax.set_title(titles.get(key, key))
        ax.set_xlabel("bytes per copy")
        ax.set_ylabel("GB/s (10^9 bytes/s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    dev = doc["device"]
    fig.suptitle("infinirt-bench %s: %s:%d (%s), backend %s"
                 % (doc.get("infinirt_version", ""), dev["type"], dev["id"], dev["name"], dev["backend"]))
    fig.tight_layout()
    fig.savefig(argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
