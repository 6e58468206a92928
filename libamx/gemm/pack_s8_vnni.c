// SPDX-License-Identifier: MIT
/*
 * Pack a kc x nc block of row-major int8 B into VNNI panels of GEMM_NR
 * columns: panel[q][j][0..3] = B[4q + 0..3][j], zero past kc and nc, K padded
 * to a whole tile (64 bytes).  Also the per-column correction
 * corr[j] = -128 * sum_k B[k][j] (mod 2^32) used by the VNNI fallback for
 * s8 x s8 (A is biased to u8 by +128 while packing).
 */
#include <string.h>

#include "gemm.h"

void gemm_pack_b_s8(size_t kc, size_t nc, const int8_t *b, size_t ldb,
		    int8_t *dst, size_t panel_stride, int32_t *corr,
		    size_t corr_stride)
{
	size_t kpad = gemm_round_up(kc, GEMM_KGRAN_BYTES);

	for (size_t j = 0; j < nc; j += GEMM_NR, dst += panel_stride) {
		size_t nr = nc - j < GEMM_NR ? nc - j : GEMM_NR;
		uint32_t sum[GEMM_NR] = { 0 };
		int8_t *d = dst;
		size_t q;

		for (q = 0; q + 4 <= kc; q += 4, d += 4 * GEMM_NR) {
			const int8_t *r = b + q * ldb + j;

			if (nr == GEMM_NR) {
				for (size_t jj = 0; jj < GEMM_NR; jj++) {
					d[4 * jj] = r[jj];
					d[4 * jj + 1] = r[ldb + jj];
					d[4 * jj + 2] = r[2 * ldb + jj];
					d[4 * jj + 3] = r[3 * ldb + jj];
				}
			} else {
				memset(d, 0, 4 * GEMM_NR);
				for (size_t jj = 0; jj < nr; jj++)
					for (size_t t = 0; t < 4; t++)
						d[4 * jj + t] = r[t * ldb + jj];
			}
		}
		if (q < kc) {
			memset(d, 0, 4 * GEMM_NR);
			for (size_t jj = 0; jj < nr; jj++)
				for (size_t t = 0; q + t < kc; t++)
					d[4 * jj + t] = b[(q + t) * ldb + j + jj];
			d += 4 * GEMM_NR;
			q += 4;
		}
		memset(d, 0, (kpad - q) * GEMM_NR);
		if (!corr)
			continue;
		for (size_t p = 0; p < kpad / 4; p++)
			for (size_t jj = 0; jj < GEMM_NR; jj++)
				for (size_t t = 0; t < 4; t++)
					sum[jj] += (uint32_t)(int32_t)
						dst[p * 4 * GEMM_NR + 4 * jj + t];
		for (size_t jj = 0; jj < GEMM_NR; jj++)
			corr[j / GEMM_NR * corr_stride + jj] =
				(int32_t)(0u - (sum[jj] << 7));
	}
}
