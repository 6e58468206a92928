// SPDX-License-Identifier: MIT
/*
 * AMX int8 micro-kernels (s8 x s8: TDPBSSD, u8 x s8: TDPBUSD), 32 x 32 block
 * of C as 2 x 2 int32 tiles, per K step of 64 bytes: A tiles 4-5 (stride
 * 64 B), B tiles 6-7 from the VNNI panel (stride 128 B: 32 columns x 4 s8).
 * A is packed unbiased here (no corr).  Edges via gemm_amx_block(); pf as
 * in gemm_amx_bf16_32x32.c.  Uses amx.h's tile macros (see gemm_amx_bf16_32x32.c).
 */
#include "gemm.h"

static void ukr_ss(size_t kt, const void *ap, const void *bp, void *c,
		   size_t ldc, int acc, size_t pf, int half)
{
	const int8_t *a = ap, *b = bp;

	gemm_amx_c_begin(c, ldc * sizeof(int32_t), acc, half);
	if (half) {
		for (size_t t = 0; t < kt; t++) {
			amx_tile_load(4, a, 64);
			amx_tile_load(6, b, 128);
			amx_tile_load(7, b + 64, 128);
			amx_tdpbssd(0, 4, 6);
			amx_tdpbssd(1, 4, 7);
			a += 32 * 64;
			b += 16 * 4 * GEMM_NR;
		}
		gemm_amx_c_end(c, ldc * sizeof(int32_t), half);
		return;
	}
	for (size_t t = 0; t < kt; t++) {
		if (pf && t + pf < kt)
			gemm_amx_prefetch_a(a + pf * 32 * 64);
		amx_tile_load(4, a, 64);
		amx_tile_load(5, a + 16 * 64, 64);
		amx_tile_load(6, b, 128);
		amx_tile_load(7, b + 64, 128);
		amx_tdpbssd(0, 4, 6);
		amx_tdpbssd(1, 4, 7);
		amx_tdpbssd(2, 5, 6);
		amx_tdpbssd(3, 5, 7);
		a += 32 * 64;
		b += 16 * 4 * GEMM_NR;
	}
	gemm_amx_c_end(c, ldc * sizeof(int32_t), half);
}

static void ukr_us(size_t kt, const void *ap, const void *bp, void *c,
		   size_t ldc, int acc, size_t pf, int half)
{
	const int8_t *a = ap, *b = bp;

	gemm_amx_c_begin(c, ldc * sizeof(int32_t), acc, half);
	if (half) {
		for (size_t t = 0; t < kt; t++) {
			amx_tile_load(4, a, 64);
			amx_tile_load(6, b, 128);
			amx_tile_load(7, b + 64, 128);
			amx_tdpbusd(0, 4, 6);
			amx_tdpbusd(1, 4, 7);
			a += 32 * 64;
			b += 16 * 4 * GEMM_NR;
		}
		gemm_amx_c_end(c, ldc * sizeof(int32_t), half);
		return;
	}
	for (size_t t = 0; t < kt; t++) {
		if (pf && t + pf < kt)
			gemm_amx_prefetch_a(a + pf * 32 * 64);
		amx_tile_load(4, a, 64);
		amx_tile_load(5, a + 16 * 64, 64);
		amx_tile_load(6, b, 128);
		amx_tile_load(7, b + 64, 128);
		amx_tdpbusd(0, 4, 6);
		amx_tdpbusd(1, 4, 7);
		amx_tdpbusd(2, 5, 6);
		amx_tdpbusd(3, 5, 7);
		a += 32 * 64;
		b += 16 * 4 * GEMM_NR;
	}
	gemm_amx_c_end(c, ldc * sizeof(int32_t), half);
}

void gemm_ukr_amx_s8s8(size_t mr, size_t nr, size_t kcpad_bytes,
		       const void *ap, const void *bp, void *c, size_t ldc,
		       const int32_t *corr, int acc, size_t pf)
{
	(void)corr;
	gemm_amx_block(ukr_ss, mr, nr, kcpad_bytes / 64, ap, bp, c, ldc, acc,
		       pf);
}

void gemm_ukr_amx_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
		       const void *ap, const void *bp, void *c, size_t ldc,
		       const int32_t *corr, int acc, size_t pf)
{
	(void)corr;
	gemm_amx_block(ukr_us, mr, nr, kcpad_bytes / 64, ap, bp, c, ldc, acc,
		       pf);
}
