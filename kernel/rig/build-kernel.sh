#!/bin/bash
# SPDX-License-Identifier: MIT
# Build the libamx guest kernel: Debian's linux-source-6.12 + kernel/patches,
# tinyconfig + kernel/config/guest.config, plus static selftests.
#
#   build-kernel.sh [--debug]
#
# --debug merges kernel/config/debug.config on top (KASAN, kmemleak,
# lockdep): the kernel of the rig's debug boot (run-guest.sh --debug).
#
# Output directory: $AMX_CACHE/linux-<hash>/ (--debug: linux-debug-<hash>;
# default /var/cache/libamx), keyed by a hash of the linux-source version,
# the series, the patches, the config fragments and this script's build
# steps (from "cache key" on). A warm run only checks the hash.
#
#   bzImage, config, System.map         the kernel
#   selftests/{amx,sas,amx_exec,amx_status,amx_alloc,amx_status_race}
#                                        static selftest binaries
#   linux-source.version                 exact Debian package version
#   build-info.txt                       what went in, timings
#
# The last line on stdout is the output directory. Progress goes to stderr.
#
# Environment (tools/lib.sh): AMX_CACHE, AMX_JOBS (default: the CPUs),
# AMX_LINUX_TARBALL (default /usr/src/linux-source-6.12.tar.xz),
# AMX_KEEP_TREE=0 to delete the source and object trees after a
# successful build.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KDIR=$(dirname "$HERE")
PATCHDIR=$KDIR/patches
FRAGMENTS=("$KDIR/config/guest.config")
FLAVOUR=
AMX_LOG_NAME=build-kernel
# shellcheck source=../../tools/lib.sh
. "$KDIR/../tools/lib.sh"
CACHE=$AMX_CACHE
JOBS=$AMX_JOBS
PKG=linux-source-6.12
TARBALL=${AMX_LINUX_TARBALL:-/usr/src/$PKG.tar.xz}

log() { amx_log "$@"; }
die() { amx_die "$@"; }

case "${1:-}" in
"") ;;
--debug) FRAGMENTS+=("$KDIR/config/debug.config"); FLAVOUR=debug- ;;
*) die "unknown argument: $1 (usage: build-kernel.sh [--debug])" ;;
esac

# --- packages (fresh Debian 12, as root) -------------------------------------
amx_need_pkgs "$PKG" gcc make bc bison flex libelf-dev libssl-dev xz-utils \
	libc6-dev patch perl python3 cpio busybox-static rsync

VERSION=$(dpkg-query -W -f='${Version}' "$PKG")
[ -f "$TARBALL" ] || die "$TARBALL missing"
[ -f "$PATCHDIR/series" ] || die "$PATCHDIR/series missing"
for f in "${FRAGMENTS[@]}"; do
	[ -f "$f" ] || die "$f missing"
done

mapfile -t PATCHES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHDIR/series")

# --- cache key -----------------------------------------------------------------
HASH=$({
	echo "$PKG $VERSION"
	stat -c '%s %Y' "$TARBALL"
	cat "$PATCHDIR/series"
	for p in "${PATCHES[@]}"; do
		[ -f "$PATCHDIR/$p" ] || die "patch $p listed in series is missing"
		sha256sum <"$PATCHDIR/$p"
	done
	echo "$FLAVOUR"
	for f in "${FRAGMENTS[@]}"; do
		sha256sum <"$f"
	done
	# The steps that make the kernel (from the cache key on), not the
	# comments and set-up above them.
	sed -n '/^# --- cache key/,$p' "${BASH_SOURCE[0]}" | sha256sum
} | sha256sum | cut -c1-16)
OUT=$CACHE/linux-$FLAVOUR$HASH

if [ -f "$OUT/.done" ]; then
	log "cached: $OUT ($PKG $VERSION)"
	echo "$PKG $VERSION"
	echo "$OUT"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock-linux-$FLAVOUR$HASH"
flock 9
if [ -f "$OUT/.done" ]; then	# built by a concurrent run while we waited
	echo "$PKG $VERSION"
	echo "$OUT"
	exit 0
fi

T0=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT/build" "$OUT/selftests"
SRC=$OUT/src
mkdir -p "$SRC"
log "unpacking $TARBALL ($PKG $VERSION)"
tar -xf "$TARBALL" -C "$SRC" --strip-components=1

