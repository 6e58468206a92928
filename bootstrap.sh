#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The two set-up commands of the README, for a fresh Debian 12 as root:
#
#   ./bootstrap.sh main   install what is needed, build, run the tile
#                         matmul example natively and in the QEMU guest
#   ./bootstrap.sh test   install what is needed, build, run every test
#                         (native, sanitizer build, QEMU guest)
#
# Build trees go to build/ (and build-asan/); slow guest artifacts are
# cached in /var/cache/libamx keyed by their inputs.
set -euo pipefail

top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
AMX_LOG_NAME=bootstrap
# shellcheck source=tools/lib.sh
. "$top/tools/lib.sh"
jobs=$AMX_JOBS

say() { printf '\n== %s\n' "$*"; }

# Debian packages each stage needs.
pkgs_build="gcc cmake ninja-build pkg-config libcpuid-dev python3 binutils"
pkgs_bench="libdnnl-dev gnuplot-nox"
pkgs_check="valgrind clang-14 libclang-rt-14-dev abigail-tools"
pkgs_guest="linux-source-6.12 qemu-system-x86 busybox-static cpio gzip rsync bc bison flex
	libelf-dev libssl-dev xz-utils make dpkg-dev meson libglib2.0-dev
	libpixman-1-dev libfdt-dev"

install_packages() {
	amx_need_pkgs "$@"
}

configure_build() {
	local dir=$1
	shift
	cmake -S "$top" -B "$dir" -G Ninja "$@" >/dev/null
	cmake --build "$dir" -j "$jobs"
}

guest_available() {
	[ -x "$top/kernel/rig/run-guest.sh" ]
}

run_main() {
	# shellcheck disable=SC2086
	install_packages $pkgs_build $pkgs_guest
	say "building libamx"
	configure_build build
	say "tile matmul example, natively"
	set +e
	./build/examples/tile_matmul
	rc=$?
	set -e
	case $rc in
	0) ;;
	4) echo "(skipped natively: this machine cannot run AMX, see the reason above)" ;;
	*) echo "bootstrap: tile_matmul FAILED natively (exit $rc)" >&2; exit 1 ;;
	esac
	if guest_available; then
		say "tile matmul example, in the QEMU guest (patched kernel; first run builds kernel and QEMU)"
		"$top/cmake/guest-stage.sh" "$top" "$top/build" main example.tile_matmul
		sed -n 's/^# \(int8\|bf16\|tile_matmul\)/\1/p' build/guest-main/console.log
		# The guest is there to run the example with AMX: a skip is a
		# failure, unless AMX_NO_PATCHED_QEMU=1 asked for a guest without.
		result=$(awk -F '\t' '$1 == "example.tile_matmul"' build/guest-main/results.tsv)
		case $(printf '%s\n' "$result" | cut -f2),${AMX_NO_PATCHED_QEMU:-0} in
		pass,*) ;;
		skip,1) echo "(skipped in the guest: AMX_NO_PATCHED_QEMU=1 boots a QEMU without AMX)" ;;
		*)
			echo "bootstrap: tile_matmul did not run with AMX in the guest: ${result:-no result}" >&2
			exit 1
			;;
		esac
	fi
}

run_test() {
	# shellcheck disable=SC2086
	install_packages $pkgs_build $pkgs_bench $pkgs_check $pkgs_guest
	say "building libamx"
	configure_build build
	# includes label amxrun: the AMX tests again under tools/amx-run, whose
	# emulator the amxrun.qemu test builds (kernel/qemu/build.sh, cached)
	say "native tests, and the AMX ones under amx-run"
	(cd build && ctest --output-on-failure -j "$jobs" -LE "guest|memcheck")
	say "valgrind memcheck: argument checks, portable C path, thread pool"
	(cd build && ctest --output-on-failure -j "$jobs" -L memcheck)
	say "sanitizer build (ASan + UBSan) tests"
	configure_build build-asan -DAMX_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	# sanitized programs run 2-5x slower: their own bound (tests/tap.h,
	# 50 s) becomes 100 s, under ctest's 120 s (gemm_amx: 26 s on a quiet
	# AMX host, over 50 s with the host busy)
	(cd build-asan && AMX_TEST_ALARM=100 ctest --output-on-failure -j "$jobs" -LE "guest|sdk")
	# clang's UBSan checks what gcc's does not (pointer-overflow: NULL + 0);
	# the long GEMM grids and the tile model already ran under gcc's
	# sanitizers above.  So did gemm_amx, whose grids run natively on an
	# AMX host only: 26 s under gcc's sanitizers there, 71 s under
	# clang's, past the 50 s every test program bounds itself to.
	# AMX_FUZZ_SECONDS=3600 ./bootstrap.sh test fuzzes longer.
	say "clang sanitizer build (ASan + UBSan) tests and ${AMX_FUZZ_SECONDS:-40} s of fuzzing"
	configure_build build-clang -DCMAKE_C_COMPILER=clang-14 -DAMX_SANITIZE=ON \
		-DAMX_FUZZ=ON -DAMX_GUEST_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug
	(cd build-clang && ctest --output-on-failure -j "$jobs" -LE "sdk|fuzz" \
		-E '^(gemm_bf16|gemm_int8)\.|^(gemm_amx|gemm_amx_emul|amx-bench-smoke)$')
	(cd build-clang && ctest --output-on-failure -L fuzz)
	say "Debian packages: build, lintian, install into a fresh chroot, use"
	"$top/tools/deb-check.sh"
	if guest_available; then
		say "QEMU guest tests"
		(cd build && ctest --output-on-failure -L guest)
	fi
}

case ${1:-} in
main) run_main ;;
test) run_test ;;
*)
	echo "usage: $0 main|test" >&2
	exit 2
	;;
esac
