#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Guest test: x86/amx_alloc killed while its fault injection is armed
# leaves failslab as it found it.  Runs the selftest (/t/$1), waits until
# a child starts arming failslab (require-start changes), sends SIGTERM
# (then SIGINT in a second round) and compares every failslab attribute
# with its value before.  Exit 0 same, 1 changed, 4 no failslab here.
victim=/t/$1
fs=/sys/kernel/debug/failslab
grep -q ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d $fs ] || { echo "# SKIP no $fs"; exit 4; }
snap() { grep -r . $fs/ 2>/dev/null | sort; }
before=$(snap)
start=$(cat $fs/require-start)
fail=0
pass=0
for sig in TERM INT; do
	$victim >/dev/null 2>&1 &
	pid=$!
	n=0
	# A child arms failslab by writing require-start first: kill then.
	while [ "$(cat $fs/require-start)" = "$start" ] && kill -0 $pid 2>/dev/null; do
		n=$((n + 1))
	done
	armed=$(cat $fs/require-start)
	kill -$sig $pid 2>/dev/null
	wait $pid
	rc=$?
	sleep 2		# a child that outlived the test would act now
	if [ "$armed" = "$start" ]; then
		echo "not ok - SIG$sig: amx_alloc never armed failslab (exit $rc)"
		fail=1
	elif [ "$(snap)" = "$before" ]; then
		echo "ok - SIG$sig while armed (exit $rc, $n polls): failslab as before"
		pass=$((pass + 1))
	else
		echo "not ok - SIG$sig while armed (exit $rc, $n polls): failslab changed:"
		snap | sed 's/^/#   /'
		fail=1
	fi
done
echo "# totals: pass $pass, fail $((2 - pass)), skip 0"
exit $fail
