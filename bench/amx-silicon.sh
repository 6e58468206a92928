#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What the speed targets need from AMX silicon, in one run: the machine's
# facts, the tuner's choices (with both timings of each pairwise one), the
# benchmark against oneDNN with the built-in blocking and with the tuned
# one (1 and 2 threads; bf16, u8s8, f16 and complex fp16 rows, cf16 on
# AMX-COMPLEX where the CPU has it), the targets of both, and each AMX
# option that is not the default (edge = tiles, cio = block, prefetch 2)
# against the built-in blocking on the same shapes, beside a second run of
# the built-in blocking itself (the run-to-run noise of the comparison);
# then the scaling over threads and NUMA nodes of prefill GEMMs and decode
# shapes (scaling-bench.{txt,csv}, scaling-decode.{txt,csv}).
#
#   bench/amx-silicon.sh [--build DIR] [--out DIR] [--quick] [--any-cpu]
#                        [--threads LIST]
#
#   --build DIR  the build to time (default: build, as ./bootstrap.sh main
#                leaves it)
#   --out DIR    where the results go (default:
#                bench/results/silicon-HOST-YYYY-MM-DD-HHMM); must not exist
#   --quick      small shapes and a quick tune: checks the run in a minute
#   --any-cpu    run without AMX too, timing the AVX-512 (or C) fallback:
#                to try the script on a machine without AMX
#   --threads LIST  the thread counts of the scaling step, such as 1,2,4,all
#                (all: one per core; default AMX_SILICON_THREADS, else the
#                powers of two up to nproc, then all)
#
# About 5 minutes on a 2-core host (--quick: one).  The tuning file is
# written under OUT, never the user's.  OUT/summary.txt collects the
# results; the CSVs and plots are beside it.  Exit status: 0 done (targets
# met or not: see the summary), 1 error, 2 usage, 4 no AMX (without
# --any-cpu).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=
quick=0
any=0
scale=${AMX_SILICON_THREADS:-}

log() { echo "amx-silicon: $*" >&2; }
die() { echo "amx-silicon: ERROR: $*" >&2; exit 1; }
usage() { sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--any-cpu) any=1; shift ;;
	--threads) [ $# -ge 2 ] || usage; scale=$2; shift 2 ;;
	-h|--help) sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "amx-silicon: unknown argument '$1'" >&2; usage ;;
	esac
done
if [ -z "$scale" ]; then
	n=$(nproc 2>/dev/null || echo 1)
	scale=1
	for ((t = 2; t <= n; t *= 2)); do
		scale+=,$t
	done
	scale+=,all
fi
[[ $scale =~ ^(all|[1-9][0-9]*)(,(all|[1-9][0-9]*))*$ ]] || {
	echo "amx-silicon: --threads wants a list such as 1,2,4,all, not '$scale'" >&2
	usage
}

if ! grep -q '\bamx_tile\b' /proc/cpuinfo 2>/dev/null; then
	if [ "$any" = 0 ]; then
		log "this CPU has no AMX (no amx_tile in /proc/cpuinfo): nothing to time"
		log "(--any-cpu runs it on the fallback anyway)"
		exit 4
	fi
	log "no AMX on this CPU: timing the fallback (--any-cpu)"
fi
info=$build/tools/amx-info
tune=$build/tools/amx-tune
bench=$build/bench/amx-bench
decode=$build/bench/amx-decode
for b in "$info" "$tune" "$bench" "$decode"; do
	[ -x "$b" ] || die "$b missing: build first (./bootstrap.sh main)"
done
command -v python3 >/dev/null || die "python3 missing (apt-get install python3)"
[ -n "$out" ] ||
	out=$top/bench/results/silicon-$(uname -n | cut -d. -f1)-$(date +%Y-%m-%d-%H%M)
[ ! -e "$out" ] || die "$out exists: choose another --out"
mkdir -p "$out/xdg-default" "$out/xdg-tuned"
out=$(cd "$out" && pwd)

# what every timed step shares: no tuning file but the one made here, no
# blocking or backend from the caller's environment
unset AMX_GEMM_BLOCKS AMX_FORCE_FALLBACK
export XDG_CACHE_HOME=$out/xdg-default

