/* SPDX-License-Identifier: MIT */
/*
 * Guest half of the migration test (tests/emu/amx_migrate.py): loads all
 * eight tiles with a known pattern (and one TDPBSSD result), prints
 * "AMX-MIGRATE READY" and then keeps checking the live tile registers
 * for a few seconds of guest time, while the host stops the VM, migrates
 * it to a file, and resumes it from that file in a new QEMU.  The tiles
 * stay loaded in the CPU the whole time, so a QEMU that does not carry
 * the tile state across migration loses them.  Prints "AMX-MIGRATE PASS"
 * or "AMX-MIGRATE FAIL ..." and exits 0/1; exits 4 without AMX.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "../tap.h"
#include "emu.h"


static uint8_t want[8][16][64], got[8][16][64];

#define LOAD(t) asm volatile("tileloadd (%0,%1,1), %%tmm" #t \
			     :: "r"(want[t]), "r"(64L) : "memory")
#define STORE(t) asm volatile("tilestored %%tmm" #t ", (%0,%1,1)" \
			      :: "r"(got[t]), "r"(64L) : "memory")

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int check(void)
{
	int t;

	memset(got, 0, sizeof(got));
	STORE(0); STORE(1); STORE(2); STORE(3);
	STORE(4); STORE(5); STORE(6); STORE(7);
	for (t = 0; t < 8; t++)
		if (memcmp(got[t], want[t], sizeof(got[t])))
			return t;
	return -1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 8.0, t0;
	unsigned int a, b, c, d, t, r, i;
	unsigned long loops = 0;
	struct tmodel_cfg cfg;
	int bad;

	setvbuf(stdout, NULL, _IOLBF, 0);
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1u << 24)) || !(d & (1u << 25)) ||
	    syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)) {
		printf("AMX-MIGRATE SKIP no AMX\n");
		return TAP_SKIP;
	}
	emu_cfg_all(&cfg, 16, 64);
	for (t = 0; t < 8; t++)
		for (r = 0; r < 16; r++)
			for (i = 0; i < 64; i++)
				want[t][r][i] = (uint8_t)(t * 37 + r * 11 + i * 3 + 1);
	asm volatile("ldtilecfg %0" :: "m"(cfg));
	LOAD(0); LOAD(1); LOAD(2); LOAD(3);
	LOAD(4); LOAD(5); LOAD(6); LOAD(7);
	/* tmm7 becomes tmm7 + tmm5 . tmm6; its expected value from the tile. */
	asm volatile("tdpbssd %%tmm6, %%tmm5, %%tmm7" ::: "memory");
	STORE(7);
	memcpy(want[7], got[7], sizeof(want[7]));
	bad = check();
	if (bad >= 0) {
		printf("AMX-MIGRATE FAIL tmm%d wrong before migration\n", bad);
		return TAP_FAIL;
	}
	printf("AMX-MIGRATE READY\n");
	t0 = now();
	while (now() - t0 < secs) {
		for (i = 0; i < 100000; i++)
			asm volatile("" ::: "memory");
		bad = check();
		loops++;
		if (bad >= 0) {
			printf("AMX-MIGRATE FAIL tmm%d lost after %lu checks (%.1f s)\n",
			       bad, loops, now() - t0);
			return TAP_FAIL;
		}
	}
	printf("AMX-MIGRATE PASS %lu checks over %.1f s\n", loops, now() - t0);
	return TAP_PASS;
}
