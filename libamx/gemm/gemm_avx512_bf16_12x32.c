// SPDX-License-Identifier: MIT
/*
 * AVX-512 BF16 micro-kernel, up to 12 x 32: 24 zmm accumulators, two zmm of
 * packed B per K pair, A pairs broadcast from the packed panel; vdpbf16ps.
 * Built with -mavx512f -mavx512bw -mavx512bf16; only called after CPUID/XCR0
 * said so.  Ragged N is handled with store masks, ragged M by instantiating
 * the kernel for each row count (mr is a compile-time constant below).
 */
#include <immintrin.h>

#include "gemm.h"

static inline __attribute__((always_inline)) void
ukr(const size_t mr, size_t kp, const uint32_t *a, const uint16_t *b,
    float *c, size_t ldc, __mmask16 m0, __mmask16 m1, int acc)
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
			__m512bh av = (__m512bh)_mm512_set1_epi32((int)a[i]);

			c0[i] = _mm512_dpbf16_ps(c0[i], av, b0);
			c1[i] = _mm512_dpbf16_ps(c1[i], av, b1);
		}
		a += mr;
		b += 2 * GEMM_NR;
	}
	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < mr; i++) {
		_mm512_mask_storeu_ps(c + i * ldc, m0, c0[i]);
		_mm512_mask_storeu_ps(c + i * ldc + 16, m1, c1[i]);
	}
}

void gemm_ukr_avx512_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
			  const void *ap, const void *bp, void *c, size_t ldc,
			  const int32_t *corr, int acc, size_t pf)
{
	size_t kp = kcpad_bytes / 4;
	__mmask16 m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
	__mmask16 m1 = nr >= 32 ? 0xffff :
		       nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);

	(void)corr;
	(void)pf;
	switch (mr) {
	case 12: ukr(12, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 11: ukr(11, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 10: ukr(10, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 9: ukr(9, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 8: ukr(8, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 7: ukr(7, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 6: ukr(6, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 5: ukr(5, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 4: ukr(4, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 3: ukr(3, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 2: ukr(2, kp, ap, bp, c, ldc, m0, m1, acc); break;
	case 1: ukr(1, kp, ap, bp, c, ldc, m0, m1, acc); break;
	}
}
