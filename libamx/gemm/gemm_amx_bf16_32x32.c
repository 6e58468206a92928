// SPDX-License-Identifier: MIT
/*
 * AMX bf16 micro-kernel, 32 x 32 block of C as 2 x 2 tiles (0-3), per K step
 * of 32 bf16: A tiles 4-5 from the tile-packed A (stride 64 B), B tiles 6-7
 * from the VNNI panel (stride 128 B: a panel row is 32 columns x 2 bf16), four
 * TDPBF16PS.  Edges go through a 32 x 32 scratch block so the kernel itself
 * only loads, multiplies and stores.  Built with -mamx-tile -mamx-bf16.
 *
 * TDPBF16PS: C[m][n] += sum_p A[m][2p] * B[p][2n] + A[m][2p+1] * B[p][2n+1]
 * (tile B row p holds K pair p of 16 columns); fp32 accumulation, DAZ/FTZ.
 */
#include <string.h>
#include <immintrin.h>

#include "gemm.h"

static void ukr(size_t kt, const uint16_t *a, const uint16_t *b, float *c,
		size_t ldc, int acc)
{
	size_t s = ldc * sizeof(float);

	if (acc) {
		_tile_loadd(0, c, s);
		_tile_loadd(1, c + 16, s);
		_tile_loadd(2, c + 16 * ldc, s);
		_tile_loadd(3, c + 16 * ldc + 16, s);
	} else {
		_tile_zero(0);
		_tile_zero(1);
		_tile_zero(2);
		_tile_zero(3);
	}
	for (size_t t = 0; t < kt; t++) {
		_tile_loadd(4, a, 64);
		_tile_loadd(5, a + 16 * 32, 64);
		_tile_loadd(6, b, 128);
		_tile_loadd(7, b + 32, 128);
		_tile_dpbf16ps(0, 4, 6);
		_tile_dpbf16ps(1, 4, 7);
		_tile_dpbf16ps(2, 5, 6);
		_tile_dpbf16ps(3, 5, 7);
		a += 32 * 32;		/* 32 rows x 32 bf16 */
		b += 16 * 2 * GEMM_NR;	/* 16 K pairs x 32 columns x 2 */
	}
	_tile_stored(0, c, s);
	_tile_stored(1, c + 16, s);
	_tile_stored(2, c + 16 * ldc, s);
	_tile_stored(3, c + 16 * ldc + 16, s);
}

void gemm_ukr_amx_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
		       const void *ap, const void *bp, void *c, size_t ldc,
		       const int32_t *corr, int acc)
{
	float t[GEMM_MR_AMX * GEMM_NR] __attribute__((aligned(64)));
	float *cf = c;

	(void)corr;
	if (mr == GEMM_MR_AMX && nr == GEMM_NR) {
		ukr(kcpad_bytes / 64, ap, bp, cf, ldc, acc);
		return;
	}
	if (acc) {
		memset(t, 0, sizeof(t));
		for (size_t i = 0; i < mr; i++)
			memcpy(t + i * GEMM_NR, cf + i * ldc, nr * sizeof(float));
	}
	ukr(kcpad_bytes / 64, ap, bp, t, GEMM_NR, acc);
	for (size_t i = 0; i < mr; i++)
		memcpy(cf + i * ldc, t + i * GEMM_NR, nr * sizeof(float));
}
