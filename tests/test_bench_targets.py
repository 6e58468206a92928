#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/targets.py judges amx-bench CSVs as the targets say (TAP).

Builds CSVs in a temporary directory: AMX rows that meet every target,
then the same with one row moved just below each threshold in turn, an
AVX-512 file, a file without AMX rows, and files that are not amx-bench
CSVs; checks the verdict line of each target and the exit status.
"""
import copy
import os
import subprocess
import sys
import tempfile

HEADER = ("type,threads,m,n,k,libamx_gflops,onednn_gflops,ratio,"
          "libamx_packed_gflops,onednn_packed_gflops,packed_ratio,"
          "libamx_pack_ms,onednn_pack_ms,peak_gflops,libamx_pct_peak,"
          "libamx_backend,onednn_impl,shape_index,shape,ep_cost,"
          "ep_packed_cost")


def row(typ, thr, m, n, k, gf, ratio, pgf, pratio, peak, be,
        cost=float("nan"), pcost=float("nan")):
    return dict(type=typ, thr=thr, m=m, n=n, k=k, gf=gf, ratio=ratio,
                pgf=pgf, pratio=pratio, peak=peak, be=be, cost=cost,
                pcost=pcost)


def csv_text(rows):
    with tempfile.TemporaryDirectory() as d:
        write(os.path.join(d, "r.csv"), rows)
        with open(os.path.join(d, "r.csv")) as f:
            return f.read()


def write(path, rows):
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for i, r in enumerate(rows):
            f.write("%s,%d,%d,%d,%d,%.3f,%.3f,%.4f,%.3f,%.3f,%.4f,0.1,0.1,"
                    "%.1f,%.2f,%s,brg,%d,%dx%dx%d,%.4f,%.4f\n" % (
                        r["type"], r["thr"], r["m"], r["n"], r["k"], r["gf"],
                        r["gf"] / r["ratio"], r["ratio"], r["pgf"],
                        r["pgf"] / r["pratio"], r["pratio"], r["peak"],
                        100 * r["gf"] / r["peak"], r["be"], i, r["m"],
                        r["n"], r["k"], r["cost"], r["pcost"]))


def good_amx():
    """every AMX target met: ratios 1.3-1.6, 65 % of peak, 1.9x scaling"""
    return [
        row("bf16", 1, 64, 64, 64, 500, 1.30, 600, 1.30, 3300, "amx"),
        row("bf16", 1, 512, 512, 512, 2100, 1.30, 2150, 1.30, 3300, "amx"),
        row("bf16", 1, 1024, 1024, 1024, 2100, 1.30, 2150, 1.30, 3300, "amx"),
        row("bf16", 1, 16, 4096, 4096, 300, 1.60, 400, 1.60, 3300, "amx"),
        row("u8s8", 1, 2048, 2048, 2048, 4300, 1.30, 4400, 1.30, 6600, "amx"),
        row("bf16", 2, 1024, 1024, 1024, 4000, 1.30, 4100, 1.30, 6400, "amx"),
        row("u8s8", 2, 2048, 2048, 2048, 8200, 1.30, 8300, 1.30, 13000, "amx"),
        row("bf16", 2, 16, 4096, 4096, 600, 1.60, 800, 1.60, 6400, "amx"),
    ]


def main():
    script = sys.argv[1]
    results = []

    def check(cond, what):
        results.append(cond)
        print("%sok %d - %s" % ("" if cond else "not ", len(results), what))

    def run(rows, *extra):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.csv")
            if isinstance(rows, str):
                with open(path, "w") as f:
                    f.write(rows)
            else:
                write(path, rows)
            p = subprocess.run([sys.executable, script, path] + list(extra),
                               capture_output=True, text=True)
        verdict = {}
        for line in p.stdout.splitlines():
            parts = line.split()
            if parts and not line.startswith(" "):
                verdict[parts[0]] = parts[1]
        return p.returncode, verdict, p.stdout

    print("TAP version 13")
    rc, v, out = run(good_amx())
    check(rc == 0 and all(v.get(t) == "MET" for t in
                          ("amx-ratio", "amx-peak", "amx-decode", "amx-2thr")),
          "all AMX targets met: exit 0, four MET")
    check(v.get("avx512-ratio") == "n/a", "no AVX-512 rows: avx512-ratio n/a")

    # one row just below each threshold; only its target misses
    cases = [
        ("amx-ratio", 1, "ratio", 1.24),
        ("amx-ratio", 0, "pratio", 1.24),
        ("amx-decode", 3, "pratio", 1.49),
        ("amx-decode", 7, "ratio", 1.49),
        ("amx-2thr", 5, "ratio", 1.24),
        ("amx-2thr", 6, "gf", 4300 * 1.84),
    ]
    for target, i, field, value in cases:
        rows = copy.deepcopy(good_amx())
        rows[i][field] = value
        rc, v, out = run(rows, "--verbose")
        others = [t for t in ("amx-ratio", "amx-decode", "amx-2thr")
                  if t != target]
        check(rc == 1 and v.get(target) == "MISS" and
              all(v.get(t) == "MET" for t in others) and
              "    " in out,
              "%s below threshold in row %d (%s): only %s misses, exit 1"
              % (field, i, rows[i]["type"], target))

    # a --threads run's CSV (nodes, speedup, packed_speedup appended):
    # a missed row says which thread configuration it is
    rows = copy.deepcopy(good_amx())
    rows[5]["ratio"] = 1.24
    text = "".join(
        line + (",nodes,speedup,packed_speedup" if i == 0 else
                ",%d,1.0,1.0" % (2 if line.split(",")[1] == "2" else 1))
        + "\n" for i, line in enumerate(csv_text(rows).splitlines()))
    rc, v, out = run(text, "--verbose")
    check(rc == 1 and v.get("amx-2thr") == "MISS" and
          "bf16 2 thr 2 nodes 1024x1024x1024" in out,
          "a scaling CSV: the missed row names its threads and nodes")

    rows = good_amx()
    for r in rows:
        if r["thr"] == 1 and min(r["m"], r["n"], r["k"]) >= 384:
            r["pgf"] = r["peak"] * 0.59
    rc, v, out = run(rows)
    check(rc == 1 and v.get("amx-peak") == "MISS",
          "median 59 % of peak prepacked: amx-peak misses")

    avx = [row("bf16", 1, 256, 256, 256, 480, 1.01, 490, 1.00, 490, "avx512"),
           row("u8s8", 1, 1024, 1024, 1024, 950, 1.05, 960, 1.02, 980, "avx512"),
           row("u8s8", 1, 1, 4096, 4096, 50, 0.50, 200, 0.90, 980, "avx512"),
           row("u8s8", 2, 512, 512, 512, 1800, 0.80, 1900, 0.80, 1900, "avx512")]
    rc, v, out = run(avx)
    check(rc == 0 and v.get("avx512-ratio") == "MET" and
          v.get("amx-ratio") == "n/a",
          "AVX-512 file: decode and 2-thread rows are not judged, target met")
    avx[1]["pratio"] = 0.99
    rc, v, out = run(avx)
    check(rc == 1 and v.get("avx512-ratio") == "MISS",
          "AVX-512 prepacked 0.99x: avx512-ratio misses")

    # fp16 rows: judged against bf16 on the same shape, not against oneDNN
    avx = [row("bf16", 1, 256, 256, 256, 480, 1.01, 490, 1.00, 490, "avx512"),
           row("bf16", 1, 1, 4096, 4096, 40, 1.2, 45, 1.1, 490, "avx512"),
           row("f16", 1, 256, 256, 256, 440, float("nan"), 445, float("nan"),
               float("nan"), "avx512"),
           row("f16", 1, 1, 4096, 4096, 38, float("nan"), 43, float("nan"),
               float("nan"), "avx512")]
    rc, v, out = run(avx)
    check(rc == 0 and v.get("f16-bf16") == "MET" and
          v.get("avx512-ratio") == "MET",
          "f16 at 0.91-0.96x bf16: f16-bf16 met, oneDNN target ignores f16")
    avx[2]["pgf"] = 440
    rc, v, out = run(avx, "--verbose")
    check(rc == 1 and v.get("f16-bf16") == "MISS" and "0.898x" in out,
          "f16 prepacked 0.898x bf16: f16-bf16 misses")
    rc, v, out = run(good_amx())
    check(v.get("f16-bf16") == "n/a", "no f16 rows: f16-bf16 n/a")

    # cf16 rows (no oneDNN, no prepacked form, no peak: nan) are measured
    # only: no target judges them, on AMX or AVX-512, and they miss none
    nan = float("nan")
    cf = [row("cf16", 1, 64, 64, 64, 400, nan, nan, nan, nan, "amx"),
          row("cf16", 1, 1024, 1024, 1024, 900, nan, nan, nan, nan, "amx"),
          row("cf16", 2, 1024, 1024, 1024, 1000, nan, nan, nan, nan, "amx"),
          row("cf16", 1, 16, 4096, 4096, 90, nan, nan, nan, nan, "amx")]
    rc, v, out = run(good_amx() + cf, "--verbose")
    check(rc == 0 and all(v.get(t) == "MET" for t in
                          ("amx-ratio", "amx-peak", "amx-decode", "amx-2thr"))
          and v.get("cf16") == "--" and "4 rows, measured only" in out
          and "cf16 1 thr" not in out,
          "cf16 rows with nan ratios: AMX targets met, cf16 measured only")
    avx = [row("bf16", 1, 256, 256, 256, 480, 1.01, 490, 1.00, 490, "avx512"),
           row("cf16", 1, 256, 256, 256, 100, nan, nan, nan, nan, "avx512")]
    rc, v, out = run(avx)
    check(rc == 0 and v.get("avx512-ratio") == "MET" and
          v.get("f16-bf16") == "n/a" and v.get("cf16") == "--",
          "cf16 on AVX-512: not in avx512-ratio or f16-bf16, measured only")
    rc, v, out = run(good_amx())
    check(v.get("cf16") == "n/a", "no cf16 rows: cf16 n/a")

    # the epilogue rows: judged on their cost from M = 256, and by no
    # other target (their ratios are against oneDNN with post-ops)
    eps = good_amx() + [
        row("bf16-ep", 1, 512, 4096, 4096, 2000, 0.5, 2100, 0.5, 3300, "amx",
            1.02, 1.03),
        row("u8s8-ep", 2, 512, 4096, 4096, 8000, 0.5, 8100, 0.5, 13000, "amx",
            1.01, 1.00),
        row("u8s8-ep", 1, 1, 4096, 4096, 40, 0.5, 45, 0.5, 6600, "amx",
            1.50, 1.40)]
    rc, v, out = run(eps)
    check(rc == 0 and v.get("epilogue") == "MET" and
          v.get("amx-ratio") == "MET" and v.get("amx-decode") == "MET",
          "epilogue rows at 1.00-1.03x: epilogue met, M = 1 and the "
          "oneDNN targets not judged on them")
    eps[-2]["pcost"] = 1.031
    rc, v, out = run(eps, "--verbose")
    check(rc == 1 and v.get("epilogue") == "MISS" and "1.031x" in out,
          "an epilogue costing 1.031x: epilogue misses")
    rc, v, out = run(good_amx())
    check(v.get("epilogue") == "n/a", "no -ep rows: epilogue n/a")
    # a CSV of an amx-bench before the epilogue rows: no ep columns
    old = HEADER.rsplit(",", 2)[0]
    rc, v, out = run(old + "\nbf16,1,64,64,64,500,400,1.25,600,480,1.25,"
                     "0.1,0.1,3300,15.15,amx,brg,0,64x64x64\n")
    check(rc == 0 and v.get("epilogue") == "n/a",
          "a CSV without the ep columns is still read")

    # amx-decode CSVs: their own four targets
    dh = ("weights,threads,m,n,k,bytes,seconds,gbps,bw_gbps,bw_frac,"
          "peak_gflops,roof_frac,vs_bf16\n")

    def drow(w, m, roof, vs):
        return "%s,1,%d,4096,4096,1,1,1,30,%.4f,450,%.4f,%.4f\n" % (
            w, m, roof, roof, vs)

    good = [("bf16", 1, 0.95, 1.0), ("q4_0", 1, 0.92, 3.2),
            ("s4-g128", 1, 0.91, 3.5), ("q8_0", 8, 0.90, 1.3),
            ("q4_0", 16, 0.93, 1.2), ("bf16", 512, 0.8, 1.0),
            ("q8_0", 512, 0.7, 0.92), ("q4_0", 512, 0.8, 0.99)]
    rc, v, out = run(dh + "".join(drow(*g) for g in good))
    check(rc == 0 and all(v.get(t) == "MET" for t in
                          ("wq-decode", "wq-int4", "wq-batch", "wq-prefill"))
          and "amx-ratio" not in v,
          "amx-decode CSV meeting every target: four MET, exit 0")
    for i, what, target in ((0, (0.89, 1.0), "wq-decode"),
                            (2, (0.91, 2.99), "wq-int4"),
                            (4, (0.89, 1.2), "wq-batch"),
                            (6, (0.7, 0.90), "wq-prefill")):
        bad = list(good)
        bad[i] = (good[i][0], good[i][1]) + what
        rc, v, out = run(dh + "".join(drow(*g) for g in bad), "--verbose")
        others = [t for t in ("wq-decode", "wq-int4", "wq-batch", "wq-prefill")
                  if t != target]
        check(rc == 1 and v.get(target) == "MISS" and
              all(v.get(t) == "MET" for t in others),
              "amx-decode row %d below threshold: only %s misses" % (i, target))
    rc, v, out = run(dh + drow("q4_0", 16, 0.95, 1.2))
    check(rc == 0 and v.get("wq-decode") == "n/a" and
          v.get("wq-batch") == "MET", "an M = 16 file: wq-decode n/a")

    # int8 A ("/i8a") at M >= 256: against the s8s8 rows' time, not bf16's
    def trow(w, m, secs, vs):
        return "%s,1,%d,4096,4096,1,%.6f,1,30,0.95,450,0.95,%.4f\n" % (
            w, m, secs, vs)

    pre = [trow("bf16", 512, 2.0, 1.0), trow("q4_0", 512, 2.1, 0.95)]
    i8 = trow("q8_0/i8a", 512, 1.3, 1.54)
    for s8, want, what in ((1.0, "MISS", "1.30x the s8s8 time: misses"),
                           (1.2, "MET", "1.08x the s8s8 time: met")):
        rc, v, out = run(dh + "".join(pre) + i8 + trow("s8s8", 512, s8, 2.0),
                         "--verbose")
        check(v.get("wq-prefill") == want and
              (want == "MET" or "q8_0/i8a" in out),
              "an int8-A prefill row 1.54x faster than bf16 weights, %s"
              % what)
    rc, v, out = run(dh + "".join(pre) + i8)
    check(v.get("wq-prefill") == "MET" and "1 int8-A rows without an s8s8 "
          "row not judged" in out, "an int8-A prefill row without an s8s8 "
          "row: not judged, and said so")

    for text, what in (("", "an empty file"),
                       ("a,b\n1,2\n", "a CSV without amx-bench columns"),
                       (HEADER + "\nbf16,x\n", "a malformed row")):
        rc, v, out = run(text)
        check(rc == 2 and not out, "%s: exit 2, nothing on stdout" % what)

    print("1..%d" % len(results))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
