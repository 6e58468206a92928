// SPDX-License-Identifier: MIT
/*
 * AVX-512 VNNI kernels of the weight-only quantized GEMM with int8 A
 * (amx_gemm_s8_wq(3); the arithmetic in wq.h): up to 8 rows of A times
 * up to 4 panels of 16 columns, all of K, reading B as stored (decode,
 * small M), and the prefill's over B widened once per chunk (below).
 *
 * vpdpbusd multiplies 4 unsigned bytes of one operand by 4 signed bytes
 * of the other in each 32-bit lane: B's stored values are the unsigned
 * ones (4-bit u, 8-bit q + 128), A's 4 K values the signed ones,
 * broadcast.  A step of a panel (4 rows of 16 columns) becomes one zmm
 * of such dwords, column c's lane holding rows 4t..4t+3:
 *
 *   4-bit: two steps from one 64-byte load (wq.h): its low nibbles,
 *          masked, are column c's rows 8u + (0, 4, 1, 5), its high ones
 *          8u + (2, 6, 3, 7), which A's rows, permuted so (wq_perm8()),
 *          meet as they are
 *   8-bit: the two 32-byte halves (rows 4t, 4t + 1 and 4t + 2, 4t + 3)
 *          widened, the second shifted by 16, or'ed and xor'ed with
 *          0x80 (q + 128) in one vpternlogd
 *
 * Each group's int32 dot products are exact; the group's scale turns
 * them into fp32 as wq.h says.
 *
 * Built with -mavx512f -mavx512bw -mavx512vl -mavx512vnni; only called
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

static inline __m512i bcast4(const int8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return _mm512_set1_epi32((int)v);
}

/*
 * A step's zmm of dwords: 4-bit, half @h (0: low nibbles, 1: high) of
 * the two steps @x loaded from their 64 bytes; 8-bit, from the step's
 * bytes at @s
 */
static inline __attribute__((always_inline))
__m512i i8_step(const int bits, const uint8_t *s, __m512i x, int h)
{
	__m512i lo, hi;

	if (bits == 4) {
		if (h)
			x = _mm512_srli_epi32(x, 4);
		return _mm512_and_si512(x, _mm512_set1_epi32(0x0f0f0f0f));
	}
	lo = _mm512_cvtepu16_epi32(_mm256_load_si256((const __m256i *)s));
	hi = _mm512_slli_epi32(_mm512_cvtepu16_epi32(
		_mm256_load_si256((const __m256i *)(s + 32))), 16);
	/* (lo | hi) ^ 0x80808080 */
	return _mm512_ternarylogic_epi32(lo, hi,
					 _mm512_set1_epi32((int)0x80808080u), 0x56);
}

/*
 * Steps @t (and t + 1 for 4-bit) of the panels at @d into @dot, A's
 * group at @ag; with each 64 bytes of B, prefetches @pf on into L2 and
 * @pf1 into L1 (0: none)
 */
static inline __attribute__((always_inline))
void i8_tstep(const int bits, const int mr, const int np, const int8_t *ag,
	      size_t lda, const uint8_t *const *d, size_t pf, size_t pf1,
	      size_t t, __m512i dot[WQ_MR][WQ_NP])
{
	/* a step's bytes; 4-bit: two steps a load, and t * sb is 64 t / 2 */
	const size_t sb = bits == 4 ? 32 : 64;
	const int tb = bits == 4 ? 2 : 1;
	__m512i x[WQ_NP];

	#pragma GCC unroll 8
	for (int p = 0; p < np; p++) {
		const uint8_t *s = d[p] + t * sb;

		if (pf && !(t * sb & 63))
			_mm_prefetch((const char *)s + pf, _MM_HINT_T1);
		if (pf1 && !(t * sb & 63))
			_mm_prefetch((const char *)s + pf1, _MM_HINT_T0);
		x[p] = bits == 4 ? _mm512_loadu_si512(s) :
				   _mm512_setzero_si512();
	}
	#pragma GCC unroll 2
	for (int sub = 0; sub < tb; sub++) {
		__m512i a4[WQ_MR];

		#pragma GCC unroll 8
		for (int r = 0; r < mr; r++)
			a4[r] = bcast4(ag + r * lda + 4 * (t + sub));
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++) {
			__m512i wv = i8_step(bits, d[p] + t * sb, x[p], sub);

			#pragma GCC unroll 8
			for (int r = 0; r < mr; r++)
				dot[r][p] = _mm512_dpbusd_epi32(dot[r][p], wv,
								a4[r]);
		}
	}
}

