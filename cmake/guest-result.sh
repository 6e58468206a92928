#!/bin/sh
# SPDX-License-Identifier: MIT
# One guest test's outcome as a CTest exit code: guest-result.sh
# RESULTS.TSV NAME -> 0 pass, 4 skip, 1 fail or missing.
set -eu
line=$(awk -F '\t' -v n="$2" '$1 == n { print; exit }' "$1" 2>/dev/null || true)
if [ -z "$line" ]; then
	echo "no result for '$2' in $1"
	# Why the boot gave none (e.g. the patched QEMU did not build).
	grep -h -A 20 '^problem:' "$(dirname "$1")/summary.txt" 2>/dev/null || true
	exit 1
fi
echo "$line"
case $(printf '%s\n' "$line" | cut -f2) in
pass) exit 0 ;;
skip) exit 4 ;;
*) exit 1 ;;
esac
