#!/bin/bash
# SPDX-License-Identifier: MIT
# Boot the libamx guest kernel in QEMU and run tests in it.
#
#   run-guest.sh --manifest FILE [--append "extra cmdline"] [--out DIR]
#                [--timeout S] [--test-timeout S] [--no-selftests] [--debug]
#                [--kernel DIR] [--numa]
#
# Manifest: one test per line, "name<TAB>/abs/path/to/static-binary[<TAB>arg]...",
# each further tab separated field is one argument. Empty lines and lines
# starting with '#' are ignored. Exit codes: 0 pass, 4 skip, anything else
# fail. Each binary is copied to /t/<name> in the initramfs and run there
# with cwd /t. The kernel selftests built by build-kernel.sh (x86/amx,
# sigaltstack/sas, x86/amx_exec, x86/amx_status, x86/amx_alloc,
# x86/amx_status_race) are always
# run first, and rig-failslab_restore (failslab-restore.sh: amx_alloc
# killed while its fault injection is armed leaves failslab as it was).
#
# --kernel DIR boots DIR/bzImage instead of build-kernel.sh's kernel and
# runs those of the selftests above that DIR/selftests/ holds (a kernel
# built from part of the series, or from your own tree).
#
# --numa boots a two-socket, two-node machine: 8 vCPUs (2 sockets x 4
# cores), 512 MiB of RAM per node (node 0: CPUs 0-3, node 1: CPUs 4-7),
# distance 20 between them, as QEMU's ACPI SRAT/SLIT describe them.  The
# guest prints its view ("# numa: ..." lines) before the tests, and the
# run fails when that is not two nodes of four CPUs each: a test of NUMA
# placement that ran on one node would pass for the wrong reason.
#
# --debug boots the debug kernel (build-kernel.sh --debug: KASAN, kmemleak,
# lockdep; longer default timeouts).  The guest clears kmemleak's list
# before the first test and scans after the last; the run fails on any
# suspected leak, on a KASAN report or lockdep splat (they print BUG: or
# WARNING:), and when the console does not show that KASAN, kmemleak and
# lockdep were on.
#
# Leak check: the guest counts the fpstate vmalloc areas in
# /proc/vmallocinfo before the first test and after the last one (all
# test processes have exited by then); more areas after than before is
# reported as a problem and fails the run.
#
# The guest prints KTAP on the serial console. The host writes
# DIR/console.log and DIR/results.tsv ("name<TAB>pass|skip|fail<TAB>reason",
# judged by ktap-results.sh from each program's exit code and its KTAP
# totals), prints "N passed, N failed, N skipped" and exits non-zero on any
# failed or missing result, kernel WARNING/BUG/Oops/panic or timeout.
#
# QEMU: $AMX_QEMU (+ $AMX_QEMU_CPU) if set; else the patched QEMU from
# kernel/qemu/build.sh (+ kernel/qemu/cpu): if it does not build, the run
# fails with the build log's last lines (exit 2), it never falls back.
# Only AMX_NO_PATCHED_QEMU=1 skips it: then KVM with -cpu host if a short
# probe boot works, else stock qemu-system-x86_64 TCG with -cpu max (no AMX
# there: the AMX tests skip).  When the QEMU was to give the guest AMX (the
# patched one, or a -cpu with amx-tile), a guest without it fails the run.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KDIR=$(dirname "$HERE")
AMX_LOG_NAME=run-guest
AMX_DIE_STATUS=2
# shellcheck source=../../tools/lib.sh
. "$KDIR/../tools/lib.sh"
CACHE=$AMX_CACHE

MANIFEST=
APPEND=
OUTDIR=
TIMEOUT=480
TEST_TIMEOUT=${AMX_TEST_TIMEOUT:-120}
SELFTESTS=1
DEBUG=0
KERNEL_DIR=
NUMA=0
TIMEOUT_SET=0
TEST_TIMEOUT_SET=0

