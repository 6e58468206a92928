// SPDX-License-Identifier: MIT
/*
 * AMX int8 micro-kernels (s8 x s8: TDPBSSD, u8 x s8: TDPBUSD), 32 x 32 block
 * of C as 2 x 2 int32 tiles, per K step of 64 bytes: A tiles 4-5 (stride
 * 64 B packed, lda in place), B tiles 6-7 from the VNNI panel (stride 128 B: 32 columns x 4 s8).
 * A is packed unbiased here (no corr).  Edges via gemm_amx_block(); pf as
 * in gemm_amx_bf16_32x32.c.  Uses amx.h's tile macros (see gemm_amx_bf16_32x32.c).
 */
#include "gemm.h"

/*
 * The K loop; rows2 / cols2: the second row / column of tiles is in use.
 * The s8 x s8 and u8 x s8 kernels differ only in the dot-product
 * instruction, whose tile operands are immediates: @us picks TDPBUSD
 * over TDPBSSD at compile time.
 */
#define TDP(c, a, b) do {						\
	if (us)								\
		amx_tdpbusd(c, a, b);					\
	else								\
		amx_tdpbssd(c, a, b);					\
} while (0)

static inline __attribute__((always_inline)) void
kloop(size_t kt, const int8_t *a, size_t as, size_t ak, const int8_t *b,
      size_t pf, const int rows2, const int cols2, const int us)
{
	for (size_t t = 0; t < kt; t++) {
		if (rows2 && pf && t + pf < kt)
			gemm_amx_prefetch_a(a + pf * ak, as);
		amx_tile_load(4, a, as);
		if (rows2)
			amx_tile_load(5, a + 16 * as, as);
		amx_tile_load(6, b, 128);
		if (cols2)
			amx_tile_load(7, b + 64, 128);
		TDP(0, 4, 6);
		if (cols2)
			TDP(1, 4, 7);
		if (rows2)
			TDP(2, 5, 6);
		if (rows2 && cols2)
			TDP(3, 5, 7);
		a += ak;
		b += 16 * 4 * GEMM_NR;
	}
}

static inline __attribute__((always_inline)) void
body(size_t kt, const void *ap, size_t as, size_t ak, const void *bp,
     void *c, size_t ldc, int acc, size_t pf, int half, int narrow,
     const int us)
{
	gemm_amx_c_begin(c, ldc * sizeof(int32_t), acc, half, narrow);
	if (!half && !narrow)
		kloop(kt, ap, as, ak, bp, pf, 1, 1, us);
	else if (!narrow)
		kloop(kt, ap, as, ak, bp, 0, 0, 1, us);
	else if (!half)
		kloop(kt, ap, as, ak, bp, pf, 1, 0, us);
	else
		kloop(kt, ap, as, ak, bp, 0, 0, 0, us);
	gemm_amx_c_end(c, ldc * sizeof(int32_t), half, narrow);
}

static void ukr_ss(size_t kt, const void *ap, size_t as, size_t ak,
		   const void *bp, void *c, size_t ldc, int acc, size_t pf,
		   int half, int narrow)
{
	body(kt, ap, as, ak, bp, c, ldc, acc, pf, half, narrow, 0);
}

static void ukr_us(size_t kt, const void *ap, size_t as, size_t ak,
		   const void *bp, void *c, size_t ldc, int acc, size_t pf,
		   int half, int narrow)
{
	body(kt, ap, as, ak, bp, c, ldc, acc, pf, half, narrow, 1);
}

GEMM_AMX_ENTRIES(gemm_ukr_amx_s8s8, ukr_ss)
GEMM_AMX_ENTRIES(gemm_ukr_amx_u8s8, ukr_us)
