#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tile state survives migration (kernel/qemu): boot the guest with
tests/emu/amx_migrate.c as init's only job; once it reports its tiles
loaded, stop the VM, save it with  migrate "exec:cat > FILE", quit, start a
new QEMU with  -incoming "exec:cat FILE", continue, and expect the guest
program to find every tile intact.

  amx_migrate.py SRCDIR [WORKDIR]

QEMU: $AMX_QEMU (+ $AMX_QEMU_CPU), else kernel/qemu/build.sh's binary with
kernel/qemu/cpu; kernel: kernel/rig/build-kernel.sh (both cached).  Exit
0 pass, 1 fail (also: the patched QEMU does not build, or a QEMU that was
to give the guest AMX did not), 4 skip (AMX_NO_PATCHED_QEMU=1, or an
AMX_QEMU -cpu without amx-tile: no AMX in the guest)."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP, FAIL = 4, 1


def log(msg):
    print("# amx_migrate: " + msg, flush=True)


def out(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip().splitlines()[-1]


class Monitor:
    """HMP over a unix socket."""

    def __init__(self, path, timeout=30):
        end = time.time() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                if time.time() > end:
                    raise
                time.sleep(0.1)
        self.s.settimeout(60)
        self.read_prompt()

    def read_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(4096)
            if not chunk:
                break
            buf += chunk
        return buf.decode(errors="replace")

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        return self.read_prompt()


def wait_for(path, words, timeout, proc=None):
    end = time.time() + timeout
    while time.time() < end:
        try:
            text = open(path, errors="replace").read()
        except OSError:
            text = ""
        for w in words:
            if w in text:
                return w
        if proc is not None and proc.poll() is not None:
            time.sleep(0.2)
            text = open(path, errors="replace").read()
            for w in words:
                if w in text:
                    return w
            return None
        time.sleep(0.1)
    return None


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="amx-migrate.")
    os.makedirs(work, exist_ok=True)
    signal.alarm(300)

    # As kernel/rig/run-guest.sh: the patched QEMU is expected; a build
    # that fails is a failure, only AMX_NO_PATCHED_QEMU=1 may skip.
    qemu = os.environ.get("AMX_QEMU")
    if not qemu:
        if os.environ.get("AMX_NO_PATCHED_QEMU") == "1":
            print("1..0 # SKIP AMX_NO_PATCHED_QEMU=1: no patched QEMU, no AMX to migrate")
            return SKIP
        r = subprocess.run([os.path.join(src, "kernel/qemu/build.sh")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = r.stdout.strip().splitlines()
        if r.returncode or not lines:
            for line in r.stderr.splitlines()[-20:]:
                print("# | " + line)
            print("1..1\nnot ok 1 - the patched QEMU did not build (kernel/qemu/build.sh exit %d)"
                  % r.returncode)
            return FAIL
        qemu = lines[-1]
    cpu = os.environ.get("AMX_QEMU_CPU") or open(os.path.join(src, "kernel/qemu/cpu")).read().strip()
    expect_amx = not os.environ.get("AMX_QEMU") or "amx-tile" in cpu
    kdir = out([os.path.join(src, "kernel/rig/build-kernel.sh")])

    # initramfs: busybox and the guest program as /init's only job
    root = os.path.join(work, "root")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev", "tmp"):
        os.makedirs(os.path.join(root, d))
    shutil.copy("/bin/busybox", os.path.join(root, "bin/busybox"))
    prog = os.path.join(root, "amx_migrate")
    subprocess.run(["gcc", "-O2", "-static", "-o", prog,
                    os.path.join(src, "tests/emu/amx_migrate.c")], check=True)
    with open(os.path.join(root, "init"), "w") as f:
        f.write("#!/bin/busybox sh\n/bin/busybox --install -s /bin\n"
                "mount -t proc proc /proc\nmount -t devtmpfs dev /dev 2>/dev/null\n"
                "/amx_migrate 8; echo \"AMX-MIGRATE EXIT $?\"\npoweroff -f\n")
    os.chmod(os.path.join(root, "init"), 0o755)
    initrd = os.path.join(work, "initrd.cpio.gz")
    subprocess.run("cd '%s' && find . | cpio -o -H newc --quiet | gzip -1 > '%s'"
                   % (root, initrd), shell=True, check=True)

    state = os.path.join(work, "vm.state")
    base = [qemu, "-L", "/usr/share/qemu", "-L", "/usr/share/seabios",
            "-accel", "tcg", "-cpu", cpu, "-smp", "1", "-m", "256M",
            "-kernel", os.path.join(kdir, "bzImage"), "-initrd", initrd,
            "-append", "console=ttyS0 panic=-1 rdinit=/init",
            "-nic", "none", "-display", "none", "-no-reboot"]

    def start(tag, extra):
        con = os.path.join(work, tag + ".log")
        mon = os.path.join(work, tag + ".mon")
        for p in (con, mon):
            if os.path.exists(p):
                os.unlink(p)
        p = subprocess.Popen(base + ["-serial", "file:" + con,
                                     "-monitor", "unix:%s,server,nowait" % mon] + extra,
                             stdout=open(os.path.join(work, tag + ".out"), "w"),
                             stderr=subprocess.STDOUT)
        return p, con, Monitor(mon)

    log("source: %s -cpu %s" % (qemu, cpu))
    p, con, mon = start("source", [])
    got = wait_for(con, ["AMX-MIGRATE READY", "AMX-MIGRATE SKIP", "AMX-MIGRATE FAIL"], 180, p)
    if got != "AMX-MIGRATE READY":
        p.kill()
        print(open(con, errors="replace").read()[-2000:])
        if got == "AMX-MIGRATE SKIP" and expect_amx:
            print("1..1\nnot ok 1 - the guest has no AMX, but %s -cpu %s was to provide it"
                  % (qemu, cpu))
            return FAIL
        if got == "AMX-MIGRATE SKIP":
            print("1..0 # SKIP the guest has no AMX")
            return SKIP
        log("the guest did not get ready (%s)" % got)
        return FAIL
    mon.cmd("stop")
    mon.cmd("migrate_set_parameter max-bandwidth 10G")
    mon.cmd('migrate "exec:cat > %s"' % state)
    end = time.time() + 120
    while "completed" not in mon.cmd("info migrate"):
        if time.time() > end:
            log("migration to %s did not complete" % state)
            p.kill()
            return FAIL
        time.sleep(0.2)
    mon.cmd("quit")
    p.wait(30)
    log("saved %d bytes; resuming in a new QEMU" % os.path.getsize(state))

    p, con2, mon = start("dest", ["-incoming", "exec:cat %s" % state])
    end = time.time() + 120
    while "paused" not in mon.cmd("info status") and "running" not in mon.cmd("info status"):
        if time.time() > end:
            log("incoming migration did not finish")
            p.kill()
            return FAIL
        time.sleep(0.2)
    # wait until the incoming state is loaded, then continue
    while "inmigrate" in mon.cmd("info status"):
        time.sleep(0.2)
    mon.cmd("cont")
    got = wait_for(con2, ["AMX-MIGRATE PASS", "AMX-MIGRATE FAIL"], 180, p)
    try:
        p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()
    text = open(con2, errors="replace").read()
    for line in text.splitlines():
        if "AMX-MIGRATE" in line:
            log("guest: " + line.strip())
    if got == "AMX-MIGRATE PASS" and "AMX-MIGRATE EXIT 0" in text:
        print("ok 1 - tile state survives migration to a file and back")
        return 0
    print("not ok 1 - tile state survives migration (%s)" % got)
    return FAIL


if __name__ == "__main__":
    sys.exit(main())