log() { amx_log "$@"; }
die() { amx_die "$@"; }
usage() { sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--manifest) MANIFEST=$2; shift 2 ;;
	--append) APPEND="${APPEND:+$APPEND }$2"; shift 2 ;;
	--out) OUTDIR=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; TIMEOUT_SET=1; shift 2 ;;
	--test-timeout) TEST_TIMEOUT=$2; TEST_TIMEOUT_SET=1; shift 2 ;;
	--no-selftests) SELFTESTS=0; shift ;;
	--debug) DEBUG=1; shift ;;
	--kernel) KERNEL_DIR=$2; shift 2 ;;
	--numa) NUMA=1; shift ;;
	-h|--help) usage ;;
	*) die "unknown argument: $1" ;;
	esac
done
[ -n "$MANIFEST" ] || [ $SELFTESTS = 1 ] || usage
[ -z "$MANIFEST" ] || [ -f "$MANIFEST" ] || die "manifest $MANIFEST not found"
[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d /tmp/libamx-guest.XXXXXX)
if [ $DEBUG = 1 ]; then
	# KASAN and lockdep make the guest several times slower.
	[ $TIMEOUT_SET = 1 ] || TIMEOUT=2400
	[ $TEST_TIMEOUT_SET = 1 ] || [ -n "${AMX_TEST_TIMEOUT:-}" ] || TEST_TIMEOUT=300
fi
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

T_START=$(date +%s)

# --- packages ------------------------------------------------------------------
amx_need_pkgs qemu-system-x86 busybox-static cpio gzip coreutils

# --- kernel + selftests ----------------------------------------------------------
if [ -n "$KERNEL_DIR" ]; then
	KOUT=$(cd "$KERNEL_DIR" 2>/dev/null && pwd) || die "--kernel $KERNEL_DIR: no such directory"
	[ -f "$KOUT/bzImage" ] || die "--kernel $KERNEL_DIR: no bzImage in it"
	log "kernel: $KOUT (--kernel)"
else
	kargs=()
	[ $DEBUG = 0 ] || kargs+=(--debug)
	KOUT=$("$HERE/build-kernel.sh" "${kargs[@]}" | tail -n1)
	[ -f "$KOUT/bzImage" ] || die "build-kernel.sh gave no kernel ($KOUT)"
	log "kernel: $KOUT ($(cat "$KOUT/linux-source.version"))"
fi

# --- QEMU selection ---------------------------------------------------------------
QEMU=
QEMU_CPU=
QEMU_ACCEL=tcg
QEMU_EXTRA=()
QEMU_KIND=
EXPECT_AMX=0	# 1: this QEMU must give the guest AMX (a guest without it is a problem)
if [ -n "${AMX_QEMU:-}" ]; then
	QEMU=$AMX_QEMU
	QEMU_CPU=${AMX_QEMU_CPU:-$(tr -d '\n' <"$KDIR/qemu/cpu" 2>/dev/null || echo max)}
	QEMU_KIND="AMX_QEMU override"
	[[ "$QEMU_CPU" != *amx-tile* ]] || EXPECT_AMX=1
elif [ "${AMX_NO_PATCHED_QEMU:-0}" = 1 ]; then
	log "AMX_NO_PATCHED_QEMU=1: not using the patched QEMU (the AMX tests skip unless KVM gives the guest AMX)"
else
	# The patched QEMU is what gives the guest AMX on any host: without it
	# every AMX test would skip and the run would read green.  So a build
	# that fails is a failure of the run, never a quiet fallback.
	log "building patched QEMU via kernel/qemu/build.sh"
	if qbin=$("$KDIR/qemu/build.sh" </dev/null 2>"$OUTDIR/qemu-build.log" | tail -n1) &&
		[ -n "$qbin" ] && [ -x "$qbin" ]; then
		QEMU=$qbin
		QEMU_CPU=${AMX_QEMU_CPU:-$(tr -d '\n' <"$KDIR/qemu/cpu" 2>/dev/null || echo max)}
		QEMU_KIND="patched QEMU"
		EXPECT_AMX=1
	else
		{
			echo "problem: the patched QEMU did not build (kernel/qemu/build.sh, log: $OUTDIR/qemu-build.log)"
			tail -n 20 "$OUTDIR/qemu-build.log" | sed 's/^/  | /'
		} | tee "$OUTDIR/summary.txt" >&2
		die "no guest run without the patched QEMU: fix its build (log above), or set AMX_NO_PATCHED_QEMU=1 to boot stock QEMU without AMX (the AMX tests then skip)"
	fi