static inline __attribute__((always_inline))
void i8_body(const struct amx_wq *w, const int bits, const int mr,
	     const int np, const size_t csteps, const int8_t *a, size_t lda,
	     const int32_t *asum, const uint8_t *panel, size_t pf, float *out)
{
	__m512 acc[WQ_MR][WQ_NP];
	__m512i dot[WQ_MR][WQ_NP];
	size_t steps = csteps ? csteps : w->group / 4;
	/*
	 * Plain groups of a known size (the loop of steps unrolled whole):
	 * the dot products start from -c asum and end as the group's exact
	 * sum, with no subtraction of their own.  In a loop GCC would copy
	 * such accumulators every step: there they start from zero.
	 */
	const int pre = csteps && w->form == WQ_PLAIN;
	/* steps a load: 4-bit, two (wq.h) */
	const int tb = bits == 4 ? 2 : 1;
	const size_t pf1 = WQ_PF_L1_I8(mr);	/* L1's distance */
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);
	const int cshift = bits == 8 ? 7 : 3;	/* c = 128, or center 8 */

	#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++)
			acc[r][p] = _mm512_setzero_ps();
	for (size_t g = 0; g < w->ngroups; g++) {
		const uint8_t *h[WQ_NP], *d[WQ_NP];
		const int8_t *ag = a + g * w->group;

		#pragma GCC unroll 8
		for (int p = 0; p < np; p++) {
			h[p] = panel + p * w->pbytes + g * w->gbytes;
			d[p] = h[p] + w->hdr;
		}
		#pragma GCC unroll 8
		for (int r = 0; r < mr; r++) {
			uint32_t as = (uint32_t)asum[r * w->ngroups + g] << cshift;
			__m512i z = pre ? _mm512_set1_epi32(-(int32_t)as) :
					  _mm512_setzero_si512();

			#pragma GCC unroll 8
			for (int p = 0; p < np; p++)
				dot[r][p] = z;
		}
		if (csteps) {
			#pragma GCC unroll 8
			for (size_t t = 0; t < csteps; t += tb)
				i8_tstep(bits, mr, np, ag, lda, d, pf, pf1, t, dot);
		} else {
			for (size_t t = 0; t < steps; t += tb)
				i8_tstep(bits, mr, np, ag, lda, d, pf, pf1, t, dot);
		}
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++) {
			__m512 s = hdr_vec(w, h[p]), v = s;

			if (w->form == WQ_ZP)
				v = _mm512_mul_ps(s, _mm512_sub_ps(
					_mm512_setzero_ps(), hdr_vec(w, h[p] + vo)));
			else if (w->form == WQ_MIN)
				v = hdr_vec(w, h[p] + vo);
			#pragma GCC unroll 8
			for (int r = 0; r < mr; r++) {
				int32_t as = asum[r * w->ngroups + g];

				if (w->form == WQ_PLAIN) {
					uint32_t c = (uint32_t)as << cshift;
					__m512i dd = pre ? dot[r][p] :
						_mm512_sub_epi32(dot[r][p],
								 _mm512_set1_epi32((int32_t)c));

					acc[r][p] = _mm512_fmadd_ps(
						_mm512_cvtepi32_ps(dd), s, acc[r][p]);
				} else {
					acc[r][p] = _mm512_fmadd_ps(
						_mm512_cvtepi32_ps(dot[r][p]), s,
						acc[r][p]);
					acc[r][p] = _mm512_fmadd_ps(
						_mm512_set1_ps((float)as), v,
						acc[r][p]);
				}
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

/*
 * 4-bit: step @h of the two at @x with its dwords' bytes in K order
 * (rows 4t..4t+3), as AMX multiplies them: the nibbles masked, each
 * dword's rows (0, 4, 1, 5) and (2, 6, 3, 7) shuffled to (0, 1, 4, 5)
 * and (2, 3, 6, 7), and the words of step @h taken from each
 */
static inline __m512i nib_natural(__m512i x, int h)
{
	const __m512i m = _mm512_set1_epi32(0x0f0f0f0f);
	const __m512i sh = _mm512_broadcast_i32x4(
		_mm_set_epi32(0x0f0d0e0c, 0x0b090a08, 0x07050604, 0x03010200));
	__m512i lo = _mm512_shuffle_epi8(_mm512_and_si512(x, m), sh);
	__m512i hi = _mm512_shuffle_epi8(
		_mm512_and_si512(_mm512_srli_epi32(x, 4), m), sh);

	if (h)
		return _mm512_mask_blend_epi16(0xaaaaaaaau,
					       _mm512_srli_epi32(lo, 16), hi);
	return _mm512_mask_blend_epi16(0xaaaaaaaau, lo,
				       _mm512_slli_epi32(hi, 16));
}

void wq_expand_i8_avx512(const struct amx_wq *w, const uint8_t *panel,
			 size_t np, uint8_t *xd, int32_t *cs)
{
	size_t steps = w->group / 4, sb = w->bits == 4 ? 32 : 64;
	const __m512i ones = _mm512_set1_epi8(1);

	for (size_t p = 0; p < np; p++)
		for (size_t g = 0; g < w->ngroups; g++, cs += WQ_NR) {
			const uint8_t *d = panel + p * w->pbytes +
					   g * w->gbytes + w->hdr;
			__m512i sum = _mm512_setzero_si512();

			for (size_t t = 0; t < steps; t++, xd += 64) {
				__m512i wv;

				if (w->bits == 4) {	/* u - 8 */
					wv = _mm512_sub_epi8(nib_natural(
						_mm512_loadu_si512(d + t / 2 * 64),
						t & 1), _mm512_set1_epi8(8));
				} else {		/* q: (q + 128) ^ 0x80 */
					wv = _mm512_xor_si512(i8_step(8, d + t * sb,
						_mm512_setzero_si512(), 0),
						_mm512_set1_epi32((int)0x80808080u));
				}
				sum = _mm512_dpbusd_epi32(sum, ones, wv);
				_mm512_store_si512(xd, wv);
			}
			_mm512_storeu_si512(cs, sum);
		}
}

/*
 * The prefill (many rows over each widened chunk): rows of A as uint8 (a
 * + 128) times panels widened by wq_expand_i8_avx512() (int8 w8 in K
 * order, 64 bytes a step), the arithmetic of wq_amx_i8_kernel(): a
 * group's int32 dot products less 128 cs (its column sums) are D = sum
 * a w8, exact; then one conversion and one fma each (one more with zero
 * points or mins) into the fp32 accumulators.  Up to WQ_I8X_MR rows x
 * WQ_I8X_NP panels: 12 dot products and 12 accumulators, 12 vpdpbusd to
 * 2 loads and 6 broadcasts a step.  On Zen 4 the fma shares its pipes
 * with vpdpbusd, so groups of 32 rows (12 fma to 96 vpdpbusd) cannot
 * come closer than about 1.13x the time of the plain int8 GEMM.
 *
 * A is packed ([kp / 4][mr] quads of the block of rows: one stream that
 * the core prefetches) or, after AMX's blocks of rows, rows @lda apart.
 * The 8 steps of a block are unrolled: GCC keeps the 24 accumulators in
 * place then (a loop of unknown count had it copy them each step), and
 * groups of 32, 64 and 128 rows get their count of steps built in.
 */
/* step @t of the group at @b (panels @xpanel apart), A's at @ag */
static inline __attribute__((always_inline))
void i8x_step(const int mr, const int np, const int packed,
	      const uint8_t *ag, size_t lda, const uint8_t *b, size_t xpanel,
	      size_t t, __m512i dot[WQ_I8X_MR][WQ_I8X_NP])
{
	__m512i wv[WQ_I8X_NP];

	#pragma GCC unroll 8
	for (int p = 0; p < np; p++)
		wv[p] = _mm512_load_si512(b + p * xpanel + t * 64);
	#pragma GCC unroll 8
	for (int r = 0; r < mr; r++) {
		size_t o = packed ? (t * mr + r) * 4 : r * lda + 4 * t;
		__m512i a4 = bcast4((const int8_t *)ag + o);

		#pragma GCC unroll 8
		for (int p = 0; p < np; p++)
			dot[r][p] = _mm512_dpbusd_epi32(dot[r][p], a4, wv[p]);
	}
}

static inline __attribute__((always_inline))
void i8x_body(const struct amx_wq *w, const int mr, const int np,
	      const size_t csteps, const int packed, const uint8_t *a, size_t lda,
	      const int32_t *asum, const uint8_t *panel, const uint8_t *xd,
	      size_t xpanel, const int32_t *cs, float *out)
{
	__m512i dot[WQ_I8X_MR][WQ_I8X_NP];
	__m512 acc[WQ_I8X_MR][WQ_I8X_NP];
	/* w's fields in locals: the stores to @out do not reload them */
	const size_t group = w->group, ng = w->ngroups, steps = csteps ?
			     csteps : group / 4;
	const size_t pbytes = w->pbytes, gbytes = w->gbytes;
	const int form = (int)w->form, f16 = (int)w->f16;
	const size_t vo = WQ_NR * (f16 ? 2 : 4);
	const __m512 eight = _mm512_set1_ps(8.0f);

	#pragma GCC unroll 8
	for (int r = 0; r < mr; r++)
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++)
			acc[r][p] = _mm512_setzero_ps();
	for (size_t g = 0; g < ng; g++) {
		const uint8_t *b = xd + g * steps * 64;
		/* packed: [kp / 4][mr] quads, else rows lda apart */
		const uint8_t *ag = a + g * group * (packed ? mr : 1);

		#pragma GCC unroll 8
		for (int p = 0; p < np; p++)
			#pragma GCC unroll 8
			for (int r = 0; r < mr; r++)
				dot[r][p] = _mm512_setzero_si512();
		/* 8 steps at a time, unrolled: GCC then keeps dot in place */
		for (size_t t0 = 0; t0 < steps / 8 * 8; t0 += 8) {
			#pragma GCC unroll 8
			for (size_t t = t0; t < t0 + 8; t++)
				i8x_step(mr, np, packed, ag, lda, b, xpanel, t,
					 dot);
		}
		for (size_t t = steps / 8 * 8; !csteps && t < steps; t++)
			i8x_step(mr, np, packed, ag, lda, b, xpanel, t, dot);
		#pragma GCC unroll 8
		for (int p = 0; p < np; p++) {
			const uint8_t *h = panel + p * pbytes + g * gbytes;
			const int32_t *cp = cs + (p * ng + g) * WQ_NR;
			__m512 s = hdr_vec(w, h), v = s;
			__m512i c = _mm512_slli_epi32(_mm512_loadu_si512(cp), 7);

			if (form == WQ_ZP)	/* s (8 - z) */
				v = _mm512_mul_ps(s, _mm512_sub_ps(eight,
						  hdr_vec(w, h + vo)));
			else if (form == WQ_MIN)	/* 8 s + m */
				v = _mm512_fmadd_ps(s, eight, hdr_vec(w, h + vo));
			#pragma GCC unroll 8
			for (int r = 0; r < mr; r++) {
				__m512i d = _mm512_sub_epi32(dot[r][p], c);
				__m512 as;

				acc[r][p] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d),
							    s, acc[r][p]);
				if (form == WQ_PLAIN)
					continue;
				as = _mm512_set1_ps((float)asum[r * ng + g]);
				acc[r][p] = _mm512_fmadd_ps(as, v, acc[r][p]);
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

/* the groups of 32, 64 and 128 rows with their steps known */
static inline __attribute__((always_inline))
void i8x_groups(const struct amx_wq *w, const int mr, const int np,
		const int packed, const uint8_t *a, size_t lda,
		const int32_t *asum, const uint8_t *panel, const uint8_t *xd,
		size_t xpanel, const int32_t *cs, float *out)
{
	size_t csteps = w->group == 32 ? 8 : w->group == 64 ? 16 :
			w->group == 128 ? 32 : 0;

	if (csteps == 8)
		i8x_body(w, mr, np, 8, packed, a, lda, asum, panel, xd,
			 xpanel, cs, out);
	else if (csteps == 16)
		i8x_body(w, mr, np, 16, packed, a, lda, asum, panel, xd,
			 xpanel, cs, out);
	else if (csteps == 32)
		i8x_body(w, mr, np, 32, packed, a, lda, asum, panel, xd,
			 xpanel, cs, out);
	else
		i8x_body(w, mr, np, 0, packed, a, lda, asum, panel, xd,
			 xpanel, cs, out);
}

#define I8X_K(mr, np)							\
static void i8x_k##mr##_##np(const struct amx_wq *w, const uint8_t *a,	\
			     size_t lda, const int32_t *asum,		\
			     const uint8_t *panel, const uint8_t *xd,	\
			     size_t xpanel, const int32_t *cs, float *out) \
{									\
	i8x_groups(w, mr, np, 0, a, lda, asum, panel, xd, xpanel, cs,	\
		   out);						\
}									\
static void i8p_k##mr##_##np(const struct amx_wq *w, const uint8_t *a,	\
			     size_t lda, const int32_t *asum,		\
			     const uint8_t *panel, const uint8_t *xd,	\
			     size_t xpanel, const int32_t *cs, float *out) \
{									\
	i8x_groups(w, mr, np, 1, a, lda, asum, panel, xd, xpanel, cs,	\
		   out);						\
}

#define I8X_K2(mr) I8X_K(mr, 1) I8X_K(mr, 2)
I8X_K2(1) I8X_K2(2) I8X_K2(3) I8X_K2(4) I8X_K2(5) I8X_K2(6)

typedef void (*i8x_fn)(const struct amx_wq *, const uint8_t *, size_t,
		       const int32_t *, const uint8_t *, const uint8_t *,
		       size_t, const int32_t *, float *);

#define I8X_ROW(mr) { i8x_k##mr##_1, i8x_k##mr##_2 }
#define I8P_ROW(mr) { i8p_k##mr##_1, i8p_k##mr##_2 }
static const i8x_fn i8x_fns[2][WQ_I8X_MR][WQ_I8X_NP] = {
	{ I8X_ROW(1), I8X_ROW(2), I8X_ROW(3), I8X_ROW(4), I8X_ROW(5),
	  I8X_ROW(6) },
	{ I8P_ROW(1), I8P_ROW(2), I8P_ROW(3), I8P_ROW(4), I8P_ROW(5),
	  I8P_ROW(6) },
};

void wq_i8x_kernel_avx512(const struct amx_wq *w, size_t mr, size_t np,
			  const uint8_t *a, size_t lda, const int32_t *asum,
			  const uint8_t *panel, const uint8_t *xd,
			  size_t xpanel, const int32_t *cs, float *out)
{
	i8x_fns[!lda][mr - 1][np - 1](w, a, lda, asum, panel, xd, xpanel, cs,
				      out);
}

#define I8_K(bits, mr, np)						\
static void i8_k##bits##_##mr##_##np(const struct amx_wq *w,		\
				     const int8_t *a, size_t lda,	\
				     const int32_t *asum,		\
				     const uint8_t *panel, size_t pf,	\
				     float *out)			\
{									\
	if (w->group == 32)						\
		i8_body(w, bits, mr, np, 8, a, lda, asum, panel, pf, out); \
	else								\
		i8_body(w, bits, mr, np, 0, a, lda, asum, panel, pf, out); \
}

