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
 * The s8 x s8 and u8 x s8 kernels differ only in the dot-product
 * instruction, whose tile operands are immediates: one body, generated
 * twice with TDP = amx_tdpbssd or amx_tdpbusd.
 */
#define GEMM_AMX_INT8_UKR(name, TDP)					\
static void name(size_t kt, const void *ap, size_t as, size_t ak,	\
		 const void *bp, void *c, size_t ldc, int acc, size_t pf, \
		 int half)						\
{									\
	const int8_t *a = ap, *b = bp;					\
									\
	gemm_amx_c_begin(c, ldc * sizeof(int32_t), acc, half);		\
	if (half) {							\
		for (size_t t = 0; t < kt; t++) {			\
			amx_tile_load(4, a, as);			\
			amx_tile_load(6, b, 128);			\
			amx_tile_load(7, b + 64, 128);			\
			TDP(0, 4, 6);					\
			TDP(1, 4, 7);					\
			a += ak;					\
			b += 16 * 4 * GEMM_NR;				\
		}							\
	} else {							\
		for (size_t t = 0; t < kt; t++) {			\
			if (pf && t + pf < kt)				\
				gemm_amx_prefetch_a(a + pf * ak, as);	\
			amx_tile_load(4, a, as);			\
			amx_tile_load(5, a + 16 * as, as);		\
			amx_tile_load(6, b, 128);			\
			amx_tile_load(7, b + 64, 128);			\
			TDP(0, 4, 6);					\
			TDP(1, 4, 7);					\
			TDP(2, 5, 6);					\
			TDP(3, 5, 7);					\
			a += ak;					\
			b += 16 * 4 * GEMM_NR;				\
		}							\
	}								\
	gemm_amx_c_end(c, ldc * sizeof(int32_t), half);		\
}

GEMM_AMX_INT8_UKR(ukr_ss, amx_tdpbssd)
GEMM_AMX_INT8_UKR(ukr_us, amx_tdpbusd)

GEMM_AMX_ENTRIES(gemm_ukr_amx_s8s8, ukr_ss)
GEMM_AMX_ENTRIES(gemm_ukr_amx_u8s8, ukr_us)
