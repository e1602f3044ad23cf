#!/usr/bin/env python3
"""The instruction gate: instructions per call of the hot entries, counted with callgrind.

For each entry of the budgets file, runs the driver (tests/gate/hot_paths.cpp) under
`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=gate_measure`, so only the
measured calls of the calling thread are counted, then attributes every instruction to the ELF
object it ran in, read from callgrind's output file itself (self cost; code inlined from headers
counts for the object it was inlined into): the loader (libinfinirt), the plugin
(libinfinirt-<name>), the C++ layer (libinfinicore), the dynamic linker (ld.so: __tls_get_addr and
the like) and the rest (libc, libstdc++, the driver's own loop). Per call = count / calls. Fails when
an entry's loader, plugin or core count is over its budget. Instruction counts are deterministic
for one binary, input and environment: the gate never times anything.

  scripts/instruction-gate.py --driver BIN --budgets tests/gate/budgets.txt [--valgrind valgrind]
                              [--report FILE] [--entry NAME]

Budgets file: one entry per line, `name | loader | plugin | core` (a budget of `-` is unchecked);
`#` starts a comment. Raising a budget is a deliberate commit that says why.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

CATEGORIES = ("loader", "plugin", "core", "ld.so", "other")


def category(obj):
    base = os.path.basename(obj)
    if base.startswith("libinfinirt-"):
        return "plugin"
    if base.startswith("libinfinirt.so"):
        return "loader"
    if base.startswith("libinfinicore.so"):
        return "core"
    if base.startswith("ld-linux") or base.startswith("ld-2.") or base == "ld.so":
        return "ld.so"
    return "other"


# Name compression in callgrind's format: each key's names share one table ("ob=(3) /lib/x.so" once,
# then "ob=(3)").
NAME_TABLES = {"ob": "ob", "cob": "ob", "fn": "fn", "cfn": "fn",
               "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl"}
COMPRESSED = re.compile(r"^\((\d+)\)\s*(.*)$")


def self_costs(path):
    """Instructions (the file's only event, Ir) per (object, function, source file), self cost only:
    the cost line after `calls=` is the call's inclusive cost and is skipped. The source file is
    where the instructions' code is written (a header, for code inlined from one)."""
    tables = {"ob": {}, "fn": {}, "fl": {}}
    current = {"ob": "???", "fn": "???", "file": "???"}
    costs = {}
    skip_next = False
    positions = 1  # "positions: line"; "instr line" with --dump-instr=yes
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line or line[0] == "#":
                continue
            if line.startswith("positions:"):
                positions = len(line.split()) - 1
                continue
            if line[0].isdigit() or line[0] in "+-*":
                if skip_next:
                    skip_next = False
                    continue
                parts = line.split()
                if len(parts) > positions:
                    key = (current["ob"], current["fn"], current["file"])
                    costs[key] = costs.get(key, 0) + int(parts[positions])
                continue
            key, sep, value = line.partition("=")
            if not sep:
                continue
            if key == "calls":
                skip_next = True
                continue
            table = NAME_TABLES.get(key)
            if table is None:
                continue
            m = COMPRESSED.match(value)
            if m:
                name = m.group(2) if m.group(2) else tables[table].get(m.group(1), "???")
                tables[table][m.group(1)] = name
            else:
                name = value
            if key in ("ob", "fn"):
                current[key] = name
            elif key in ("fl", "fi", "fe"):
                current["file"] = name
    return costs


def read_summary(path):
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    return None


def measure(args, entry, calls_line=re.compile(r": (\d+) calls measured")):
    with tempfile.TemporaryDirectory(prefix="infinirt-gate.") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = [args.valgrind, "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=gate_measure",
               "--callgrind-out-file=" + out, args.driver, entry]
        # Only the C++ entry needs the OpenCL device (PoCL, slow to start under valgrind).
        env = dict(os.environ)
        env["INFINIRT_BACKENDS"] = "cpu,opencl" if entry.startswith("infinicore::") else "cpu"
        run = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if run.returncode == 77:
            return None, run.stdout.strip(), 0
        if run.returncode != 0:
            raise RuntimeError("%s exited %d:\n%s%s" % (" ".join(cmd), run.returncode, run.stdout, run.stderr[-3000:]))
        m = calls_line.search(run.stdout)
        if not m:
            raise RuntimeError("the driver did not say how many calls it measured:\n" + run.stdout)
        calls = int(m.group(1))
        costs = self_costs(out)
        summary = read_summary(out)
    if summary is not None and sum(costs.values()) != summary:
        raise RuntimeError("%s: the self costs read add up to %d instructions, callgrind's summary says %d"
                           % (entry, sum(costs.values()), summary))
    totals = dict.fromkeys(CATEGORIES, 0)
    functions = []
    for (obj, fn, source), count in costs.items():
        cat = category(obj)
        totals[cat] += count
        functions.append((count, cat, "%s  [%s]" % (fn, os.path.basename(source))))
    return {k: v / calls for k, v in totals.items()}, sorted(functions, reverse=True), calls


def read_budgets(path):
    budgets = []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 4:
                raise SystemExit("%s:%d: want `name | loader | plugin | core`" % (path, n))
            limits = {}
            for key, value in zip(("loader", "plugin", "core"), parts[1:]):
                limits[key] = None if value == "-" else float(value)
            budgets.append((parts[0], limits))
    return budgets


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--driver", required=True)
    p.add_argument("--budgets", required=True)
    p.add_argument("--valgrind", default="valgrind")
    p.add_argument("--report", help="also write the table and each entry's top functions here")
    p.add_argument("--entry", help="only this entry")
    args = p.parse_args()
    budgets = read_budgets(args.budgets)
    if args.entry:
        budgets = [b for b in budgets if b[0] == args.entry]
    header = "%-36s %8s %8s %8s %8s %8s  %s" % ("entry (instructions per call)", "loader", "plugin", "core",
                                                "ld.so", "other", "verdict")
    lines = [header]
    details = []
    failed = 0
    for name, limits in budgets:
        per_call, functions, calls = measure(args, name)
        if per_call is None:
            lines.append("%-36s %s" % (name, functions))
            continue
        over = []
        for key in ("loader", "plugin", "core"):
            if limits[key] is not None and per_call[key] > limits[key]:
                over.append("%s %.1f > %g" % (key, per_call[key], limits[key]))
        verdict = "ok" if not over else "OVER BUDGET: " + ", ".join(over)
        failed += bool(over)
        budget_text = "/".join("-" if limits[k] is None else "%g" % limits[k] for k in ("loader", "plugin", "core"))
        lines.append("%-36s %8.1f %8.1f %8.1f %8.1f %8.1f  %s (budget %s)" % (
            name, per_call["loader"], per_call["plugin"], per_call["core"], per_call["ld.so"], per_call["other"],
            verdict, budget_text))
        details.append("== %s: the functions that ran, instructions per call (%d calls)" % (name, calls))
        for count, cat, fn in functions[:14]:
            details.append("  %8.1f  %-7s %s" % (count / calls, cat, fn))
    print("\n".join(lines))
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(lines + [""] + details) + "\n")
    else:
        print("\n".join(details))
    print("instruction gate: %d passed, %d failed" % (len(budgets) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
