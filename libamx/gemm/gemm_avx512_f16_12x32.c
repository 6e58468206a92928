// SPDX-License-Identifier: MIT
/*
 * AVX-512F fp16 micro-kernel, up to 12 x 32, for CPUs without AMX-FP16:
 * fp16 converted to fp32 (VCVTPH2PS, exact) and multiplied and added with
 * VFMADD231PS.  AVX-512 has no fp16 dot product into fp32 (AVX512-FP16's
 * arithmetic rounds to fp16), so this is the kernel on every AVX-512 CPU.
 *
 * The packed layout is the bf16 one (K pairs, VNNI): a zmm of B converted
 * holds 8 columns as (even, odd) pairs of a K pair, and an A pair
 * broadcast and converted is (a0, a1) repeated, so one FMA multiplies
 * both elements of the pair into separate even and odd lanes.  The lanes
 * of a column are added at the end of the K block and then to C: the
 * order gemm_ukr_c_f16() follows too, so the two give the same bits.
 *
 * A row's 32 columns are 4 zmm of accumulators: the rows run in groups
 * of at most 6 (24 accumulators, 4 of B, 1 of A), B converted again for
 * each group.  Built with -mavx512f -mavx512bw -mavx512vl; only called
 * after CPUID/XCR0 said so.
 */
#include "gemm_avx512.h"

typedef uint32_t u32_any __attribute__((aligned(1), may_alias));

#define GROUP 6

/* rows [0, gr) of the block at @a (rows @rs bytes apart, pairs @cs) */
static inline __attribute__((always_inline)) void
group(const size_t gr, size_t kp, const uint8_t *a, const size_t rs,
      const size_t cs, const uint16_t *b, float *c, size_t ldc,
      __mmask16 m0, __mmask16 m1, int acc)
{
	const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16,
					    14, 12, 10, 8, 6, 4, 2, 0);
	const __m512i io = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17,
					    15, 13, 11, 9, 7, 5, 3, 1);
	__m512 t[GROUP][4];

	_Pragma("GCC unroll 6")
	for (size_t i = 0; i < gr; i++)
		_Pragma("GCC unroll 4")
		for (int q = 0; q < 4; q++)
			t[i][q] = _mm512_setzero_ps();
	for (size_t p = 0; p < kp; p++) {
		__m512 bq[4];

		_Pragma("GCC unroll 4")
		for (int q = 0; q < 4; q++)
			bq[q] = _mm512_cvtph_ps(_mm256_load_si256(
				(const __m256i *)(const void *)(b + 16 * q)));
		b += 2 * GEMM_NR;
		_Pragma("GCC unroll 6")
		for (size_t i = 0; i < gr; i++) {
			__m512 av = _mm512_cvtph_ps(_mm256_set1_epi32(
				(int)*(const u32_any *)(a + i * rs)));

			_Pragma("GCC unroll 4")
			for (int q = 0; q < 4; q++)
				t[i][q] = _mm512_fmadd_ps(av, bq[q], t[i][q]);
		}
		a += cs;
	}
	_Pragma("GCC unroll 6")
	for (size_t i = 0; i < gr; i++) {
		float *ci = c + i * ldc;
		__m512 s0 = _mm512_add_ps(
			_mm512_permutex2var_ps(t[i][0], ie, t[i][1]),
			_mm512_permutex2var_ps(t[i][0], io, t[i][1]));
		__m512 s1 = _mm512_add_ps(
			_mm512_permutex2var_ps(t[i][2], ie, t[i][3]),
			_mm512_permutex2var_ps(t[i][2], io, t[i][3]));

		if (acc) {
			s0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, ci), s0);
			s1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, ci + 16), s1);
		}
		_mm512_mask_storeu_ps(ci, m0, s0);
		_mm512_mask_storeu_ps(ci + 16, m1, s1);
	}
}

static inline __attribute__((always_inline)) void
ukr(const size_t mr, size_t kp, const uint8_t *a, const size_t rs,
    const size_t cs, const uint16_t *b, float *c, size_t ldc, __mmask16 m0,
    __mmask16 m1, int acc)
{
	group(mr < GROUP ? mr : GROUP, kp, a, rs, cs, b, c, ldc, m0, m1, acc);
	if (mr > GROUP)
		group(mr - GROUP, kp, a + GROUP * rs, rs, cs, b,
		      c + GROUP * ldc, ldc, m0, m1, acc);
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

GEMM_UKR(gemm_ukr_avx512_f16)
{
	(void)corr;
	(void)bs;
	rows(mr, nr, kcpad_bytes / 4, ap, 0, 1, bp, c, ldc, acc);
}

GEMM_UKR_DIRECT(gemm_ukr_avx512_f16_direct)
{
	(void)corr;
	(void)bs;
	rows(mr, nr, k_bytes / 4, a, lda_bytes, 0, bp, c, ldc, acc);
}
