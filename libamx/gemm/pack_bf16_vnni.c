// SPDX-License-Identifier: MIT
/*
 * Pack a kc x nc block of row-major bf16 B into VNNI panels of GEMM_NR
 * columns: panel[p][j][0..1] = B[2p + 0..1][j], zero past kc and nc, K
 * padded to a whole tile (32 bf16).
 *
 * Rows are walked in order for a group of GEMM_PACK_PANELS panels at a
 * time, so each row is read in long sequential pieces (reading one 64-byte
 * panel column of every row instead costs a TLB miss per row).
 */
#include <string.h>
#include <immintrin.h>

#include "gemm.h"

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

/*
 * Pairs [p0, p1) of panels [j0, j1), all full: the whole loop in one AVX2
 * function, so that pack_pair_avx2() inlines (called per pair from
 * baseline code, the call and its vzeroupper made packing 3x slower).
 */
__attribute__((target("avx2")))
static void pack_full_avx2(size_t p1, size_t j0, size_t j1,
			   const uint16_t *b, size_t ldb, uint16_t *dst,
			   size_t panel_stride)
{
	for (size_t p = 0; p < p1; p += 2)
		for (size_t j = j0; j < j1; j++) {
			const uint16_t *ahead = b + (p + GEMM_PACK_AHEAD) * ldb + j * GEMM_NR;

			if (p + GEMM_PACK_AHEAD + 1 < p1) {
				_mm_prefetch((const char *)ahead, _MM_HINT_T0);
				_mm_prefetch((const char *)(ahead + ldb), _MM_HINT_T0);
			}
			pack_pair_avx2(b + p * ldb + j * GEMM_NR,
				       b + (p + 1) * ldb + j * GEMM_NR,
				       dst + j * panel_stride + p * GEMM_NR);
		}
}

/*
 * The same with AVX-512BW: one vpermt2w per 16 columns picks the words of
 * both rows in VNNI order (word 2i from row 0, 2i + 1 from row 1).
 */
__attribute__((target("avx512f,avx512bw")))
static void pack_full_avx512(size_t p1, size_t j0, size_t j1,
			     const uint16_t *b, size_t ldb, uint16_t *dst,
			     size_t panel_stride)
{
	uint16_t lo[32], hi[32];
	__m512i ilo, ihi;

	gemm_bf16_pair_index(lo, hi);
	ilo = _mm512_loadu_si512(lo);
	ihi = _mm512_loadu_si512(hi);
	for (size_t p = 0; p < p1; p += 2)
		for (size_t j = j0; j < j1; j++) {
			const uint16_t *r0 = b + p * ldb + j * GEMM_NR;
			uint16_t *d = dst + j * panel_stride + p * GEMM_NR;
			__m512i x0, x1;

			if (p + GEMM_PACK_AHEAD + 1 < p1) {
				_mm_prefetch((const char *)(r0 + GEMM_PACK_AHEAD * ldb),
					     _MM_HINT_T0);
				_mm_prefetch((const char *)(r0 + (GEMM_PACK_AHEAD + 1) * ldb),
					     _MM_HINT_T0);
			}
			x0 = _mm512_loadu_si512(r0);
			x1 = _mm512_loadu_si512(r0 + ldb);
			_mm512_storeu_si512(d, _mm512_permutex2var_epi16(x0, ilo, x1));
			_mm512_storeu_si512(d + 32,
					    _mm512_permutex2var_epi16(x0, ihi, x1));
		}
}

void gemm_pack_b_bf16(size_t kc, size_t nc, const uint16_t *b, size_t ldb,
		      uint16_t *dst, size_t panel_stride, unsigned int simd)
{
	size_t kpad = gemm_round_up(kc, GEMM_KGRAN_BYTES / 2);
	size_t kc2 = gemm_round_up(kc, 2);
	size_t npanels = (nc + GEMM_NR - 1) / GEMM_NR;
	size_t nfull = nc / GEMM_NR;	/* panels of GEMM_NR columns */
	int avx2 = !!(simd & GEMM_SIMD_AVX2);
	int avx512 = avx2 && (simd & GEMM_SIMD_AVX512);

	for (size_t j0 = 0; j0 < npanels; j0 += GEMM_PACK_PANELS) {
		size_t j1 = j0 + GEMM_PACK_PANELS < npanels ? j0 + GEMM_PACK_PANELS : npanels;
		size_t jf = j1 < nfull ? j1 : nfull > j0 ? nfull : j0;
		size_t pfull = avx2 ? kc / 2 * 2 : 0;	/* done by AVX2 */

		if (pfull && jf > j0 && avx512)
			pack_full_avx512(pfull, j0, jf, b, ldb, dst, panel_stride);
		else if (pfull && jf > j0)
			pack_full_avx2(pfull, j0, jf, b, ldb, dst, panel_stride);
		for (size_t p = 0; p < kc; p += 2) {
			const uint16_t *r0 = b + p * ldb;
			const uint16_t *r1 = p + 1 < kc ? r0 + ldb : NULL;

			for (size_t j = p < pfull ? jf : j0; j < j1; j++) {
				size_t col = j * GEMM_NR;
				size_t nr = nc - col < GEMM_NR ? nc - col : GEMM_NR;

				pack_pair(r0 + col, r1 ? r1 + col : NULL, nr,
					  dst + j * panel_stride + p * GEMM_NR);
			}
		}
		for (size_t j = j0; j < j1; j++)
			memset(dst + j * panel_stride + kc2 * GEMM_NR, 0,
			       (kpad - kc2) * GEMM_NR * 2);
	}
}
