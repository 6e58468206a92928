// SPDX-License-Identifier: MIT
/*
 * Runtime choice of the GEMM implementation and of its cache blocksizes.
 */
#include <cpuid.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"

#define XCR0_AVX512_STATE	0xe6u	/* SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM */

static int cpu_features = -1;	/* bit 0 avx512bf16, 1 avx512vnni, 2 avx2 */

static unsigned long long read_xcr0(void)
{
	unsigned int lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

static int cpu_probe(void)
{
	unsigned int a, b, c, d, f = 0;
	int avx512;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 0;
	if ((read_xcr0() & 6) != 6)		/* SSE and AVX state */
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	if (b & (1u << 5))
		f |= 4;		/* AVX2 */
	if ((read_xcr0() & XCR0_AVX512_STATE) != XCR0_AVX512_STATE)
		return f;
	/* AVX512F, AVX512BW, AVX512VL */
	avx512 = (b & (1u << 16)) && (b & (1u << 30)) && (b & (1u << 31));
	if (!avx512)
		return f;
	if (c & (1u << 11))
		f |= 2;		/* AVX512_VNNI */
	if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)))
		f |= 1;		/* AVX512_BF16 */
	return f;
}

static int cpu_get(void)
{
	int f = __atomic_load_n(&cpu_features, __ATOMIC_RELAXED);

	if (f < 0) {
		f = cpu_probe();
		__atomic_store_n(&cpu_features, f, __ATOMIC_RELAXED);
	}
	return f;
}

int gemm_cpu_avx512bf16(void)
{
	return cpu_get() & 1;
}

int gemm_cpu_avx512vnni(void)
{
	return !!(cpu_get() & 2);
}

int gemm_cpu_avx2(void)
{
	return !!(cpu_get() & 4);
}

/*
 * AMX_FORCE_FALLBACK=1 avoids AMX, =c also avoids AVX-512; other values are
 * ignored (amx__force_fallback()).  Read at each call so a process can
 * switch (tests do).
 */
int gemm_select_backend(enum gemm_op op)
{
	bool ignored;
	int mode = amx__force_fallback(&ignored);
	int force = mode != AMX_FORCE_NONE, force_c = mode == AMX_FORCE_C;

	if (!force && amx_status() == 0)
		return AMX_GEMM_BACKEND_AMX;
	if (!force_c) {
		if (op == GEMM_OP_BF16 && gemm_cpu_avx512bf16())
			return AMX_GEMM_BACKEND_AVX512;
		if (op != GEMM_OP_BF16 && gemm_cpu_avx512vnni())
			return AMX_GEMM_BACKEND_AVX512;
	}
	return AMX_GEMM_BACKEND_C;
}

__attribute__((visibility("default")))
int amx_gemm_backend(enum amx_gemm_type type)
{
	if (type == AMX_GEMM_BF16)
		return gemm_select_backend(GEMM_OP_BF16);
	if (type == AMX_GEMM_S8)
		return gemm_select_backend(GEMM_OP_S8S8);
	return -EINVAL;
}

/* cache sizes in bytes: sysconf, else CPUID leaf 4, else a guess */
static long cache_size(int level)
{
	static const int names[] = { _SC_LEVEL1_DCACHE_SIZE,
				     _SC_LEVEL2_CACHE_SIZE,
				     _SC_LEVEL3_CACHE_SIZE };
	static const long guess[] = { 32 << 10, 1 << 20, 8 << 20 };
	unsigned int a, b, c, d;
	long v = sysconf(names[level - 1]);

	if (v > 0)
		return v;
	for (unsigned int i = 0; i < 16; i++) {
		if (!__get_cpuid_count(4, i, &a, &b, &c, &d) || !(a & 0x1f))
			break;
		if ((int)((a >> 5) & 7) == level && (a & 0x1f) != 2)
			return (long)(((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
				      ((b & 0xfff) + 1) * (c + 1));
	}
	return guess[level - 1];
}

static struct gemm_blocks blocks_cache[2];
static int blocks_ready[2];

/*
 * kc: a B micro-panel (kc x NR) the size of L1 (measured ~8 % faster on
 * Zen 4 than half of L1: fewer passes over C and fewer packing calls per
 * flop); mc: the packed A block (mc x kc) half of L2; nc: the packed B
 * block (kc x nc) a quarter of L3.
 */
void gemm_blocks_get(enum gemm_op op, struct gemm_blocks *bs)
{
	int i = op == GEMM_OP_BF16 ? 0 : 1;
	size_t esz = i ? 1 : 2;

	if (!__atomic_load_n(&blocks_ready[i], __ATOMIC_ACQUIRE)) {
		long l1 = cache_size(1), l2 = cache_size(2), l3 = cache_size(3);
		struct gemm_blocks b;

		b.kc = (size_t)l1 / (GEMM_NR * esz) / 64 * 64;
		if (b.kc < 128)
			b.kc = 128;
		if (b.kc > 1024)
			b.kc = 1024;
		b.mc = (size_t)l2 / 2 / (b.kc * esz) / 96 * 96;
		if (b.mc < 96)
			b.mc = 96;
		if (b.mc > 1920)
			b.mc = 1920;
		b.nc = (size_t)l3 / 4 / (b.kc * esz) / GEMM_NR * GEMM_NR;
		if (b.nc < 256)
			b.nc = 256;
		if (b.nc > 4096)
			b.nc = 4096;
		blocks_cache[i] = b;
		__atomic_store_n(&blocks_ready[i], 1, __ATOMIC_RELEASE);
	}
	*bs = blocks_cache[i];
}
