// SPDX-License-Identifier: MIT
/*
 * AVX-512 BF16 kernel of the weight-only quantized GEMM (wq.h): up to 8
 * rows of A times up to 4 panels of 16 columns, all of K.
 *
 * A step of a panel (4 rows of 16 columns) becomes two zmm of bf16 K
 * pairs: 4-bit, two steps from one 64-byte load, each of its words'
 * nibbles (wq.h) shifted down to bits 0..4 and looked up in a 32-entry
 * table of the bf16 values u - center (vpermw: the table repeats, so
 * bit 4 needs no mask); 8-bit, 16 bytes at a time to int32, fp32 and
 * two halves to bf16 (exact: |q| <= 128 has 8 significant bits).  The A
 * pairs are broadcast and multiplied by vdpbf16ps, into a dot product
 * per group that the group's scales (vcvtph2ps when stored as fp16) then
 * add to the accumulators.  With one or two rows the two K pairs of a
 * step go to separate dot products: more chains in flight, as a decode
 * step (M = 1) has nothing else to overlap.
 *
 * Built with -mavx512f -mavx512bw -mavx512vl -mavx512bf16; only called
 * after CPUID/XCR0 said so.
 */
#include <immintrin.h>
#include <string.h>

#include "wq.h"

static inline __m512 hdr_vec(const struct amx_wq *w, const uint8_t *h)
{
	if (w->f16)
		return _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)h));
	return _mm512_load_ps(h);
}

static inline __m512bh bcast_pair(const uint16_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return (__m512bh)_mm512_set1_epi32((int)v);
}

static inline __m512bh s8_half(const uint8_t *p)
{
	__m512 lo = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
				_mm_load_si128((const __m128i *)p)));
	__m512 hi = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
				_mm_load_si128((const __m128i *)(p + 16))));

	return _mm512_cvtne2ps_pbh(hi, lo);
}

/*
 * One step of a panel (4 rows x 16 columns) as two zmm of bf16 K pairs:
 * 4-bit, step @h (0 or 1) of the pair @x loaded from the step's 64 bytes
 * (wq.h), else from the step's bytes at @s.
 */
static inline __attribute__((always_inline))
void wq_step(const int bits, const uint8_t *s, __m512i x, int h,
	     __m512i lut, __m512bh *w01, __m512bh *w23)
{
	if (bits == 4) {
		if (h)
			x = _mm512_srli_epi16(x, 8);
		*w01 = (__m512bh)_mm512_permutexvar_epi16(x, lut);
		*w23 = (__m512bh)_mm512_permutexvar_epi16(_mm512_srli_epi16(x, 4),
							  lut);
	} else if (bits == 8) {
		*w01 = s8_half(s);
		*w23 = s8_half(s + 32);
	} else {	/* expanded (wq_expand_avx512()) */
		*w01 = (__m512bh)_mm512_load_si512(s);
		*w23 = (__m512bh)_mm512_load_si512(s + 64);
	}
}

/*
 * The bf16 of u - center for the 5-bit indices vpermw sees, or (@zp) of
 * the index - 16: zp_step()'s u - z
 */
static inline __m512i wq_lut(const struct amx_wq *w, int zp)
{
	uint16_t tab[32];

	for (int e = 0; e < 32; e++) {
		float f = (float)(zp ? e - 16 : (e & 15) - (int)w->center);
		uint32_t u;

		memcpy(&u, &f, sizeof(u));
		tab[e] = (uint16_t)(u >> 16);	/* exact: small integers */
	}
	return _mm512_loadu_si512(tab);
}

/*
 * With zero points: the bf16 of u - z for each column's z, as the words
 * of a step hold them (column c in words 2c and 2c + 1): the nibble plus
 * 16 - z indexes a table of the values -16..15
 */
static inline void zp_step(__m512i x, int h, __m512i zoff, __m512i lut,
			   __m512bh *w01, __m512bh *w23)
{
	const __m512i m = _mm512_set1_epi16(15);
	__m512i i01, i23;

	if (h)
		x = _mm512_srli_epi16(x, 8);
	i01 = _mm512_add_epi16(_mm512_and_si512(x, m), zoff);
	i23 = _mm512_add_epi16(_mm512_and_si512(_mm512_srli_epi16(x, 4), m),
			       zoff);
	*w01 = (__m512bh)_mm512_permutexvar_epi16(i01, lut);
	*w23 = (__m512bh)_mm512_permutexvar_epi16(i23, lut);
}

