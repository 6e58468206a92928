#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the guest tests in both boot variants and merge the results:
#   default            plain kernel command line
#   strict_sas         strict_sas_size=1 (sigaltstack size enforcement)
#
#   guest-all.sh --manifest FILE [--out DIR] [other run-guest.sh options]
#
# Writes DIR/<variant>/{console.log,results.tsv,...} and DIR/results.tsv with
# test names "<variant>/<name>", prints "N passed, N failed, N skipped" and
# exits non-zero if either boot failed.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTDIR=
ARGS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUTDIR=$2; shift 2 ;;
	--append|--manifest|--timeout|--test-timeout) ARGS+=("$1" "$2"); shift 2 ;;
	*) ARGS+=("$1"); shift ;;
	esac
done
[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d /tmp/libamx-guest-all.XXXXXX)
mkdir -p "$OUTDIR"

rc=0
"$HERE/run-guest.sh" "${ARGS[@]}" --out "$OUTDIR/default" || rc=1
"$HERE/run-guest.sh" "${ARGS[@]}" --append strict_sas_size=1 --out "$OUTDIR/strict_sas" || rc=1

: >"$OUTDIR/results.tsv"
for v in default strict_sas; do
	if [ -f "$OUTDIR/$v/results.tsv" ]; then
		sed "s|^|$v/|" "$OUTDIR/$v/results.tsv" >>"$OUTDIR/results.tsv"
	else
		printf '%s/boot\tfail\tno results\n' "$v" >>"$OUTDIR/results.tsv"
		rc=1
	fi
done
pass=$(awk -F'\t' '$2 == "pass"' "$OUTDIR/results.tsv" | wc -l)
fail=$(awk -F'\t' '$2 == "fail"' "$OUTDIR/results.tsv" | wc -l)
skip=$(awk -F'\t' '$2 == "skip"' "$OUTDIR/results.tsv" | wc -l)
[ "$fail" = 0 ] || rc=1
echo "guest-all: results in $OUTDIR/results.tsv" >&2
echo "$pass passed, $fail failed, $skip skipped"
exit $rc
