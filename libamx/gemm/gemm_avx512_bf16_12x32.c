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
 */
#include "gemm_avx512.h"

typedef uint32_t u32_any __attribute__((aligned(1), may_alias));

static inline __attribute__((always_inline)) void
ukr(const size_t mr, size_t kp, const uint8_t *a, const size_t rs,
    const size_t cs, const uint16_t *b, float *c, size_t ldc, __mmask16 m0,
    __mmask16 m1, int acc)
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
		__m512bh b0 = (__m512bh)_mm512_load_si512(b);
		__m512bh b1 = (__m512bh)_mm512_load_si512(b + 32);

		_Pragma("GCC unroll 12")
		for (size_t i = 0; i < mr; i++) {
			__m512bh av = (__m512bh)_mm512_set1_epi32(
				(int)*(const u32_any *)(a + i * rs));

			c0[i] = _mm512_dpbf16_ps(c0[i], av, b0);
			c1[i] = _mm512_dpbf16_ps(c1[i], av, b1);
		}
		a += cs;
		b += 2 * GEMM_NR;
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
 * from row to row, 4 from pair to pair).
 */
static inline __attribute__((always_inline)) void
rows(size_t mr, size_t nr, size_t kp, const uint8_t *a, size_t lda,
     const int packed, const void *bp, void *c, size_t ldc, int acc)
{
	__mmask16 m0, m1;

	gemm_avx512_masks(nr, &m0, &m1);
	switch (mr) {
#define X(r) case r: ukr(r, kp, a, packed ? 4 : lda, packed ? 4 * r : 4, \
			 bp, c, ldc, m0, m1, acc); break;
	GEMM_AVX512_ROWS(X)
#undef X
	}
}

GEMM_UKR(gemm_ukr_avx512_bf16)
{
	(void)corr;
	(void)bs;
	rows(mr, nr, kcpad_bytes / 4, ap, 0, 1, bp, c, ldc, acc);
}

GEMM_UKR_DIRECT(gemm_ukr_avx512_bf16_direct)
{
	(void)corr;
	(void)bs;
	rows(mr, nr, k_bytes / 4, a, lda_bytes, 0, bp, c, ldc, acc);
}
