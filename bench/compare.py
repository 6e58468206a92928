#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare amx-bench runs of the same shapes, row by row.

    bench/compare.py BASE.csv OTHER.csv [OTHER.csv ...]

Each run is one amx-bench CSV (say, the default blocking and the same
shapes with AMX_GEMM_BLOCKS='amx:*:cio=interleave').  Runs made one after
the other see the machine's clock drift, so the comparison uses what each
run measured against oneDNN in alternating turns: for every row (type,
threads, M x N x K) of BASE, the ratio to oneDNN of BASE and of each
OTHER, plain and prepacked, and OTHER's ratio over BASE's ("vs base": 1.03
means 3 % faster than BASE against the same peer).  Without oneDNN in a
run (ratio "nan"), its GFLOPS over BASE's are used instead, marked "~".
The cf16 rows (complex fp16) never have oneDNN, so always "~", and have no
prepacked form: "nan" there, left out of the geometric mean.

Prints a table, then per OTHER the geometric mean of "vs base" over the
rows both have.  Exit status: 0, or 2 when a file cannot be read as an
amx-bench CSV or the runs share no row.
"""
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import bench_csv  # noqa: E402 (beside this file)

KEY = ("type", "threads", "m", "n", "k")
NEED = KEY + ("libamx_gflops", "libamx_packed_gflops", "ratio", "packed_ratio")


def load(path):
    rows = bench_csv.read(path, NEED)
    out = {}
    for r in rows:
        key = tuple(r[c] for c in KEY)
        out[key] = {c: float(r[c]) for c in NEED[len(KEY):]}
    return out


def versus(base, other, gf, ratio):
    """other over base: by the oneDNN ratios when both have them"""
    if all(math.isfinite(x[ratio]) and x[ratio] > 0 for x in (base, other)):
        return other[ratio] / base[ratio], ""
    if base[gf] > 0:
        return other[gf] / base[gf], "~"
    return float("nan"), ""


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    runs = []
    for path in argv[1:]:
        try:
            runs.append((os.path.basename(path), load(path)))
        except (OSError, ValueError, KeyError) as e:
            print("compare.py: %s: %s" % (path, e), file=sys.stderr)
            return 2
    base_name, base = runs[0]
    keys = [k for k in base if any(k in r for _, r in runs[1:])]
    if not keys:
        print("compare.py: the runs share no row (type, threads, shape)",
              file=sys.stderr)
        return 2
    logs = {name: [] for name, _ in runs[1:]}
    print("base: %s; columns: plain / prepacked ratio to oneDNN, "
          "and vs base" % base_name)
    for name, _ in runs[1:]:
        print("  %s" % name)
    for k in keys:
        b = base[k]
        line = "%-4s %s thr %16s | %5.2f/%5.2f" % (
            k[0], k[1], "%sx%sx%s" % k[2:], b["ratio"], b["packed_ratio"])
        for name, r in runs[1:]:
            o = r.get(k)
            if not o:
                line += " | %-25s" % "-"
                continue
            vp, mp = versus(b, o, "libamx_gflops", "ratio")
            vk, mk = versus(b, o, "libamx_packed_gflops", "packed_ratio")
            line += " | %5.2f/%5.2f %s%5.3f/%s%5.3f" % (
                o["ratio"], o["packed_ratio"], mp, vp, mk, vk)
            logs[name] += [math.log(v) for v in (vp, vk)
                           if math.isfinite(v) and v > 0]
        print(line)
    for name, _ in runs[1:]:
        vals = logs[name]
        if vals:
            print("%s: geometric mean vs base %.3f over %d values" %
                  (name, math.exp(sum(vals) / len(vals)), len(vals)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
