#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The Debian packages as a user gets them: build the .debs from this tree
# (dpkg-buildpackage -us -uc -b, which runs the native tests), check them
# with lintian (no error, no warning), install them into a fresh minimal
# Debian 12 chroot (mmdebstrap minbase) and build and run the consumer
# programs of tests/consumer there against the installed packages, through
# CMake's find_package(amx 1.0) and through pkg-config, shared and static,
# and run the installed tools.
#
#   tools/deb-check.sh [--dir DIR] [--keep]
#
#   --dir DIR  work directory (default: a new one under /var/tmp); the
#              .debs, build log and lintian report stay there
#   --keep     keep the chroot (DIR/root) afterwards
#
# As root on Debian 12 with network access to the Debian mirror (the
# chroot's packages); about 4 minutes on two cores.  The tree is taken
# as it is (tracked and untracked files that git does not ignore), so
# uncommitted changes are checked too.  Exit status: 0 all passed, 1 a
# step failed (named on stderr, its log kept).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
AMX_LOG_NAME=deb-check
# shellcheck source=lib.sh
. "$top/tools/lib.sh"
dir=
keep=0
log() { amx_log "$@"; }
die() { amx_die "$@"; }
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "needs root (build dependencies, mmdebstrap, chroot)"

# What dpkg-buildpackage needs, from debian/control, and the checkers.
bdeps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control" |
	sed -e 's/^Build-Depends://' -e '/^[A-Z]/d' | tr ',' '\n' |
	sed -e 's/(.*)//' -e 's/[[:space:]]//g' -e '/^$/d' -e 's/debhelper-compat/debhelper/')
# shellcheck disable=SC2086
amx_need_pkgs build-essential dpkg-dev fakeroot lintian mmdebstrap $bdeps

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
dir=${dir:-$(mktemp -d /var/tmp/libamx-deb.XXXXXX)}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$dir/libamx-$version
root=$dir/root
[ ! -e "$src" ] && [ ! -e "$root" ] || die "$dir holds an earlier run: pass a new --dir"

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null || true
	done
	if [ "$keep" = 0 ]; then
		rm -rf "$root"
	else
		log "kept the chroot in $root"
	fi
}
trap cleanup EXIT

# --- build ---------------------------------------------------------------
t0=$(date +%s)
mkdir -p "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src"
log "building the packages of libamx $version (log: $dir/build.log)"
(cd "$src" && dpkg-buildpackage -us -uc -b -j"$AMX_JOBS") >"$dir/build.log" 2>&1 || {
	tail -n 30 "$dir/build.log" >&2
	die "dpkg-buildpackage failed (log: $dir/build.log)"
}
debs=()
for p in $(sed -n 's/^Package: //p' "$top/debian/control"); do
	f=$dir/${p}_${version}_amd64.deb
	[ -f "$f" ] || die "dpkg-buildpackage made no $f"
	debs+=("$f")
done
log "built ${#debs[@]} packages in $(($(date +%s) - t0)) s"

# --- lintian --------------------------------------------------------------
changes=$dir/libamx_${version}_amd64.changes
if ! lintian --fail-on error,warning --display-info "$changes" >"$dir/lintian.txt" 2>&1; then
	cat "$dir/lintian.txt" >&2
	die "lintian reports errors or warnings ($dir/lintian.txt)"
fi
grep -v 'running with root privileges' "$dir/lintian.txt" | sed 's/^/lintian: /' >&2 || true
log "lintian: no error, no warning"

# --- a fresh chroot with the packages installed ------------------------------
t1=$(date +%s)
log "creating a minbase bookworm chroot with the packages installed (log: $dir/mmdebstrap.log)"
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
mmdebstrap --variant=minbase --include=gcc,libc6-dev,make,cmake,pkg-config \
	--customize-hook="mkdir -p \"\$1/tmp/debs\"" \
	--customize-hook="copy-in ${debs[*]} /tmp/debs" \
	--customize-hook='chroot "$1" sh -c "apt-get install -y -q --no-install-recommends /tmp/debs/*.deb"' \
	bookworm "$root" "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main" >"$dir/mmdebstrap.log" 2>&1 || {
	tail -n 30 "$dir/mmdebstrap.log" >&2
	die "mmdebstrap (or installing the packages in it) failed ($dir/mmdebstrap.log)"
}
log "chroot ready in $(($(date +%s) - t1)) s"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mkdir -p "$root/root/consumer"
cp -r "$top/tests/consumer/." "$root/root/consumer/"

in_chroot() {
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -ec "cd /root/consumer && $1"
}

# --- the consumers and the tools against the installed packages -------------
fail=0
check() {	# name command
	local name=$1 out rc=0
	out=$(in_chroot "$2" 2>&1) || rc=$?
	printf '%s\n' "$out" >"$dir/$name.log"
	if [ $rc = 0 ]; then
		echo "ok - $name"
	else
		echo "not ok - $name (exit $rc, log $dir/$name.log)"
		tail -n 15 "$dir/$name.log" | sed 's/^/#   /'
		fail=1
	fi
}
check files 'for f in /usr/include/amx.h /usr/include/amx_cblas.h \
	/usr/lib/x86_64-linux-gnu/libamx.so.1 /usr/lib/x86_64-linux-gnu/libamx_cblas.so.1 \
	/usr/lib/x86_64-linux-gnu/libamx.a /usr/lib/x86_64-linux-gnu/cmake/amx/amxConfig.cmake \
	/usr/share/man/man3/amx_gemm_bf16.3.gz /usr/share/man/man1/amx-info.1.gz; do
	[ -e "$f" ] || { echo "missing: $f"; exit 1; }; done'
check cmake-consumer 'cmake -S cmake -B /root/build-cmake -DAMX_CONSUMER_CBLAS=ON &&
	cmake --build /root/build-cmake && /root/build-cmake/consumer &&
	/root/build-cmake/consumer_static && /root/build-cmake/consumer_cblas &&
	/root/build-cmake/consumer_cblas_static'
check pkgconfig-consumer 'cc -o /root/pc main.c $(pkg-config --cflags --libs amx) && /root/pc &&
	cc -o /root/pc_cblas cblas.c $(pkg-config --cflags --libs amx_cblas) && /root/pc_cblas &&
	cc -static -o /root/pc_static main.c $(pkg-config --static --cflags --libs amx) &&
	/root/pc_static'
# amx-info exits 1 where AMX cannot be used (this host may have none)
check tools 'rc=0; amx-info >/dev/null || rc=$?; [ $rc -le 1 ] &&
	amx-tune --help >/dev/null && amx-bench --help >/dev/null'
[ $fail = 0 ] || die "the installed packages failed a check (logs in $dir)"
log "all checks passed; total $(($(date +%s) - t0)) s"
