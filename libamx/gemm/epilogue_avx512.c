// SPDX-License-Identifier: MIT
/*
 * The fused epilogue with AVX-512F, 16 columns at a time: lane by lane
 * the float operations of gemm_epi_row_c(), in its order (epilogue.h), so
 * the bits are the same (tests/test_epilogue_bits.c holds them to it).
 * Where a single instruction rounds exactly as a pair of C's operations
 * it replaces them (see v_exp()), and bf16 output uses AVX512-BF16 where
 * the CPU has it (v_to_bf16_as()).
 */
#include <immintrin.h>

#include "gemm.h"
#include "epilogue.h"

/*
 * The row loop below works on EPI_ROWS rows at once, each step of the
 * arithmetic for all of them before the next: one element's chain (GELU
 * through exp and the division) is well over 100 cycles of latency, and
 * one row at a time left the core waiting on it.  The operations and
 * their order per lane are unchanged.  Zen 4, a 12 x 32 tile of int32
 * with zero points, bf16 output, cycles per 16 outputs: GELU (tanh)
 * 93 -> 40, GELU (erf) 171 -> 77, SiLU 54 -> 36 (2 rows at once 42, 6
 * or 8 no better than 4); with v_exp()'s and v_to_bf16_as()'s single
 * instructions too, 38, 75 and 34.
 */
#define EPI_ROWS	4

/*
 * @p = the polynomial @c (@nc coefficients, highest degree first) at @x,
 * for @nv vectors: Horner's rule, multiply then add, as epilogue.c
 */
static inline __attribute__((always_inline)) void
v_poly(int nv, __m512 *p, const __m512 *x, const float *c, int nc)
{
	_Pragma("GCC unroll 8")
	for (int v = 0; v < nv; v++)
		p[v] = _mm512_set1_ps(c[0]);
	_Pragma("GCC unroll 10")
	for (int i = 1; i < nc; i++)
		_Pragma("GCC unroll 8")
		for (int v = 0; v < nv; v++)
			p[v] = _mm512_add_ps(_mm512_mul_ps(p[v], x[v]),
					     _mm512_set1_ps(c[i]));
}

/*
 * e^x for @nv vectors in place.  Where epilogue.c rounds x * log2e to an
 * integer by adding and subtracting 1.5 * 2^23, scales by 2^n with two
 * exact powers of two and subtracts n * EPI_LN2_HI (exact), this uses
 * VRNDSCALEPS, VSCALEFPS and one VFNMADD: each gives the same single
 * rounding, so the same bits.
 */
static inline __attribute__((always_inline)) void v_exp(int nv, __m512 *x)
{
	static const float c[] = { EPI_C7, EPI_C6, EPI_C5, EPI_C4, EPI_C3,
				   EPI_C2, 1.0f, 1.0f };
	__m512 n[EPI_ROWS], r[EPI_ROWS], p[EPI_ROWS];

	_Pragma("GCC unroll 8")
	for (int v = 0; v < nv; v++) {
		/* MAXPS / MINPS return the second operand for a NaN: x */
		x[v] = _mm512_max_ps(_mm512_set1_ps(EPI_EXP_LO), x[v]);
		x[v] = _mm512_min_ps(_mm512_set1_ps(EPI_EXP_HI), x[v]);
		n[v] = _mm512_mul_ps(x[v], _mm512_set1_ps(EPI_LOG2E));
	}
	_Pragma("GCC unroll 8")
	for (int v = 0; v < nv; v++)
		n[v] = _mm512_roundscale_ps(n[v], _MM_FROUND_TO_NEAREST_INT |
						  _MM_FROUND_NO_EXC);
	_Pragma("GCC unroll 8")
	for (int v = 0; v < nv; v++)
		r[v] = _mm512_fnmadd_ps(n[v], _mm512_set1_ps(EPI_LN2_HI), x[v]);
	_Pragma("GCC unroll 8")
	for (int v = 0; v < nv; v++)
		r[v] = _mm512_sub_ps(r[v], _mm512_mul_ps(n[v],
						_mm512_set1_ps(EPI_LN2_LO)));
	v_poly(nv, p, r, c, sizeof(c) / sizeof(c[0]));
	_Pragma("GCC unroll 8")
	for (int v = 0; v < nv; v++)
		x[v] = _mm512_scalef_ps(p[v], n[v]);
}

