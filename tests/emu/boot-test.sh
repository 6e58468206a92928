#!/bin/bash
# Boot test for the patched QEMU (developer helper, not the project's guest
# rig): builds a minimal plain Linux 6.12 bzImage and a busybox initramfs
# holding amx_diff, amx_sigill and the upstream selftests/x86/amx.c, boots
# them under TCG and checks the results.
#
# Usage: tests/emu/boot-test.sh [qemu-system-x86_64] [workdir]
#   qemu defaults to the output of kernel/qemu/build.sh,
#   workdir to /var/cache/libamx/h1-kernel.
# Needs: linux-source-6.12, busybox-static, cpio, gcc, bc bison flex
# libelf-dev libssl-dev.  Exit 0 when everything passed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QEMU=${1:-$("$ROOT/kernel/qemu/build.sh" | tail -1)}
W=${2:-/var/cache/libamx/h1-kernel}
KSRC=$W/linux-source-6.12
mkdir -p "$W"

if [ ! -f "$KSRC/arch/x86/boot/bzImage" ]; then
    [ -d "$KSRC" ] || tar -C "$W" -xf /usr/src/linux-source-6.12.tar.xz
    cat > "$W/frag.config" <<'EOF'
CONFIG_64BIT=y
CONFIG_PRINTK=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
CONFIG_TMPFS=y
CONFIG_FUTEX=y
CONFIG_MULTIUSER=y
CONFIG_SHMEM=y
CONFIG_SYSVIPC=y
CONFIG_POSIX_TIMERS=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_SMP=y
CONFIG_X86_DEBUG_FPU=y
CONFIG_PROC_PID_ARCH_STATUS=y
CONFIG_ACPI=y
CONFIG_PCI=y
CONFIG_UNIX=y
CONFIG_NET=y
EOF
    (cd "$KSRC" && make tinyconfig >/dev/null &&
     scripts/kconfig/merge_config.sh -m .config ../frag.config >/dev/null &&
     make olddefconfig >/dev/null && make -j2 bzImage >&2)
fi

RFS=$W/rootfs
rm -rf "$RFS"
mkdir -p "$RFS"/{bin,proc,sys,dev,tmp,tests}
cp /bin/busybox "$RFS/bin/"
for c in sh mount poweroff dmesg grep; do ln -s busybox "$RFS/bin/$c"; done
gcc -O2 -static -Wall -o "$RFS/tests/amx_diff" "$ROOT/tests/emu/amx_diff.c" -lm
gcc -O2 -static -Wall -o "$RFS/tests/amx_sigill" "$ROOT/tests/emu/amx_sigill.c"
(cd "$KSRC/tools/testing/selftests/x86" &&
 gcc -static -O2 -std=gnu99 -pthread -Wall -no-pie -I ../../../../tools/include \
     -o "$RFS/tests/zz_amx_selftest" amx.c -lrt -ldl)
cat > "$RFS/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
dmesg | grep -E "x86/fpu"
for t in /tests/*; do
  echo "=== RUN $t ==="
  "$t"; echo "=== EXIT $t rc=$? ==="
done
/tests/amx_diff bench
echo "=== DMESG CHECK ==="
dmesg | grep -E "WARNING|BUG|Oops|Call Trace" || echo "clean"
poweroff -f
EOF
chmod +x "$RFS/init"
(cd "$RFS" && find . | cpio -o -H newc 2>/dev/null | gzip) > "$W/initrd.gz"

LOG=$W/boot-test.log
timeout 900 "$QEMU" -L /usr/share/qemu -L /usr/share/seabios -nic none \
    -accel tcg -cpu "$(cat "$ROOT/kernel/qemu/cpu")" -m 512 -smp 2 \
    -kernel "$KSRC/arch/x86/boot/bzImage" -initrd "$W/initrd.gz" \
    -append "console=ttyS0 panic=-1" -nographic -no-reboot > "$LOG" 2>&1 || true
grep -E "Enabled xstate|=== EXIT|# [0-9]+ of|^not ok|\[FAIL\]|bench|clean|WARNING|BUG|Oops" "$LOG"

ok=1
grep -q "Enabled xstate features 0x6.*'compacted'" "$LOG" || ok=0
for t in amx_diff amx_sigill zz_amx_selftest; do
    grep -q "=== EXIT /tests/$t rc=0 ===" "$LOG" || ok=0
done
sed -n '/=== DMESG CHECK ===/,$p' "$LOG" | grep -q '^clean' || ok=0
[ $ok = 1 ] && echo "boot-test: PASS ($LOG)" || { echo "boot-test: FAIL ($LOG)"; exit 1; }