#define I8_K4(bits, mr) I8_K(bits, mr, 1) I8_K(bits, mr, 2)		\
			I8_K(bits, mr, 3) I8_K(bits, mr, 4)
#define I8_K2(bits, mr) I8_K(bits, mr, 1) I8_K(bits, mr, 2)
I8_K4(4, 1) I8_K4(4, 2) I8_K2(4, 3) I8_K2(4, 4)
I8_K4(8, 1) I8_K4(8, 2) I8_K2(8, 3) I8_K2(8, 4)
I8_K(4, 5, 1) I8_K(4, 6, 1) I8_K(4, 7, 1) I8_K(4, 8, 1)
I8_K(8, 5, 1) I8_K(8, 6, 1) I8_K(8, 7, 1) I8_K(8, 8, 1)

typedef void (*i8_fn)(const struct amx_wq *, const int8_t *, size_t,
		      const int32_t *, const uint8_t *, size_t, float *);

#define I8_ROW4(bits, mr) { i8_k##bits##_##mr##_1, i8_k##bits##_##mr##_2, \
			    i8_k##bits##_##mr##_3, i8_k##bits##_##mr##_4 }
#define I8_ROW2(bits, mr) { i8_k##bits##_##mr##_1, i8_k##bits##_##mr##_2, \
			    NULL, NULL }
