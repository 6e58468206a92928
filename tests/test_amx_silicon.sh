#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/amx-silicon.sh, the one-command AMX timing run, end to end (TAP):
# bad arguments are refused before anything is written; without AMX it
# skips unless --any-cpu; with --quick --any-cpu it runs every step on
# whatever backend this machine has, writes the summary, the CSVs of the
# built-in, tuned and option runs (cf16 rows among them) and the
# comparisons, and leaves the caller's tuning file alone.
#
#   test_amx_silicon.sh SCRIPT BUILD_DIR
set -u
script=$1
build=$2
n=0
fail=0
tmp=$(mktemp -d /tmp/amx-silicon-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/user-cache"
mkdir -p "$XDG_CACHE_HOME"

t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

sh_ok() { "$@" >/dev/null 2>&1; echo $?; }

rc=$(sh_ok "$script" --bogus)
t "$([ "$rc" = 2 ] && echo 0)" "unknown argument: exit 2 (got $rc)"
mkdir "$tmp/exists"
rc=$(sh_ok "$script" --any-cpu --quick --build "$build" --out "$tmp/exists")
t "$([ "$rc" = 1 ] && [ -z "$(ls -A "$tmp/exists")" ] && echo 0)" \
	"an existing --out: exit 1, nothing written (got $rc)"
rc=$(sh_ok "$script" --any-cpu --quick --build "$tmp/nobuild" --out "$tmp/o0")
t "$([ "$rc" = 1 ] && [ ! -e "$tmp/o0" ] && echo 0)" \
	"a build without the tools: exit 1, no output (got $rc)"
if ! grep -q '\bamx_tile\b' /proc/cpuinfo; then
	rc=$(sh_ok "$script" --quick --build "$build" --out "$tmp/o1")
	t "$([ "$rc" = 4 ] && [ ! -e "$tmp/o1" ] && echo 0)" \
		"no AMX, no --any-cpu: exit 4 (skip), no output (got $rc)"
fi

out=$tmp/run
AMX_SILICON_THREADS=1,all "$script" --any-cpu --quick --build "$build" --out "$out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
t "$([ "$rc" = 0 ] && echo 0)" "--quick --any-cpu run: exit 0 (got $rc)"
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/stderr"
grep -q '\[9/9\] summary' "$tmp/stderr"
t $? "progress on stderr up to the last step"
ok=0
for f in summary.txt amx-info.txt tune.txt tune.log default.csv tuned.csv \
	ab-default.csv ab-default-again.csv ab-edge-tiles.csv ab-cio-block.csv ab-pf2.csv \
	options.txt targets-default.txt targets-tuned.txt decode.csv \
	targets-decode.txt scaling-bench.txt scaling-bench.csv \
	scaling-decode.txt scaling-decode.csv; do
	[ -s "$out/$f" ] || { echo "# missing or empty: $f"; ok=1; }
done
t $ok "every result file is there"
ok=0
for s in '## Targets, built-in blocking' '## Targets, tuned blocking' \
	'avx512-ratio\|amx-ratio' '## AMX options' 'ab-cio-block.csv: geometric mean' \
	'ab-default-again.csv: geometric mean' '## Scaling, threads 1,all' \
	'^# scaling: libamx' '^node[0-9]*  *1 .* bf16 ' '## Complex fp16' \
	'^cf16  *[0-9][0-9]*  *[0-9]*x[0-9]*x[0-9]* |' '^cf16  *--  ' \
	'^cf16  *[0-9]*x[0-9]*x[0-9]*  *1 '; do
	grep -q -- "$s" "$out/summary.txt" || { echo "# summary lacks: $s"; ok=1; }
done
t $ok "the summary has the targets, tuner, option comparison and scaling"
ok=0
for f in default.csv tuned.csv scaling-bench.csv; do
	grep -q '^cf16,' "$out/$f" || { echo "# no cf16 rows: $f"; ok=1; }
done
t $ok "the cf16 rows are timed in the default, tuned and scaling runs"
rc=$(sh_ok "$script" --any-cpu --quick --build "$build" --threads 1,two \
	--out "$tmp/o2")
t "$([ "$rc" = 2 ] && [ ! -e "$tmp/o2" ] && echo 0)" \
	"a bad --threads list: exit 2, no output (got $rc)"
cmp -s "$out/summary.txt" "$tmp/stdout"
t $? "the summary is also the standard output"
[ -f "$out/xdg-tuned/libamx/gemm-blocking" ] && [ -z "$(ls -A "$XDG_CACHE_HOME")" ]
t $? "the tuning file went under the output, the user's cache untouched"
[ "$(tr -cd '\r' <"$out/tune.log" | wc -c)" = 0 ]
t $? "tune.log is plain lines (no carriage returns)"

echo "1..$n"
exit $fail
