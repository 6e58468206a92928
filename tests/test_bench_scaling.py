# SPDX-License-Identifier: MIT
"""amx-bench and amx-decode with --threads 1,all: the scaling rows.

usage: test_bench_scaling.py AMX_BENCH AMX_DECODE FAKE_NODES_SO

On this machine's own topology, then (two cores or more) under the
fake_nodes.so shim, which splits the cores into two NUMA nodes: the rows
of every thread count are there, the speedup column is the GFLOPS (the
time) over that of 1 thread, and the nodes columns say where the threads
ran.  TAP output; exit 0 when every check passed."""
import csv
import glob
import math
import os
import re
import subprocess
import sys
import tempfile

BENCH, DECODE, SHIM = sys.argv[1:4]
checks = 0
failed = 0


def ok(cond, what):
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", checks, what))
    return cond


def cores():
    """(core, node) of the first CPU of each physical core of the mask"""
    seen, out = set(), []
    node_of = {}
    for d in glob.glob("/sys/devices/system/node/node[0-9]*"):
        n = int(d.rsplit("node", 1)[1])
        for c in cpulist(open(d + "/cpulist").read()):
            node_of.setdefault(c, n)
    for c in sorted(os.sched_getaffinity(0)):
        t = "/sys/devices/system/cpu/cpu%d/topology/" % c
        try:
            key = (open(t + "physical_package_id").read().strip(),
                   open(t + "core_id").read().strip())
        except OSError:
            key = ("cpu", str(c))
        if key not in seen:
            seen.add(key)
            out.append((c, node_of.get(c, 0)))
    return out


def cpulist(s):
    out = []
    for part in s.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def run(argv, env_extra):
    env = dict(os.environ, **env_extra)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=240)
    ok(p.returncode == 0, "%s exits 0" % " ".join(os.path.basename(a)
                                                   for a in argv[:1]))
    if p.returncode:
        print("# " + p.stdout.replace("\n", "\n# "))
    return p.stdout


def close(a, b):
    return abs(a - b) <= 2e-3 + 5e-3 * abs(b)


def packed_close(r, one):
    """packed_speedup: as speedup, and nan for cf16 (no prepacked form)"""
    if r["type"] == "cf16":
        return (math.isnan(float(r["packed_speedup"])) and
                math.isnan(float(r["libamx_packed_gflops"])))
    return close(float(r["packed_speedup"]),
                 float(r["libamx_packed_gflops"]) /
                 float(one["libamx_packed_gflops"]))


def check_bench(tmp, env, allthr, want_nodes):
    """want_nodes: {threads: nodes of the pool}"""
    path = os.path.join(tmp, "bench.csv")
    out = run([BENCH, "--quick", "--reps", "1", "--shapes",
               "16x32x64,17x33x65", "--threads", "1,all", "--csv", path], env)
    rows = list(csv.DictReader(open(path)))
    head = open(path).readline().strip().split(",")
    ok(head[:21] == OLD_BENCH and head[21:] == ["nodes", "speedup",
                                                 "packed_speedup"],
       "amx-bench CSV: the old columns in order, then the new ones")
    thr = sorted({int(r["threads"]) for r in rows})
    ok(thr == sorted({1, allthr}), "amx-bench threads %s == 1,%d"
       % (thr, allthr))
    one = {(r["type"], r["shape"]): r for r in rows if r["threads"] == "1"}
    bad = [r for r in rows
           if not close(float(r["speedup"]),
                        float(r["libamx_gflops"]) /
                        float(one[(r["type"], r["shape"])]["libamx_gflops"]))
           or not packed_close(r, one[(r["type"], r["shape"])])]
    ok(not bad, "amx-bench speedup = GFLOPS / 1-thread GFLOPS (%d rows off)"
       % len(bad))
    types = sorted({r["type"] for r in rows})
    ok(types == sorted(TYPES + [t + "-ep" for t in ("bf16", "u8s8")]),
       "amx-bench rows of every type %s" % types)
    bad = [r for r in rows if int(r["nodes"]) != want_nodes[int(r["threads"])]]
    ok(rows and not bad, "amx-bench nodes column %s (%d rows off)"
       % (want_nodes, len(bad)))
    table = [l.split() for l in out.splitlines()
             if re.match(r"^(%s) +\d+x\d+x\d+ +\d+ +\d+ \|" % "|".join(TYPES),
                         l)]
    ok(len(table) == len(TYPES) * 2 * len(thr),
       "amx-bench scaling table: %d rows, want %d"
       % (len(table), len(TYPES) * 2 * len(thr)))
    ok(all(int(t[3]) == want_nodes[int(t[2])] for t in table),
       "amx-bench scaling table: nodes match")


