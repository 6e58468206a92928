#!/bin/bash
# SPDX-License-Identifier: MIT
# Build Debian 12's QEMU with the libamx TCG AMX/XFD/XSAVEC/XSAVES patches:
# the system emulator for the guest rig and the user-mode emulator that
# amx-run(1) runs AMX programs with, from one configure.
#
# Usage (as root): kernel/qemu/build.sh
#
# Idempotent.  Progress goes to stderr; on success the LAST line on stdout is
# the absolute path of the patched qemu-system-x86_64, cached in
#   $AMX_CACHE/qemu-<hash>/qemu-system-x86_64
# with the user-mode emulator beside it:
#   $AMX_CACHE/qemu-<hash>/qemu-x86_64
# where <hash> covers the Debian source version, the configure flags, the
# patch series and the build steps of this script, so a warm run returns in
# seconds.  The deb-src entries "apt-get source" needs are derived from
# every configured apt source (deb-src.sh) when apt has none.  Exits
# non-zero, naming the failing step (or patch), on any error.
#
# Environment (tools/lib.sh): AMX_CACHE (default /var/cache/libamx),
# AMX_JOBS (default: the number of CPUs).
set -euo pipefail

QEMU_SRC_PKG=qemu
QEMU_VERSION='1:7.2+dfsg-7+deb12u18'       # exact Debian source version
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AMX_LOG_NAME=build.sh
# shellcheck source=../../tools/lib.sh
. "$HERE/../../tools/lib.sh"
CACHE=$AMX_CACHE
JOBS=$AMX_JOBS
PATCHDIR=$HERE/patches
BUILD_DEPS="dpkg-dev gcc make patch xz-utils python3 meson ninja-build
            pkg-config libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev"
CONFIGURE_FLAGS=(--target-list=x86_64-softmmu,x86_64-linux-user
                 --disable-docs --disable-werror --without-default-features
                 --enable-tcg --enable-fdt=system --disable-install-blobs)

exec 3>&1 1>&2          # stdout is reserved for the final path
say() { amx_log "$@"; }
die() { amx_die "$@"; }

