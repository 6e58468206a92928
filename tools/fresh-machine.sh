#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Release check: run the README's two set-up commands as a new user would,
# on a fresh, minimal Debian 12 (an mmdebstrap minbase chroot holding only
# git and ca-certificates), from a clone of this repository's HEAD, with
# nothing cached.  Prints how long each command took.
#
#   tools/fresh-machine.sh [--dir DIR] [--keep] [main|test]...
#
# With no command names, runs "main" and then "test" in the same chroot
# (the second one reuses what the first installed and built, as a user's
# second command would).  As root, on a Debian 12 host with network access
# to the Debian mirror.  Logs: DIR/fresh-<command>.log.  Exit status: 0
# when every command passed, 1 otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=
keep=0
cmds=()

log() { echo "fresh-machine: $*" >&2; }
die() { echo "fresh-machine: ERROR: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	main|test) cmds+=("$1"); shift ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ ${#cmds[@]} -gt 0 ] || cmds=(main test)
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, mounts)"
git -C "$top" diff --quiet HEAD 2>/dev/null ||
	log "note: uncommitted changes are not part of the check (it clones HEAD)"

if ! command -v mmdebstrap >/dev/null; then
	log "installing mmdebstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		mmdebstrap >&2
fi

dir=${dir:-$(mktemp -d /var/tmp/libamx-fresh.XXXXXX)}
root=$dir/root
mkdir -p "$dir"
[ ! -e "$root" ] || die "$root exists: pass a new --dir"

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--))
		do umount -l "${mounted[i]}" 2>/dev/null || true; done
	if [ "$keep" = 0 ]; then
		rm -rf "$root"
	else
		log "kept the chroot in $root"
	fi
}
trap cleanup EXIT

# The host's Debian suites (bookworm, -updates, -security): the kernel
# source package lives in bookworm-security.
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
t0=$(date +%s)
log "creating a minbase bookworm chroot in $root"
mmdebstrap --variant=minbase --include=git,ca-certificates bookworm "$root" \
	"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main" >"$dir/mmdebstrap.log" 2>&1 ||
	die "mmdebstrap failed, see $dir/mmdebstrap.log"
log "chroot ready in $(($(date +%s) - t0)) s"

mnt() {
	mount "$@"
	mounted+=("${*: -1}")
}
mnt -t proc proc "$root/proc"
mnt -t sysfs sys "$root/sys"
mnt --bind /dev "$root/dev"
mnt -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666
mnt -t tmpfs tmpfs "$root/dev/shm"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

git clone -q --no-local "$top" "$root/root/libamx"
log "cloned $(git -C "$root/root/libamx" rev-parse --short HEAD)"

in_chroot() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/libamx && $1"
}

status=0
for c in "${cmds[@]}"; do
	log "./bootstrap.sh $c (log: $dir/fresh-$c.log)"
	t=$(date +%s)
	if in_chroot "./bootstrap.sh $c" >"$dir/fresh-$c.log" 2>&1; then
		res=passed
	else
		res=FAILED
		status=1
		tail -n 30 "$dir/fresh-$c.log" >&2
	fi
	secs=$(($(date +%s) - t))
	printf 'fresh-machine: ./bootstrap.sh %s %s in %d min %d s\n' \
		"$c" "$res" $((secs / 60)) $((secs % 60))
done
exit $status
