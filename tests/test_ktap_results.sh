#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest rig's verdicts (kernel/rig/ktap-results.sh) on a made-up
# console log: a program whose exit code says "passed" while its KTAP
# totals say every subtest skipped, or that one failed, must not count as
# passed.  test_ktap_results.sh KTAP-RESULTS.SH
set -eu
judge=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What the guest init prints: program output behind "# ", then the result
# line from the exit code (0 ok, 4 ok # SKIP, else not ok).
cat >"$tmp/console.log" <<'EOF'
KTAP version 1
1..12
# TAP version 13
# 1..2
# ok 1 # SKIP no AMX_elapsed_ms line in /proc/self/arch_status
# ok 2 # SKIP no x86_Xstate_perm line in /proc/self/status
# # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:2 error:0
# kselftest-allskip took 0 s
ok 1 kselftest-allskip
# TAP version 13
# 1..3
# ok 1 one
# ok 2 # SKIP needs root
# ok 3 three
# # Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0
ok 2 kselftest-someskip
# no AMX support
ok 3 kselftest-exit4 # SKIP no AMX support
# [OK]	ptrace
ok 4 kselftest-plain
# 1..2
# ok 1 a
# not ok 2 b
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
ok 5 lies
# 1..3
# ok 1 - a # SKIP AMX unavailable
# ok 2 - b # SKIP AMX unavailable
# ok 3 - c # SKIP AMX unavailable
# totals: pass 0, fail 0, skip 3
ok 6 tap-allskip
# 1..3
# ok 1 - a
# ok 2 - b # SKIP no AVX-512 here
# ok 3 - c
# totals: pass 2, fail 0, skip 1
ok 7 tap-someskip
WARNING: kernel message in between, not a test line
# 1..0
# # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0
ok 8 empty
# 1..1
# not ok 1 - x
# totals: pass 0, fail 1, skip 0
not ok 9 tapfail # exit code 1
# # Totals: pass:1 fail:0 xfail:0 xpass:1 skip:0 error:0
ok 10 xpass
ok 11 plain
EOF
# The tap.h totals as the guest prints them: behind its "# " prefix.
sed -i 's/^# totals:/# # totals:/' "$tmp/console.log"

names="kselftest-allskip kselftest-someskip kselftest-exit4 kselftest-plain lies
tap-allskip tap-someskip empty tapfail xpass plain missing"

fails=0
check() {	# check MODE NAME STATUS [REASON-SUBSTRING]
	line=$(awk -F '\t' -v n="$2" '$1 == n' "$tmp/out.$1")
	status=$(printf '%s\n' "$line" | cut -f2)
	if [ "$status" != "$3" ] || ! printf '%s\n' "$line" | cut -f3 | grep -qF -- "${4:-}"; then
		echo "not ok - $1 $2: want $3${4:+ ($4)}, got: $line"
		fails=$((fails + 1))
	else
		echo "ok - $1 $2: $status $(printf '%s\n' "$line" | cut -f3)"
	fi
}

# shellcheck disable=SC2086
"$judge" "$tmp/console.log" $names >"$tmp/out.plain"
# shellcheck disable=SC2086
"$judge" --complete-kselftests "$tmp/console.log" $names >"$tmp/out.complete"
[ "$(wc -l <"$tmp/out.plain")" = 12 ] || { echo "not ok - want 12 results"; fails=$((fails + 1)); }

check plain kselftest-allskip skip "all 2 subtests skipped (first: no AMX_elapsed_ms"
check plain kselftest-someskip pass "1 of 3 subtests skipped"
check plain kselftest-exit4 skip "no AMX support"
check plain kselftest-plain pass
check plain lies fail "fail:1"
check plain tap-allskip skip "all 3 subtests skipped"
check plain tap-someskip pass "1 of 3 subtests skipped"
check plain empty fail "no subtest"
check plain tapfail fail "exit code 1"
check plain xpass fail "xpass:1"
check plain plain pass
check plain missing fail "missing result"
# On the patched kernel with AMX every kselftest must run completely.
check complete kselftest-allskip fail "must run every part"
check complete kselftest-someskip fail "1 of 3 subtests skipped"
check complete kselftest-exit4 fail "skipped: no AMX support"
check complete kselftest-plain pass
check complete tap-allskip skip "all 3 subtests skipped"
check complete tap-someskip pass
check complete lies fail "fail:1"

echo "1..19"
[ $fails = 0 ]
