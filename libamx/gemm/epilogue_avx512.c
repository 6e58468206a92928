// SPDX-License-Identifier: MIT
/*
 * The fused epilogue with AVX-512F, 16 columns at a time: lane by lane
 * the float operations of gemm_epi_row_c(), in its order (epilogue.h), so
 * the bits are the same.
 */
#include <immintrin.h>

#include "gemm.h"
#include "epilogue.h"

static inline __m512 v_exp(__m512 x)
{
	static const float c[] = { EPI_C7, EPI_C6, EPI_C5, EPI_C4, EPI_C3,
				   EPI_C2, 1.0f, 1.0f };
	__m512 n, r, p, rnd = _mm512_set1_ps(EPI_RND);
	__m512i ni, n1, bias = _mm512_set1_epi32(127);

	/* MAXPS / MINPS return the second operand for a NaN: x */
	x = _mm512_max_ps(_mm512_set1_ps(EPI_EXP_LO), x);
	x = _mm512_min_ps(_mm512_set1_ps(EPI_EXP_HI), x);
	n = _mm512_mul_ps(x, _mm512_set1_ps(EPI_LOG2E));
	n = _mm512_add_ps(n, rnd);
	n = _mm512_sub_ps(n, rnd);
	r = _mm512_sub_ps(x, _mm512_mul_ps(n, _mm512_set1_ps(EPI_LN2_HI)));
	r = _mm512_sub_ps(r, _mm512_mul_ps(n, _mm512_set1_ps(EPI_LN2_LO)));
	p = _mm512_set1_ps(c[0]);
	for (size_t i = 1; i < sizeof(c) / sizeof(c[0]); i++)
		p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(c[i]));
	ni = _mm512_cvtps_epi32(n);	/* exact: n is an integer (or NaN) */
	n1 = _mm512_srai_epi32(ni, 1);
	p = _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(
				_mm512_add_epi32(n1, bias), 23)));
	return _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(
				_mm512_add_epi32(_mm512_sub_epi32(ni, n1), bias),
				23)));
}