fi
if [ -n "$QEMU" ]; then
	QEMU_EXTRA=(-L /usr/share/qemu -L /usr/share/seabios)
	[ -n "$QEMU_CPU" ] || QEMU_CPU=max
fi

KERNEL_CMDLINE="console=ttyS0 panic=-1 loglevel=6 rdinit=/init"

# KVM probe: boot the kernel with a trivial init under a short timeout and
# look for a marker. Cached per host kernel, since it hangs on some hosts.
kvm_works() {
	[ "${AMX_NO_KVM:-0}" != 1 ] || return 1
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local cachef="$CACHE/kvm-probe.$(uname -r)"
	if [ -f "$cachef" ]; then
		[ "$(cat "$cachef")" = yes ]
		return
	fi
	local d
	d=$(mktemp -d)
	mkdir -p "$d/root/bin"
	cp /bin/busybox "$d/root/bin/busybox"
	printf '#!/bin/busybox sh\n/bin/busybox echo KVM-PROBE-OK\n/bin/busybox poweroff -f\n' >"$d/root/init"
	chmod +x "$d/root/init"
	(cd "$d/root" && find . | cpio -o -H newc --quiet | gzip -1 >"$d/probe.gz")
	local res=no
	if timeout -k 5 20 /usr/bin/qemu-system-x86_64 -accel kvm -cpu host -m 256M \
		-kernel "$KOUT/bzImage" -initrd "$d/probe.gz" \
		-append "console=ttyS0 panic=-1 rdinit=/init" \
		-nic none -nographic -no-reboot </dev/null >"$d/log" 2>&1 ||
		true; then
		grep -q KVM-PROBE-OK "$d/log" && res=yes
	fi
	rm -rf "$d"
	echo $res >"$cachef" 2>/dev/null || true
	[ $res = yes ]
}

if [ -z "$QEMU" ]; then
	QEMU=/usr/bin/qemu-system-x86_64
	if kvm_works; then
		QEMU_ACCEL=kvm
		QEMU_CPU=host
		QEMU_KIND="stock QEMU, KVM"
	else
		QEMU_CPU=max
		QEMU_KIND="stock QEMU, TCG (no AMX: AMX tests skip)"
	fi
fi
log "qemu: $QEMU -accel $QEMU_ACCEL -cpu $QEMU_CPU [$QEMU_KIND]"

# --- test list ---------------------------------------------------------------------
ROOT=$OUTDIR/initramfs
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,t,proc,sys,dev,tmp,run,etc,usr/bin,usr/sbin}
cp /bin/busybox "$ROOT/bin/busybox"

NAMES=()	# display names
: >"$ROOT/t/list"

sh_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# Copy the shared libraries of a dynamic binary (the manifest asks for static
# ones; this only keeps a dynamic one from failing for a silly reason).
copy_libs() {
	local bin=$1 lib
	if readelf -l "$bin" 2>/dev/null | grep -q 'Requesting program interpreter'; then
		for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$ROOT$lib" ] && continue
			mkdir -p "$ROOT$(dirname "$lib")"
			cp -L "$lib" "$ROOT$lib"
			# a build tree under /tmp is hidden by the guest's tmpfs
			# there: the loader finds a copy in /usr/lib instead
			mkdir -p "$ROOT/usr/lib"
			[ -e "$ROOT/usr/lib/${lib##*/}" ] || cp -L "$lib" "$ROOT/usr/lib/"
		done
	fi
}

