/* SPDX-License-Identifier: MIT */
/*
 * xcomp_abi - the kernel's AMX ABI around a process, end to end: what
 * amx-run's emulator must reproduce, checked natively on AMX silicon too.
 *
 * - ARCH_GET_XCOMP_SUPP names XTILECFG and XTILEDATA; before a request
 *   the permitted set has XTILECFG but not XTILEDATA;
 * - ARCH_REQ_XCOMP_PERM: a component past the last one or an unknown
 *   option is -EINVAL, XTILECFG alone -EOPNOTSUPP, and an installed
 *   sigaltstack too small for the larger frame -ENOSPC (nothing granted);
 * - signal frames: before the first tile instruction the frame's XSAVE
 *   features lack XTILEDATA, after it they have it, and tile data that a
 *   handler changes in the frame is what the program finds on return;
 * - fork: the child keeps the permission and the tile configuration, and
 *   starts with tile data in its init state (zeros);
 * - execve: the new program starts without the permission and runs on
 *   the same CPU (the same CPUID vendor and brand) as its parent: under
 *   amx-run, still emulated.
 *
 * Output: TAP.  Exit 0 pass, 1 fail, 4 skip (no AMX).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "../tap.h"
#include "emu.h"

#define XTILECFG	(1ull << 17)
#define XTILEDATA	(1ull << 18)
#define XSTATE_MAGIC1 0x46505853u
#define XTILEDATA_OFFSET 2816	/* standard format, CPUID(0xD,18).EBX */

static long xcomp(int code, unsigned long arg)
{
	return syscall(SYS_arch_prctl, code, arg) ? -errno : 0;
}

static uint64_t perm(void)
{
	uint64_t m = 0;

	if (xcomp(ARCH_GET_XCOMP_PERM, (unsigned long)&m))
		return 0;
	return m;
}

/* CPUID vendor and brand string: who runs this program */
static void cpu_name(char *buf, size_t len)
{
	unsigned int r[12] = { 0 }, a, b, c, d, i;
	char v[13] = { 0 }, brand[49] = { 0 };

	__cpuid(0, a, b, c, d);
	memcpy(v, &b, 4);
	memcpy(v + 4, &d, 4);
	memcpy(v + 8, &c, 4);
	for (i = 0; i < 3; i++)
		__cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2],
			r[4 * i + 3]);
	memcpy(brand, r, 48);
	for (i = 0; brand[i]; i++)
		if (brand[i] == ' ')
			brand[i] = '_';
	snprintf(buf, len, "%s/%s", v, brand);
}

static struct tmodel_cfg tcfg;
static uint8_t tile_in[16][64], tile_out[16][64];

static void tiles_load(void)
{
	emu_cfg_all(&tcfg, 16, 64);
	asm volatile("ldtilecfg (%0)" ::"r"(&tcfg) : "memory");
	asm volatile("tileloadd (%0,%1,1), %%tmm0" ::"r"(tile_in), "r"(64L)
		     : "memory");
}

static void tile0_store(void)
{
	asm volatile("tilestored %%tmm0, (%0,%1,1)" ::"r"(tile_out), "r"(64L)
		     : "memory");
}

/* what the SIGUSR1 handler saw in its frame */
static volatile uint32_t seen_magic;
static volatile uint64_t seen_xfeatures, seen_bv;
static volatile int patch_tile;

static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint8_t *fx = (uint8_t *)uc->uc_mcontext.fpregs;

	(void)sig;
	(void)si;
	seen_magic = *(uint32_t *)(fx + 464);
	seen_xfeatures = *(uint64_t *)(fx + 464 + 8);
	seen_bv = *(uint64_t *)(fx + 512);
	/* tile 0 row 0 byte 0 lives at the start of XTILEDATA */
	if (patch_tile && (seen_xfeatures & XTILEDATA) && (seen_bv & XTILEDATA))
		fx[XTILEDATA_OFFSET] ^= 0xff;
}

/* the execve'd child: 0, or 2 another CPU, 3 the permission kept */
static int child_exec(const char *parent_cpu)
{
	char me[128];

	cpu_name(me, sizeof(me));
	if (strcmp(me, parent_cpu)) {
		fprintf(stderr, "child CPU %s, parent's %s\n", me, parent_cpu);
		return 2;
	}
	return perm() & XTILEDATA ? 3 : 0;
}

