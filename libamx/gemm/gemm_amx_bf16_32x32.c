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
 * through gemm_amx_block().  The K loop and the C handling are gemm.h's
 * gemm_amx_body(), shared with the int8 kernels, the dot product fixed at
 * compile time.  Uses amx.h's tile macros, whose asm
 * tells the compiler that tile loads read memory (gcc 12's _tile_loadd()
 * does not, so stores to a buffer just before a tile load may be moved).
 *
 * TDPBF16PS: C[m][n] += sum_p A[m][2p] * B[p][2n] + A[m][2p+1] * B[p][2n+1]
 * (tile B row p holds K pair p of 16 columns); fp32 accumulation, DAZ/FTZ.
 */
#include "gemm_amx_kernel.h"

GEMM_AMX_ENTRIES(gemm_ukr_amx_bf16, GEMM_TDP_BF16PS)
