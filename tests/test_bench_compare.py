#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/compare.py compares amx-bench runs row by row (TAP).

Writes a base CSV and two others in a temporary directory, with known
ratios to oneDNN and GFLOPS, and checks the numbers compare.py prints
(other's ratio over base's; GFLOPS over GFLOPS, marked ~, where a run has
no oneDNN; '-' for a row a run lacks), the geometric means, and the exit
status for files that are not amx-bench CSVs or share no row.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

HEADER = ("type,threads,m,n,k,libamx_gflops,onednn_gflops,ratio,"
          "libamx_packed_gflops,onednn_packed_gflops,packed_ratio,"
          "libamx_pack_ms,onednn_pack_ms,peak_gflops,libamx_pct_peak,"
          "libamx_backend,onednn_impl,shape_index,shape")

results = []


def check(ok, what):
    results.append(ok)
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), what))


def write(path, rows):
    """rows: (type, threads, m, n, k, gf, ratio, pgf, pratio); ratio None: no
    oneDNN; pgf None: no prepacked form (cf16)"""
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for i, (t, thr, m, n, k, gf, ratio, pgf, pratio) in enumerate(rows):
            r = "nan" if ratio is None else "%.4f" % ratio
            pr = "nan" if pratio is None else "%.4f" % pratio
            dg = "nan" if ratio is None else "%.3f" % (gf / ratio)
            dp = "nan" if pratio is None else "%.3f" % (pgf / pratio)
            pg = "nan" if pgf is None else "%.3f" % pgf
            f.write("%s,%d,%d,%d,%d,%.3f,%s,%s,%s,%s,%s,0.1,0.1,1000.0,"
                    "50.0,amx,brg,%d,%dx%dx%d\n" % (t, thr, m, n, k, gf, dg, r,
                                                    pg, dp, pr, i, m, n, k))


def run(compare, *files):
    p = subprocess.run([sys.executable, compare] + list(files),
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def row_of(out, shape, thr):
    for line in out.splitlines():
        if re.search(r"\b%s thr +%s \|" % (thr, re.escape(shape)), line):
            return line
    return ""


def main():
    compare = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "base.csv")
        fast = os.path.join(d, "fast.csv")
        nodnnl = os.path.join(d, "nodnnl.csv")
        write(base, [("bf16", 1, 256, 256, 256, 500, 1.00, 520, 0.80),
                     ("u8s8", 2, 1, 4096, 4096, 40, 2.00, 50, 1.00)])
        # 10 % better against oneDNN plain, 25 % prepacked; one row missing
        write(fast, [("bf16", 1, 256, 256, 256, 480, 1.10, 500, 1.00)])
        # no oneDNN: GFLOPS against GFLOPS
        write(nodnnl, [("bf16", 1, 256, 256, 256, 550, None, 572, None),
                       ("u8s8", 2, 1, 4096, 4096, 30, None, 60, None)])
        rc, out, err = run(compare, base, fast, nodnnl)
        check(rc == 0, "three runs: exit 0 (%d %s)" % (rc, err.strip()))
        line = row_of(out, "256x256x256", 1)
        check(re.search(r"\| +1\.00/ 0\.80 \| +1\.10/ 1\.00 1\.100/1\.250 \|", line)
              is not None, "vs base from the oneDNN ratios: %r" % line)
        check(re.search(r"~1\.100/~1\.100", line) is not None,
              "without oneDNN: GFLOPS over GFLOPS, marked ~: %r" % line)
        line = row_of(out, "1x4096x4096", 2)
        check(re.search(r"\| -", line) is not None and
              re.search(r"~0\.750/~1\.200", line) is not None,
              "a row a run lacks shows -, the other run's shows: %r" % line)
        m = re.search(r"fast\.csv: geometric mean vs base ([0-9.]+) over (\d+)", out)
        want = math.sqrt(1.1 * 1.25)
        check(m is not None and abs(float(m.group(1)) - want) < 0.002 and
              m.group(2) == "2", "geometric mean over the shared values: %s"
              % (m.group(0) if m else out))
        m = re.search(r"nodnnl\.csv: geometric mean vs base ([0-9.]+) over (\d+)", out)
        want = (1.1 * 1.1 * 0.75 * 1.2) ** 0.25
        check(m is not None and abs(float(m.group(1)) - want) < 0.002 and
              m.group(2) == "4", "geometric mean with ~ values: %s"
              % (m.group(0) if m else out))

        # cf16 rows: no oneDNN and no prepacked form; GFLOPS against
        # GFLOPS plain, nan prepacked and left out of the mean
        cbase = os.path.join(d, "cbase.csv")
        cother = os.path.join(d, "cother.csv")
        write(cbase, [("bf16", 1, 64, 64, 64, 100, 1.00, 100, 1.00),
                      ("cf16", 1, 64, 64, 64, 80, None, None, None)])
        write(cother, [("bf16", 1, 64, 64, 64, 100, 1.10, 100, 1.10),
                       ("cf16", 1, 64, 64, 64, 88, None, None, None)])
        rc, out, err = run(compare, cbase, cother)
        line = next((l for l in out.splitlines() if l.startswith("cf16 ")), "")
        check(rc == 0 and re.search(r"~1\.100/ +nan$", line) is not None,
              "cf16: GFLOPS over GFLOPS, prepacked nan: %r" % line)
        m = re.search(r"cother\.csv: geometric mean vs base ([0-9.]+) "
                      r"over (\d+)", out)
        check(m is not None and abs(float(m.group(1)) - 1.1) < 0.002 and
              m.group(2) == "3", "cf16's nan left out of the mean: %s"
              % (m.group(0) if m else out))

        other = os.path.join(d, "other.csv")
        write(other, [("bf16", 1, 64, 64, 64, 100, 1.0, 100, 1.0)])
        rc, out, err = run(compare, base, other)
        check(rc == 2 and "share no row" in err, "runs that share no row: exit 2")
        junk = os.path.join(d, "junk.csv")
        with open(junk, "w") as f:
            f.write("a,b,c\n1,2,3\n")
        rc, out, err = run(compare, base, junk)
        check(rc == 2 and "not an amx-bench CSV" in err, "not a bench CSV: exit 2")
        rc, out, err = run(compare, base, os.path.join(d, "missing.csv"))
        check(rc == 2 and "missing.csv" in err, "a missing file: exit 2, named")
        rc, out, err = run(compare, base)
        check(rc == 2 and "usage" not in out and "BASE.csv" in err,
              "one file: usage on stderr, exit 2")
    print("1..%d" % len(results))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
