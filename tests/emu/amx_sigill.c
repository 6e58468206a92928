// SPDX-License-Identifier: MIT
/*
 * amx_sigill - the kernel's XFD path for AMX, end to end.
 *
 * A process that has not asked for XTILEDATA permission may configure
 * tiles (LDTILECFG) but gets SIGILL on the first instruction that touches
 * tile data: the kernel arms IA32_XFD[18], the CPU raises #NM with
 * IA32_XFD_ERR[18] set, and the kernel turns that into SIGILL.  After
 * arch_prctl(ARCH_REQ_XCOMP_PERM, 18) the same code runs and computes.
 * Each run is a forked child whose SIGILL handler reports the stage that
 * faulted and exits: nothing jumps out of a handler, and an alarm bounds
 * the program.
 *
 * Build: gcc -O2 -static -o amx_sigill amx_sigill.c
 * Output: TAP.  Exit 0 pass, 1 fail, 4 skip (no AMX).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "emu.h"

static volatile int stage = -1; /* which instruction was about to run */

/* Shared with the children: [0] faulting stage, [1] si_code, [2..] result */
static volatile int32_t *shared;

static void on_sigill(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (stage < 0) {
		tap_bail_out("SIGILL outside the AMX sequence");
	}
	shared[0] = stage;
	shared[1] = si->si_code;
	_exit(1);
}

/* Returns the stage that raised SIGILL, or -1 if all ran.  */
static int run_amx(int32_t *out)
{
	static struct tmodel_cfg c;
	static int8_t a[4][16], b[4][16];
	int i, j;

	memset(&c, 0, sizeof(c));
	c.palette = 1;
	c.rows[0] = 4;
	c.colsb[0] = 16;
	c.rows[1] = 4;
	c.colsb[1] = 16;
	c.rows[2] = 4;
	c.colsb[2] = 16;
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 16; j++) {
			a[i][j] = (int8_t)(i + j - 7);
			b[i][j] = (int8_t)(3 * i - j);
		}
	}
	stage = 0;
	asm volatile("ldtilecfg (%0)" ::"r"(&c) : "memory");
	stage = 1;
	asm volatile("tileloadd (%0,%1,1), %%tmm1" ::"r"(a), "r"(16L)
		     : "memory");
	stage = 2;
	asm volatile("tileloadd (%0,%1,1), %%tmm2" ::"r"(b), "r"(16L)
		     : "memory");
	stage = 3;
	asm volatile("tilezero %%tmm0" ::: "memory");
	stage = 4;
	asm volatile("tdpbssd %%tmm2, %%tmm1, %%tmm0" ::: "memory");
	stage = 5;
	asm volatile("tilestored %%tmm0, (%0,%1,1)" ::"r"(out), "r"(16L)
		     : "memory");
	stage = 6;
	asm volatile("tilerelease" ::: "memory");
	stage = -1;
	return -1;
}

/*
 * Run the AMX sequence in a child.  Returns the stage that got SIGILL
 * (*code: its si_code), -1 if it ran through (result in shared + 2), or
 * 100 + anything else that happened to the child.
 */
static int run_child(int *code)
{
	struct sigaction sa;
	int status;
	pid_t pid;

	shared[0] = shared[1] = -1;
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigill;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGILL, &sa, NULL);
		run_amx((int32_t *)(shared + 2));
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		return 100;
	}
	*code = shared[1];
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
		return shared[0];
	}
	return 100 +
	       (WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static int check_result(const int32_t *out)
{
	int m, n, k, i;

	for (m = 0; m < 4; m++) {
		for (n = 0; n < 4; n++) {
			int32_t s = 0;
			for (k = 0; k < 4; k++) {
				for (i = 0; i < 4; i++) {
					s += (int8_t)(m + 4 * k + i - 7) *
					     (int8_t)(3 * k - (4 * n + i));
				}
			}
			if (out[m * 4 + n] != s) {
				return 0;
			}
		}
	}
	return 1;
}

int main(void)
{
	unsigned a, b, c, d;
	unsigned long supp = 0, perm = 0;
	int st, code = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1u << 24)) || !(d & (1u << 25))) {
		tap_skip_all("AMX-TILE/INT8 not enumerated by CPUID");
	}
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supp) ||
	    !(supp & (1UL << XFEATURE_XTILEDATA))) {
		tap_skip_all("the kernel does not support AMX state");
	}
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		tap_bail_out("mmap failed");
	}
	tap_plan(6);

	syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm);
	tap_ok(!(perm & (1UL << XFEATURE_XTILEDATA)),
	       "XTILEDATA not permitted by default (%#lx)", perm);

	st = run_child(&code);
	tap_ok(st == 1,
	       "without permission: LDTILECFG runs, the first TILELOADD "
	       "gets SIGILL (stage that faulted: %d)",
	       st);
	tap_ok(st == 1 && code == ILL_ILLOPC,
	       "without permission: the SIGILL is "
	       "XFD's #NM, si_code ILL_ILLOPC (%d), not a #UD",
	       code);

	tap_ok(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM,
		       XFEATURE_XTILEDATA) == 0,
	       "ARCH_REQ_XCOMP_PERM(XTILEDATA) succeeds");

	memset((void *)(shared + 2), 0, 16 * sizeof(int32_t));
	st = run_child(&code);
	tap_ok(st == -1,
	       "with permission (inherited by the child): all AMX "
	       "instructions run (faulting stage %d)",
	       st);
	tap_ok(st == -1 && check_result((const int32_t *)(shared + 2)),
	       "with permission: TDPBSSD result correct (%d)", shared[2]);
	tap_done();
}
