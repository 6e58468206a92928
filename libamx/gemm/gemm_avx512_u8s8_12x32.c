// SPDX-License-Identifier: MIT
/*
 * AVX-512 VNNI micro-kernel, up to 12 x 32: 24 zmm int32 accumulators, two
 * zmm of packed s8 B per K quad, biased-u8 A quads broadcast; vpdpbusd (the
 * non-saturating form, so sums wrap modulo 2^32 exactly like TDPB*D).
 * For s8 x s8 the packer biased A by +128 and corr = -128 * colsum(B).
 * Built with -mavx512f -mavx512bw -mavx512vnni.
 */
#include <immintrin.h>

#include "gemm.h"

static inline __attribute__((always_inline)) void
ukr(const size_t mr, size_t kq, const uint32_t *a, const int8_t *b,
    int32_t *c, size_t ldc, __mmask16 m0, __mmask16 m1, int acc,
    const int32_t *corr)
{
	__m512i c0[GEMM_MR_AVX], c1[GEMM_MR_AVX];
	__m512i k0 = _mm512_setzero_si512(), k1 = _mm512_setzero_si512();

	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < mr; i++) {
		if (acc) {
			c0[i] = _mm512_maskz_loadu_epi32(m0, c + i * ldc);
			c1[i] = _mm512_maskz_loadu_epi32(m1, c + i * ldc + 16);
		} else {
			c0[i] = _mm512_setzero_si512();
			c1[i] = _mm512_setzero_si512();
		}
	}
	for (size_t q = 0; q < kq; q++) {
		__m512i b0 = _mm512_load_si512(b);
		__m512i b1 = _mm512_load_si512(b + 64);

		_Pragma("GCC unroll 12")
		for (size_t i = 0; i < mr; i++) {
			__m512i av = _mm512_set1_epi32((int)a[i]);

			c0[i] = _mm512_dpbusd_epi32(c0[i], av, b0);
			c1[i] = _mm512_dpbusd_epi32(c1[i], av, b1);
		}
		a += mr;
		b += 4 * GEMM_NR;
	}
	if (corr) {
		k0 = _mm512_loadu_si512(corr);
		k1 = _mm512_loadu_si512(corr + 16);
	}
	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < mr; i++) {
		_mm512_mask_storeu_epi32(c + i * ldc, m0,
					 _mm512_add_epi32(c0[i], k0));
		_mm512_mask_storeu_epi32(c + i * ldc + 16, m1,
					 _mm512_add_epi32(c1[i], k1));
	}
}

void gemm_ukr_avx512_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
			  const void *ap, const void *bp, void *c, size_t ldc,
			  const int32_t *corr, int acc, size_t pf)
{
	size_t kq = kcpad_bytes / 4;
	__mmask16 m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
	__mmask16 m1 = nr >= 32 ? 0xffff :
		       nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);

	(void)pf;
	switch (mr) {
	case 12: ukr(12, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 11: ukr(11, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 10: ukr(10, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 9: ukr(9, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 8: ukr(8, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 7: ukr(7, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 6: ukr(6, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 5: ukr(5, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 4: ukr(4, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 3: ukr(3, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 2: ukr(2, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	case 1: ukr(1, kq, ap, bp, c, ldc, m0, m1, acc, corr); break;
	}
}