if [ "$quick" = 1 ]; then
	bench_args=(--quick)
	tune_args=(--quick)
	ab_shapes=64x64x64,100x100x100,1x512x512
	scale_shapes=64x256x256,128x512x512
	decode_scale_args=(--quick --m 1 --reps 2)
else
	bench_args=()
	tune_args=()
	ab_shapes=256x256x256,384x384x384,1000x1000x1000,2048x2048x2048
	ab_shapes+=,1x4096x4096,16x4096x4096,32x11008x4096
	# prefill: a prompt's tokens through a 7B layer's projections
	scale_shapes=128x4096x4096,512x4096x4096,512x11008x4096,2048x2048x2048
	decode_scale_args=(--m 1,8 --shapes 4096x4096,11008x4096)
fi
threads=$(nproc 2>/dev/null || echo 2)
[ "$threads" -le 2 ] || threads=2
steps=9
step=0
t0=$(date +%s)
next() {
	step=$((step + 1))
	log "[$step/$steps] $* ($(($(date +%s) - t0)) s so far)"
}

next "amx-info"
# exit status 1 is "AMX not usable", with the reason in the output
rc=0
"$info" >"$out/amx-info.txt" 2>&1 || rc=$?
"$info" --json >"$out/amx-info.json" 2>/dev/null || true
if [ "$rc" != 0 ] && [ "$any" = 0 ]; then
	sed 's/^/  /' "$out/amx-info.txt" >&2
	die "AMX is not usable here (amx-info above): nothing to time"
fi
[ "$rc" -le 1 ] || die "amx-info failed: $out/amx-info.txt"

next "amx-tune (into $out/xdg-tuned)"
XDG_CACHE_HOME=$out/xdg-tuned "$tune" "${tune_args[@]}" --verbose \
	>"$out/tune.txt" 2>"$out/tune.log" ||
	die "amx-tune failed: $out/tune.log"
tr '\r' '\n' <"$out/tune.log" | grep -v '^$' >"$out/tune.log.txt" || true
mv "$out/tune.log.txt" "$out/tune.log"

next "amx-bench, built-in blocking, 1 and $threads threads"
"$bench" "${bench_args[@]}" --threads "$threads" --csv "$out/default.csv" \
	--png "$out/default.png" >"$out/default.txt" 2>&1 ||
	die "amx-bench failed: $out/default.txt"

next "amx-bench, tuned blocking"
XDG_CACHE_HOME=$out/xdg-tuned "$bench" "${bench_args[@]}" --threads "$threads" \
	--csv "$out/tuned.csv" --png "$out/tuned.png" >"$out/tuned.txt" 2>&1 ||
	die "amx-bench (tuned) failed: $out/tuned.txt"

next "amx-decode: quantized weights, cold, against the read rate"
decode_args=(--m 1,2,4,8,16,64,512)
[ "$quick" = 1 ] && decode_args=(--quick --m 1,8,512)
"$decode" "${decode_args[@]}" \
	--csv "$out/decode.csv" >"$out/decode.txt" 2>&1 ||
	die "amx-decode failed: $out/decode.txt"

# the options against the built-in blocking, each run beside a run of the
# default so that compare.py sees them against the same peer
ab_opts=("default:" "default-again:" "edge-tiles:amx:*:edge=tiles"
	 "cio-block:amx:*:cio=block" "pf2:amx:*:pf=2")
