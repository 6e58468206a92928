#!/bin/bash
# SPDX-License-Identifier: MIT
# Print deb-src entries (deb822) for every binary source apt is configured
# with, so that "apt-get source" can fetch from the same mirrors and suites.
#
# Usage: kernel/qemu/deb-src.sh [--have]
#
# Reads the files apt itself reads (apt-config: Dir::Etc::sourcelist and
# every *.list and *.sources in Dir::Etc::sourceparts, whatever their
# names: mmdebstrap writes sources.list.d/0000debian.sources, a Debian
# install sources.list or sources.list.d/debian.sources), skipping stanzas
# with "Enabled: no" and libamx-deb-src.* (this script's output, installed
# by build.sh).  One-line entries ("deb [opts] URI SUITE COMP...") become
# deb822 stanzas with their options; deb822 stanzas are copied with
# "Types: deb-src".  Exit 1 (and a message on stderr) when there is none.
#
# --have: print nothing; exit 0 if some file apt reads (other than
# libamx-deb-src.*) already has a deb-src entry, else 1.
set -euo pipefail

have=0
case ${1:-} in
--have) have=1 ;;
'') ;;
*) echo "usage: $0 [--have]" >&2; exit 2 ;;
esac

# Where apt reads its sources from (APT_CONFIG and Dir settings included).
eval "$(apt-config shell SOURCELIST Dir::Etc::sourcelist/f SOURCEPARTS Dir::Etc::sourceparts/d)"
SOURCELIST=${SOURCELIST:-/etc/apt/sources.list}
SOURCEPARTS=${SOURCEPARTS:-/etc/apt/sources.list.d/}

one_line=()
deb822=()
[ ! -f "$SOURCELIST" ] || one_line+=("$SOURCELIST")
for f in "${SOURCEPARTS%/}"/*; do
	[ -f "$f" ] || continue
	case ${f##*/} in
	libamx-deb-src.*) ;;
	*.list) one_line+=("$f") ;;
	*.sources) deb822+=("$f") ;;
	esac		# apt ignores any other name, so do we
done

# Types of each enabled deb822 stanza, and one-line entries, one per line:
# "deb822 TYPES..." / "one-line TYPE".
if [ $have = 1 ]; then
	{
		[ ${#one_line[@]} = 0 ] ||
			sed -n 's/^[[:space:]]*\(deb-src\)[[:space:]].*/\1/p' "${one_line[@]}"
		[ ${#deb822[@]} = 0 ] ||
			awk 'BEGIN { RS = ""; FS = "\n" }
			     {
				     types = ""; enabled = 1
				     for (i = 1; i <= NF; i++) {
					     if ($i ~ /^[Tt]ypes:/) types = substr($i, 7)
					     if ($i ~ /^[Ee]nabled:[ \t]*[Nn]o/) enabled = 0
				     }
				     if (enabled && types ~ /(^|[ \t])deb-src([ \t]|$)/) print "deb-src"
			     }' "${deb822[@]}"
	} | grep -q deb-src
	exit
fi

out=$(
	if [ ${#one_line[@]} -gt 0 ]; then
		# deb [ opt=val ... ] URI SUITE [COMPONENT...]  ->  a deb822 stanza
		awk '
		function field(opt,    k) {
			k = opt
			if (k == "arch") return "Architectures"
			if (k == "lang") return "Languages"
			if (k == "target") return "Targets"
			# signed-by -> Signed-By, trusted -> Trusted, ...
			n = split(k, part, "-")
			k = ""
			for (j = 1; j <= n; j++)
				k = k (j > 1 ? "-" : "") toupper(substr(part[j], 1, 1)) substr(part[j], 2)
			return k
		}
		/^[ \t]*deb[ \t]/ {
			line = $0
			sub(/^[ \t]*deb[ \t]+/, "", line)
			opts = ""
			if (substr(line, 1, 1) == "[") {
				end = index(line, "]")
				if (!end) next
				opts = substr(line, 2, end - 2)
				line = substr(line, end + 1)
			}
			sub(/[ \t]#.*/, "", line)
			n = split(line, w, /[ \t]+/)
			i = 1
			if (w[1] == "") i = 2
			if (n < i + 1) next
			printf "Types: deb-src\nURIs: %s\nSuites: %s\n", w[i], w[i + 1]
			comps = ""
			for (j = i + 2; j <= n; j++) if (w[j] != "") comps = comps (comps == "" ? "" : " ") w[j]
			if (comps != "") printf "Components: %s\n", comps
			m = split(opts, o, /[ \t]+/)
			for (j = 1; j <= m; j++) {
				if (o[j] == "" || !index(o[j], "=")) continue
				k = substr(o[j], 1, index(o[j], "=") - 1)
				v = substr(o[j], index(o[j], "=") + 1)
				gsub(/,/, " ", v)
				printf "%s: %s\n", field(k), v
			}
			printf "\n"
		}' "${one_line[@]}"
	fi
	if [ ${#deb822[@]} -gt 0 ]; then
		# Every enabled stanza whose Types has "deb", as deb-src.
		awk 'BEGIN { RS = ""; FS = "\n" }
		     {
			     isdeb = 0; enabled = 1; out = ""
			     for (i = 1; i <= NF; i++) {
				     line = $i
				     if (line ~ /^#/) continue
				     if (line ~ /^[Ee]nabled:[ \t]*[Nn]o/) enabled = 0
				     if (line ~ /^[Tt]ypes:/) {
					     n = split(substr(line, 7), t, /[ \t]+/)
					     for (j = 1; j <= n; j++) if (t[j] == "deb") isdeb = 1
					     line = "Types: deb-src"
				     }
				     out = out line "\n"
			     }
			     if (isdeb && enabled) printf "%s\n", out
		     }' "${deb822[@]}"
	fi
)
if [ -z "$out" ]; then
	echo "deb-src.sh: ERROR: no apt source with Types/deb in $SOURCELIST or ${SOURCEPARTS%/}/*.{list,sources} to derive deb-src entries from" >&2
	exit 1
fi
printf '%s\n' "$out"
