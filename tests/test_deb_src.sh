#!/bin/sh
# SPDX-License-Identifier: MIT
# kernel/qemu/deb-src.sh derives deb-src entries from every source apt
# reads, whatever the file is called: mmdebstrap's 0000debian.sources was
# missed once (issue 25, item 13).  test_deb_src.sh DEB-SRC.SH
set -u	# no -e: the checks below look at exit statuses
script=$1
command -v apt-config >/dev/null || { echo "1..0 # SKIP no apt-config (not Debian)"; exit 4; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
etc=$tmp/etc/apt
mkdir -p "$etc/sources.list.d" "$etc/apt.conf.d"
printf 'Dir::Etc "%s";\n' "$etc" >"$tmp/apt.conf"
APT_CONFIG=$tmp/apt.conf
export APT_CONFIG

n=0 fails=0
ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

# mmdebstrap given a debian.sources file: only sources.list.d/0000debian.sources.
cat >"$etc/sources.list.d/0000debian.sources" <<'X'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
X
out=$("$script" 2>&1) && rc=0 || rc=$?
ok "$rc" "0000debian.sources alone gives entries"
printf '%s\n' "$out" | grep -c '^Types: deb-src$' | grep -qx 2; ok $? "two deb-src stanzas"
printf '%s\n' "$out" | grep -qx 'Suites: bookworm-security'; ok $? "the security suite"
printf '%s\n' "$out" | grep -qx 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg'; ok $? "options kept"
"$script" --have && rc=0 || rc=$?
[ "$rc" = 1 ]; ok $? "--have: no deb-src yet"

# One-line sources with options, a disabled stanza, a name apt ignores,
# and our own output, which is no source to derive from.
printf '%s\n' 'deb [arch=amd64,i386 signed-by=/k.gpg] http://example.org/d bookworm main contrib # c' \
	'# deb http://commented.example bookworm main' >"$etc/sources.list"
printf 'Types: deb\nURIs: http://off.example\nSuites: x\nComponents: main\nEnabled: no\n' \
	>"$etc/sources.list.d/off.sources"
printf 'deb http://ignored.example bookworm main\n' >"$etc/sources.list.d/x.list.disabled"
printf 'Types: deb\nURIs: http://ours.example\nSuites: x\n' >"$etc/sources.list.d/libamx-deb-src.sources"
out=$("$script")
printf '%s\n' "$out" | grep -qx 'URIs: http://example.org/d'; ok $? "one-line entry converted"
printf '%s\n' "$out" | grep -qx 'Components: main contrib'; ok $? "its components"
printf '%s\n' "$out" | grep -qx 'Architectures: amd64 i386'; ok $? "arch= as Architectures"
printf '%s\n' "$out" | grep -qx 'Signed-By: /k.gpg'; ok $? "signed-by= as Signed-By"
printf '%s\n' "$out" | grep -q 'commented\|off.example\|ignored.example\|ours.example'; [ $? = 1 ]
ok $? "no commented, disabled, ignored or own entry"
printf 'deb-src http://deb.debian.org/debian bookworm main\n' >"$etc/sources.list.d/src.list"
"$script" --have; ok $? "--have: a deb-src line"

# Nothing to derive from: a clear error, exit 1.
rm -f "$etc/sources.list" "$etc/sources.list.d/"*
"$script" 2>"$tmp/err" && rc=0 || rc=$?
[ "$rc" = 1 ] && grep -q 'no apt source' "$tmp/err"; ok $? "no sources: exit 1 with a message"

echo "1..$n"
[ $fails = 0 ]