# --- patches -------------------------------------------------------------------
for p in "${PATCHES[@]}"; do
	log "applying $p"
	if ! patch -d "$SRC" -p1 --fuzz=0 -N -s --no-backup-if-mismatch \
		-i "$PATCHDIR/$p" >"$OUT/patch.log" 2>&1; then
		cat "$OUT/patch.log" >&2
		die "patch $p does not apply cleanly (fuzz 0) to $PKG $VERSION"
	fi
	if grep -qi 'fuzz\|reject' "$OUT/patch.log"; then
		cat "$OUT/patch.log" >&2
		die "patch $p applied with fuzz/rejects"
	fi
done

# --- config --------------------------------------------------------------------
cd "$SRC"
log "configuring (tinyconfig + ${FRAGMENTS[*]##*/})"
make -s O="$OUT/build" tinyconfig >&2
scripts/kconfig/merge_config.sh -m -O "$OUT/build" "$OUT/build/.config" "${FRAGMENTS[@]}" >"$OUT/merge_config.log" 2>&1 ||
	{ cat "$OUT/merge_config.log" >&2; die "merge_config.sh failed"; }
make -s O="$OUT/build" olddefconfig >&2
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$OUT/build/.config" || { log "lost config option: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$OUT/build/.config" || { log "option not disabled: $opt"; bad=1; } ;;
	esac
done < <(cat "${FRAGMENTS[@]}")
[ $bad = 0 ] || die "config fragment options did not survive olddefconfig"

# --- kernel --------------------------------------------------------------------
log "building bzImage with -j$JOBS (log: $OUT/kbuild.log)"
T1=$(date +%s)
if ! make O="$OUT/build" -j"$JOBS" bzImage >"$OUT/kbuild.log" 2>&1; then
	tail -40 "$OUT/kbuild.log" >&2
	die "kernel build failed"
fi
T2=$(date +%s)
if grep -E '(^|[^a-z])(warning|error):' "$OUT/kbuild.log" >"$OUT/kbuild-warnings.log"; then
	log "compiler warnings (see $OUT/kbuild-warnings.log):"
	cat "$OUT/kbuild-warnings.log" >&2
fi
cp "$OUT/build/arch/x86/boot/bzImage" "$OUT/bzImage"
cp "$OUT/build/.config" "$OUT/config"
cp "$OUT/build/System.map" "$OUT/System.map"

# --- selftests (static) ---------------------------------------------------------
log "installing uapi headers and building selftests"
make -s O="$OUT/build" headers_install INSTALL_HDR_PATH="$OUT/hdr" >&2
ST=$SRC/tools/testing/selftests
CFLAGS=(-static -O2 -g -std=gnu99 -pthread -Wall -isystem "$OUT/hdr/include")
gcc "${CFLAGS[@]}" -o "$OUT/selftests/amx" "$ST/x86/amx.c" -lrt -ldl
gcc "${CFLAGS[@]}" -o "$OUT/selftests/sas" "$ST/sigaltstack/sas.c"
for t in amx_exec amx_status amx_alloc amx_status_race; do
	[ -f "$ST/x86/$t.c" ] || die "selftest $t.c missing: is the series applied?"
	gcc "${CFLAGS[@]}" -o "$OUT/selftests/$t" "$ST/x86/$t.c" -lrt -ldl
done
T3=$(date +%s)

echo "$PKG $VERSION" >"$OUT/linux-source.version"
{
	echo "linux-source: $PKG $VERSION ($TARBALL)"
	echo "kernel: $(make -s O="$OUT/build" kernelrelease 2>/dev/null)"
	echo "hash: $HASH"
	echo "patches:"
	printf '  %s\n' "${PATCHES[@]}"
	echo "fragments: ${FRAGMENTS[*]}"
	echo "jobs: $JOBS"
	echo "time unpack+patch+config: $((T1 - T0)) s"
	echo "time bzImage: $((T2 - T1)) s"
	echo "time selftests: $((T3 - T2)) s"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$OUT/build-info.txt"
cat "$OUT/build-info.txt" >&2

if [ "${AMX_KEEP_TREE:-1}" = 0 ]; then
	rm -rf "$SRC" "$OUT/build" "$OUT/hdr"
fi
touch "$OUT/.done"
echo "$PKG $VERSION"
echo "$OUT"
