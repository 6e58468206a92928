#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The ABI of a built library against the baseline committed beside this
# script (abidw's XML of the public types, functions and symbols):
#
#   abi-check.sh LIB BASELINE HEADERS           compare (a ctest, label sdk)
#   abi-check.sh --update LIB BASELINE HEADERS  record LIB as the baseline
#
# HEADERS is the include/ directory of the source tree.
#
# Passes when LIB has the baseline's ABI, symbols added (listed) allowed.
# Fails on anything else (a symbol removed, a public type or function
# changed) unless LIB's SONAME differs from the baseline's: a new ABI, then
# the baseline is out of date, which the output says.  Skips (exit 4)
# without abidiff (Debian: abigail-tools) or without debug information in
# LIB (a build type without -g), since the types are read from it.
set -u

update=0
if [ "${1:-}" = --update ]; then
	update=1
	shift
fi
[ $# -eq 3 ] || { echo "usage: $0 [--update] LIB BASELINE HEADERS" >&2; exit 2; }
lib=$1 base=$2 hdr=$3

for t in abidw abidiff readelf; do
	command -v $t >/dev/null 2>&1 || {
		echo "1..0 # SKIP no $t (apt-get install abigail-tools binutils)"
		exit 4
	}
done
[ -f "$lib" ] || { echo "not ok - no library $lib"; exit 1; }
readelf -S "$lib" | grep -q '\.debug_info' || {
	echo "1..0 # SKIP $lib has no debug information (configure with RelWithDebInfo or Debug)"
	exit 4
}

if [ $update = 1 ]; then
	tmp=$base.tmp.$$
	# Without the paths of this checkout (the source files' names stay).
	top=$(cd "$hdr/.." && pwd)
	abidw --no-corpus-path --no-comp-dir-path --no-show-locs \
		--drop-private-types --headers-dir "$hdr" "$lib" |
		sed "s|path='$top/|path='|" >"$tmp" &&
		[ -s "$tmp" ] && mv "$tmp" "$base" ||
		{ rm -f "$tmp"; echo "abidw failed" >&2; exit 1; }
	echo "recorded the ABI of $lib in $base"
	exit 0
fi
[ -f "$base" ] || { echo "not ok - no baseline $base (record one with --update)"; exit 1; }

echo "1..1"
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
base_soname=$(sed -n "s/.*<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$base" | head -n1)
report=$(abidiff --no-added-syms "$base" "$lib" 2>&1)
rc=$?
added=$(abidiff "$base" "$lib" 2>/dev/null |
	sed -n "s/^  \[A\] '\(.*\)'.*/\1/p")
[ -z "$added" ] || printf '%s\n' "$added" | sed 's/^/# added: /'

if [ $rc -eq 0 ]; then
	echo "ok 1 - $soname has the ABI of the baseline ($base_soname)"
	exit 0
fi
# abidiff's status is a bit field: 1 error, 2 usage, 4 change,
# 8 incompatible change.
if [ $((rc & 3)) -ne 0 ]; then
	printf '%s\n' "$report" | sed 's/^/# /'
	echo "not ok 1 - abidiff failed (status $rc)"
	exit 1
fi
if [ "$soname" != "$base_soname" ]; then
	printf '%s\n' "$report" | sed 's/^/# /' | head -n 40
	echo "ok 1 - a new ABI: SONAME $base_soname -> $soname; the baseline is out of date: $0 --update $lib $base $hdr"
	exit 0
fi
printf '%s\n' "$report" | sed 's/^/# /'
echo "not ok 1 - the ABI of $soname changed without a new SONAME (see above): keep the old ABI, or raise AMX_VERSION_MAJOR and record the new baseline with --update"
exit 1
