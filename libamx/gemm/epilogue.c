// SPDX-License-Identifier: MIT
/*
 * The fused epilogue: amx_epilogue_create() checks a description once,
 * and gemm_epi_tile() applies it to a block of C right after the block's
 * last K step (gemm.c), in portable C here and with AVX-512F in
 * epilogue_avx512.c (the same bits; see epilogue.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "epilogue.h"

static int is_finite(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return (u & 0x7f800000u) != 0x7f800000u;
}

int amx_epilogue_create(struct amx_epilogue **out,
			const struct amx_epilogue_desc *d)
{
	struct amx_epilogue *ep;
	float scale;

	if (!out || !d || !d->n || d->act > AMX_ACT_SILU ||
	    d->out > AMX_OUT_BF16 || d->n > SIZE_MAX / 2 / sizeof(float))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(d->reserved) / sizeof(d->reserved[0]);
	     i++)
		if (d->reserved[i])
			return -EINVAL;
	scale = d->scale == 0.0f ? 1.0f : d->scale;
	if (!is_finite(scale) || !(scale > 0.0f))
		return -EINVAL;
	for (size_t j = 0; j < d->n; j++) {
		if (d->col_scale && (!is_finite(d->col_scale[j]) ||
				     !(d->col_scale[j] > 0.0f)))
			return -EINVAL;
		if (d->bias && !is_finite(d->bias[j]))
			return -EINVAL;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->w = malloc(d->n * sizeof(float) * (d->bias ? 2 : 1));
	if (!ep->w) {
		free(ep);
		return -ENOMEM;
	}
	ep->magic = GEMM_EPI_MAGIC;
	ep->act = d->act;
	ep->out = d->out;
	ep->n = d->n;
	for (size_t j = 0; j < d->n; j++)
		ep->w[j] = d->col_scale ? scale * d->col_scale[j] : scale;
	if (d->bias) {
		ep->bias = ep->w + d->n;
		memcpy(ep->bias, d->bias, d->n * sizeof(float));
	}
	*out = ep;
	return 0;
}

void amx_epilogue_free(struct amx_epilogue *ep)
{
	if (!ep)
		return;
	ep->magic = 0;
	free(ep->w);
	free(ep);
}

/* e^x (epilogue.h); a NaN goes through */
static float epi_exp(float x)
{
	static const float c[] = { EPI_C7, EPI_C6, EPI_C5, EPI_C4, EPI_C3,
				   EPI_C2, 1.0f, 1.0f };
	float n, r, p, s1, s2;
	int32_t ni, n1;
	uint32_t b;

	if (x != x)
		return x;
	x = EPI_EXP_LO > x ? EPI_EXP_LO : x;
	x = EPI_EXP_HI < x ? EPI_EXP_HI : x;
	n = x * EPI_LOG2E;
	n = n + EPI_RND;
	n = n - EPI_RND;
	r = x - n * EPI_LN2_HI;
	r = r - n * EPI_LN2_LO;
	p = c[0];
	for (size_t i = 1; i < sizeof(c) / sizeof(c[0]); i++)
		p = p * r + c[i];
	ni = (int32_t)n;
	n1 = ni >> 1;
	b = (uint32_t)(n1 + 127) << 23;
	memcpy(&s1, &b, sizeof(b));
	b = (uint32_t)(ni - n1 + 127) << 23;
	memcpy(&s2, &b, sizeof(b));
	p = p * s1;
	return p * s2;
}

static float epi_act(uint32_t act, float v)
{
	static const float erfc_p[EPI_ERFC_NP] = EPI_ERFC_P;
	float u, t, q, e;

	switch (act) {
	case AMX_ACT_RELU:
		return 0.0f > v ? 0.0f : v;	/* as MAXPS(0, v) */
	case AMX_ACT_SILU:
		u = epi_exp(-v);
		break;
	case AMX_ACT_GELU_TANH:
		u = v * v;
		u = u * v;
		u = u * EPI_GELU_K;
		u = u + v;
		u = u * EPI_GELU_M2S;
		u = epi_exp(u);
		break;
	case AMX_ACT_GELU_ERF:
		u = v * EPI_RSQRT2;
		u = u < 0.0f ? -u : u;	/* |z|; a NaN stays one */
		t = 1.0f / (1.0f + u * 0.5f);
		q = erfc_p[0];
		for (int i = 1; i < EPI_ERFC_NP; i++)
			q = q * t + erfc_p[i];
		q = q - u * u;
		e = t * epi_exp(q);	/* erfc(|z|) */
		e = v >= 0.0f ? 2.0f - e : e;
		if (v == -__builtin_inff())
			return -0.0f;
		return v * 0.5f * e;
	default:
		return v;
	}
	/* SiLU and GELU (tanh): v / (1 + u) */
	if (v == -__builtin_inff())
		return -0.0f;
	return v / (1.0f + u);
}

static float bf16_to_f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void gemm_epi_row_c(const struct gemm_epi *e, size_t i, size_t j,
		    size_t cols, const void *src)
{
	const struct amx_epilogue *ep = e->ep;
	float rs = e->rs ? e->rs[i] : 1.0f;
	int32_t zp = e->zp ? e->zp[i] : 0;
	uint8_t *c = e->c + (i * e->ldc + j) * (ep->out ? 2 : 4);

	for (size_t x = 0; x < cols; x++) {
		float v;

		if (e->isint) {
			int32_t a;

			memcpy(&a, (const int32_t *)src + x, sizeof(a));
			if (e->zp)	/* wraps as the int32 accumulation */
				a = (int32_t)((uint32_t)a - (uint32_t)zp *
					      (uint32_t)e->colsum[j + x]);
			v = (float)a;
		} else {
			memcpy(&v, (const float *)src + x, sizeof(v));
		}
		v = v * rs;
		v = v * ep->w[j + x];
		if (ep->bias)
			v = v + ep->bias[j + x];
		v = epi_act(ep->act, v);
		if (ep->out == AMX_OUT_F32) {
			if (e->acc) {
				float o;

				memcpy(&o, c + x * 4, sizeof(o));
				v = v + o;
			}
			memcpy(c + x * 4, &v, sizeof(v));
		} else {
			amx_bf16 h;

			if (e->acc) {
				memcpy(&h, c + x * 2, sizeof(h));
				v = v + bf16_to_f(h);
			}
			h = amx_fp32_to_bf16(v);
			memcpy(c + x * 2, &h, sizeof(h));
		}
	}
}

void gemm_epi_tile(const struct gemm_epi *e, size_t i, size_t rows,
		   size_t j, size_t cols, const void *src, size_t lds)
{
	if (e->avx512) {
		gemm_epi_tile_avx512(e, i, rows, j, cols, src, lds);
		return;
	}
	for (size_t r = 0; r < rows; r++)
		gemm_epi_row_c(e, i + r, j, cols,
			       (const uint8_t *)src + r * lds * 4);
}
