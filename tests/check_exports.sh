#!/bin/sh
# SPDX-License-Identifier: MIT
# Every exported symbol of libamx.so starts with amx_, carries the version
# node, and has a man page: $1 = libamx.so, $2 = man directory; the same
# for the cblas_* names of libamx_cblas.so when given as $3.
set -eu
lib=$1 man=$2 cblas=${3:-}
fail=0
syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "D" || $2 == "B" {print $3}' | sort -u)
n=0
for s in $syms; do
	n=$((n + 1))
	case $s in
	amx_*@@LIBAMX_*) ;;
	*) echo "not ok - exported symbol without amx_ prefix or version node: $s"; fail=1 ;;
	esac
	name=${s%%@*}
	[ -f "$man/man3/$name.3" ] || { echo "not ok - no man page for $name"; fail=1; }
done
[ "$n" -gt 10 ] || { echo "not ok - only $n symbols exported?"; fail=1; }
[ $fail = 0 ] && echo "ok - $n exported symbols, all amx_*, versioned, documented"
if [ -n "$cblas" ]; then
	syms=$(nm -D --defined-only "$cblas" | awk '$2 == "T" || $2 == "D" || $2 == "B" {print $3}' | sort -u)
	n=0
	for s in $syms; do
		n=$((n + 1))
		case $s in
		cblas_*@@LIBAMX_CBLAS_*) ;;
		*) echo "not ok - libamx_cblas exports $s"; fail=1 ;;
		esac
		name=${s%%@*}
		[ -f "$man/man3/$name.3" ] || { echo "not ok - no man page for $name"; fail=1; }
	done
	[ "$n" -eq 14 ] || { echo "not ok - libamx_cblas exports $n symbols, not 14"; fail=1; }
	[ $fail = 0 ] && echo "ok - libamx_cblas: $n cblas_* symbols, versioned, documented"
fi
exit $fail
