/* SPDX-License-Identifier: MIT */
/*
 * amx_gemm_cf16() against its real form, run by the test itself: the
 * complex product C = A B is the fp16 GEMM of A read as m x 2k reals with
 * B2 (2k x 2n: rows re b, im b / -im b, re b), C read as m x 2n.  Where
 * the f16 GEMM runs on AMX (TDPFP16PS), amx_gemm_cf16() runs on
 * AMX-COMPLEX if the CPU has it, and the two must agree bit for bit for
 * finite inputs: the lanes take the same products and the same sums
 * (libamx/gemm/gemm_amx_cf16.c).  Shapes cross every edge of the 16 x 16
 * blocks and of K's steps of 16, with wider strides, overwrite and
 * accumulate, and an infinity in B; the caller sets the threads.
 */
#ifndef GEMM_CF16_B2_H
#define GEMM_CF16_B2_H

#include "gemm_common.h"

/*
 * With @inf, B[1][0] is +inf, which both paths must carry into the same
 * infinities.
 */
static int cf16_b2_case(size_t m, size_t n, size_t k, int acc, int pad,
			int inf)
{
	size_t lda = k + pad, ldb = n + 2 * pad, ldc = n + 3 * pad;
	amx_fp16 *a = malloc(m * lda * 4), *b = malloc(k * ldb * 4);
	amx_fp16 *b2 = malloc(k * n * 8);
	float *c = malloc(m * ldc * 8), *c2 = malloc(m * ldc * 8);
	unsigned int fl = acc ? AMX_GEMM_ACCUMULATE : 0;
	int ret, ret2, ok = 1;

	if (!a || !b || !b2 || !c || !c2)
		abort();
	t_fill_f16(a, m * lda * 2);
	t_fill_f16(b, k * ldb * 2);
	if (inf && k > 1)
		b[ldb * 2] = 0x7c00;
	for (size_t i = 0; i < m * ldc * 2; i++)
		c[i] = c2[i] = (float)((int)(i * 7 % 13) - 6) / 4;
	for (size_t p = 0; p < k; p++)
		for (size_t j = 0; j < n; j++) {
			amx_fp16 re = b[(p * ldb + j) * 2];
			amx_fp16 im = b[(p * ldb + j) * 2 + 1];

			b2[(2 * p) * 2 * n + 2 * j] = re;
			b2[(2 * p) * 2 * n + 2 * j + 1] = im;
			b2[(2 * p + 1) * 2 * n + 2 * j] = im ^ 0x8000u;
			b2[(2 * p + 1) * 2 * n + 2 * j + 1] = re;
		}
	ret = amx_gemm_cf16(fl, m, n, k, a, lda, b, ldb, c, ldc);
	ret2 = amx_gemm_f16(fl, m, 2 * n, 2 * k, a, 2 * lda, b2, 2 * n, c2,
			    2 * ldc);
	if (ret || ret2)
		ok = 0;
	for (size_t i = 0; ok && i < m; i++)
		ok = !memcmp(c + i * ldc * 2, c2 + i * ldc * 2, ldc * 8);
	if (!ok)
		printf("# cf16 != B2 f16: m=%zu n=%zu k=%zu acc=%d pad=%d "
		       "inf=%d ret=%d/%d\n", m, n, k, acc, pad, inf, ret, ret2);
	free(a);
	free(b);
	free(b2);
	free(c);
	free(c2);
	return ok;
}

/*
 * The grid: every M, N, K of {1, 15, 16, 17, 33} and three long K; with
 * @quick (a C model of the tiles runs them) of {1, 17, 33} and shorter.
 */
static void cf16_b2_grid(const char *what, int quick)
{
	static const size_t full[] = { 1, 15, 16, 17, 33 }, few[] = { 1, 17, 33 };
	const size_t *d = quick ? few : full;
	size_t nd = quick ? 3 : 5;
	unsigned int bad = 0, cases = 0;

	for (size_t x = 0; x < nd; x++)
		for (size_t y = 0; y < nd; y++)
			for (size_t z = 0; z < nd; z++, cases++)
				bad += !cf16_b2_case(d[x], d[y], d[z],
						     (x + y + z) & 1, z & 1, 0);
	bad += !cf16_b2_case(40, quick ? 40 : 150, 300, 1, 1, 0);
	bad += !cf16_b2_case(quick ? 20 : 64, 20, quick ? 200 : 1024, 0, 0, 0);
	bad += !cf16_b2_case(3, quick ? 50 : 200, 1000, 1, 0, 0);
	/* an inf in B's first, short column block, K with a short step */
	bad += !cf16_b2_case(17, 15, 17, 0, 1, 1);
	bad += !cf16_b2_case(5, 33, 40, 1, 0, 1);
	cases += 5;
	tap_ok(!bad, "%s: cf16 = its B2 f16 GEMM bit for bit, %u shapes, "
	       "%u differ", what, cases, bad);
}

#endif
