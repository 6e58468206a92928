// SPDX-License-Identifier: MIT
/*
 * Activation quantization's rows with AVX-512F and BW, built with those
 * flags and called only where amx__cpu() reports them: the statistics on
 * 16 fp32 or 32 bf16 bit patterns an instruction, the quantization on 16
 * values, lane by lane the fp32 operations of quant.c's qrow_c() in its
 * order (quant.h), so both give the same bits.  Tails are masked loads
 * (the masked-off lanes are +0.0, which every statistic already includes)
 * and masked stores.
 */
#include <errno.h>
#include <immintrin.h>

#include "quant.h"

#define ABS32	0x7fffffff
#define ABS16	0x7fff

/* 16 fp32 bit patterns of x[i..] (bf16: widened), lanes past @m +0.0 */
static inline __m512i load16(const void *x, size_t i, __mmask16 m,
			     const int bf16)
{
	const amx_bf16 *h = (const amx_bf16 *)x + i;
	const float *f = (const float *)x + i;

	if (bf16)
		return _mm512_slli_epi32(_mm512_cvtepu16_epi32(m == 0xffff ?
			_mm256_loadu_si256((const __m256i *)(const void *)h) :
			_mm256_maskz_loadu_epi16(m, h)), 16);
	return m == 0xffff ? _mm512_loadu_si512(f) :
			     _mm512_maskz_loadu_epi32(m, f);
}

/* a 16-bit order key back to its bf16 bit pattern (its own inverse) */
static inline uint32_t unkey16(int32_t key)
{
	uint16_t u = (uint16_t)key;

	return u & 0x8000u ? u ^ 0x7fffu : u;
}

/* the order key (quant_key()) of 16 fp32 or 32 bf16 bit patterns */
static inline __m512i key32(__m512i u)
{
	return _mm512_xor_si512(u, _mm512_srli_epi32(_mm512_srai_epi32(u, 31),
						     1));
}

static inline __m512i key16(__m512i u)
{
	return _mm512_xor_si512(u, _mm512_srli_epi16(_mm512_srai_epi16(u, 15),
						     1));
}

/* the largest unsigned 16-bit lane */
static inline uint32_t hmax_epu16(__m512i v)
{
	return _mm512_reduce_max_epu32(_mm512_max_epu32(
		_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)),
		_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1))));
}

/* the smallest and largest signed 16-bit lanes */
static inline int32_t hmin_epi16(__m512i v)
{
	return _mm512_reduce_min_epi32(_mm512_min_epi32(
		_mm512_cvtepi16_epi32(_mm512_castsi512_si256(v)),
		_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(v, 1))));
}

static inline int32_t hmax_epi16(__m512i v)
{
	return _mm512_reduce_max_epi32(_mm512_max_epi32(
		_mm512_cvtepi16_epi32(_mm512_castsi512_si256(v)),
		_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(v, 1))));
}

/* max |x| bits; two accumulators over 32 fp32 or 64 bf16 a step */
static inline uint32_t absmax_f32(const float *x, size_t k)
{
	const __m512i abs = _mm512_set1_epi32(ABS32);
	__m512i a0 = _mm512_setzero_si512(), a1 = a0;
	size_t i = 0;

	for (; i + 32 <= k; i += 32) {
		a0 = _mm512_max_epu32(a0, _mm512_and_si512(abs,
				      _mm512_loadu_si512(x + i)));
		a1 = _mm512_max_epu32(a1, _mm512_and_si512(abs,
				      _mm512_loadu_si512(x + i + 16)));
	}
	for (; i < k; i += 16) {
		__mmask16 m = k - i >= 16 ? 0xffff :
			      (__mmask16)((1u << (k - i)) - 1);

		a0 = _mm512_max_epu32(a0, _mm512_and_si512(abs,
				      _mm512_maskz_loadu_epi32(m, x + i)));
	}
	return _mm512_reduce_max_epu32(_mm512_max_epu32(a0, a1));
}

static inline uint32_t absmax_bf16(const amx_bf16 *x, size_t k)
{
	const __m512i abs = _mm512_set1_epi16(ABS16);
	__m512i a0 = _mm512_setzero_si512(), a1 = a0;
	size_t i = 0;

	for (; i + 64 <= k; i += 64) {
		a0 = _mm512_max_epu16(a0, _mm512_and_si512(abs,
				      _mm512_loadu_si512(x + i)));
		a1 = _mm512_max_epu16(a1, _mm512_and_si512(abs,
				      _mm512_loadu_si512(x + i + 32)));
	}
	for (; i < k; i += 32) {
		__mmask32 m = k - i >= 32 ? 0xffffffffu :
			      (__mmask32)((1u << (k - i)) - 1);

		a0 = _mm512_max_epu16(a0, _mm512_and_si512(abs,
				      _mm512_maskz_loadu_epi16(m, x + i)));
	}
	return hmax_epu16(_mm512_max_epu16(a0, a1)) << 16;
}

