// SPDX-License-Identifier: MIT
/*
 * AMX int8 micro-kernels (s8 x s8: TDPBSSD, u8 x s8: TDPBUSD), 32 x 32 block
 * of C as 2 x 2 int32 tiles, per K step of 64 bytes: A tiles 4-5 (stride
 * 64 B packed, lda in place), B tiles 6-7 from the VNNI panel (stride
 * 128 B: 32 columns x 4 s8).  A is packed unbiased here (no corr).  The
 * loop is gemm.h's gemm_amx_body(), as for bf16 (see
 * gemm_amx_bf16_32x32.c for edges, pf and the tile macros).
 */
#include "gemm_amx_kernel.h"

GEMM_AMX_ENTRIES(gemm_ukr_amx_s8s8, GEMM_TDP_BSSD)
GEMM_AMX_ENTRIES(gemm_ukr_amx_u8s8, GEMM_TDP_BUSD)
