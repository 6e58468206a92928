#!/bin/bash
# SPDX-License-Identifier: MIT
# Build the trivial development tests and write a manifest for run-guest.sh.
#   make-manifest.sh OUTDIR   -> prints OUTDIR/manifest.tsv
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-/tmp/libamx-dev-tests}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
gcc -static -O2 -Wall -o "$OUT/trivial" "$HERE/trivial.c"
printf 'dev/pass\t%s\t0\thello world\n' "$OUT/trivial" >"$OUT/manifest.tsv"
printf 'dev/skip\t%s\t4\n' "$OUT/trivial" >>"$OUT/manifest.tsv"
# A manifest which must make run-guest.sh fail: a failure and a hang.
printf 'dev/pass\t%s\t0\n' "$OUT/trivial" >"$OUT/manifest-bad.tsv"
printf 'dev/fail\t%s\t1\n' "$OUT/trivial" >>"$OUT/manifest-bad.tsv"
printf 'dev/hang\t%s\thang\n' "$OUT/trivial" >>"$OUT/manifest-bad.tsv"
echo "$OUT/manifest.tsv"
