#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Release check: run the README's two set-up commands as a new user would,
# on a fresh, minimal Debian 12 (an mmdebstrap minbase chroot holding only
# git and ca-certificates), from a clone of this repository's HEAD, with
# nothing cached.  Prints how long each command took.
#
#   tools/fresh-machine.sh [--dir DIR] [--keep] [--sources list|deb822|both] [main|test]...
#
# With no command names, runs "main" and then "test" in the same chroot
# (the second one reuses what the first installed and built, as a user's
# second command would).  --sources picks how the chroot's apt sources
# are laid out, one new chroot each (default: both, one after the other):
#   list    /etc/apt/sources.list, one-line entries
#   deb822  /etc/apt/sources.list.d/0000debian.sources only (what
#           mmdebstrap writes when given a .sources file; issue 25 item 13)
# As root, on a Debian 12 host with network access to the Debian mirror.
# Logs: DIR/<layout>/fresh-<command>.log.  Exit status: 0 when every
# command passed, 1 otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=
keep=0
layouts=(list deb822)
cmds=()

log() { echo "fresh-machine: $*" >&2; }
die() { echo "fresh-machine: ERROR: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--sources)
		case ${2:-} in
		list|deb822) layouts=("$2") ;;
		both) layouts=(list deb822) ;;
		*) die "--sources takes list, deb822 or both" ;;
		esac
		shift 2
		;;
	main|test) cmds+=("$1"); shift ;;
	-h|--help) sed -n '3,21p' "$0"; exit 0 ;;
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
mkdir -p "$dir"
for layout in "${layouts[@]}"; do
	[ ! -e "$dir/$layout/root" ] || die "$dir/$layout/root exists: pass a new --dir"
done

root=
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--))
		do umount -l "${mounted[i]}" 2>/dev/null || true; done
	mounted=()
	[ -n "$root" ] || return 0
	if [ "$keep" = 0 ]; then
		rm -rf "$root"
	else
		log "kept the chroot in $root"
	fi
	root=
}
trap cleanup EXIT

mnt() {
	mount "$@"
	mounted+=("${*: -1}")
}

in_chroot() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/libamx && $1"
}

# The host's Debian suites (bookworm, -updates, -security): the kernel
# source package lives in bookworm-security.
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
status=0
for layout in "${layouts[@]}"; do
	ldir=$dir/$layout
	mkdir -p "$ldir"
	case $layout in
	list)	# mmdebstrap writes one-line mirrors to /etc/apt/sources.list
		sources=("deb $mirror bookworm main" "deb $mirror bookworm-updates main"
			"deb $security bookworm-security main") ;;
	deb822)	# and a .sources file to sources.list.d/0000debian.sources
		cat >"$ldir/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
		sources=("$ldir/debian.sources") ;;
	esac
	root=$ldir/root
	t0=$(date +%s)
	log "[$layout] creating a minbase bookworm chroot in $root"
	mmdebstrap --variant=minbase --include=git,ca-certificates bookworm "$root" \
		"${sources[@]}" >"$ldir/mmdebstrap.log" 2>&1 ||
		die "mmdebstrap failed, see $ldir/mmdebstrap.log"
	log "[$layout] chroot ready in $(($(date +%s) - t0)) s, apt sources: $(cd "$root/etc/apt" &&
		find sources.list sources.list.d -type f 2>/dev/null | tr '\n' ' ')"

	mnt -t proc proc "$root/proc"
	mnt -t sysfs sys "$root/sys"
	mnt --bind /dev "$root/dev"
	mnt -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666
	mnt -t tmpfs tmpfs "$root/dev/shm"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

	git clone -q --no-local "$top" "$root/root/libamx"
	log "[$layout] cloned $(git -C "$root/root/libamx" rev-parse --short HEAD)"

	for c in "${cmds[@]}"; do
		log "[$layout] ./bootstrap.sh $c (log: $ldir/fresh-$c.log)"
		t=$(date +%s)
		if in_chroot "./bootstrap.sh $c" >"$ldir/fresh-$c.log" 2>&1; then
			res=passed
		else
			res=FAILED
			status=1
			tail -n 30 "$ldir/fresh-$c.log" >&2
		fi
		secs=$(($(date +%s) - t))
		printf 'fresh-machine: [%s] ./bootstrap.sh %s %s in %d min %d s\n' \
			"$layout" "$c" "$res" $((secs / 60)) $((secs % 60))
	done
	cleanup
done
exit $status
