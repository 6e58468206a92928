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
#include <immintrin.h>

#include "gemm.h"

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

static void masks(size_t nr, __mmask16 *m0, __mmask16 *m1)
{
	*m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
	*m1 = nr >= 32 ? 0xffff :
	      nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);
}

/* one case per row count, so that mr is a constant in each body */
#define GEMM_MR_CASES(X) \
	X(12) X(11) X(10) X(9) X(8) X(7) X(6) X(5) X(4) X(3) X(2) X(1)

void gemm_ukr_avx512_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
			  const void *ap, const void *bp, void *c, size_t ldc,
			  const int32_t *corr, int acc, size_t pf)
{
	size_t kp = kcpad_bytes / 4;
	__mmask16 m0, m1;

	(void)corr;
	(void)pf;
	masks(nr, &m0, &m1);
	switch (mr) {
#define X(r) case r: ukr(r, kp, ap, 4, 4 * r, bp, c, ldc, m0, m1, acc); break;
	GEMM_MR_CASES(X)
#undef X
	}
}

void gemm_ukr_avx512_bf16_direct(size_t mr, size_t nr, size_t k_bytes,
				 const uint8_t *a, size_t lda_bytes,
				 const void *bp, void *c, size_t ldc,
				 const int32_t *corr, int acc, size_t pf)
{
	size_t kp = k_bytes / 4;
	__mmask16 m0, m1;

	(void)corr;
	(void)pf;
	masks(nr, &m0, &m1);
	switch (mr) {
#define X(r) case r: ukr(r, kp, a, lda_bytes, 4, bp, c, ldc, m0, m1, acc); break;
	GEMM_MR_CASES(X)
#undef X
	}
}
