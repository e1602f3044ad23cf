#!/usr/bin/env python3
"""Several "hosts" on one machine: each a network namespace of its own, made here and joined to the
others by a veth pair on a bridge (in one more namespace, the hub), with a private test address
10.77.0.<k+1>/24. Nothing touches the machine's own network: every namespace, link and address is
made inside a network namespace of this test, and all of them go when its processes end.

Runs ccl_hosts_rank (tests/ccl/ccl_hosts_rank.cc) as the ranks of one case:
  collectives-2  2 hosts x 2 ranks, mpirun's variables (OMPI_COMM_WORLD_*): every collective checked
  collectives-4  4 hosts x 1 rank, Slurm's variables (SLURM_*): every collective checked
  torchrun-2     2 hosts x 1 rank, torchrun's variables: every collective checked
  kill-4         4 hosts, torchrun's variables: rank 2 is killed mid-AllReduce; the others must fail
                 within INFINICCL_TIMEOUT_S, the message naming rank 2 as rank 0's store saw it; rank
                 1 is stopped for 0.3 s at the kill, so that it asks the store after the others
  kill-small-4   the same with AllReduces of 8 KiB (the cpu plugin's direct exchange), rank 3 stopped
  kill-master-2  2 hosts, mpirun's variables: rank 0 (which serves the store) is killed
  rendezvous     the rendezvous's errors: a wrong MASTER_ADDR, MASTER_PORT in use, a rank that
                 never comes: each within the bound, with its message
  bench-2, bench-4, bench-quick-2
                 runs the bench RANK_PROGRAM (ccl_hosts_bench) on 2 or 4 hosts, one rank each
  nccl-2         runs RANK_PROGRAM (ccl_hosts_nccl_bench) on 2 hosts, one GPU each, NCCL on sockets
                 (scripts/gpu-verify.sh --pairs)
  one-host       (no namespaces) 2 ranks on this host at 127.0.0.1: shared memory; then the same
                 with INFINICCL_CPU_TRANSPORT=gloo: Gloo

Privileges: as root, a new network namespace for the hub; as another user, a user namespace
(unshare --user --map-root-user), else `sudo -n` (CI: a chroot forbids user namespaces) with the
ranks run as the calling user again. Neither possible: exit 77 (ctest's skip) with the reason.

usage: netns_hosts.py RANK_PROGRAM CASE
"""
import os
import shutil
import signal
import subprocess
import sys
import time

SKIP = 77
PORT = 29400
TIMEOUT_S = 20  # INFINICCL_TIMEOUT_S of the ranks: the bound every failure must come within


def say(msg):
    print(f"netns_hosts: {msg}", flush=True)


