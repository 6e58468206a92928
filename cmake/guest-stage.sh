#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Run libamx's programs in the QEMU guest:
#   guest-stage.sh SRC BUILD VARIANT [NAME...]
# builds the static guest tree BUILD/guest from SRC (AMX_GUEST=ON), keeps
# the manifest entries NAME... (all when none), and boots the guest rig
# (kernel/rig/run-guest.sh) with them (without the kernel selftests when
# NAMEs are given).  VARIANT "strict" boots with strict_sas_size=1 and
# leaves out the tests marked GUEST_DEFAULT_ONLY (cmake/AmxTest.cmake).
# VARIANT "asan" builds BUILD/guest-asan-build instead, with ASan and
# UBSan (AMX_SANITIZE, dynamically linked: the rig copies the libraries
# into the initramfs), and runs the programs that need AMX (NEEDS_AMX)
# without the kernel selftests, which the other boots run.
# VARIANT "numa" boots a two-node guest (run-guest.sh --numa) with the
# programs marked GUEST_NUMA, without the kernel selftests.
# VARIANT "debug" boots the debug kernel (KASAN, kmemleak, lockdep:
# run-guest.sh --debug) with every program of the default boot.
# Results land in BUILD/guest-VARIANT/ (results.tsv, console.log).
#
# Exit status: 0 when the guest ran and reported every program, even if
# some failed (their own CTest entries, guest.VARIANT.NAME, report that);
# non-zero when the boot itself went wrong (no results, a timeout, a
# kernel WARNING/BUG/Oops), as the rig's summary says.
set -euo pipefail

src=$1 build=$2 variant=$3
shift 3
gbuild=$build/guest
out=$build/guest-$variant
# Results of an earlier boot must not stand in for this one's.
rm -rf "$out"

guest_flags=(-DAMX_GUEST=ON -DCMAKE_BUILD_TYPE=Release)
what="static guest"
if [ "$variant" = asan ]; then
	gbuild=$build/guest-asan-build
	guest_flags=(-DAMX_SANITIZE=ON -DAMX_GUEST_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo)
	what="sanitized guest"
fi
blog=$build/guest-build-$variant.log
cmake -S "$src" -B "$gbuild" -G Ninja "${guest_flags[@]}" \
	-DAMX_BUILD_TESTS=ON -DAMX_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$gbuild" -j "$(nproc)" >"$blog" 2>&1 || {
	tail -n 30 "$blog"
	echo "guest-stage: the $what build failed (log: $blog)" >&2
	exit 1
}

manifest=$gbuild/guest-manifest.tsv
rig_args=()
case $variant in
strict) manifest=$gbuild/guest-manifest-strict.tsv ;;
asan) manifest=$gbuild/guest-manifest-amx.tsv; rig_args+=(--no-selftests) ;;
numa) manifest=$gbuild/guest-manifest-numa.tsv; rig_args+=(--numa --no-selftests) ;;
esac
if [ $# -gt 0 ]; then
	rig_args+=(--no-selftests)
	manifest=$build/guest-manifest-$variant.tsv
	: >"$manifest"
	for name in "$@"; do
		grep -P "^\Q$name\E\t" "$gbuild/guest-manifest.tsv" >>"$manifest" || {
			echo "guest-stage: no test '$name' in the manifest" >&2
			exit 1
		}
	done
fi

[ "$variant" = strict ] && rig_args+=(--append strict_sas_size=1)
[ "$variant" = debug ] && rig_args+=(--debug)
set +e
"$src/kernel/rig/run-guest.sh" --manifest "$manifest" --out "$out" "${rig_args[@]}"
rc=$?
set -e
[ $rc = 0 ] && exit 0
if [ -s "$out/results.tsv" ] && [ -f "$out/summary.txt" ] && ! grep -q '^problem:' "$out/summary.txt"; then
	echo "guest-stage: the guest ran; failed programs are reported by their own tests"
	exit 0
fi
grep -h '^problem:' "$out/summary.txt" 2>/dev/null >&2 || true
echo "guest-stage: the guest run failed (see the problems above and $out/)" >&2
exit 1
