// SPDX-License-Identifier: MIT
/* bf16 <-> fp32 conversions. */
#include <errno.h>
#include <string.h>

#include "internal.h"

amx_bf16 amx_fp32_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	/*
	 * A NaN whose payload sits only in the low 16 bits would truncate
	 * to an infinity: keep it a NaN by setting the quiet bit.
	 */
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (amx_bf16)((u >> 16) | 0x0040u);
	/* Round to nearest, ties to even; overflow rounds to infinity. */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (amx_bf16)(u >> 16);
}

float amx_bf16_to_fp32(amx_bf16 h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

int amx_fp32_to_bf16_array(amx_bf16 *dst, const float *src, size_t n)
{
	size_t i;

	if (n && (!dst || !src))
		return -EINVAL;
	for (i = 0; i < n; i++)
		dst[i] = amx_fp32_to_bf16(src[i]);
	return 0;
}

int amx_bf16_to_fp32_array(float *dst, const amx_bf16 *src, size_t n)
{
	size_t i;

	if (n && (!dst || !src))
		return -EINVAL;
	for (i = 0; i < n; i++)
		dst[i] = amx_bf16_to_fp32(src[i]);
	return 0;
}

/*
 * fp16 (binary16) <-> fp32.  The scalar forms are the definition; the
 * array forms use AVX-512F's VCVTPS2PH / VCVTPH2PS (convert_avx512.c)
 * where the CPU and OS have them, which give the same bits: rounding
 * from the immediate (nearest even, MXCSR not consulted), NaNs quieted
 * with the top of the payload, denormals kept both ways.
 */
amx_fp16 amx_fp32_to_fp16(float f)
{
	uint32_t u, a, sign, q, rem, half;
	int s;

	memcpy(&u, &f, sizeof(u));
	sign = (u >> 16) & 0x8000u;
	a = u & 0x7fffffffu;
	if (a > 0x7f800000u)		/* NaN: quiet bit, payload bits 21-13 */
		return (amx_fp16)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
	if (a >= 0x477ff000u)		/* >= 65520 (and inf): infinity */
		return (amx_fp16)(sign | 0x7c00u);
	if (a >= 0x38800000u) {		/* >= 2^-14: a normal fp16 */
		a -= (127u - 15u) << 23;	/* rebias the exponent */
		a += 0xfffu + ((a >> 13) & 1u);	/* nearest even */
		return (amx_fp16)(sign | (a >> 13));
	}
	/*
	 * Denormal or zero: the multiple of 2^-24 nearest to x = M 2^(e-150)
	 * (M with its implicit bit), M >> (126 - e) rounded to even; below
	 * 2^-25 that is 0 (shifts past 24 lose everything but a tie's half).
	 */
	s = 126 - (int)(a >> 23);
	if (s > 24)
		return (amx_fp16)sign;
	a = (a & 0x7fffffu) | 0x800000u;
	q = a >> s;
	rem = a & ((1u << s) - 1);
	half = 1u << (s - 1);
	if (rem > half || (rem == half && (q & 1u)))
		q++;			/* may carry into the smallest normal */
	return (amx_fp16)(sign | q);
}

float amx_fp16_to_fp32(amx_fp16 h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
	float f;

	if (e == 0x1f) {	/* infinity, or a NaN quieted (as VCVTPH2PS) */
		u = sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0);
	} else if (e) {
		u = sign | ((e + 127u - 15u) << 23) | (m << 13);
	} else {
		f = (float)m * 0x1p-24f;	/* exact: m < 2^10 */
		memcpy(&u, &f, sizeof(u));
		u |= sign;
	}
	memcpy(&f, &u, sizeof(f));
	return f;
}

int amx_fp32_to_fp16_array(amx_fp16 *dst, const float *src, size_t n)
{
	size_t i = 0;

	if (n && (!dst || !src))
		return -EINVAL;
	if (amx__cpu()->simd & AMX__SIMD_AVX512)
		i = amx__fp32_to_fp16_avx512(dst, src, n);
	for (; i < n; i++)
		dst[i] = amx_fp32_to_fp16(src[i]);
	return 0;
}

int amx_fp16_to_fp32_array(float *dst, const amx_fp16 *src, size_t n)
{
	size_t i = 0;

	if (n && (!dst || !src))
		return -EINVAL;
	if (amx__cpu()->simd & AMX__SIMD_AVX512)
		i = amx__fp16_to_fp32_avx512(dst, src, n);
	for (; i < n; i++)
		dst[i] = amx_fp16_to_fp32(src[i]);
	return 0;
}