/* the smallest and largest order keys, +0.0's (0) among them */
static inline void minmax_f32(const float *x, size_t k, int32_t *lo,
			      int32_t *hi)
{
	__m512i l0 = _mm512_setzero_si512(), l1 = l0, h0 = l0, h1 = l0;
	size_t i = 0;

	for (; i + 32 <= k; i += 32) {
		__m512i k0 = key32(_mm512_loadu_si512(x + i));
		__m512i k1 = key32(_mm512_loadu_si512(x + i + 16));

		l0 = _mm512_min_epi32(l0, k0);
		h0 = _mm512_max_epi32(h0, k0);
		l1 = _mm512_min_epi32(l1, k1);
		h1 = _mm512_max_epi32(h1, k1);
	}
	for (; i < k; i += 16) {
		__mmask16 m = k - i >= 16 ? 0xffff :
			      (__mmask16)((1u << (k - i)) - 1);
		__m512i k0 = key32(_mm512_maskz_loadu_epi32(m, x + i));

		l0 = _mm512_min_epi32(l0, k0);
		h0 = _mm512_max_epi32(h0, k0);
	}
	*lo = _mm512_reduce_min_epi32(_mm512_min_epi32(l0, l1));
	*hi = _mm512_reduce_max_epi32(_mm512_max_epi32(h0, h1));
}

/* the same on bf16 keys; *lo and *hi as keys of the widened fp32 */
static inline void minmax_bf16(const amx_bf16 *x, size_t k, int32_t *lo,
			       int32_t *hi)
{
	__m512i l0 = _mm512_setzero_si512(), l1 = l0, h0 = l0, h1 = l0;
	size_t i = 0;

	for (; i + 64 <= k; i += 64) {
		__m512i k0 = key16(_mm512_loadu_si512(x + i));
		__m512i k1 = key16(_mm512_loadu_si512(x + i + 32));

		l0 = _mm512_min_epi16(l0, k0);
		h0 = _mm512_max_epi16(h0, k0);
		l1 = _mm512_min_epi16(l1, k1);
		h1 = _mm512_max_epi16(h1, k1);
	}
	for (; i < k; i += 32) {
		__mmask32 m = k - i >= 32 ? 0xffffffffu :
			      (__mmask32)((1u << (k - i)) - 1);
		__m512i k0 = key16(_mm512_maskz_loadu_epi16(m, x + i));

		l0 = _mm512_min_epi16(l0, k0);
		h0 = _mm512_max_epi16(h0, k0);
	}
	/* 16-bit key -> bf16 bits -> fp32 bits -> key */
	*lo = quant_key(unkey16(hmin_epi16(_mm512_min_epi16(l0, l1))) << 16);
	*hi = quant_key(unkey16(hmax_epi16(_mm512_max_epi16(h0, h1))) << 16);
}

int amx__qstat_avx512(unsigned int mode, const void *x, size_t k,
		      struct amx__qstat *st)
{
	uint32_t amax;
	int32_t lo, hi;

	if (!(mode & QUANT_U8)) {
		amax = mode & QUANT_BF16 ? absmax_bf16(x, k) :
					   absmax_f32(x, k);
		if (amax >= QUANT_INF_BITS)
			return -EDOM;
		st->lo = 0;
		st->hi = amax;
		return 0;
	}
	if (mode & QUANT_BF16)
		minmax_bf16(x, k, &lo, &hi);
	else
		minmax_f32(x, k, &lo, &hi);
	if (hi >= (int32_t)QUANT_INF_BITS || lo <= QUANT_NINF_KEY)
		return -EDOM;
	st->lo = quant_unkey(lo);
	st->hi = quant_unkey(hi);
	return 0;
}

/* 16 values quantized as qrow_t() does: their bytes in the low ones */
static inline __m512i quant16(__m512i u, __m512 inv, __m512 zp, __m512 top)
{
	__m512 v = _mm512_mul_ps(_mm512_castsi512_ps(u), inv);

	v = _mm512_add_ps(v, _mm512_set1_ps(QUANT_RND));
	v = _mm512_add_ps(v, zp);
	return _mm512_castps_si512(_mm512_min_ps(v, top));
}

static inline __attribute__((always_inline)) void
qrow(const void *x, size_t k, const struct amx__qparam *p, uint8_t *q,
     const int bf16)
{
	const __m512 inv = _mm512_set1_ps(p->inv);
	const __m512 zp = _mm512_set1_ps(p->zp);
	const __m512 top = _mm512_set1_ps(p->top);
	size_t i = 0;

	/* vpmovdb keeps each lane's low byte: q */
	for (; i + 32 <= k; i += 32) {
		__m512i a = quant16(load16(x, i, 0xffff, bf16), inv, zp, top);
		__m512i b = quant16(load16(x, i + 16, 0xffff, bf16), inv, zp,
				    top);

		_mm_storeu_si128((__m128i *)(void *)(q + i),
				 _mm512_cvtepi32_epi8(a));
		_mm_storeu_si128((__m128i *)(void *)(q + i + 16),
				 _mm512_cvtepi32_epi8(b));
	}
	for (; i < k; i += 16) {
		__mmask16 m = k - i >= 16 ? 0xffff :
			      (__mmask16)((1u << (k - i)) - 1);

		_mm512_mask_cvtepi32_storeu_epi8(q + i, m,
			quant16(load16(x, i, m, bf16), inv, zp, top));
	}
}

void amx__qrow_avx512(unsigned int mode, const void *x, size_t k,
		      const struct amx__qparam *p, uint8_t *q)
{
	if (mode & QUANT_BF16)
		qrow(x, k, p, q, 1);
	else
		qrow(x, k, p, q, 0);
}