#define I8_ROW1(bits, mr) { i8_k##bits##_##mr##_1, NULL, NULL, NULL }

static const i8_fn i8_fns[2][WQ_MR][WQ_NP] = {
	{ I8_ROW4(4, 1), I8_ROW4(4, 2), I8_ROW2(4, 3), I8_ROW2(4, 4),
	  I8_ROW1(4, 5), I8_ROW1(4, 6), I8_ROW1(4, 7), I8_ROW1(4, 8) },
	{ I8_ROW4(8, 1), I8_ROW4(8, 2), I8_ROW2(8, 3), I8_ROW2(8, 4),
	  I8_ROW1(8, 5), I8_ROW1(8, 6), I8_ROW1(8, 7), I8_ROW1(8, 8) },
};

void wq_i8_kernel_avx512(const struct amx_wq *w, size_t mr, size_t np,
			 const int8_t *a, size_t lda, const int32_t *asum,
			 const uint8_t *panel, size_t pf, float *out)
{
	i8_fns[w->bits == 8][mr - 1][np - 1](w, a, lda, asum, panel, pf, out);
}

void wq_group_sums_avx512(const int8_t *a, size_t m, size_t kp, size_t group,
			  size_t ngroups, int32_t *sums)
{
	const __m512i flip = _mm512_set1_epi8((char)0x80);

	for (size_t i = 0; i < m; i++)
		for (size_t g = 0; g < ngroups; g++) {
			const int8_t *p = a + i * kp + g * group;
			__m512i acc = _mm512_setzero_si512();
			int64_t sum;

			/* sum (a + 128) by vpsadbw, then 128 each back out */
			for (size_t x = 0; x < group; x += 64) {
				size_t left = group - x;
				__mmask64 mk = left >= 64 ? ~0ull :
					       (1ull << left) - 1;
				__m512i v = _mm512_maskz_loadu_epi8(mk, p + x);

				v = _mm512_maskz_mov_epi8(mk,
							  _mm512_xor_si512(v, flip));
				v = _mm512_sad_epu8(v, _mm512_setzero_si512());
				acc = _mm512_add_epi64(acc, v);
			}
			sum = _mm512_reduce_add_epi64(acc) - 128 * (int64_t)group;
			sums[i * ngroups + g] = (int32_t)sum;
		}
}