/* the activation of @nv vectors in place */
static inline __attribute__((always_inline)) void
v_act(uint32_t act, int nv, __m512 *v)
{
	static const float erfc_p[EPI_ERFC_NP] = EPI_ERFC_P;
	const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
	__m512 u[EPI_ROWS], t[EPI_ROWS], q[EPI_ROWS];

	switch (act) {
	case AMX_ACT_RELU:
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++)
			v[i] = _mm512_max_ps(zero, v[i]);
		return;
	case AMX_ACT_SILU:
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++)
			u[i] = _mm512_sub_ps(zero, v[i]);
		v_exp(nv, u);
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++)
			u[i] = _mm512_div_ps(v[i], _mm512_add_ps(one, u[i]));
		break;
	case AMX_ACT_GELU_TANH:
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++) {
			u[i] = _mm512_mul_ps(v[i], v[i]);
			u[i] = _mm512_mul_ps(u[i], v[i]);
		}
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++) {
			u[i] = _mm512_mul_ps(u[i], _mm512_set1_ps(EPI_GELU_K));
			u[i] = _mm512_add_ps(u[i], v[i]);
			u[i] = _mm512_mul_ps(u[i], _mm512_set1_ps(EPI_GELU_M2S));
		}
		v_exp(nv, u);
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++)
			u[i] = _mm512_div_ps(v[i], _mm512_add_ps(one, u[i]));
		break;
	case AMX_ACT_GELU_ERF:
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++) {
			u[i] = _mm512_mul_ps(v[i], _mm512_set1_ps(EPI_RSQRT2));
			u[i] = _mm512_castsi512_ps(_mm512_and_epi32(
				_mm512_castps_si512(u[i]),
				_mm512_set1_epi32(0x7fffffff)));
			t[i] = _mm512_div_ps(one, _mm512_add_ps(one,
				_mm512_mul_ps(u[i], _mm512_set1_ps(0.5f))));
		}
		v_poly(nv, q, t, erfc_p, EPI_ERFC_NP);
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++)
			q[i] = _mm512_sub_ps(q[i], _mm512_mul_ps(u[i], u[i]));
		v_exp(nv, q);
		_Pragma("GCC unroll 8")
		for (int i = 0; i < nv; i++) {
			__m512 e = _mm512_mul_ps(t[i], q[i]);

			e = _mm512_mask_sub_ps(e, _mm512_cmp_ps_mask(v[i], zero,
								_CMP_GE_OQ),
					       _mm512_set1_ps(2.0f), e);
			u[i] = _mm512_mul_ps(_mm512_mul_ps(v[i],
					_mm512_set1_ps(0.5f)), e);
		}
		break;
	default:
		return;
	}
	_Pragma("GCC unroll 8")
	for (int i = 0; i < nv; i++) {
		__mmask16 ninf = _mm512_cmp_ps_mask(v[i],
			_mm512_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);

		v[i] = _mm512_mask_mov_ps(u[i], ninf, _mm512_set1_ps(-0.0f));
	}
}

/* fp32 -> bf16 as amx_fp32_to_bf16(): nearest even, NaN kept quiet */
static inline __m256i v_to_bf16(__m512 v)
{
	__m512i u = _mm512_castps_si512(v);
	__m512i abs = _mm512_and_epi32(u, _mm512_set1_epi32(0x7fffffff));
	__mmask16 nan = _mm512_cmpgt_epu32_mask(abs,
						_mm512_set1_epi32(0x7f800000));
	__m512i lsb = _mm512_and_epi32(_mm512_srli_epi32(u, 16),
				       _mm512_set1_epi32(1));
	__m512i r = _mm512_add_epi32(u, _mm512_add_epi32(lsb,
					_mm512_set1_epi32(0x7fff)));

	r = _mm512_mask_or_epi32(r, nan, u, _mm512_set1_epi32(0x00400000));
	return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

/*
 * The same with AVX512-BF16 (@cvt): VCVTNEPS2BF16 rounds to nearest even
 * and quiets a NaN as above, but takes a denormal for 0; the lanes that
 * hold one (rare: GELU and SiLU far below 0) are done as above.
 */
static inline __attribute__((always_inline)) __m256i
v_to_bf16_as(__m512 v, const int cvt)
{
	__m512i u = _mm512_castps_si512(v);
	__mmask16 den;
	__m256i h;

	if (!cvt)
		return v_to_bf16(v);
	h = (__m256i)_mm512_cvtneps_pbh(v);
	den = _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000)) &
	      _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x007fffff));
	if (__builtin_expect(den != 0, 0))
		h = _mm256_mask_mov_epi16(h, den, v_to_bf16(v));
	return h;
}

/* the columns' operands of one block of 16 */
struct epi_cols {
	__mmask16 k;
	__m512 w, bias;
	__m512i cs;
};

