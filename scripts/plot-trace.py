#!/usr/bin/python3
"""Draws an infinirt trace (INFINIRT_TRACE=path.json) as a timeline: one row per thread and per
device track, one bar per call, coloured by C ABI function. For a quick look; open the file in
https://ui.perfetto.dev or chrome://tracing to explore it.
Usage: plot-trace.py trace.json [out.png]"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "trace.png"
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        sys.exit("plot-trace: no events in " + path)
    t0 = min(e["ts"] for e in spans)
    tracks = sorted({e["tid"] for e in spans}, key=lambda t: (t >= 0x40000000, t))
    functions = sorted({e["name"].replace(" (device)", "") for e in spans})
    cmap = plt.get_cmap("tab20")
    colour = {f: cmap(i % 20) for i, f in enumerate(functions)}
    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.7 * len(tracks)))
    for row, tid in enumerate(tracks):
        for e in (e for e in spans if e["tid"] == tid):
            fn = e["name"].replace(" (device)", "")
            width = max(e["dur"], 0.5) / 1000.0
            ax.barh(row, width, left=(e["ts"] - t0) / 1000.0, height=0.6, color=colour[fn],
                    edgecolor="black", linewidth=0.3)
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels([names.get(t, str(t)) for t in tracks])
    ax.invert_yaxis()
    ax.set_xlabel("time since the first call (ms)")
    ax.set_title(f"infinirt trace: {len(spans)} spans ({path.split('/')[-1]})")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[f]) for f in functions]
    ax.legend(handles, functions, fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.25 - 0.05 * len(tracks)))
    fig.tight_layout()
    fig.savefig(out, dpi=110, bbox_inches="tight")
    print(f"plot-trace: wrote {out}")


if __name__ == "__main__":
    main()
