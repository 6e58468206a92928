// SPDX-License-Identifier: MIT
/*
 * AMX int8 micro-kernels (s8 x s8: TDPBSSD, u8 x s8: TDPBUSD), 32 x 32 block
 * of C as 2 x 2 int32 tiles, per K step of 64 bytes: A tiles 4-5 (stride
 * 64 B), B tiles 6-7 from the VNNI panel (stride 128 B: 32 columns x 4 s8).
 * A is packed unbiased here (no corr).  Edges via a 32 x 32 scratch block.
 * Uses amx.h's tile macros (see gemm_amx_bf16_32x32.c).
 */
#include <string.h>
#include "gemm.h"

static void ukr_ss(size_t kt, const int8_t *a, const int8_t *b, int32_t *c,
		   size_t ldc, int acc)
{
	size_t s = ldc * sizeof(int32_t);

	if (acc) {
		amx_tile_load(0, c, s);
		amx_tile_load(1, c + 16, s);
		amx_tile_load(2, c + 16 * ldc, s);
		amx_tile_load(3, c + 16 * ldc + 16, s);
	} else {
		amx_tile_zero(0);
		amx_tile_zero(1);
		amx_tile_zero(2);
		amx_tile_zero(3);
	}
	for (size_t t = 0; t < kt; t++) {
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
	amx_tile_store(0, c, s);
	amx_tile_store(1, c + 16, s);
	amx_tile_store(2, c + 16 * ldc, s);
	amx_tile_store(3, c + 16 * ldc + 16, s);
}

static void ukr_us(size_t kt, const int8_t *a, const int8_t *b, int32_t *c,
		   size_t ldc, int acc)
{
	size_t s = ldc * sizeof(int32_t);

	if (acc) {
		amx_tile_load(0, c, s);
		amx_tile_load(1, c + 16, s);
		amx_tile_load(2, c + 16 * ldc, s);
		amx_tile_load(3, c + 16 * ldc + 16, s);
	} else {
		amx_tile_zero(0);
		amx_tile_zero(1);
		amx_tile_zero(2);
		amx_tile_zero(3);
	}
	for (size_t t = 0; t < kt; t++) {
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
	amx_tile_store(0, c, s);
	amx_tile_store(1, c + 16, s);
	amx_tile_store(2, c + 16 * ldc, s);
	amx_tile_store(3, c + 16 * ldc + 16, s);
}

static void run(int is_us, size_t mr, size_t nr, size_t kcpad_bytes,
		const void *ap, const void *bp, int32_t *c, size_t ldc, int acc)
{
	int32_t t[GEMM_MR_AMX * GEMM_NR] __attribute__((aligned(64)));
	size_t kt = kcpad_bytes / 64;
	void (*k)(size_t, const int8_t *, const int8_t *, int32_t *, size_t,
		  int) = is_us ? ukr_us : ukr_ss;

	if (mr == GEMM_MR_AMX && nr == GEMM_NR) {
		k(kt, ap, bp, c, ldc, acc);
		return;
	}
	if (acc) {
		memset(t, 0, sizeof(t));
		for (size_t i = 0; i < mr; i++)
			memcpy(t + i * GEMM_NR, c + i * ldc, nr * sizeof(*c));
	}
	k(kt, ap, bp, t, GEMM_NR, acc);
	for (size_t i = 0; i < mr; i++)
		memcpy(c + i * ldc, t + i * GEMM_NR, nr * sizeof(*c));
}

void gemm_ukr_amx_s8s8(size_t mr, size_t nr, size_t kcpad_bytes,
		       const void *ap, const void *bp, void *c, size_t ldc,
		       const int32_t *corr, int acc)
{
	(void)corr;
	run(0, mr, nr, kcpad_bytes, ap, bp, c, ldc, acc);
}

void gemm_ukr_amx_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
		       const void *ap, const void *bp, void *c, size_t ldc,
		       const int32_t *corr, int acc)
{
	(void)corr;
	run(1, mr, nr, kcpad_bytes, ap, bp, c, ldc, acc);
}