void wq_expand_avx512(const struct amx_wq *w, const uint8_t *panel,
		      size_t np, uint8_t *xd)
{
	size_t steps = w->group / 4, sb = w->bits == 4 ? 32 : 64;
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);
	const int zp = w->form == WQ_ZP;
	__m512i lut = wq_lut(w, 0), lut16 = zp ? wq_lut(w, 1) : lut;
	for (size_t p = 0; p < np; p++)
		for (size_t g = 0; g < w->ngroups; g++) {
			const uint8_t *h = panel + p * w->pbytes + g * w->gbytes;
			const uint8_t *d = h + w->hdr;
			__m512i zoff = _mm512_setzero_si512();

			if (zp) {	/* 16 - z, each in a column's 2 words */
				__m512i z = _mm512_cvtps_epi32(hdr_vec(w, h + vo));

				z = _mm512_sub_epi32(_mm512_set1_epi32(16), z);
				zoff = _mm512_or_si512(z, _mm512_slli_epi32(z, 16));
			}
			for (size_t t = 0; t < steps; t++, xd += 128) {
				__m512bh w01, w23;

				if (zp)
					zp_step(_mm512_loadu_si512(d + t / 2 * 64),
						t & 1, zoff, lut16, &w01, &w23);
				else if (w->bits == 4)
					wq_step(4, NULL, _mm512_loadu_si512(d + t / 2 * 64),
						t & 1, lut, &w01, &w23);
				else
					wq_step(8, d + t * sb, lut, 0, lut, &w01,
						&w23);
				_mm512_store_si512(xd, (__m512i)w01);
				_mm512_store_si512(xd + 64, (__m512i)w23);
			}
		}
}

