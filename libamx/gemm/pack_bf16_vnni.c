// SPDX-License-Identifier: MIT
/*
 * Pack a kc x nc block of row-major bf16 B into VNNI panels of GEMM_NR
 * columns: panel[p][j][0..1] = B[2p + 0..1][j], zero past kc and nc, K
 * padded to a whole tile (32 bf16).
 *
 * Rows are walked in order for a group of PACK_PANELS panels at a time, so
 * each row is read in long sequential pieces (reading one 64-byte panel
 * column of every row instead costs a TLB miss per row).
 */
#include <string.h>
#include <immintrin.h>

#include "gemm.h"

#define PACK_PANELS 8

/* one K pair of one panel; r1 NULL past kc, nr < GEMM_NR zero-fills */
static void pack_pair(const uint16_t *r0, const uint16_t *r1, size_t nr,
		      uint16_t *d)
{
	for (size_t j = 0; j < GEMM_NR; j++) {
		d[2 * j] = j < nr ? r0[j] : 0;
		d[2 * j + 1] = j < nr && r1 ? r1[j] : 0;
	}
}

/*
 * The same for a full pair and panel with AVX2: vpunpck{l,h}wd interleave
 * the two rows within 128-bit lanes and vperm2i128 puts the lanes in order.
 */
__attribute__((target("avx2")))
static void pack_pair_avx2(const uint16_t *r0, const uint16_t *r1,
			   uint16_t *d)
{
	for (size_t h = 0; h < GEMM_NR; h += 16) {
		__m256i x0 = _mm256_loadu_si256((const void *)(r0 + h));
		__m256i x1 = _mm256_loadu_si256((const void *)(r1 + h));
		__m256i lo = _mm256_unpacklo_epi16(x0, x1);
		__m256i hi = _mm256_unpackhi_epi16(x0, x1);

		_mm256_storeu_si256((void *)(d + 2 * h),
				    _mm256_permute2x128_si256(lo, hi, 0x20));
		_mm256_storeu_si256((void *)(d + 2 * h + 16),
				    _mm256_permute2x128_si256(lo, hi, 0x31));
	}
}

void gemm_pack_b_bf16(size_t kc, size_t nc, const uint16_t *b, size_t ldb,
		      uint16_t *dst, size_t panel_stride)
{
	size_t kpad = gemm_round_up(kc, GEMM_KGRAN_BYTES / 2);
	size_t kc2 = gemm_round_up(kc, 2);
	size_t npanels = (nc + GEMM_NR - 1) / GEMM_NR;
	int avx2 = gemm_cpu_avx2();

	for (size_t j0 = 0; j0 < npanels; j0 += PACK_PANELS) {
		size_t j1 = j0 + PACK_PANELS < npanels ? j0 + PACK_PANELS : npanels;

		for (size_t p = 0; p < kc; p += 2) {
			const uint16_t *r0 = b + p * ldb;
			const uint16_t *r1 = p + 1 < kc ? r0 + ldb : NULL;

			for (size_t j = j0; j < j1; j++) {
				size_t col = j * GEMM_NR;
				size_t nr = nc - col < GEMM_NR ? nc - col : GEMM_NR;
				uint16_t *d = dst + j * panel_stride + p * GEMM_NR;

				if (nr == GEMM_NR && r1 && avx2)
					pack_pair_avx2(r0 + col, r1 + col, d);
				else
					pack_pair(r0 + col, r1 ? r1 + col : NULL,
						  nr, d);
			}
		}
		for (size_t j = j0; j < j1; j++)
			memset(dst + j * panel_stride + kc2 * GEMM_NR, 0,
			       (kpad - kc2) * GEMM_NR * 2);
	}
}
