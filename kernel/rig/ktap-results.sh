#!/bin/bash
# SPDX-License-Identifier: MIT
# Judge each program of a guest boot from its result line AND its totals.
#
#   ktap-results.sh [--complete-kselftests] CONSOLE.LOG NAME...
#
# NAME... are the programs in the order the guest ran them (KTAP numbers
# 1..N).  Prints one "name<TAB>pass|skip|fail<TAB>reason" line per NAME.
#
# The guest's own "ok N name" follows the exit code alone (0 pass, 4 skip),
# but a kselftest exits 0 when every subtest skipped (ksft_finished()), and
# so does a tests/tap.h program.  So the totals line each program prints
# last ("# Totals: pass:N fail:N xfail:N xpass:N skip:N error:N" from
# kselftest.h, "# totals: pass N, fail N, skip N" from tests/tap.h; in the
# console behind the guest's "# " prefix) is read as well:
#   exit 0, totals with fail, xpass or error  -> fail (the exit code lied)
#   exit 0, totals with skips only            -> skip ("all N subtests skipped")
#   exit 0, totals with no subtest at all     -> fail (nothing was tested)
#   exit 0, some subtests skipped             -> pass, the count in the reason
# --complete-kselftests (the patched kernel on a CPU with AMX, which is
# what the rig boots): the kselftests (names kselftest-*) test features
# that kernel must have, so a kselftest that skips, as a whole or any of
# its subtests, fails.
set -euo pipefail

complete=0
if [ "${1:-}" = --complete-kselftests ]; then
	complete=1
	shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [--complete-kselftests] CONSOLE.LOG NAME..." >&2; exit 2; }
console=$1
shift
[ -r "$console" ] || { echo "ktap-results: ERROR: cannot read $console" >&2; exit 2; }

printf '%s\n' "$@" | awk -v complete="$complete" -F '\t' '
# First pass (stdin): the names, in order.
FNR == NR { name[++n] = $0; next }

# Second pass: the console.  Output lines of a program are prefixed "# "
# and come before its result line; a result line closes the block.
{
	line = $0
	if (match(line, /^(not )?ok [0-9]+ /)) {
		num = line
		sub(/^(not )?ok /, "", num)
		sub(/ .*/, "", num)
		num += 0
		if (!(num in result)) {
			result[num] = line
			totals[num] = last_totals
			firstskip[num] = first_skip
		}
		last_totals = ""
		first_skip = ""
		next
	}
	if (line ~ /^# # Totals: pass:[0-9]+ fail:[0-9]+ xfail:[0-9]+ xpass:[0-9]+ skip:[0-9]+ error:[0-9]+/) {
		t = line
		sub(/^# # Totals: /, "", t)
		split(t, kv, /[ :]+/)
		# kv: pass N fail N xfail N xpass N skip N error N
		last_totals = kv[2] " " kv[4] " " kv[6] " " kv[8] " " kv[10] " " kv[12]
	} else if (line ~ /^# # totals: pass [0-9]+, fail [0-9]+, skip [0-9]+/) {
		t = line
		sub(/^# # totals: /, "", t)
		gsub(/,/, "", t)
		split(t, kv, / +/)
		# kv: pass N fail N skip N
		last_totals = kv[2] " " kv[4] " 0 0 " kv[6] " 0"
	} else if (first_skip == "" && line ~ /^# (not )?ok [0-9]+ .*# *SKIP/) {
		first_skip = line
		sub(/^# (not )?ok [0-9]+ -? ?/, "", first_skip)
		sub(/^# SKIP ?/, "", first_skip)
		gsub(/\t/, " ", first_skip)
	}
}

END {
	for (i = 1; i <= n; i++) {
		nm = name[i]
		reason = ""
		skipped = 0
		if (!(i in result)) {
			status = "fail"; reason = "missing result"
		} else if (result[i] ~ /^not ok/) {
			status = "fail"
			reason = result[i]
			if (index(reason, "# ")) sub(/^[^#]*# /, "", reason)
			else reason = "failed"
		} else if (result[i] ~ / # SKIP/) {
			status = "skip"
			reason = result[i]
			sub(/^[^#]* # SKIP ?/, "", reason)
		} else {
			status = "pass"
			if (totals[i] != "") {
				split(totals[i], c, " ")
				# c: pass fail xfail xpass skip error
				ran = c[1] + c[2] + c[3] + c[4] + c[5] + c[6]
				if (c[2] + c[4] + c[6] > 0) {
					status = "fail"
					reason = sprintf("exit code 0, but its totals count fail:%d xpass:%d error:%d", c[2], c[4], c[6])
				} else if (ran == 0) {
					status = "fail"
					reason = "exit code 0, but its totals count no subtest at all"
				} else if (c[1] + c[3] == 0) {
					status = "skip"
					skipped = c[5]
					reason = sprintf("all %d subtests skipped", c[5])
				} else if (c[5] > 0) {
					skipped = c[5]
					reason = sprintf("%d of %d subtests skipped", c[5], ran)
				}
				if (skipped && firstskip[i] != "")
					reason = reason " (first: " firstskip[i] ")"
			}
		}
		if (complete && nm ~ /^kselftest-/ && status != "fail" &&
		    (status == "skip" || skipped > 0)) {
			reason = "the patched kernel on an AMX CPU must run every part of it, but: " \
				(status == "skip" && !skipped ? "skipped: " : "") reason
			status = "fail"
		}
		printf "%s\t%s\t%s\n", nm, status, reason
	}
}' - "$console"
