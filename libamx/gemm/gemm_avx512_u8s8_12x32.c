// SPDX-License-Identifier: MIT
/*
 * AVX-512 VNNI micro-kernel, up to 12 x 32: 24 zmm int32 accumulators, two
 * zmm of packed s8 B per K quad, u8 A quads broadcast; vpdpbusd (the
 * non-saturating form, so sums wrap modulo 2^32 exactly like TDPB*D).
 * For s8 x s8, A is biased to u8 (a ^ 0x80 = a + 128: by the packer, or
 * here when A is read in place) and corr = -128 * colsum(B) is added.
 * Built with -mavx512f -mavx512bw -mavx512vnni.
 *
 * A comes from a packed micro-panel ([kq][mr] quads) or straight from the
 * caller's row-major matrix: one int8 K quad of a row is one 32-bit word.
 */
#include "gemm_avx512.h"

typedef uint32_t u32_any __attribute__((aligned(1), may_alias));

static inline __attribute__((always_inline)) void
ukr(const size_t mr, size_t kq, const uint8_t *a, const size_t rs,
    const size_t cs, const uint32_t flip, const int8_t *b, int32_t *c,
    size_t ldc, __mmask16 m0, __mmask16 m1, int acc, const int32_t *corr)
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
		__m512i b0, b1;

		if (mr >= GEMM_AVX512_PF_ROWS) {	/* see gemm_avx512.h */
			const char *pf = (const char *)b + GEMM_AVX512_PF_B;

			_mm_prefetch(pf, _MM_HINT_T1);
			_mm_prefetch(pf + 64, _MM_HINT_T1);
		}
		b0 = _mm512_load_si512(b);
		b1 = _mm512_load_si512(b + 64);

		_Pragma("GCC unroll 12")
		for (size_t i = 0; i < mr; i++) {
			__m512i av = _mm512_set1_epi32(
				(int)*(const u32_any *)(a + i * rs));

			if (flip)
				av = _mm512_xor_si512(av,
						      _mm512_set1_epi32((int)flip));
			c0[i] = _mm512_dpbusd_epi32(c0[i], av, b0);
			c1[i] = _mm512_dpbusd_epi32(c1[i], av, b1);
		}
		a += cs;
		b += 4 * GEMM_NR;
	}
	if (corr) {
		k0 = _mm512_loadu_si512(corr);
		k1 = _mm512_loadu_si512(corr + 16);
		_Pragma("GCC unroll 12")
		for (size_t i = 0; i < mr; i++) {
			c0[i] = _mm512_add_epi32(c0[i], k0);
			c1[i] = _mm512_add_epi32(c1[i], k1);
		}
	}
	_Pragma("GCC unroll 12")
	for (size_t i = 0; i < mr; i++) {
		_mm512_mask_storeu_epi32(c + i * ldc, m0, c0[i]);
		_mm512_mask_storeu_epi32(c + i * ldc + 16, m1, c1[i]);
	}
}

/*
 * One body per row count (GEMM_AVX512_ROWS); A packed ([kq][mr] quads) or
 * in place (see gemm_avx512_bf16_12x32.c), biased here with @flip.
 */
static inline __attribute__((always_inline)) void
rows(size_t mr, size_t nr, size_t kq, const uint8_t *a, size_t lda,
     const int packed, const uint32_t flip, const void *bp, void *c,
     size_t ldc, const int32_t *corr, int acc)
{
	__mmask16 m0, m1;

	gemm_avx512_masks(nr, &m0, &m1);
	switch (mr) {
#define X(r) case r: ukr(r, kq, a, packed ? 4 : lda, packed ? 4 * r : 4, \
			 flip, bp, c, ldc, m0, m1, acc, corr); break;
	GEMM_AVX512_ROWS(X)
#undef X
	}
}

GEMM_UKR(gemm_ukr_avx512_u8s8)
{
	(void)bs;
	rows(mr, nr, kcpad_bytes / 4, ap, 0, 1, 0, bp, c, ldc, corr, acc);
}

GEMM_UKR_DIRECT(gemm_ukr_avx512_u8s8_direct)
{
	(void)bs;
	rows(mr, nr, k_bytes / 4, a, lda_bytes, 0, 0, bp, c, ldc, corr, acc);
}

GEMM_UKR_DIRECT(gemm_ukr_avx512_s8s8_direct)
{
	(void)bs;
	rows(mr, nr, k_bytes / 4, a, lda_bytes, 0, 0x80808080u, bp, c, ldc,
	     corr, acc);
}
