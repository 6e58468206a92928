// SPDX-License-Identifier: MIT
/*
 * Pack a kc x nc block of row-major int8 B into VNNI panels of GEMM_NR
 * columns: panel[q][j][0..3] = B[4q + 0..3][j], zero past kc and nc, K padded
 * to a whole tile (64 bytes).  Also the per-column correction
 * corr[j] = -128 * sum_k B[k][j] (mod 2^32) used by the VNNI fallback for
 * s8 x s8 (A is biased to u8 by +128 while packing).
 */
#include <string.h>
#include <immintrin.h>

#include "gemm.h"

/*
 * Four full rows of 32 columns into 128 bytes of VNNI quads, and their
 * column sums: vpunpck{l,h}bw pairs rows 0/1 and 2/3, vpunpck{l,h}wd makes
 * quads of 4 columns per 128-bit lane, vperm2i128 orders the lanes.
 */
__attribute__((target("avx2")))
static void pack_quads_avx2(const int8_t *r, size_t ldb, int8_t *d,
			    uint32_t *sum)
{
	__m256i r0 = _mm256_loadu_si256((const void *)r);
	__m256i r1 = _mm256_loadu_si256((const void *)(r + ldb));
	__m256i r2 = _mm256_loadu_si256((const void *)(r + 2 * ldb));
	__m256i r3 = _mm256_loadu_si256((const void *)(r + 3 * ldb));
	__m256i a = _mm256_unpacklo_epi8(r0, r1), b = _mm256_unpackhi_epi8(r0, r1);
	__m256i c = _mm256_unpacklo_epi8(r2, r3), e = _mm256_unpackhi_epi8(r2, r3);
	__m256i q0 = _mm256_unpacklo_epi16(a, c);	/* cols 0-3 | 16-19 */
	__m256i q1 = _mm256_unpackhi_epi16(a, c);	/* cols 4-7 | 20-23 */
	__m256i q2 = _mm256_unpacklo_epi16(b, e);	/* cols 8-11 | 24-27 */
	__m256i q3 = _mm256_unpackhi_epi16(b, e);	/* cols 12-15 | 28-31 */

	_mm256_storeu_si256((void *)d, _mm256_permute2x128_si256(q0, q1, 0x20));
	_mm256_storeu_si256((void *)(d + 32), _mm256_permute2x128_si256(q2, q3, 0x20));
	_mm256_storeu_si256((void *)(d + 64), _mm256_permute2x128_si256(q0, q1, 0x31));
	_mm256_storeu_si256((void *)(d + 96), _mm256_permute2x128_si256(q2, q3, 0x31));
	for (size_t j = 0; j < GEMM_NR; j++)
		sum[j] += (uint32_t)(r[j] + r[ldb + j] + r[2 * ldb + j] +
				     r[3 * ldb + j]);
}

void gemm_pack_b_s8(size_t kc, size_t nc, const int8_t *b, size_t ldb,
		    int8_t *dst, size_t panel_stride, int32_t *corr,
		    size_t corr_stride)
{
	size_t kpad = gemm_round_up(kc, GEMM_KGRAN_BYTES);
	int avx2 = gemm_cpu_avx2();

	for (size_t j = 0; j < nc; j += GEMM_NR, dst += panel_stride) {
		size_t nr = nc - j < GEMM_NR ? nc - j : GEMM_NR;
		uint32_t sum[GEMM_NR] = { 0 };
		int8_t *d = dst;
		size_t q;

		for (q = 0; q + 4 <= kc; q += 4, d += 4 * GEMM_NR) {
			const int8_t *r = b + q * ldb + j;

			if (nr == GEMM_NR && avx2) {
				pack_quads_avx2(r, ldb, d, sum);
				continue;
			}
			memset(d, 0, 4 * GEMM_NR);
			for (size_t jj = 0; jj < nr; jj++)
				for (size_t t = 0; t < 4; t++) {
					d[4 * jj + t] = r[t * ldb + jj];
					sum[jj] += (uint32_t)(int32_t)r[t * ldb + jj];
				}
		}
		if (q < kc) {
			memset(d, 0, 4 * GEMM_NR);
			for (size_t jj = 0; jj < nr; jj++)
				for (size_t t = 0; q + t < kc; t++) {
					int8_t v = b[(q + t) * ldb + j + jj];

					d[4 * jj + t] = v;
					sum[jj] += (uint32_t)(int32_t)v;
				}
			d += 4 * GEMM_NR;
			q += 4;
		}
		memset(d, 0, (kpad - q) * GEMM_NR);
		for (size_t jj = 0; corr && jj < GEMM_NR; jj++)
			corr[j / GEMM_NR * corr_stride + jj] =
				(int32_t)(0u - (sum[jj] << 7));
	}
}