def works(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def outer(argv):
    """Finds a way to be root in a network namespace of our own, and runs inner() there."""
    missing = [t for t in ("ip", "unshare", "nsenter", "setpriv") if shutil.which(t) is None]
    if missing:
        say(f"SKIP: {', '.join(missing)} not found (Debian: iproute2, util-linux)")
        return SKIP
    me = [sys.executable, os.path.abspath(__file__)] + argv
    env = dict(os.environ, NETNS_HOSTS_INNER="1")
    if os.geteuid() == 0:
        how, cmd = "root", ["unshare", "--net", "--"] + me
    elif works(["unshare", "--user", "--map-root-user", "--net", "--", "ip", "link", "add", "t0", "type", "veth",
                "peer", "name", "t1"]):
        how, cmd = "a user namespace", ["unshare", "--user", "--map-root-user", "--net", "--"] + me
    elif shutil.which("sudo") and works(["sudo", "-n", "unshare", "--net", "--", "true"]):
        env["NETNS_HOSTS_DROP"] = f"{os.getuid()}:{os.getgid()}"
        how = "sudo"
        cmd = ["sudo", "-n", "env"] + [f"{k}={v}" for k, v in env.items()] + ["unshare", "--net", "--"] + me
    else:
        say("SKIP: network namespaces are impossible here: not root, no unprivileged user namespaces "
            "(unshare --user failed: a chroot, or kernel.unprivileged_userns_clone=0), and no passwordless sudo")
        return SKIP
    say(f"namespaces through {how}")
    return subprocess.run(cmd, env=env).returncode


class Hosts:
    """Namespaces 0..n-1 on a bridge in this (the hub's) namespace; torn down by close()."""

    def __init__(self, n):
        self.holders = []
        self.run(["ip", "link", "set", "lo", "up"])
        self.run(["ip", "link", "add", "br0", "type", "bridge"])
        self.run(["ip", "link", "set", "br0", "up"])
        for k in range(n):
            # A process holds namespace k; the ranks enter it with nsenter.
            holder = subprocess.Popen(["unshare", "--net", "--", "sleep", "3600"])
            self.holders.append(holder)
            ns = f"/proc/{holder.pid}/ns/net"
            for _ in range(100):  # until unshare has made the namespace
                if os.path.exists(ns) and os.readlink(ns) != os.readlink("/proc/self/ns/net"):
                    break
                time.sleep(0.02)
            self.run(["ip", "link", "add", f"h{k}", "type", "veth", "peer", "name", "eth0", "netns", str(holder.pid)])
            self.run(["ip", "link", "set", f"h{k}", "master", "br0", "up"])
            inside = ["nsenter", f"--net={ns}", "--"]
            self.run(inside + ["ip", "addr", "add", self.addr(k) + "/24", "dev", "eth0"])
            self.run(inside + ["ip", "link", "set", "eth0", "up"])
            self.run(inside + ["ip", "link", "set", "lo", "up"])
        say(f"{n} hosts: " + ", ".join(f"{self.addr(k)} (pid {h.pid})" for k, h in enumerate(self.holders)))

    @staticmethod
    def addr(k):
        return f"10.77.0.{k + 1}"

    @staticmethod
    def run(cmd):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {r.stdout.strip()}")

    def spawn(self, k, argv, env):
        """Runs argv in host k, as the calling user where sudo made us root."""
        drop = []
        if os.environ.get("NETNS_HOSTS_DROP"):
            uid, gid = os.environ["NETNS_HOSTS_DROP"].split(":")
            drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
        cmd = ["nsenter", f"--net=/proc/{self.holders[k].pid}/ns/net", "--"] + drop + argv
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def close(self):
        for h in self.holders:
            h.kill()
            h.wait()


def launcher_env(style, rank, n, local, master):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETNS_HOSTS", "OMPI_", "SLURM_", "PMI_"))}
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(k, None)
    env.update({"MASTER_ADDR": master, "MASTER_PORT": str(PORT), "INFINICCL_TIMEOUT_S": str(TIMEOUT_S),
                "INFINICCL_CPU_STATS": "1", "INFINIRT_CPU_DEVICE_COUNT": "2", "INFINIRT_BACKENDS": "cpu"})
    if style == "torchrun":
        env.update({"RANK": str(rank), "WORLD_SIZE": str(n), "LOCAL_RANK": str(local)})
    elif style == "mpirun":
        env.update({"OMPI_COMM_WORLD_RANK": str(rank), "OMPI_COMM_WORLD_SIZE": str(n),
                    "OMPI_COMM_WORLD_LOCAL_RANK": str(local)})
    else:
        env.update({"SLURM_PROCID": str(rank), "SLURM_NTASKS": str(n), "SLURM_LOCALID": str(local)})
    return env


def start(hosts, program, mode, style, nhosts, per_host, only=None, n=None, master=None):
    """Rank r runs on host r // per_host; returns {rank: process}."""
    n = n if n is not None else nhosts * per_host
    procs = {}
    for r in range(n):
        if only is not None and r not in only:
            continue
        env = launcher_env(style, r, n, r % per_host, master or Hosts.addr(0))
        procs[r] = hosts.spawn(r // per_host, [program, mode], env)
    return procs


def finish(procs, limit):
    outs, codes = {}, {}
    deadline = time.monotonic() + limit
    for r, p in procs.items():
        try:
            outs[r], _ = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            outs[r], _ = p.communicate()
            outs[r] += "\n(killed by the test: no exit within the bound)"
        codes[r] = p.returncode
    for r in sorted(outs):
        for line in outs[r].strip().splitlines():
            print(f"  [rank {r}] {line}")
    return outs, codes


def case_collectives(hosts, program, nhosts, per_host, style):
    n = nhosts * per_host
    outs, codes = finish(start(hosts, program, "collectives", style, nhosts, per_host), 240)
    ok = True
    for r in range(n):
        if codes[r] != 0 or f"rank {r} of {n}: " not in outs[r] or "checks passed" not in outs[r]:
            say(f"FAIL: rank {r} exited {codes[r]}")
            ok = False
        elif "over gloo" not in outs[r]:
            say(f"FAIL: rank {r} did not run over gloo (hosts differ: shared memory cannot serve them)")
            ok = False
    return ok


def case_kill(hosts, program, nhosts, style, victim, mode="allreduce", stall=None):
    """Kills `victim` mid-AllReduce; `stall` (a survivor) is stopped for 0.3 s at the kill, so that it
    fails and asks rank 0's store after the other survivors (rank 0 must keep the store for it)."""
    procs = start(hosts, program, mode, style, nhosts, 1)
    # Until every rank is looping (its first AllReduce passed).
    seen = {r: "" for r in procs}
    deadline = time.monotonic() + 60
    import selectors
    sel = selectors.DefaultSelector()
    for r, p in procs.items():
        os.set_blocking(p.stdout.fileno(), False)
        sel.register(p.stdout, selectors.EVENT_READ, r)
    while any("looping" not in s for s in seen.values()) and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.5):
            chunk = key.fileobj.read()
            if chunk:
                seen[key.data] += chunk
    sel.close()
    if any("looping" not in s for s in seen.values()):
        for p in procs.values():
            p.kill()
        say("FAIL: not every rank started its AllReduce loop: " + repr(seen))
        return False
    for p in procs.values():
        os.set_blocking(p.stdout.fileno(), True)
    time.sleep(0.3)  # well inside the loop
    if stall is not None:
        procs[stall].send_signal(signal.SIGSTOP)
    killed_at = time.monotonic()
    procs[victim].send_signal(signal.SIGKILL)
    say(f"killed rank {victim} mid-AllReduce" + (f", rank {stall} stopped for 0.3 s" if stall is not None else ""))
    if stall is not None:
        time.sleep(0.3)
        procs[stall].send_signal(signal.SIGCONT)
    outs, codes = finish(procs, TIMEOUT_S + 10)
    took = time.monotonic() - killed_at
    ok = True
    for r in procs:
        outs[r] = seen[r] + outs[r]
        if r == victim:
            continue
        if codes[r] != 3 or f"rank {victim} is gone" not in outs[r]:
            say(f"FAIL: rank {r} exited {codes[r]} without naming rank {victim}")
            ok = False
        elif "the next call: INFINI_STATUS_DRIVER_ERROR" not in outs[r]:
            say(f"FAIL: rank {r}'s comm was still usable after the failure")
            ok = False
        elif victim != 0 and "its process ended or lost its connection" not in outs[r]:
            say(f"FAIL: rank {r} did not have rank 0's store's answer (rank 0 did not keep the store for it)")
            ok = False
    if took > TIMEOUT_S:
        say(f"FAIL: the survivors took {took:.1f} s, more than INFINICCL_TIMEOUT_S={TIMEOUT_S}")
        ok = False
    say(f"the {len(procs) - 1} survivors failed within {took:.2f} s of the kill (bound {TIMEOUT_S} s)")
    return ok


def case_rendezvous(hosts, program):
    global TIMEOUT_S
    saved, TIMEOUT_S = TIMEOUT_S, 3
    ok = True
    try:
        # A wrong MASTER_ADDR: nobody there.
        t0 = time.monotonic()
        outs, codes = finish(start(hosts, program, "init", "torchrun", 2, 1, only={1}, master="10.77.0.99"), 30)
        took = time.monotonic() - t0
        if codes[1] != 2 or "no rendezvous store at MASTER_ADDR=10.77.0.99" not in outs[1] or took > 3 + 8:
            say(f"FAIL: a wrong MASTER_ADDR: exit {codes[1]} after {took:.1f} s")
            ok = False
        # MASTER_PORT in use on rank 0's host.
        holder = hosts.spawn(0, [sys.executable, "-c",
                                 "import socket,time; s=socket.socket(); s.bind(('0.0.0.0', %d)); s.listen(); "
                                 "print('listening', flush=True); time.sleep(60)" % PORT], dict(os.environ))
        holder.stdout.readline()
        outs, codes = finish(start(hosts, program, "init", "torchrun", 2, 1, only={0}), 30)
        holder.kill()
        holder.wait()
        if codes[0] != 2 or "MASTER_PORT=%d" % PORT not in outs[0] or "in use" not in outs[0]:
            say(f"FAIL: MASTER_PORT in use: exit {codes[0]}")
            ok = False
        # A rank that never comes: 3 ranks announced, 2 started.
        t0 = time.monotonic()
        outs, codes = finish(start(hosts, program, "init", "torchrun", 2, 1, n=3, only={0, 1}), 30)
        took = time.monotonic() - t0
        for r in (0, 1):
            if codes[r] != 2 or "rank 2 never came" not in outs[r]:
                say(f"FAIL: a rank that never comes: rank {r} exited {codes[r]}")
                ok = False
        if took > 3 + 8:
            say(f"FAIL: a rank that never comes: {took:.1f} s, bound 3")
            ok = False
        # And then a good one on the same hosts: both come.
        outs, codes = finish(start(hosts, program, "init", "torchrun", 2, 1), 30)
        if codes != {0: 0, 1: 0}:
            say(f"FAIL: a good rendezvous after the bad ones: {codes}")
            ok = False
    finally:
        TIMEOUT_S = saved
    return ok


def one_host(program):
    """2 ranks on this host, no namespaces: shared memory, unless INFINICCL_CPU_TRANSPORT=gloo."""
    ok = True
    port = PORT + 1
    for forced in ("", "gloo"):
        procs = {}
        for r in range(2):
            env = launcher_env("torchrun", r, 2, r, "127.0.0.1")
            env.update({"MASTER_PORT": str(port), "INFINICCL_CPU_TRANSPORT": forced})
            procs[r] = subprocess.Popen([program, "collectives"], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        port += 1
        outs, codes = finish(procs, 240)
        for r in range(2):
            over_gloo = "over gloo" in outs[r]
            if codes[r] != 0 or "checks passed" not in outs[r] or over_gloo != (forced == "gloo"):
                say(f"FAIL: one host, INFINICCL_CPU_TRANSPORT={forced!r}: rank {r} exited {codes[r]}, "
                    f"over gloo: {over_gloo}")
                ok = False
    say(f"one-host: {'PASSED' if ok else 'FAILED'}")
    return 0 if ok else 1


def case_bench(hosts, program, nhosts, quick):
    """The bench (bench/ccl/ccl_hosts_bench.cpp), one rank per host; rank 0 prints the table."""
    import tempfile
    store = tempfile.mkdtemp(prefix="infiniccl-bench-gloo-")
    os.chmod(store, 0o777)
    procs = {}
    for r in range(nhosts):
        env = launcher_env("torchrun", r, nhosts, 0, Hosts.addr(0))
        env.update({"BENCH_GLOO_STORE": store, "BENCH_HOSTS": str(nhosts), "INFINICCL_CPU_STATS": "0"})
        procs[r] = hosts.spawn(r, [program] + (["--quick"] if quick else []), env)
    outs, codes = finish(procs, 600)
    shutil.rmtree(store, ignore_errors=True)
    return all(c == 0 for c in codes.values())


def case_nccl(hosts, program):
    """NCCL between 2 namespace hosts, one GPU each, NCCL's socket transport only (the veth)."""
    import tempfile
    ids = tempfile.mkdtemp(prefix="infiniccl-nccl-id-")
    os.chmod(ids, 0o777)
    procs = {}
    for r in range(2):
        env = launcher_env("torchrun", r, 2, 0, Hosts.addr(0))
        env.update({"CUDA_VISIBLE_DEVICES": str(r), "NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1",
                    "NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "eth0", "NCCL_NVLS_ENABLE": "0",
                    "INFINIRT_BACKENDS": "cuda,nccl", "BENCH_NCCL_ID_DIR": ids, "INFINICCL_TIMEOUT_S": "120"})
        procs[r] = hosts.spawn(r, [program], env)
    outs, codes = finish(procs, 480)
    shutil.rmtree(ids, ignore_errors=True)
    return all(c == 0 for c in codes.values()) and "results right" in outs[0]


CASES = {
    "collectives-2": (2, lambda h, p: case_collectives(h, p, 2, 2, "mpirun")),
    "collectives-4": (4, lambda h, p: case_collectives(h, p, 4, 1, "slurm")),
    "torchrun-2": (2, lambda h, p: case_collectives(h, p, 2, 1, "torchrun")),
    "kill-4": (4, lambda h, p: case_kill(h, p, 4, "torchrun", 2, stall=1)),
    "kill-small-4": (4, lambda h, p: case_kill(h, p, 4, "torchrun", 2, "allreduce-small", stall=3)),
    "kill-master-2": (2, lambda h, p: case_kill(h, p, 2, "mpirun", 0)),
    "rendezvous": (2, case_rendezvous),
    "bench-2": (2, lambda h, p: case_bench(h, p, 2, False)),
    "bench-4": (4, lambda h, p: case_bench(h, p, 4, False)),
    "bench-quick-2": (2, lambda h, p: case_bench(h, p, 2, True)),
    "nccl-2": (2, case_nccl),
}


def inner(argv):
    program, case = argv
    nhosts, fn = CASES[case]
    started = time.monotonic()
    hosts = Hosts(nhosts)
    try:
        ok = fn(hosts, program)
    finally:
        hosts.close()
    say(f"{case}: {'PASSED' if ok else 'FAILED'} in {time.monotonic() - started:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 2 and args[1] == "one-host":
        sys.exit(one_host(args[0]))
    if len(args) != 2 or args[1] not in CASES:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(inner(args) if os.environ.get("NETNS_HOSTS_INNER") == "1" else outer(args))
