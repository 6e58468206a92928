# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# The shell helpers of libamx's scripts (bootstrap.sh, kernel/rig/*.sh,
# kernel/qemu/build.sh): messages, Debian package installation and the
# one set of environment variables they all read.  Source it:
#
#   AMX_LOG_NAME=build-kernel
#   . "$top/tools/lib.sh"
#
# Environment (every script, the same names):
#   AMX_CACHE   where slow artifacts are cached (default /var/cache/libamx)
#   AMX_JOBS    parallel build jobs (default: the number of CPUs)

AMX_CACHE=${AMX_CACHE:-/var/cache/libamx}
AMX_JOBS=${AMX_JOBS:-$(nproc 2>/dev/null || echo 2)}
AMX_LOG_NAME=${AMX_LOG_NAME:-$(basename "$0" .sh)}

# Progress and errors go to stderr, prefixed with the script's name;
# stdout stays free for a script's result.
amx_log() { echo "$AMX_LOG_NAME: $*" >&2; }
amx_die() {
	echo "$AMX_LOG_NAME: ERROR: $*" >&2
	exit "${AMX_DIE_STATUS:-1}"
}

# amx_need_pkgs PKG...: install the Debian packages that are missing
# (--no-install-recommends, as root).  The package lists are refreshed
# once before the first install, and an install that fails because
# another apt or dpkg holds the lock is retried.
amx__apt_updated=0
amx_need_pkgs() {
	local missing=() p i
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q '^install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] ||
		amx_die "missing packages (need root to install): ${missing[*]}"
	amx_log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	for i in 1 2 3 4 5; do
		if [ "$amx__apt_updated" = 0 ]; then
			apt-get -o DPkg::Lock::Timeout=300 update -q >&2 &&
				amx__apt_updated=1
		fi
		if apt-get -o DPkg::Lock::Timeout=300 install -y -q \
			--no-install-recommends "${missing[@]}" >&2; then
			return 0
		fi
		amx_log "apt-get install failed (attempt $i), retrying"
		amx__apt_updated=0
		sleep $((i * 5))
	done
	amx_die "apt-get install ${missing[*]} failed"
}
