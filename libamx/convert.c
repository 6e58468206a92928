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