int main(int argc, char **argv)
{
	uint64_t supp = 0, before;
	struct sigaction sa = { 0 };
	stack_t ss = { 0 };
	char name[128];
	int status, i;
	long ret;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--exec-child"))
		return child_exec(argv[2]);

	if (xcomp(ARCH_GET_XCOMP_SUPP, (unsigned long)&supp) ||
	    (supp & (XTILECFG | XTILEDATA)) != (XTILECFG | XTILEDATA))
		tap_skip_all("the kernel does not support AMX state");
	tap_plan(18);

	before = perm();
	tap_ok((before & XTILECFG) && !(before & XTILEDATA),
	       "before a request XTILECFG is permitted, XTILEDATA not (0x%llx)",
	       (unsigned long long)before);
	tap_ok(xcomp(ARCH_REQ_XCOMP_PERM, 64) == -EINVAL,
	       "a component past the last: -EINVAL");
	tap_ok(xcomp(ARCH_REQ_XCOMP_PERM, 17) == -EOPNOTSUPP,
	       "XTILECFG alone: -EOPNOTSUPP");
	tap_ok(xcomp(0x10ff, 0) == -EINVAL, "an unknown arch_prctl option: -EINVAL");

	/* a 4 KiB sigaltstack blocks the request */
	ss.ss_size = 4096;
	ss.ss_sp = malloc(ss.ss_size);
	sigaltstack(&ss, NULL);
	ret = xcomp(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
	tap_ok(ret == -ENOSPC && !(perm() & XTILEDATA),
	       "a 4 KiB sigaltstack: -ENOSPC, nothing granted (%ld)", ret);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(ss.ss_sp);

	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	tap_ok(seen_magic == XSTATE_MAGIC1 && !(seen_xfeatures & XTILEDATA),
	       "frame before any request: XSAVE features 0x%llx lack XTILEDATA",
	       (unsigned long long)seen_xfeatures);

	ret = xcomp(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
	tap_ok(!ret && (perm() & XTILEDATA), "without the small stack: granted (%ld)", ret);
	raise(SIGUSR1);
	tap_ok(!(seen_xfeatures & XTILEDATA),
	       "frame after the grant, before the first tile use: no XTILEDATA (0x%llx)",
	       (unsigned long long)seen_xfeatures);

	for (i = 0; i < 16 * 64; i++)
		tile_in[i / 64][i % 64] = (uint8_t)(i * 7 + 1);
	tiles_load();
	patch_tile = 1;
	raise(SIGUSR1);
	patch_tile = 0;
	tap_ok((seen_xfeatures & XTILEDATA) && (seen_bv & XTILEDATA),
	       "frame after the first tile use: XTILEDATA saved (features 0x%llx, bv 0x%llx)",
	       (unsigned long long)seen_xfeatures, (unsigned long long)seen_bv);
	tile0_store();
	tap_ok(tile_out[0][0] == (uint8_t)~tile_in[0][0] &&
	       !memcmp(&tile_out[0][1], &tile_in[0][1], sizeof(tile_in) - 1),
	       "tile data changed in the frame is restored by sigreturn");

	/* fork: permission and configuration inherited, tile data init */
	pid = fork();
	if (!pid) {
		uint8_t zero[16][64] = { { 0 } };

		memset(tile_out, 0x55, sizeof(tile_out));
		if (!(perm() & XTILEDATA))
			_exit(10);
		tile0_store();
		_exit(memcmp(tile_out, zero, sizeof(zero)) ? 11 : 0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) != 10,
	       "fork: the child keeps the permission");
	tap_ok(WIFEXITED(status) && !WEXITSTATUS(status),
	       "fork: the child's tile data starts zeroed, its configuration kept (status 0x%x)",
	       status);
	tile0_store();
	tap_ok(tile_out[0][1] == tile_in[0][1], "the parent's tile data is untouched");

	/* execve: permission reset, same CPU */
	cpu_name(name, sizeof(name));
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", argv[0], "--exec-child", name, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) != 2,
	       "execve: the new program runs on the parent's CPU (%s)", name);
	tap_ok(WIFEXITED(status) && !WEXITSTATUS(status),
	       "execve: the new program starts without the permission (status 0x%x)",
	       status);

	/* AT_MINSIGSTKSZ counts the tile data; such a stack is accepted */
	ss.ss_size = getauxval(AT_MINSIGSTKSZ);
	tap_ok(ss.ss_size > 8192 + 2816, "AT_MINSIGSTKSZ %zu counts the tile data",
	       ss.ss_size);
	ss.ss_sp = malloc(ss.ss_size + 4096);
	ss.ss_size += 4096;
	ss.ss_flags = 0;
	tap_ok(!sigaltstack(&ss, NULL), "an AT_MINSIGSTKSZ + 4 KiB sigaltstack is accepted");
	ss.ss_size = 4096;
	tap_ok(sigaltstack(&ss, NULL) == -1 && errno == ENOMEM,
	       "a 4 KiB sigaltstack is refused once AMX is permitted (ENOMEM)");
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(ss.ss_sp);
	return tap_finish();
}
