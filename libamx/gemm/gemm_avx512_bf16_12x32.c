// SPDX-License-Identifier: MIT
/*
 * AVX-512 BF16 micro-kernel, up to 12 x 32: 24 zmm accumulators, two zmm of
 * packed B per K pair, A pairs broadcast; vdpbf16ps.
 * Built with -mavx512f -mavx512bw -mavx512bf16; only called after CPUID/XCR0
 * said so.  Ragged N is handled with store masks, ragged M by instantiating
 * the kernel for each row count (mr is a compile-time constant below).
 *
 * A is read either from a packed micro-panel ([kp][mr] pairs: row stride 4
 * bytes, pair stride 4 * mr) or straight from the caller's row-major matrix
 * (row stride lda, pair stride 4): a bf16 K pair of one row is one aligned-
 * or-not 32-bit word either way, so vdpbf16ps needs no A packing at all.
 * The fused entry also takes B from the caller's rows (gemm_ukr_fused_fn).
 */
#include "gemm_avx512.h"

typedef uint32_t u32_any __attribute__((aligned(1), may_alias));

/*
 * The fused kernels' B: rows @src and @src + ldb of up to 32 columns
 * (mask @lm: columns past nr read as zero) interleaved into the two
 * VNNI halves, columns 0-15 and 16-31, by one vpermt2w each (word 2i
 * from the first row, 2i + 1 from the second: the order gemm_pack_b_bf16()
 * writes).
 */
struct fused_b {
	const uint8_t *src;
	size_t ldb;		/* bytes */
	uint16_t *dst;		/* NULL: not kept */
	__mmask32 lm;
	__m512i ilo, ihi;
};

/*
 * Rows of B read ahead: 64-byte pieces of rows ldb apart, as in the
 * packers (GEMM_PACK_AHEAD).  Not past the K block: beyond the end of B
 * that would be page walks for nothing.
 */
#define FUSED_AHEAD GEMM_PACK_AHEAD

static inline __attribute__((always_inline)) void
fused_pair(struct fused_b *f, int ahead_ok, __m512bh *b0, __m512bh *b1)
{
	const char *ahead = (const char *)f->src + FUSED_AHEAD * f->ldb;
	__m512i x0, x1;

	if (ahead_ok) {
		_mm_prefetch(ahead, _MM_HINT_T0);
		_mm_prefetch(ahead + f->ldb, _MM_HINT_T0);
	}
	x0 = _mm512_maskz_loadu_epi16(f->lm, f->src);
	x1 = _mm512_maskz_loadu_epi16(f->lm, f->src + f->ldb);
	*b0 = (__m512bh)_mm512_permutex2var_epi16(x0, f->ilo, x1);
	*b1 = (__m512bh)_mm512_permutex2var_epi16(x0, f->ihi, x1);
	if (f->dst) {
		_mm512_store_si512(f->dst, (__m512i)*b0);
		_mm512_store_si512(f->dst + 32, (__m512i)*b1);
		f->dst += 2 * GEMM_NR;
	}
	f->src += 2 * f->ldb;
}

static inline __attribute__((always_inline)) void
ukr(const size_t mr, size_t kp, const uint8_t *a, const size_t rs,
    const size_t cs, const uint16_t *b, float *c, size_t ldc, __mmask16 m0,
    __mmask16 m1, int acc, struct fused_b *f)
{
	__m512 c0[GEMM_MR_AVX], c1[GEMM_MR_AVX];

	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < mr; i++) {
		if (acc) {
			c0[i] = _mm512_maskz_loadu_ps(m0, c + i * ldc);
			c1[i] = _mm512_maskz_loadu_ps(m1, c + i * ldc + 16);
		} else {
			c0[i] = _mm512_setzero_ps();
			c1[i] = _mm512_setzero_ps();
		}
	}
	for (size_t p = 0; p < kp; p++) {
		__m512bh b0, b1;

		if (f) {
			fused_pair(f, p + FUSED_AHEAD / 2 < kp, &b0, &b1);
		} else {
			if (mr >= GEMM_AVX512_PF_ROWS) {
				const char *pf = (const char *)b +
						 GEMM_AVX512_PF_B;

				_mm_prefetch(pf, _MM_HINT_T1);
				_mm_prefetch(pf + 64, _MM_HINT_T1);
			}
			b0 = (__m512bh)_mm512_load_si512(b);
			b1 = (__m512bh)_mm512_load_si512(b + 32);
			b += 2 * GEMM_NR;
		}
		_Pragma("GCC unroll 12")
		for (size_t i = 0; i < mr; i++) {
			__m512bh av = (__m512bh)_mm512_set1_epi32(
				(int)*(const u32_any *)(a + i * rs));

			c0[i] = _mm512_dpbf16_ps(c0[i], av, b0);
			c1[i] = _mm512_dpbf16_ps(c1[i], av, b1);
		}
		a += cs;
	}
	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < mr; i++) {
		_mm512_mask_storeu_ps(c + i * ldc, m0, c0[i]);
		_mm512_mask_storeu_ps(c + i * ldc + 16, m1, c1[i]);
	}
}

/*
 * One body per row count (GEMM_AVX512_ROWS); A packed ([kp][mr] pairs:
 * 4 bytes from row to row, 4 * mr from pair to pair) or in place (lda
 * from row to row, 4 from pair to pair); B packed, or from the caller's
 * rows (@f, A in place only).
 */
static inline __attribute__((always_inline)) void
rows(size_t mr, size_t nr, size_t kp, const uint8_t *a, size_t lda,
     const int packed, const void *bp, void *c, size_t ldc, int acc,
     struct fused_b *f)
{
	__mmask16 m0, m1;

	gemm_avx512_masks(nr, &m0, &m1);
	switch (mr) {
#define X(r) case r: ukr(r, kp, a, packed ? 4 : lda, packed ? 4 * r : 4, \
			 bp, c, ldc, m0, m1, acc, f); break;
	GEMM_AVX512_ROWS(X)
#undef X
	}
}

GEMM_UKR(gemm_ukr_avx512_bf16)
{
	(void)corr;
	(void)bs;
	rows(mr, nr, kcpad_bytes / 4, ap, 0, 1, bp, c, ldc, acc, NULL);
}

GEMM_UKR_DIRECT(gemm_ukr_avx512_bf16_direct)
{
	(void)corr;
	(void)bs;
	rows(mr, nr, k_bytes / 4, a, lda_bytes, 0, bp, c, ldc, acc, NULL);
}

void gemm_ukr_avx512_bf16_fused(size_t mr, size_t nr, size_t k_bytes,
				const uint8_t *a, size_t lda_bytes,
				const uint8_t *bsrc, size_t ldb_bytes,
				void *bdst, void *c, size_t ldc, int acc)
{
	uint16_t lo[32], hi[32];
	struct fused_b f = {
		.src = bsrc,
		.ldb = ldb_bytes,
		.dst = bdst,
		.lm = nr >= 32 ? 0xffffffffu : (__mmask32)((1u << nr) - 1),
	};

	gemm_bf16_pair_index(lo, hi);
	f.ilo = _mm512_loadu_si512(lo);
	f.ihi = _mm512_loadu_si512(hi);
	rows(mr, nr, k_bytes / 4, a, lda_bytes, 0, NULL, c, ldc, acc, &f);
}