next "the AMX options, one run each on $ab_shapes"
ab_csvs=()
for o in "${ab_opts[@]}"; do
	name=${o%%:*}
	val=${o#*:}
	AMX_GEMM_BLOCKS=$val "$bench" --shapes "$ab_shapes" --threads "$threads" \
		--csv "$out/ab-$name.csv" >"$out/ab-$name.txt" 2>&1 ||
		die "amx-bench ($name) failed: $out/ab-$name.txt"
	ab_csvs+=("$out/ab-$name.csv")
done

next "scaling over threads $scale and nodes"
"$bench" --shapes "$scale_shapes" --threads "$scale" \
	--csv "$out/scaling-bench.csv" >"$out/scaling-bench.txt" 2>&1 ||
	die "amx-bench (scaling) failed: $out/scaling-bench.txt"
"$decode" "${decode_scale_args[@]}" --threads "$scale" \
	--csv "$out/scaling-decode.csv" >"$out/scaling-decode.txt" 2>&1 ||
	die "amx-decode (scaling) failed: $out/scaling-decode.txt"

next "targets"
rc_def=0
rc_tun=0
python3 "$top/bench/targets.py" "$out/default.csv" --verbose \
	>"$out/targets-default.txt" 2>&1 || rc_def=$?
python3 "$top/bench/targets.py" "$out/tuned.csv" --verbose \
	>"$out/targets-tuned.txt" 2>&1 || rc_tun=$?
rc_dec=0
python3 "$top/bench/targets.py" "$out/decode.csv" --verbose \
	>"$out/targets-decode.txt" 2>&1 || rc_dec=$?
if [ "$rc_def" -gt 1 ] || [ "$rc_tun" -gt 1 ] || [ "$rc_dec" -gt 1 ]; then
	die "targets.py could not read the results (see $out/targets-*.txt)"
fi

next "summary"
python3 "$top/bench/compare.py" "${ab_csvs[@]}" >"$out/options.txt" ||
	die "compare.py failed"
python3 "$top/bench/compare.py" "$out/default.csv" "$out/tuned.csv" \
	>"$out/tuned-vs-default.txt" || die "compare.py failed"
{
	echo "# amx-silicon $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n | cut -d. -f1)"
	echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "AMX flags: $(grep -o 'amx_[a-z0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
	echo "quick: $quick, threads: 1 and $threads, scaling: $scale, took $(($(date +%s) - t0)) s"
	echo
	echo "## Targets, built-in blocking (default.csv)"
	cat "$out/targets-default.txt"
	echo
	echo "## Targets, tuned blocking (tuned.csv)"
	cat "$out/targets-tuned.txt"
	echo
	echo "## Targets, quantized weights (decode.csv)"
	cat "$out/targets-decode.txt"
	echo
	echo "## Complex fp16 beside fp16, built-in blocking (default.txt; cf16"
	echo "## GFLOPS count 8 M N K flops, f16 2 M N K)"
	grep -E '^(type +thr +M x N x K \| +libamx +%peak|c?f16 +[0-9]+ +[0-9]+x[0-9]+x[0-9]+ +\|)' \
		"$out/default.txt" || true
	echo
	echo "## Tuner (tune.txt; pairwise choices from tune.log)"
	cat "$out/tune.txt"
	grep -E ' (cio|edge)' "$out/tune.log" || true
	echo
	echo "## AMX options against the built-in blocking (options.txt)"
	cat "$out/options.txt"
	echo
	echo "## Tuned against built-in, every row (tuned-vs-default.txt)"
	tail -n 1 "$out/tuned-vs-default.txt"
	echo
	echo "## Scaling, threads $scale: GEMM (scaling-bench.txt, .csv)"
	sed -n '/^# scaling/,$p' "$out/scaling-bench.txt"
	echo
	echo "## Scaling: decode, bf16 and q4_0 weights, M = 1, against the"
	echo "## read rate of the same cores (scaling-decode.txt, .csv)"
	sed -n '/^# read rate/,/^config/p' "$out/scaling-decode.txt" | sed '$d'
	grep -E '^# (one node|[0-9]+ threads:)' "$out/scaling-decode.txt" || true
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
			   printf "%-6s %3s %5s %-6s %7s %7s %6s %7s\n", "config",
				  "thr", "nodes", "weights", "GB/s", "read",
				  "of bw", "speedup"; next }
		 $c["m"] == 1 && ($1 == "bf16" || $1 == "q4_0") {
			printf "%-6s %3s %5s %-6s %7.1f %7.1f %5.0f%% %6.2fx\n",
			       $c["config"], $c["threads"], $c["nodes"], $1,
			       $c["gbps"], $c["bw_gbps"], 100 * $c["bw_frac"],
			       $c["speedup"] }' "$out/scaling-decode.csv"
} >"$out/summary.txt"
rm -rf "$out/xdg-default"
log "done in $(($(date +%s) - t0)) s: $out/summary.txt"
cat "$out/summary.txt"