static inline __m512 v_act(uint32_t act, __m512 v)
{
	static const float erfc_p[EPI_ERFC_NP] = EPI_ERFC_P;
	const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
	__mmask16 ninf;
	__m512 u, t, q, e;

	switch (act) {
	case AMX_ACT_RELU:
		return _mm512_max_ps(zero, v);
	case AMX_ACT_SILU:
		u = v_exp(_mm512_sub_ps(zero, v));
		u = _mm512_div_ps(v, _mm512_add_ps(one, u));
		break;
	case AMX_ACT_GELU_TANH:
		u = _mm512_mul_ps(v, v);
		u = _mm512_mul_ps(u, v);
		u = _mm512_mul_ps(u, _mm512_set1_ps(EPI_GELU_K));
		u = _mm512_add_ps(u, v);
		u = _mm512_mul_ps(u, _mm512_set1_ps(EPI_GELU_M2S));
		u = v_exp(u);
		u = _mm512_div_ps(v, _mm512_add_ps(one, u));
		break;
	case AMX_ACT_GELU_ERF:
		u = _mm512_mul_ps(v, _mm512_set1_ps(EPI_RSQRT2));
		u = _mm512_castsi512_ps(_mm512_and_epi32(_mm512_castps_si512(u),
					_mm512_set1_epi32(0x7fffffff)));
		t = _mm512_div_ps(one, _mm512_add_ps(one, _mm512_mul_ps(u,
					_mm512_set1_ps(0.5f))));
		q = _mm512_set1_ps(erfc_p[0]);
		for (int i = 1; i < EPI_ERFC_NP; i++)
			q = _mm512_add_ps(_mm512_mul_ps(q, t),
					  _mm512_set1_ps(erfc_p[i]));
		q = _mm512_sub_ps(q, _mm512_mul_ps(u, u));
		e = _mm512_mul_ps(t, v_exp(q));
		e = _mm512_mask_sub_ps(e, _mm512_cmp_ps_mask(v, zero, _CMP_GE_OQ),
				       _mm512_set1_ps(2.0f), e);
		u = _mm512_mul_ps(_mm512_mul_ps(v, _mm512_set1_ps(0.5f)), e);
		break;
	default:
		return v;
	}
	ninf = _mm512_cmp_ps_mask(v, _mm512_set1_ps(-__builtin_inff()),
				  _CMP_EQ_OQ);
	return _mm512_mask_mov_ps(u, ninf, _mm512_set1_ps(-0.0f));
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
 * Rows [i, i + rows) x columns [j, j + cols) (at most 32 columns: one
 * micro-tile) with the activation a compile-time constant: the column
 * operands (w, bias, B's column sums) are loaded once per 16 columns
 * for all the rows, and nothing but the arithmetic is in the row loop
 * (a call per row of 32 cost a cycle per element, 17 % of a 16 x 256 x
 * 256 bf16 product on Zen 5).
 */
static inline __attribute__((always_inline)) void
epi_tile(const struct gemm_epi *e, size_t i, size_t rows, size_t j,
	 size_t cols, const uint8_t *src, size_t lds, const uint32_t act)
{
	const struct amx_epilogue *ep = e->ep;
	size_t osz = ep->out ? 2 : 4;

	for (size_t x = 0; x < cols; x += 16) {
		__mmask16 k = cols - x >= 16 ? 0xffff :
			      (__mmask16)((1u << (cols - x)) - 1);
		__m512 w = _mm512_maskz_loadu_ps(k, ep->w + j + x);
		__m512 bias = ep->bias ? _mm512_maskz_loadu_ps(k, ep->bias + j + x)
				       : _mm512_setzero_ps();
		__m512i cs = e->zp ? _mm512_maskz_loadu_epi32(k, e->colsum + j + x)
				   : _mm512_setzero_si512();

		for (size_t r = 0; r < rows; r++) {
			const uint8_t *s = src + (r * lds + x) * 4;
			uint8_t *c = e->c + ((i + r) * e->ldc + j + x) * osz;
			__m512 v;

			if (e->isint) {
				__m512i a = _mm512_maskz_loadu_epi32(k, s);

				if (e->zp)
					a = _mm512_sub_epi32(a, _mm512_mullo_epi32(
						_mm512_set1_epi32(e->zp[i + r]), cs));
				v = _mm512_cvtepi32_ps(a);
			} else {
				v = _mm512_maskz_loadu_ps(k, s);
			}
			if (e->rs)
				v = _mm512_mul_ps(v, _mm512_set1_ps(e->rs[i + r]));
			v = _mm512_mul_ps(v, w);
			if (ep->bias)
				v = _mm512_add_ps(v, bias);
			v = v_act(act, v);
			if (ep->out == AMX_OUT_F32) {
				if (e->acc)
					v = _mm512_add_ps(v,
						_mm512_maskz_loadu_ps(k, c));
				_mm512_mask_storeu_ps(c, k, v);
			} else {
				if (e->acc) {
					__m256i h = _mm256_maskz_loadu_epi16(k, c);

					v = _mm512_add_ps(v, _mm512_castsi512_ps(
						_mm512_slli_epi32(
						_mm512_cvtepu16_epi32(h), 16)));
				}
				_mm256_mask_storeu_epi16(c, k, v_to_bf16(v));
			}
		}
	}
}

void gemm_epi_tile_avx512(const struct gemm_epi *e, size_t i, size_t rows,
			  size_t j, size_t cols, const void *src, size_t lds)
{
	for (size_t x = 0; x < cols; x += 32) {
		size_t n = cols - x < 32 ? cols - x : 32;
		const uint8_t *s = (const uint8_t *)src + x * 4;

		switch (e->ep->act) {
		case AMX_ACT_RELU:
			epi_tile(e, i, rows, j + x, n, s, lds, AMX_ACT_RELU);
			break;
		case AMX_ACT_GELU_TANH:
			epi_tile(e, i, rows, j + x, n, s, lds, AMX_ACT_GELU_TANH);
			break;
		case AMX_ACT_GELU_ERF:
			epi_tile(e, i, rows, j + x, n, s, lds, AMX_ACT_GELU_ERF);
			break;
		case AMX_ACT_SILU:
			epi_tile(e, i, rows, j + x, n, s, lds, AMX_ACT_SILU);
			break;
		default:
			epi_tile(e, i, rows, j + x, n, s, lds, AMX_ACT_NONE);
			break;
		}
	}
}
