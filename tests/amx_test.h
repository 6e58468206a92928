/* SPDX-License-Identifier: MIT */
/* Helpers shared by libamx's test programs. */
#ifndef AMX_TEST_H
#define AMX_TEST_H

#include <amx.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

/* Exit 4 unless this machine and kernel can run AMX tile instructions. */
static inline void amx_test_need_amx(void)
{
	int ret = amx_status();

	if (ret == -EOPNOTSUPP || ret == -EINVAL)
		tap_skip_all(amx_strerror(ret));
}

/*
 * amx_request() for a program that needs AMX: returns when it is granted;
 * exits 4 (skip) only when AMX is absent here (-EOPNOTSUPP: not in the CPU
 * or not enabled by the kernel; -EINVAL: a kernel without the permission
 * calls); any other refusal (-ENOSPC, -EPERM, -ENOMEM, ...) on a machine
 * that has AMX is a failure: "Bail out!" with the reason, exit 1.
 */
static inline void amx_test_request(void)
{
	int ret = amx_request();

	if (!ret)
		return;
	if (ret == -EOPNOTSUPP || ret == -EINVAL)
		tap_skip_all(amx_strerror(ret));
	tap_bail_out(amx_strerror(ret));
}

/* Raw ARCH_GET_XCOMP_PERM, bypassing the library. */
static inline uint64_t amx_test_perm(void)
{
	unsigned long mask = 0;

	if (syscall(SYS_arch_prctl, 0x1022, &mask))
		return 0;
	return mask;
}

#define AMX_TEST_TILEDATA (1ull << 18)

/* Deterministic pseudo-random numbers (xorshift64*). */
static inline uint64_t amx_test_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/* the bits of an fp32 and back */
static inline uint32_t amx_test_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float amx_test_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * The tests' own bf16 reference, independent of the library's converter:
 * fp32 -> bf16 rounding to nearest even (finite inputs), bf16 -> fp32
 * exactly.
 */
static inline uint16_t amx_test_f2bf(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static inline float amx_test_bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

#endif /* AMX_TEST_H */