def check_decode(tmp, env, allthr, nnodes, node0_cores):
    path = os.path.join(tmp, "decode.csv")
    out = run([DECODE, "--quick", "--reps", "1", "--shapes", "256x256",
               "--m", "1", "--threads", "1,all", "--csv", path], env)
    rows = list(csv.DictReader(open(path)))
    head = open(path).readline().strip().split(",")
    ok(head[:13] == OLD_DECODE and head[13:] == ["config", "nodes",
                                                 "bw_nodes", "speedup"],
       "amx-decode CSV: the old columns in order, then the new ones")
    want = {("node", 1)}
    if allthr <= node0_cores:
        want.add(("node", allthr))
    else:
        ok("has fewer cores, its row is not measured" in out,
           "amx-decode says the one-node row of %d threads is not measured"
           % allthr)
    if nnodes >= 2:
        want.add(("all", allthr))
        ok("one node" not in out, "amx-decode: no one-node note")
    else:
        ok("one node: the all-nodes rows are not measured" in out,
           "amx-decode says the all-nodes rows are not measured")
    # the read-rate table: a column per node (and all), a row per count
    lines = out.splitlines()
    i = next((j for j, l in enumerate(lines)
              if l.startswith("# read rate")), None)
    ok(i is not None, "amx-decode prints the read-rate table")
    if i is not None:
        cols = nnodes + (nnodes >= 2)
        head = lines[i + 1].split()
        body = [lines[i + 2 + j].split() for j in range(2)]
        ok(len(head) == 1 + cols and
           head[-1] == ("all" if nnodes >= 2 else head[1]),
           "read-rate table header %s: %d node column(s)%s"
           % (head, nnodes, " and all" if nnodes >= 2 else ""))
        # 1 thread: no all-nodes cell; all the cores: more than any one
        # node has when there are two or more
        want_dash = [[nnodes >= 2 and x == cols for x in range(1, cols + 1)],
                     [nnodes >= 2 and x < cols for x in range(1, cols + 1)]]
        ok(all(len(b) == 1 + cols and
               [c == "-" for c in b[1:]] == want_dash[j]
               for j, b in enumerate(body)) and
           [b[0] for b in body] == ["1", str(allthr)],
           "read-rate rows 1 and %d: '-' exactly where there are not that "
           "many cores %s" % (allthr, body))
    got = {("all" if r["config"] == "all" else "node", int(r["threads"]))
           for r in rows}
    ok(got == want, "amx-decode configs %s == %s" % (sorted(got),
                                                     sorted(want)))
    ok(len(rows) == 11 * len(want), "amx-decode: 11 kinds a config")
    one = {r["weights"]: float(r["seconds"]) for r in rows
           if r["threads"] == "1"}
    bad = [r for r in rows
           if not close(float(r["speedup"]),
                        one[r["weights"]] / float(r["seconds"]))]
    ok(not bad, "amx-decode speedup = 1-thread time / time (%d rows off)"
       % len(bad))
    bad = [r for r in rows
           if int(r["nodes"]) != (nnodes if r["config"] == "all" else 1) or
           int(r["bw_nodes"]) != int(r["nodes"])]
    ok(not bad, "amx-decode nodes, bw_nodes (%d rows off)" % len(bad))


# the types of amx-bench's GEMM rows (and its scaling table)
TYPES = ["bf16", "u8s8", "f16", "cf16"]
OLD_BENCH = ("type,threads,m,n,k,libamx_gflops,onednn_gflops,ratio,"
             "libamx_packed_gflops,onednn_packed_gflops,packed_ratio,"
             "libamx_pack_ms,onednn_pack_ms,peak_gflops,libamx_pct_peak,"
             "libamx_backend,onednn_impl,shape_index,shape,ep_cost,"
             "ep_packed_cost").split(",")
OLD_DECODE = ("weights,threads,m,n,k,bytes,seconds,gbps,bw_gbps,bw_frac,"
              "peak_gflops,roof_frac,vs_bf16").split(",")


def main():
    c = cores()
    nodes = sorted({n for _, n in c})
    # the pool's defaults: one thread per core, pinned
    for v in ("AMX_NUM_THREADS", "AMX_PIN", "AMX_PLACEMENT"):
        os.environ.pop(v, None)
    env = {}
    with tempfile.TemporaryDirectory() as tmp:
        print("# this machine: %d cores, %d node(s)" % (len(c), len(nodes)))
        if len(nodes) == 1:
            check_bench(tmp, env, len(c), {1: 1, len(c): 1})
        else:
            print("# several nodes: the bench's nodes column is checked "
                  "under the shim only")
        # amx-decode's one-node rows are on the first node of the mask
        check_decode(tmp, env, len(c), len(nodes),
                     sum(1 for _, n in c if n == nodes[0]))
        if len(c) < 2:
            print("# one core: no fake second node")
        else:
            # the first half of the cores (and their siblings) node 0
            half = {cpu for cpu, _ in c[:len(c) // 2]}
            fake = os.path.join(tmp, "sys")
            os.makedirs(fake + "/node0")
            os.makedirs(fake + "/node1")
            all_cpus = sorted(os.sched_getaffinity(0))
            sib = {}
            for cpu in all_cpus:
                t = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
                try:
                    sib[cpu] = cpulist(open(t + "thread_siblings_list")
                                       .read())
                except OSError:
                    sib[cpu] = [cpu]
            n0 = sorted({s for cpu in half for s in sib[cpu]})
            n1 = [cpu for cpu in all_cpus if cpu not in n0]
            for n, lst in (("node0", n0), ("node1", n1)):
                with open(os.path.join(fake, n, "cpulist"), "w") as f:
                    f.write(",".join(map(str, lst)) + "\n")
            print("# fake nodes: 0 = %s, 1 = %s" % (n0, n1))
            fenv = dict(env, LD_PRELOAD=SHIM, AMX_FAKE_NODE_ROOT=fake)
            check_bench(tmp, fenv, len(c), {1: 1, len(c): 2})
            check_decode(tmp, fenv, len(c), 2, len(c) // 2)
    print("1..%d" % checks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
