#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the SDK from build tree $2 into a scratch prefix, then build and
# run a consumer with $1 = cmake (find_package) or pkgconfig (pkg-config).
# $3 = ON when the tree built libamx_cblas (AMX_BUILD_CBLAS): then the
# install must hold it and its consumers run; OFF: it must not be there.
set -eu
[ $# -eq 3 ] || { echo "usage: run.sh cmake|pkgconfig BUILD_DIR ON|OFF" >&2; exit 2; }
how=$1 build=$2 cblas=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$build/consumer-$how
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
# The SONAME's number is the major version the installed header states.
major=$(sed -n 's/^#define AMX_VERSION_MAJOR \([0-9]*\)$/\1/p' "$prefix/include/amx.h")
[ -n "$major" ] || { echo "FAIL: no AMX_VERSION_MAJOR in the installed amx.h"; exit 1; }
libdir=$(find "$prefix" -name "libamx.so.$major" -printf '%h\n' | head -n1)
[ -n "$libdir" ] || { echo "FAIL: no libamx.so.$major under $prefix after install"; exit 1; }
case $cblas in
ON)
	[ -e "$libdir/libamx_cblas.so.$major" ] || {
		echo "FAIL: libamx_cblas was built but the install has no $libdir/libamx_cblas.so.$major"
		exit 1
	} ;;
OFF)
	[ ! -e "$libdir/libamx_cblas.so.$major" ] || {
		echo "FAIL: AMX_BUILD_CBLAS is OFF but libamx_cblas.so.$major was installed"
		exit 1
	} ;;
*) echo "run.sh: the third argument must be ON or OFF, not '$cblas'" >&2; exit 2 ;;
esac

# the installed tools run from the prefix as they are (their RPATH), with
# no LD_LIBRARY_PATH or ldconfig step: 0 or 1 (AMX usable or not), never
# the loader's 127
for tool in amx-info amx-tune amx-bench amx-run; do
	[ -x "$prefix/bin/$tool" ] || continue
	rc=0
	out=$(env -u LD_LIBRARY_PATH "$prefix/bin/$tool" --help 2>&1) || rc=$?
	if [ $rc -gt 1 ]; then
		echo "FAIL: installed $tool does not run from the prefix (exit $rc): $out"
		exit 1
	fi
done

case $how in
cmake)
	cmake -S "$here/cmake" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
		-DAMX_CONSUMER_CBLAS=$cblas >"$work/configure.log"
	cmake --build "$work/build" >"$work/build.log"
	LD_LIBRARY_PATH=$libdir "$work/build/consumer"
	"$work/build/consumer_static"
	# the installed amx-run as CMAKE_CROSSCOMPILING_EMULATOR: the
	# consumer's ctest gets AMX on any machine (where an emulator exists)
	if "$prefix/bin/amx-run" --print-qemu >/dev/null 2>&1; then
		cmake -S "$here/cmake" -B "$work/build-emu" -DCMAKE_PREFIX_PATH="$prefix" \
			-DAMX_CONSUMER_CBLAS=$cblas \
			-DCMAKE_CROSSCOMPILING_EMULATOR="$prefix/bin/amx-run" >"$work/configure-emu.log"
		cmake --build "$work/build-emu" >"$work/build-emu.log"
		(cd "$work/build-emu" && ctest --output-on-failure -V) | grep -q 'amx-run' || {
			echo "FAIL: ctest did not run the consumer through amx-run"
			exit 1
		}
		(cd "$work/build-emu" && ctest --output-on-failure)
	else
		echo "no qemu-x86_64 for amx-run here: its CMAKE_CROSSCOMPILING_EMULATOR check not run"
	fi
	if [ $cblas = ON ]; then
		LD_LIBRARY_PATH=$libdir "$work/build/consumer_cblas"
		"$work/build/consumer_cblas_static"
	fi
	;;
pkgconfig)
	export PKG_CONFIG_PATH=$libdir/pkgconfig
	flags=$(pkg-config --cflags --libs amx)
	echo "pkg-config --cflags --libs amx: $flags"
	case " $flags " in *" -lamx "*) ;; *) echo "no -lamx in pkg-config output"; exit 1 ;; esac
	# shellcheck disable=SC2086
	cc -o "$work/consumer" "$here/main.c" $flags
	LD_LIBRARY_PATH=$libdir "$work/consumer"
	if [ $cblas = ON ]; then
		flags=$(pkg-config --cflags --libs amx_cblas)
		echo "pkg-config --cflags --libs amx_cblas: $flags"
		case " $flags " in *" -lamx_cblas "*) ;; *) echo "no -lamx_cblas in pkg-config output"; exit 1 ;; esac
		case " $(pkg-config --static --libs amx_cblas) " in
		*" -lamx "*) ;;
		*) echo "pkg-config --static amx_cblas does not pull in -lamx"; exit 1 ;;
		esac
		# shellcheck disable=SC2086
		cc -o "$work/consumer_cblas" "$here/cblas.c" $flags
		LD_LIBRARY_PATH=$libdir "$work/consumer_cblas"
	fi
	;;
*)
	echo "usage: run.sh cmake|pkgconfig BUILD_DIR" >&2
	exit 2
	;;
esac
echo "ok - consumer via $how"