/* rows [r, r + nv) of the block: from the accumulators to C */
static inline __attribute__((always_inline)) void
epi_rows(const struct gemm_epi *e, const struct epi_cols *cl, size_t i,
	 size_t r, int nv, size_t j, const uint8_t *src, size_t lds,
	 const uint32_t act, const int cvt)
{
	const struct amx_epilogue *ep = e->ep;
	size_t osz = ep->out ? 2 : 4;
	__m512 v[EPI_ROWS];

	_Pragma("GCC unroll 8")
	for (int y = 0; y < nv; y++) {
		const uint8_t *s = src + (r + y) * lds * 4;

		if (e->isint) {
			__m512i a = _mm512_maskz_loadu_epi32(cl->k, s);

			if (e->zp)
				a = _mm512_sub_epi32(a, _mm512_mullo_epi32(
					_mm512_set1_epi32(e->zp[i + r + y]),
					cl->cs));
			v[y] = _mm512_cvtepi32_ps(a);
		} else {
			v[y] = _mm512_maskz_loadu_ps(cl->k, s);
		}
		if (e->rs)
			v[y] = _mm512_mul_ps(v[y],
					     _mm512_set1_ps(e->rs[i + r + y]));
		v[y] = _mm512_mul_ps(v[y], cl->w);
		if (ep->bias)
			v[y] = _mm512_add_ps(v[y], cl->bias);
	}
	v_act(act, nv, v);
	_Pragma("GCC unroll 8")
	for (int y = 0; y < nv; y++) {
		uint8_t *c = e->c + ((i + r + y) * e->ldc + j) * osz;

		if (ep->out == AMX_OUT_F32) {
			if (e->acc)
				v[y] = _mm512_add_ps(v[y],
					_mm512_maskz_loadu_ps(cl->k, c));
			_mm512_mask_storeu_ps(c, cl->k, v[y]);
		} else {
			if (e->acc) {
				__m256i h = _mm256_maskz_loadu_epi16(cl->k, c);

				v[y] = _mm512_add_ps(v[y], _mm512_castsi512_ps(
					_mm512_slli_epi32(
					_mm512_cvtepu16_epi32(h), 16)));
			}
			_mm256_mask_storeu_epi16(c, cl->k,
						 v_to_bf16_as(v[y], cvt));
		}
	}
}

/*
 * Rows [i, i + rows) x columns [j, j + cols) (at most 32 columns: one
 * micro-tile) with the activation a compile-time constant: the column
 * operands (w, bias, B's column sums) are loaded once per 16 columns
 * for all the rows, and nothing but the arithmetic is in the row loop
 * (a call per row of 32 cost a cycle per element, 17 % of a 16 x 256 x
 * 256 bf16 product on Zen 5).
 */
static inline __attribute__((always_inline)) void
epi_tile(const struct gemm_epi *e, size_t i, size_t rows, size_t j,
	 size_t cols, const uint8_t *src, size_t lds, const uint32_t act,
	 const int cvt)
{
	const struct amx_epilogue *ep = e->ep;

	for (size_t x = 0; x < cols; x += 16) {
		struct epi_cols cl;
		size_t r = 0;

		cl.k = cols - x >= 16 ? 0xffff :
		       (__mmask16)((1u << (cols - x)) - 1);
		cl.w = _mm512_maskz_loadu_ps(cl.k, ep->w + j + x);
		cl.bias = ep->bias ? _mm512_maskz_loadu_ps(cl.k, ep->bias + j + x)
				   : _mm512_setzero_ps();
		cl.cs = e->zp ? _mm512_maskz_loadu_epi32(cl.k, e->colsum + j + x)
			      : _mm512_setzero_si512();
		for (; r + EPI_ROWS <= rows; r += EPI_ROWS)
			epi_rows(e, &cl, i, r, EPI_ROWS, j + x, src + x * 4,
				 lds, act, cvt);
		for (; r < rows; r++)
			epi_rows(e, &cl, i, r, 1, j + x, src + x * 4, lds, act,
				 cvt);
	}
}

/* one instance per activation, with VCVTNEPS2BF16 (@cvt) or without */
static inline __attribute__((always_inline)) void
epi_tile_as(const struct gemm_epi *e, size_t i, size_t rows, size_t j,
	    size_t cols, const uint8_t *src, size_t lds, const int cvt)
{
	switch (e->ep->act) {
	case AMX_ACT_RELU:
		epi_tile(e, i, rows, j, cols, src, lds, AMX_ACT_RELU, cvt);
		break;
	case AMX_ACT_GELU_TANH:
		epi_tile(e, i, rows, j, cols, src, lds, AMX_ACT_GELU_TANH, cvt);
		break;
	case AMX_ACT_GELU_ERF:
		epi_tile(e, i, rows, j, cols, src, lds, AMX_ACT_GELU_ERF, cvt);
		break;
	case AMX_ACT_SILU:
		epi_tile(e, i, rows, j, cols, src, lds, AMX_ACT_SILU, cvt);
		break;
	default:
		epi_tile(e, i, rows, j, cols, src, lds, AMX_ACT_NONE, cvt);
		break;
	}
}

void gemm_epi_tile_avx512_as(const struct gemm_epi *e, size_t i, size_t rows,
			     size_t j, size_t cols, const void *src,
			     size_t lds, int bf16cvt)
{
	int cvt = bf16cvt && e->ep->out == AMX_OUT_BF16;

	for (size_t x = 0; x < cols; x += 32) {
		size_t n = cols - x < 32 ? cols - x : 32;
		const uint8_t *s = (const uint8_t *)src + x * 4;

		if (cvt)
			epi_tile_as(e, i, rows, j + x, n, s, lds, 1);
		else
			epi_tile_as(e, i, rows, j + x, n, s, lds, 0);
	}
}

void gemm_epi_tile_avx512(const struct gemm_epi *e, size_t i, size_t rows,
			  size_t j, size_t cols, const void *src, size_t lds)
{
	gemm_epi_tile_avx512_as(e, i, rows, j, cols, src, lds,
				gemm_cpu_avx512bf16());
}
