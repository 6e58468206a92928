/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the GEMM tests: random matrices, the double/int64
 * oracle, guarded C buffers and the bf16 error bound.  TAP output, the
 * random numbers and the bf16 reference come from tap.h and amx_test.h,
 * as for every other test program.
 */
#ifndef GEMM_TEST_COMMON_H
#define GEMM_TEST_COMMON_H

#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amx.h>
#include "amx_test.h"

/* helpers a given test may not use */
#define T_FN static __attribute__((unused))

static uint64_t t_rng = 0x9e3779b97f4a7c15ull;

T_FN uint32_t t_rand(void)
{
	return (uint32_t)(amx_test_rand(&t_rng) >> 32);
}

T_FN uint16_t t_f2bf(float f)
{
	return amx_test_f2bf(f);
}

T_FN double t_bf2d(uint16_t h)
{
	return amx_test_bf2f(h);
}

/* values in (-4, 4), multiples of 2^-14 rounded to bf16; never subnormal */
T_FN void t_fill_bf16(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = t_f2bf(((int32_t)t_rand() % 65536) / 16384.0f);
}

/*
 * Quarters in [-2, 2] (each exact in bf16): every product is a multiple of
 * 1/16 of magnitude at most 4, so every partial sum of up to 2^18 of them
 * (plus a C of quarters below 2^10) is a multiple of 1/16 below 2^20:
 * exact in fp32 in any order.  A GEMM on such inputs must give the exact
 * product, so a precision bug cannot hide under the error bound, which
 * grows with K.
 */
T_FN void t_fill_bf16_exact(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = t_f2bf((float)((int32_t)(t_rand() % 17) - 8) / 4.0f);
}

/*
 * fp16, decoded here independently of the library: (-1)^s 2^(e-15) 1.m, or
 * 2^-14 0.m for e = 0.  The tests never make infinities or NaNs.
 */
T_FN double t_h2d(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

/*
 * fp16 in (-4, 4): 1/16 of them denormal (the kernels must convert those
 * exactly), the others with exponents 2^-4 .. 2^1 and random fractions.
 */
T_FN void t_fill_f16(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t r = t_rand();
		uint32_t e = (r >> 11) % 16 ? 11 + (r >> 16) % 6 : 0;

		p[i] = (uint16_t)((r & 0x8000) | e << 10 | (r & 0x3ff));
	}
}

/* the quarters of t_fill_bf16_exact() in fp16: (-1)^s |q| 2^-2 */
T_FN void t_fill_f16_exact(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int q = (int)(t_rand() % 17) - 8, aq = q < 0 ? -q : q, e = 0;

		while ((aq >> e) > 1)
			e++;
		p[i] = !q ? 0 : (uint16_t)((q < 0 ? 0x8000 : 0) |
					   (e - 2 + 15) << 10 |
					   ((aq << (10 - e)) & 0x3ff));
	}
}

T_FN void t_fill_i8(int8_t *p, size_t n, int extremes)
{
	for (size_t i = 0; i < n; i++)
		p[i] = extremes ? ((t_rand() & 1) ? -128 : 127) :
			(int8_t)t_rand();
}

/* guarded C: GUARD elements before and after, ld >= n, pattern elsewhere */
#define T_GUARD 64
#define T_PATTERN 0x7fa5a5a5u

T_FN uint32_t *t_c_alloc(size_t m, size_t ldc, uint32_t **c)
{
	size_t total = m * ldc + 2 * T_GUARD;
	uint32_t *base = malloc(total * 4 + 4);

	for (size_t i = 0; i < total; i++)
		base[i] = T_PATTERN;
	*c = base + T_GUARD;
	return base;
}

/* everything outside the m x n window must still hold the pattern */
T_FN int t_c_guard_ok(const uint32_t *base, size_t m, size_t n, size_t ldc)
{
	size_t total = m * ldc + 2 * T_GUARD;

	for (size_t i = 0; i < total; i++) {
		size_t off = i - T_GUARD;
		int inside = i >= T_GUARD && off < m * ldc && off % ldc < n;

		if (!inside && base[i] != T_PATTERN)
			return 0;
	}
	return 1;
}

