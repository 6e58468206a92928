// SPDX-License-Identifier: MIT
/*
 * The fp16 array conversions' bulk, 16 values an instruction; built with
 * -mavx512f and called only where amx__cpu() reports AVX-512.  Each
 * returns how many leading elements it converted (a multiple of 16); the
 * caller does the rest with the scalar form, which gives the same bits.
 */
#include <immintrin.h>

#include "internal.h"

size_t amx__fp32_to_fp16_avx512(amx_fp16 *dst, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i + 16 <= n; i += 16) {
		__m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(src + i),
					    _MM_FROUND_TO_NEAREST_INT |
					    _MM_FROUND_NO_EXC);

		_mm256_storeu_si256((__m256i *)(void *)(dst + i), h);
	}
	return i;
}

size_t amx__fp16_to_fp32_avx512(float *dst, const amx_fp16 *src, size_t n)
{
	size_t i;

	for (i = 0; i + 16 <= n; i += 16) {
		__m256i h = _mm256_loadu_si256((const __m256i *)(const void *)
					       (src + i));

		_mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
	}
	return i;
}
