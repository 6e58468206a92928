#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the SDK from build tree $2 into a scratch prefix, then build and
# run a consumer with $1 = cmake (find_package) or pkgconfig (pkg-config).
set -eu
how=$1 build=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$build/consumer-$how
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(find "$prefix" -name 'libamx.so.0' -printf '%h\n' | head -n1)

case $how in
cmake)
	cmake -S "$here/cmake" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log"
	cmake --build "$work/build" >"$work/build.log"
	LD_LIBRARY_PATH=$libdir "$work/build/consumer"
	"$work/build/consumer_static"
	;;
pkgconfig)
	export PKG_CONFIG_PATH=$libdir/pkgconfig
	flags=$(pkg-config --cflags --libs amx)
	echo "pkg-config --cflags --libs amx: $flags"
	case " $flags " in *" -lamx "*) ;; *) echo "no -lamx in pkg-config output"; exit 1 ;; esac
	# shellcheck disable=SC2086
	cc -o "$work/consumer" "$here/main.c" $flags
	LD_LIBRARY_PATH=$libdir "$work/consumer"
	;;
*)
	echo "usage: run.sh cmake|pkgconfig BUILD_DIR" >&2
	exit 2
	;;
esac
echo "ok - consumer via $how"