/*
 * Documented bound for bf16 (amx_gemm_bf16(3)): every product of two bf16 is
 * exact in fp32, only the fp32 additions round (plus DAZ/FTZ on AMX and
 * vdpbf16ps), and each element sees at most K + K/KC + 1 of them, so
 * |c - exact| <= 2 (K + 2) 2^-24 (|c0| + sum_k |a_ik b_kj|).  With @exact
 * (inputs from t_fill_bf16_exact()) the bound is 0.
 */
T_FN int t_check_16_x(size_t m, size_t n, size_t k, const uint16_t *a,
		      size_t lda, const uint16_t *b, size_t ldb,
		      const float *c0, const float *c, size_t ldc, int acc,
		      double *worst, int exact, double (*dec)(uint16_t))
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double s = 0, mag = 0, init = acc ? c0[i * ldc + j] : 0;
			double err, tol;

			for (size_t p = 0; p < k; p++) {
				double t = dec(a[i * lda + p]) *
					   dec(b[p * ldb + j]);
				s += t;
				mag += fabs(t);
			}
			s += init;
			mag += fabs(init);
			err = fabs(c[i * ldc + j] - s);
			tol = exact ? 0 : 2.0 * (k + 2) * ldexp(1.0, -24) * mag;
			if (worst && mag > 0 && err / mag > *worst)
				*worst = err / mag;
			if (!(err <= tol)) {
				printf("# c[%zu][%zu] = %.9g, exact %.9g, tol %.3g\n",
				       i, j, c[i * ldc + j], s, tol);
				return 0;
			}
		}
	return 1;
}

/*
 * fp16 (amx_gemm_f16(3)): the same bound, for the same reason: a product
 * of two fp16 (11 significant bits each) is exact in fp32.
 */
T_FN int t_check_bf16_x(size_t m, size_t n, size_t k, const uint16_t *a,
			size_t lda, const uint16_t *b, size_t ldb,
			const float *c0, const float *c, size_t ldc, int acc,
			double *worst, int exact)
{
	return t_check_16_x(m, n, k, a, lda, b, ldb, c0, c, ldc, acc, worst,
			    exact, t_bf2d);
}

T_FN int t_check_bf16(size_t m, size_t n, size_t k, const uint16_t *a,
			size_t lda, const uint16_t *b, size_t ldb,
			const float *c0, const float *c, size_t ldc, int acc,
			double *worst)
{
	return t_check_bf16_x(m, n, k, a, lda, b, ldb, c0, c, ldc, acc, worst,
			      0);
}

/* int8: exact modulo 2^32 */
T_FN int t_check_i8(size_t m, size_t n, size_t k, const void *a, int a_u8,
		      size_t lda, const int8_t *b, size_t ldb,
		      const int32_t *c0, const int32_t *c, size_t ldc, int acc)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			uint32_t s = acc ? (uint32_t)c0[i * ldc + j] : 0;

			for (size_t p = 0; p < k; p++) {
				int32_t av = a_u8 ? ((const uint8_t *)a)[i * lda + p] :
					     ((const int8_t *)a)[i * lda + p];

				s += (uint32_t)(av * b[p * ldb + j]);
			}
			if ((uint32_t)c[i * ldc + j] != s) {
				printf("# c[%zu][%zu] = %d, expected %d\n", i, j,
				       c[i * ldc + j], (int32_t)s);
				return 0;
			}
		}
	return 1;
}

T_FN const char *t_backend_name(int b)
{
	return b == AMX_GEMM_BACKEND_AMX ? "amx" :
	       b == AMX_GEMM_BACKEND_AVX512 ? "avx512" :
	       b == AMX_GEMM_BACKEND_C ? "c" : "?";
}

#endif