static inline __attribute__((always_inline))
void wq_body(const struct amx_wq *w, const int bits, const int mr,
	     const int np, const uint16_t *a, size_t lda, const float *asum,
	     const uint8_t *panel, const uint8_t *xd, size_t pf, float *out)
{
	/*
	 * Two dot products a panel and row (the K pairs of a step apart):
	 * enough chains to hide vdpbf16ps's latency, at one addition per
	 * group.  Widened B (bits 16) of 3 panels and 4 rows has 12 chains
	 * of 2 a step, enough without, and saves that addition: with groups
	 * of 32, 1/16 of the work.
	 */
	const int split = mr == WQ_MR || !(bits == 16 && mr * np >= 12);
	__m512 acc[WQ_MR][WQ_NP], d0[WQ_MR][WQ_NP], d1[WQ_MR][WQ_NP];
	size_t steps = w->group / 4, sb = bits == 4 ? 32 : bits == 8 ? 64 : 128;
	/* steps a load: 4-bit, two (wq.h), and t * sb is then 64 t / 2 */
	const int tb = bits == 4 ? 2 : 1;
	/* and L1's distance: the widened B (bits 16) is in L2 already */
	const size_t pf1 = bits == 16 ? 0 : WQ_PF_L1(mr);
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);
	__m512i lut = wq_lut(w, 0);
	/* widened B has its zero points in the values (wq_xform()) */
	const unsigned int form = bits == 16 ? wq_xform(w) : w->form;
	#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++)
			acc[r][p] = _mm512_setzero_ps();

	for (size_t g = 0; g < w->ngroups; g++) {
		const uint8_t *h[WQ_NP], *d[WQ_NP];
		const uint16_t *ag = a + g * w->group;

		#pragma GCC unroll 8
		for (int p = 0; p < np; p++) {
			h[p] = panel + p * w->pbytes + g * w->gbytes;
			d[p] = bits == 16 ? xd + (p * w->ngroups + g) * steps * 128 :
					    h[p] + w->hdr;
		}
		#pragma GCC unroll 8
		for (int r = 0; r < mr; r++)
			#pragma GCC unroll 8
			for (int p = 0; p < np; p++) {
				d0[r][p] = _mm512_setzero_ps();
				d1[r][p] = _mm512_setzero_ps();
			}
		/*
		 * Eight rows (one panel): the 16 chains and 8 accumulators
		 * fill the registers, and hoisted broadcasts would spill, so
		 * each is loaded just before its one use: a compiler barrier
		 * keeps GCC from moving the loads up.  18-25 % faster on Zen 5
		 * in L1 with 8-bit B.
		 */
		for (size_t t = 0; mr == WQ_MR && t < steps; t += tb) {
			const uint8_t *s = d[0] + t * sb;
			__m512i x = bits == 4 ? _mm512_loadu_si512(s) : lut;

			if (pf && !(t * sb & 63))
				_mm_prefetch((const char *)s + pf, _MM_HINT_T1);
			if (pf1 && !(t * sb & 63))
				_mm_prefetch((const char *)s + pf1, _MM_HINT_T0);
			#pragma GCC unroll 2
			for (int sub = 0; sub < tb; sub++) {
				const uint16_t *at = ag + 4 * (t + sub);
				__m512bh w01, w23;

				wq_step(bits, s, x, sub, lut, &w01, &w23);
				#pragma GCC unroll 8
				for (int r = 0; r < mr; r++) {
					__asm__ volatile("" ::: "memory");
					d0[r][0] = _mm512_dpbf16_ps(d0[r][0], w01,
						bcast_pair(at + r * lda));
					d1[r][0] = _mm512_dpbf16_ps(d1[r][0], w23,
						bcast_pair(at + r * lda + 2));
				}
			}
		}
		for (size_t t = 0; mr < WQ_MR && t < steps; t += tb) {
			__m512i x[WQ_NP];

			#pragma GCC unroll 8
			for (int p = 0; p < np; p++) {
				const uint8_t *s = d[p] + t * sb;

				if (pf && !(t * sb & 63))
					_mm_prefetch((const char *)s + pf,
						     _MM_HINT_T1);
				if (pf1 && !(t * sb & 63))
					_mm_prefetch((const char *)s + pf1,
						     _MM_HINT_T0);
				x[p] = bits == 4 ? _mm512_loadu_si512(s) : lut;
			}
			#pragma GCC unroll 2
			for (int sub = 0; sub < tb; sub++) {
				const uint16_t *at = ag + 4 * (t + sub);
				__m512bh a01[WQ_MR], a23[WQ_MR];

				#pragma GCC unroll 8
				for (int r = 0; r < mr; r++) {
					a01[r] = bcast_pair(at + r * lda);
					a23[r] = bcast_pair(at + r * lda + 2);
				}
				#pragma GCC unroll 8
				for (int p = 0; p < np; p++) {
					__m512bh w01, w23;

					wq_step(bits, d[p] + t * sb, x[p], sub,
						lut, &w01, &w23);
					/* w23 to its own chain, or after w01 */
					#pragma GCC unroll 8
					for (int r = 0; r < mr; r++) {
						__m512 *c = split ? &d1[r][p] : &d0[r][p];

						d0[r][p] = _mm512_dpbf16_ps(d0[r][p],
									    w01, a01[r]);
						*c = _mm512_dpbf16_ps(*c, w23, a23[r]);
					}
				}
			}
		}
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++) {
			__m512 s = hdr_vec(w, h[p]), v = s;

			if (form == WQ_ZP)
				v = _mm512_mul_ps(s, _mm512_sub_ps(
					_mm512_setzero_ps(), hdr_vec(w, h[p] + vo)));
			else if (form == WQ_MIN)
				v = hdr_vec(w, h[p] + vo);
			#pragma GCC unroll 8
			for (int r = 0; r < mr; r++) {
				__m512 dot = split ? _mm512_add_ps(d0[r][p],
								   d1[r][p]) :
						     d0[r][p];

				acc[r][p] = _mm512_fmadd_ps(dot, s, acc[r][p]);
				if (form != WQ_PLAIN)
					acc[r][p] = _mm512_fmadd_ps(
						_mm512_set1_ps(asum[r * w->ngroups + g]),
						v, acc[r][p]);
			}
		}
	}
	#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++)
			_mm512_store_ps(out + r * WQ_NP * WQ_NR + p * WQ_NR,
					acc[r][p]);
}

void wq_group_add_avx512(const struct amx_wq *w, unsigned int form,
			 const uint8_t *h, size_t rows, const float *src,
			 size_t lds, const float *asum, size_t asum_ld,
			 float *out, size_t ldo)
{
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);
	__m512 s = hdr_vec(w, h), v = s;

	if (form == WQ_ZP)
		v = _mm512_mul_ps(s, _mm512_sub_ps(_mm512_setzero_ps(),
						   hdr_vec(w, h + vo)));
	else if (form == WQ_MIN)
		v = hdr_vec(w, h + vo);
	for (size_t r = 0; r < rows; r++) {
		__m512 acc = _mm512_fmadd_ps(_mm512_loadu_ps(src + r * lds), s,
					     _mm512_loadu_ps(out + r * ldo));

		if (form != WQ_PLAIN)
			acc = _mm512_fmadd_ps(_mm512_set1_ps(asum[r * asum_ld]), v,
					      acc);
		_mm512_storeu_ps(out + r * ldo, acc);
	}
}