add_test() {	# name binary [args...]
	local name=$1 bin=$2 safe i
	shift 2
	[[ "$name" =~ ^[^[:space:]#]+$ ]] || die "bad test name '$name' (no blanks or '#')"
	for i in "${NAMES[@]}"; do
		[ "$i" != "$name" ] || die "duplicate test name $name"
	done
	[ -f "$bin" ] || die "test $name: binary $bin not found"
	safe=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_')
	[ ! -e "$ROOT/t/$safe" ] || safe="${safe}_${#NAMES[@]}"
	cp "$bin" "$ROOT/t/$safe"
	chmod +x "$ROOT/t/$safe"
	copy_libs "$bin"
	{
		printf 'cd /t && exec ./%s' "$safe"
		for i in "$@"; do printf ' %s' "$(sh_quote "$i")"; done
		printf '\n'
	} >"$ROOT/t/$safe.cmd"
	NAMES+=("$name")
	printf '%s %s\n' "$safe" "$name" >>"$ROOT/t/list"
}

# A selftest of build-kernel.sh's kernel must be there; with --kernel,
# those that are not are left out (said so in the log).
add_selftest() {
	local name=$1 bin=$2
	shift 2
	if [ -n "$KERNEL_DIR" ] && [ ! -f "$bin" ]; then
		log "--kernel: no $bin, $name not run"
		return
	fi
	add_test "$name" "$bin" "$@"
}

if [ $SELFTESTS = 1 ]; then
	add_selftest kselftest-x86-amx "$KOUT/selftests/amx"
	add_selftest kselftest-sigaltstack-sas "$KOUT/selftests/sas"
	# Their own bound is 40 s (-a: longer); the debug kernel needs more.
	abound=()
	[ $DEBUG = 0 ] || abound=(-a $((TEST_TIMEOUT - 10)))
	add_selftest kselftest-x86-amx_exec "$KOUT/selftests/amx_exec" "${abound[@]}"
	add_selftest kselftest-x86-amx_status "$KOUT/selftests/amx_status" "${abound[@]}"
	add_selftest kselftest-x86-amx_alloc "$KOUT/selftests/amx_alloc" "${abound[@]}"
	# amx_alloc killed while its fault injection is armed restores it
	if [ -f "$ROOT/t/kselftest-x86-amx_alloc" ]; then
		add_test rig-failslab_restore "$HERE/failslab-restore.sh" \
			kselftest-x86-amx_alloc
	fi
	add_selftest kselftest-x86-amx_status_race "$KOUT/selftests/amx_status_race"
fi
if [ -n "$MANIFEST" ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		case "$line" in ''|'#'*) continue ;; esac
		IFS=$'\t' read -r -a f <<<"$line"
		[ ${#f[@]} -ge 2 ] || die "bad manifest line: $line"
		add_test "${f[@]}"
	done <"$MANIFEST"
fi
N=${#NAMES[@]}
[ "$N" -gt 0 ] || die "no tests"

# --- guest init ---------------------------------------------------------------------
cat >"$ROOT/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /sys/kernel/debug
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
exec </dev/console >/dev/console 2>&1
TEST_TIMEOUT=$TEST_TIMEOUT
# The test programs bound themselves (tests/tap.h, 50 s natively); under
# TCG they run 20-50 times slower, so their own bound is the rig's, less
# 10 s to report: a loaded host made the GEMM grids hit 50 s.
AMX_TEST_ALARM=\$((TEST_TIMEOUT - 10))
[ \$AMX_TEST_ALARM -ge 10 ] || AMX_TEST_ALARM=\$TEST_TIMEOUT
export AMX_TEST_ALARM
echo "# guest: \$(uname -r) cmdline: \$(cat /proc/cmdline)"
echo "# cpu flags: \$(grep -m1 -o 'amx[a-z_0-9]*' /proc/cpuinfo | tr '\n' ' ')"
dmesg | grep 'x86/fpu' | sed 's/^/# /'
# NUMA as the guest sees it (run-guest.sh --numa checks it)
for d in /sys/devices/system/node/node[0-9]*; do
	[ -d "\$d" ] || continue
	echo "# numa: \${d##*/} cpus \$(cat \$d/cpulist) mem_kb \$(sed -n 's/.*MemTotal: *\([0-9]*\).*/\1/p' \$d/meminfo)"
done
echo "# numa: online \$(cat /sys/devices/system/node/online 2>/dev/null || echo none)"
# The debug kernel's checkers (their messages are below the console level)
dmesg | grep -e 'KernelAddressSanitizer initialized' -e 'Kernel memory leak detector' \
	-e 'Lock dependency validator' | sed 's/^/# /'
fpstate_areas() { grep -c -e ' fpstate_' -e 'xfd_enable_feature' /proc/vmallocinfo; }
areas_before=\$(fpstate_areas)
KMEMLEAK=/sys/kernel/debug/kmemleak
# Only what the tests leave behind counts, not what booting did: scan
# (booting took longer than kmemleak's 5 s minimum age), then clear.
if [ -w \$KMEMLEAK ]; then
	echo scan >\$KMEMLEAK
	echo clear >\$KMEMLEAK
fi
echo "KTAP version 1"
echo "1..$N"
n=0
while read -r safe name; do
	n=\$((n + 1))
	start=\$(date +%s)
	timeout -s KILL \$TEST_TIMEOUT sh /t/\$safe.cmd </dev/null >/tmp/out.\$n 2>&1
	rc=\$?
	end=\$(date +%s)
	sed 's/^/# /' /tmp/out.\$n
	echo "# \$name took \$((end - start)) s"
	if [ \$rc = 0 ]; then
		echo "ok \$n \$name"
	elif [ \$rc = 4 ]; then
		reason=\$(grep -m1 -o 'SKIP.*' /tmp/out.\$n | sed 's/^SKIP[: ]*//' | tr -d '#')
		[ -n "\$reason" ] || reason=\$(grep -m1 . /tmp/out.\$n | tr -d '#' | sed 's/^ *//')
		echo "ok \$n \$name # SKIP \${reason:-exit code 4}"
	elif [ \$rc = 137 ] && [ \$((end - start)) -ge \$TEST_TIMEOUT ]; then
		echo "not ok \$n \$name # TIMEOUT after \${TEST_TIMEOUT}s"
	else
		echo "not ok \$n \$name # exit code \$rc"
	fi
done </t/list
# Freed task_structs take an RCU grace period: poll a little; a leak stays.
i=0
areas_after=\$(fpstate_areas)
while [ \$areas_after -gt \$areas_before ] && [ \$i -lt 50 ]; do
	usleep 100000
	i=\$((i + 1))
	areas_after=\$(fpstate_areas)
done
echo "FPSTATE-AREAS before=\$areas_before after=\$areas_after"
if [ -w \$KMEMLEAK ]; then
	# An object is reported once it is older than 5 s and unreferenced in
	# a scan; a second scan after that age drops the transient ones.
	sleep 6
	echo scan >\$KMEMLEAK
	sleep 6
	echo scan >\$KMEMLEAK
	cat \$KMEMLEAK >/tmp/kmemleak
	echo "KMEMLEAK-SCAN suspected=\$(grep -c '^unreferenced object' /tmp/kmemleak)"
	sed 's/^/KMEMLEAK: /' /tmp/kmemleak | head -n 200
fi
grep -e ' fpstate_' -e 'xfd_enable_feature' /proc/vmallocinfo | sed 's/^/# vmallocinfo: /' | head -n 20
echo "# guest tests done"
sync
poweroff -f
EOF
chmod +x "$ROOT/init"

INITRD=$OUTDIR/initramfs.cpio.gz
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1 >"$INITRD")

# --- boot ----------------------------------------------------------------------------
CMDLINE="$KERNEL_CMDLINE${APPEND:+ $APPEND}"
MACHINE=(-smp 2 -m 1G)
if [ $NUMA = 1 ]; then
	MACHINE=(-smp 8,sockets=2,cores=4,threads=1 -m 1G
		-object memory-backend-ram,id=mem0,size=512M
		-object memory-backend-ram,id=mem1,size=512M
		-numa node,nodeid=0,cpus=0-3,memdev=mem0
		-numa node,nodeid=1,cpus=4-7,memdev=mem1
		-numa dist,src=0,dst=1,val=20)
fi
log "booting: $N tests, cmdline: $CMDLINE"
T_BOOT=$(date +%s)
set +e
timeout -k 10 "$TIMEOUT" "$QEMU" "${QEMU_EXTRA[@]}" -accel "$QEMU_ACCEL" -cpu "$QEMU_CPU" \
	"${MACHINE[@]}" -kernel "$KOUT/bzImage" -initrd "$INITRD" -append "$CMDLINE" \
	-nic none -nographic -no-reboot \
	</dev/null >"$OUTDIR/console.log" 2>"$OUTDIR/qemu.stderr"
QRC=$?
set -e
T_END=$(date +%s)
# serial output has CRLF line ends
sed -i 's/\r$//' "$OUTDIR/console.log"

# --- results ---------------------------------------------------------------------------
# Does the guest CPU have AMX?  The patched QEMU (or an AMX_QEMU whose -cpu
# asks for amx-tile) must give it; then the kselftests, which test our
# patched kernel, must run completely (kernel/rig/ktap-results.sh).
guest_flags=$(sed -n 's/^# cpu flags: *//p' "$OUTDIR/console.log" | head -n1)
GUEST_AMX=0
[[ " $guest_flags " != *" amx_tile "* ]] || GUEST_AMX=1
judge_args=()
[ $EXPECT_AMX = 0 ] && [ $GUEST_AMX = 0 ] || judge_args+=(--complete-kselftests)
"$HERE/ktap-results.sh" "${judge_args[@]}" "$OUTDIR/console.log" "${NAMES[@]}" \
	>"$OUTDIR/results.tsv" || die "ktap-results.sh failed on $OUTDIR/console.log"
pass=$(awk -F '\t' '$2 == "pass"' "$OUTDIR/results.tsv" | wc -l)
fail=$(awk -F '\t' '$2 == "fail"' "$OUTDIR/results.tsv" | wc -l)
skip=$(awk -F '\t' '$2 == "skip"' "$OUTDIR/results.tsv" | wc -l)
[ $((pass + fail + skip)) = "$N" ] || die "ktap-results.sh gave $((pass + fail + skip)) results for $N tests"

problems=()
if [ $QRC = 124 ] || [ $QRC = 137 ]; then
	problems+=("guest timed out after ${TIMEOUT}s")
elif [ $QRC != 0 ]; then
	problems+=("qemu exited with $QRC: $(head -c 300 "$OUTDIR/qemu.stderr")")
fi
grep -q '^KTAP version 1' "$OUTDIR/console.log" || problems+=("no KTAP header in console log")
if [ $EXPECT_AMX = 1 ] && [ $GUEST_AMX = 0 ]; then
	problems+=("the guest CPU has no AMX (cpu flags: ${guest_flags:-none}), but $QEMU_KIND with -cpu $QEMU_CPU was to provide it")
fi
grep -qx "1\.\.$N" "$OUTDIR/console.log" || problems+=("no KTAP plan 1..$N in console log")
if [ $NUMA = 1 ]; then
	numa_seen=$(sed -n 's/^# numa: \(node[0-9]*\) cpus \([^ ]*\).*/\1:\2/p' "$OUTDIR/console.log" | tr '\n' ' ')
	[ "$numa_seen" = "node0:0-3 node1:4-7 " ] ||
		problems+=("--numa: the guest saw '${numa_seen:-no NUMA nodes}', not node0:0-3 node1:4-7")
fi
# fpstate leak check over the whole run
areas=$(grep -m1 '^FPSTATE-AREAS ' "$OUTDIR/console.log" || true)
if [ -z "$areas" ]; then
	problems+=("no FPSTATE-AREAS line (leak check did not run)")
else
	a_before=$(sed -n 's/.*before=\([0-9]*\).*/\1/p' <<<"$areas")
	a_after=$(sed -n 's/.*after=\([0-9]*\).*/\1/p' <<<"$areas")
	if [ -z "$a_before" ] || [ -z "$a_after" ] || [ "$a_after" -gt "$a_before" ]; then
		problems+=("fpstate vmalloc leak: ${areas#FPSTATE-AREAS }")
	fi
fi
if [ $DEBUG = 1 ]; then
	# The debug boot must have been one: each checker announces itself.
	for want in 'KernelAddressSanitizer initialized' \
		'kmemleak: Kernel memory leak detector initialized' \
		'Lock dependency validator'; do
		grep -q "$want" "$OUTDIR/console.log" ||
			problems+=("debug boot: no \"$want\" in the console log")
	done
	scan=$(grep -m1 '^KMEMLEAK-SCAN ' "$OUTDIR/console.log" || true)
	if [ -z "$scan" ]; then
		problems+=("debug boot: no kmemleak scan after the tests")
	elif [ "${scan#*suspected=}" != 0 ]; then
		problems+=("kmemleak: ${scan#*suspected=} suspected leaks (KMEMLEAK: lines in console.log)")
	fi
	grep -q 'turning off the locking correctness validator' "$OUTDIR/console.log" &&
		problems+=("lockdep turned itself off")
fi
# Kernel messages only: test output is prefixed with "# " by the guest init.
if grep -v '^# ' "$OUTDIR/console.log" |
	grep -E 'WARNING:|BUG:|Oops|Kernel panic|kernel BUG at|general protection fault|UBSAN:|kernel stack overflow' \
	>"$OUTDIR/kernel-problems.log"; then
	problems+=("kernel problem in console log: $(head -n1 "$OUTDIR/kernel-problems.log")")
fi

{
	echo "qemu: $QEMU -accel $QEMU_ACCEL -cpu $QEMU_CPU [$QEMU_KIND]"
	echo "kernel: $KOUT ($(cat "$KOUT/linux-source.version" 2>/dev/null || echo "--kernel"))"
	echo "cmdline: $CMDLINE"
	echo "machine: ${MACHINE[*]}"
	[ $DEBUG = 0 ] || echo "debug boot: KASAN, kmemleak, lockdep; ${scan:-no kmemleak scan}"
	echo "time total: $((T_END - T_START)) s, boot+tests: $((T_END - T_BOOT)) s"
	echo "guest AMX: $([ $GUEST_AMX = 1 ] && echo yes || echo no) (${guest_flags:-no amx flags}), expected: $([ $EXPECT_AMX = 1 ] && echo yes || echo no)"
	echo "fpstate vmalloc areas: ${areas#FPSTATE-AREAS }"
	for p in "${problems[@]}"; do echo "problem: $p"; done
} | tee "$OUTDIR/summary.txt" >&2
# The table, names padded to one width (no column(1): minimal Debian lacks it).
awk -F '\t' '{ n[NR] = $1; r[NR] = $2 ($3 == "" ? "" : "  " $3); if (length($1) > w) w = length($1) }
	END { for (i = 1; i <= NR; i++) printf "%-*s  %s\n", w, n[i], r[i] }' "$OUTDIR/results.tsv" >&2
echo "$pass passed, $fail failed, $skip skipped" | tee -a "$OUTDIR/summary.txt"
log "output in $OUTDIR"

[ "$fail" = 0 ] && [ ${#problems[@]} = 0 ]