# ---- cache key -------------------------------------------------------------
[ -f "$PATCHDIR/series" ] || die "missing $PATCHDIR/series"
key=$( {
    echo "$QEMU_VERSION"
    printf '%s\n' "${CONFIGURE_FLAGS[@]}"
    cat "$PATCHDIR/series"
    while read -r p; do
        case "$p" in ''|'#'*) continue;; esac
        cat "$PATCHDIR/$p" || exit 1
    done < "$PATCHDIR/series"
    # The steps that make the binary (from "# ---- source" on), not the
    # apt set-up before them: fixing that must not force a rebuild.
    sed -n '/^# ---- source/,$p' "${BASH_SOURCE[0]}"
} | sha256sum | cut -c1-16) || die "cannot read the patch series"
OUT=$CACHE/qemu-$key
BIN=$OUT/qemu-system-x86_64
UBIN=$OUT/qemu-x86_64
built() {
    [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1 &&
        [ -x "$UBIN" ] && "$UBIN" --version >/dev/null 2>&1
}

if built; then
    say "cached: $BIN"
    echo "$BIN" >&3
    exit 0
fi

[ "$(id -u)" = 0 ] || die "a cold build needs root (apt-get); no cached binary at $BIN"
mkdir -p "$CACHE"
exec 9>"$CACHE/.qemu-build.lock"
flock 9
# Another build.sh may have finished while we waited for the lock.
if built; then
    echo "$BIN" >&3
    exit 0
fi

start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive

apt_get() {
    # Retry while another dpkg/apt holds the lock.
    local i
    for i in $(seq 1 30); do
        if apt-get -o DPkg::Lock::Timeout=60 "$@"; then
            return 0
        fi
        say "apt-get $* failed (attempt $i), retrying in 10s"
        sleep 10
    done
    return 1
}

# ---- build dependencies ----------------------------------------------------
# shellcheck disable=SC2086
amx_need_pkgs $BUILD_DEPS

# ---- deb-src for the same mirrors/suites as the binary sources --------------
# From every source apt reads, whatever the file is called (deb-src.sh).
SRCPARTS=$(apt-config shell D Dir::Etc::sourceparts/d | sed -n "s/^D='\(.*\)'$/\1/p")
SRCLIST=${SRCPARTS:-/etc/apt/sources.list.d/}
SRCLIST=${SRCLIST%/}/libamx-deb-src.sources
has_version() {
    apt-cache showsrc "$QEMU_SRC_PKG" 2>/dev/null | grep -qxF "Version: $QEMU_VERSION"
}
add_deb_src() {
    local tmp
    tmp=$(mktemp)
    "$HERE/deb-src.sh" >"$tmp" || { rm -f "$tmp"; die "cannot derive deb-src entries from the apt sources (above)"; }
    say "adding deb-src entries for every apt source ($SRCLIST)"
    install -m 0644 "$tmp" "$SRCLIST"
    rm -f "$tmp"
}
if ! has_version; then
    added=0
    if ! "$HERE/deb-src.sh" --have; then
        add_deb_src
        added=1
    fi
    apt_get update >&2 || die "apt-get update failed"
    # Some deb-src existed, but none offers it: derive ours after all.
    if ! has_version && [ $added = 0 ]; then
        add_deb_src
        apt_get update >&2 || die "apt-get update failed"
    fi
fi

# ---- source ----------------------------------------------------------------
DL=$CACHE/dl
mkdir -p "$DL"
upstream=${QEMU_VERSION#*:}
dsc=$DL/${QEMU_SRC_PKG}_${upstream}.dsc
if [ ! -f "$dsc" ]; then
    say "downloading source $QEMU_SRC_PKG=$QEMU_VERSION"
    (cd "$DL" && apt_get source --download-only "$QEMU_SRC_PKG=$QEMU_VERSION" >&2) ||
        die "the Debian mirror does not carry $QEMU_SRC_PKG=$QEMU_VERSION (any more): set QEMU_VERSION in $0 to the version it has and refresh the series against it"
fi
[ -f "$dsc" ] || die "source package $dsc not found after download"

SRC=$CACHE/qemu-src-$key
if [ ! -f "$SRC/.libamx-patched" ]; then
    rm -rf "$SRC"
    say "extracting $dsc"
    dpkg-source -x "$dsc" "$SRC" >&2 || die "dpkg-source -x failed"
    while read -r p; do
        case "$p" in ''|'#'*) continue;; esac
        say "applying $p"
        if ! out=$(cd "$SRC" && patch -p1 --fuzz=0 -N --no-backup-if-mismatch \
                   < "$PATCHDIR/$p" 2>&1); then
            echo "$out"
            die "patch $p does not apply cleanly (reject or fuzz)"
        fi
        if echo "$out" | grep -qiE 'fuzz|reject|offset'; then
            echo "$out"
            die "patch $p applied with offset/fuzz; refresh it"
        fi
    done < "$PATCHDIR/series"
    touch "$SRC/.libamx-patched"
fi

# ---- configure and build ---------------------------------------------------
B=$SRC/build-libamx
if [ ! -f "$B/build.ninja" ]; then
    rm -rf "$B"
    mkdir -p "$B"
    say "configuring"
    (cd "$B" && ../configure "${CONFIGURE_FLAGS[@]}") >&2 || die "configure failed"
fi
say "building with ninja -j$JOBS (takes a while)"
ninja -C "$B" -j"$JOBS" qemu-system-x86_64 qemu-x86_64 >&2 || die "ninja failed"

mkdir -p "$OUT"
for b in qemu-x86_64 qemu-system-x86_64; do
    cp "$B/$b" "$OUT/.$b.tmp"
    mv -f "$OUT/.$b.tmp" "$OUT/$b"
    "$OUT/$b" --version >/dev/null || die "built binary $b does not run"
done
cat > "$OUT/BUILDINFO" <<EOF
source: $QEMU_SRC_PKG $QEMU_VERSION
patches: $(grep -v '^#' "$PATCHDIR/series" | tr '\n' ' ')
configure: ${CONFIGURE_FLAGS[*]}
built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start ))s
EOF
say "done in $(( $(date +%s) - start ))s: $BIN"
echo "$BIN" >&3
