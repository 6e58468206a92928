// SPDX-License-Identifier: MIT
/*
 * AMX bf16 micro-kernel, 32 x 32 block of C as 2 x 2 tiles (0-3), per K step
 * of 32 bf16: A tiles 4-5 from the tile-packed A (stride 64 B) or from A
 * itself (stride lda: the _direct entry, see gemm.c), B tiles 6-7
 * from the VNNI panel (stride 128 B: a panel row is 32 columns x 2 bf16), four
 * TDPBF16PS.  The driver runs it over every A micro-panel of an MC block
 * with the same B micro-panel (ir innermost), so with the AMX kc defaults
 * (a kc x 32 panel of 16-24 KiB) B stays in L1 and only A streams from L2.
 * With pf > 0 the A rows of K step t + pf are prefetched at step t (the
 * tuner decides whether that helps; on the measured Xeon it did not).
 * Blocks of at most 16 rows run the half kernel (2 TDPs a K step), edge
 * blocks of at most 16 columns (partial tiles) the narrow one.  Edges go
 * through gemm_amx_block().  Uses amx.h's tile macros, whose asm
 * tells the compiler that tile loads read memory (gcc 12's _tile_loadd()
 * does not, so stores to a buffer just before a tile load may be moved).
 *
 * TDPBF16PS: C[m][n] += sum_p A[m][2p] * B[p][2n] + A[m][2p+1] * B[p][2n+1]
 * (tile B row p holds K pair p of 16 columns); fp32 accumulation, DAZ/FTZ.
 */
#include "gemm.h"

/* the K loop; rows2 / cols2: the second row / column of tiles is in use */
static inline __attribute__((always_inline)) void
kloop(size_t kt, const uint8_t *a, size_t as, size_t ak, const uint16_t *b,
      size_t pf, const int rows2, const int cols2)
{
	for (size_t t = 0; t < kt; t++) {
		if (rows2 && pf && t + pf < kt)
			gemm_amx_prefetch_a(a + pf * ak, as);
		amx_tile_load(4, a, as);
		if (rows2)
			amx_tile_load(5, a + 16 * as, as);
		amx_tile_load(6, b, 128);
		if (cols2)
			amx_tile_load(7, b + 32, 128);
		amx_tdpbf16ps(0, 4, 6);
		if (cols2)
			amx_tdpbf16ps(1, 4, 7);
		if (rows2)
			amx_tdpbf16ps(2, 5, 6);
		if (rows2 && cols2)
			amx_tdpbf16ps(3, 5, 7);
		a += ak;		/* 32 bf16 of K */
		b += 16 * 2 * GEMM_NR;	/* 16 K pairs x 32 columns x 2 */
	}
}

static void ukr(size_t kt, const void *ap, size_t as, size_t ak,
		const void *bp, void *c, size_t ldc, int acc, size_t pf,
		int half, int narrow)
{
	gemm_amx_c_begin(c, ldc * sizeof(float), acc, half, narrow);
	if (!half && !narrow)
		kloop(kt, ap, as, ak, bp, pf, 1, 1);
	else if (!narrow)
		kloop(kt, ap, as, ak, bp, 0, 0, 1);
	else if (!half)
		kloop(kt, ap, as, ak, bp, pf, 1, 0);
	else
		kloop(kt, ap, as, ak, bp, 0, 0, 0);
	gemm_amx_c_end(c, ldc * sizeof(float), half, narrow);
}

GEMM_AMX_ENTRIES(gemm_ukr_amx_bf16, ukr)
