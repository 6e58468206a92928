// SPDX-License-Identifier: MIT
/*
 * AMX kernel of the weight-only quantized GEMM with bf16 A (wq.h): 16 or
 * 32 rows of A times 1 or 2 panels of B widened to bf16 K pairs by
 * wq_expand_avx512(), all of K.
 *
 * A widened panel holds, for every 32 rows of K, 16 rows of 64 bytes
 * (16 columns x a bf16 pair): exactly one B tile, its rows 64 bytes
 * apart.  A's tile is 16 of its rows x those 32 K values, read in place.
 * A group (32, 64 or 128 rows of K, or all of them) is multiplied into
 * the C tiles from zero (TDPBF16PS), which are then stored and added to
 * the fp32 accumulators times the group's scales (and its offsets times
 * A's group sums), as the AVX-512 kernel does per group: tiles 0-3 are C
 * (2 x 2 of 16 x 16), 4-5 A, 6-7 B, as gemm_amx_begin() configures them.
 *
 * Through tile_model.h the tile instructions become calls of a C model
 * in the amx_tile_model build (tests/gemm_amx_emul.c checks this kernel
 * there).
 */
#include <string.h>

#include "wq.h"
#include "tile_model.h"

void wq_amx_kernel(const struct amx_wq *w, size_t mr, size_t np,
		   const uint16_t *a, size_t lda, const float *asum,
		   const uint8_t *panel, const uint8_t *xd, size_t xpanel,
		   int avx512, float *out)
{
	float tmp[32 * 32] __attribute__((aligned(64)));
	size_t subs = w->group / 32, steps = w->group / 4;
	int two = mr > 16, wide = np > 1;

	for (size_t r = 0; r < mr; r++)
		memset(out + r * WQ_NP * WQ_NR, 0, np * WQ_NR * sizeof(*out));
	for (size_t g = 0; g < w->ngroups; g++) {
		amx_tile_zero(0);
		if (wide)
			amx_tile_zero(1);
		if (two)
			amx_tile_zero(2);
		if (two && wide)
			amx_tile_zero(3);
		for (size_t s = 0; s < subs; s++) {
			size_t kb = g * w->group + 32 * s;
			const uint8_t *b = xd + (g * steps + 8 * s) * 128;

			amx_tile_load(4, a + kb, lda * 2);
			if (two)
				amx_tile_load(5, a + 16 * lda + kb, lda * 2);
			amx_tile_load(6, b, 64);
			if (wide)
				amx_tile_load(7, b + xpanel, 64);
			amx_tdpbf16ps(0, 4, 6);
			if (wide)
				amx_tdpbf16ps(1, 4, 7);
			if (two)
				amx_tdpbf16ps(2, 5, 6);
			if (two && wide)
				amx_tdpbf16ps(3, 5, 7);
		}
		amx_tile_store(0, tmp, 128);
		if (wide)
			amx_tile_store(1, tmp + 16, 128);
		if (two)
			amx_tile_store(2, tmp + 16 * 32, 128);
		if (two && wide)
			amx_tile_store(3, tmp + 16 * 32 + 16, 128);
		for (size_t p = 0; p < np; p++)
			wq_group_add(w, panel + p * w->pbytes + g * w->gbytes, mr,
				     tmp + 16 * p, 32, asum ? asum + g : NULL,
				     w->ngroups, out + 16 * p, WQ_NP * WQ_NR,
				     avx512);
	}
}