#define WQ_K(bits, mr, np)						\
static void wq_k##bits##_##mr##_##np(const struct amx_wq *w,		\
				     const uint16_t *a, size_t lda,	\
				     const float *asum,			\
				     const uint8_t *panel,		\
				     const uint8_t *xd, size_t pf,	\
				     float *out)			\
{									\
	wq_body(w, bits, mr, np, a, lda, asum, panel, xd, pf, out);	\
}

#define WQ_KS(bits, mr)	WQ_K(bits, mr, 1) WQ_K(bits, mr, 2)		\
			WQ_K(bits, mr, 3) WQ_K(bits, mr, 4)
#define WQ_K2(bits, mr) WQ_K(bits, mr, 1) WQ_K(bits, mr, 2)
WQ_KS(4, 1) WQ_KS(4, 2) WQ_K2(4, 3) WQ_K2(4, 4)
WQ_KS(8, 1) WQ_KS(8, 2) WQ_K2(8, 3) WQ_K2(8, 4)
WQ_KS(16, 1) WQ_KS(16, 2) WQ_K2(16, 3) WQ_K2(16, 4)
WQ_K(16, 3, 3) WQ_K(16, 4, 3)
WQ_K(4, 5, 1) WQ_K(4, 6, 1) WQ_K(4, 7, 1) WQ_K(4, 8, 1)
WQ_K(8, 5, 1) WQ_K(8, 6, 1) WQ_K(8, 7, 1) WQ_K(8, 8, 1)
WQ_K(16, 5, 1) WQ_K(16, 6, 1) WQ_K(16, 7, 1) WQ_K(16, 8, 1)

typedef void (*wq_fn)(const struct amx_wq *, const uint16_t *, size_t,
		      const float *, const uint8_t *, const uint8_t *, size_t,
		      float *);

#define WQ_ROW(bits, mr) { wq_k##bits##_##mr##_1, wq_k##bits##_##mr##_2, \
			   wq_k##bits##_##mr##_3, wq_k##bits##_##mr##_4 }
#define WQ_ROW2(bits, mr) { wq_k##bits##_##mr##_1, wq_k##bits##_##mr##_2, \
			    NULL, NULL }
#define WQ_ROW3(bits, mr) { wq_k##bits##_##mr##_1, wq_k##bits##_##mr##_2, \
			    wq_k##bits##_##mr##_3, NULL }
#define WQ_ROW1(bits, mr) { wq_k##bits##_##mr##_1, NULL, NULL, NULL }

static const wq_fn wq_fns[3][WQ_MR][WQ_NP] = {
	{ WQ_ROW(4, 1), WQ_ROW(4, 2), WQ_ROW2(4, 3), WQ_ROW2(4, 4),
	  WQ_ROW1(4, 5), WQ_ROW1(4, 6), WQ_ROW1(4, 7), WQ_ROW1(4, 8) },
	{ WQ_ROW(8, 1), WQ_ROW(8, 2), WQ_ROW2(8, 3), WQ_ROW2(8, 4),
	  WQ_ROW1(8, 5), WQ_ROW1(8, 6), WQ_ROW1(8, 7), WQ_ROW1(8, 8) },
	{ WQ_ROW(16, 1), WQ_ROW(16, 2), WQ_ROW3(16, 3), WQ_ROW3(16, 4),
	  WQ_ROW1(16, 5), WQ_ROW1(16, 6), WQ_ROW1(16, 7), WQ_ROW1(16, 8) },
};

void wq_kernel_avx512(const struct amx_wq *w, size_t mr, size_t np,
		      const uint16_t *a, size_t lda, const float *asum,
		      const uint8_t *panel, const uint8_t *xd, size_t pf,
		      float *out)
{
	wq_fns[xd ? 2 : w->bits == 8][mr - 1][np - 1](w, a, lda, asum, panel,
						       xd, pf, out);
}
