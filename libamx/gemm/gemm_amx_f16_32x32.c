// SPDX-License-Identifier: MIT
/*
 * AMX-FP16 micro-kernel: the bf16 kernel's tiles, layout and loops
 * (gemm_amx_bf16_32x32.c) with TDPFP16PS in place of TDPBF16PS: an fp16
 * K pair is the same 32-bit VNNI group as a bf16 one, so the packers and
 * the blocking are shared.  Only run where CPUID reports AMX-FP16
 * (gemm_cpu.c).
 *
 * TDPFP16PS: C[m][n] += sum_p A[m][2p] * B[p][2n] + A[m][2p+1] * B[p][2n+1],
 * fp16 inputs converted exactly (denormals kept), fp32 accumulation,
 * fp32 results below FLT_MIN flushed to zero, MXCSR not used.
 */
#include "gemm_amx_kernel.h"

GEMM_AMX_ENTRIES(gemm_ukr_amx_f16, GEMM_TDP_FP16PS)
