/* SPDX-License-Identifier: MIT */
/*
 * What the two AVX-512 micro-kernel files share: the N-edge store masks
 * and the switch that instantiates a kernel body once per row count, so
 * that mr is a compile-time constant in each (ragged M without masks).
 * Include only from files built with AVX-512 enabled.
 */
#ifndef AMX_GEMM_AVX512_H
#define AMX_GEMM_AVX512_H

#include <immintrin.h>

#include "gemm.h"

/* store masks of the two zmm halves of a row of nr <= 32 columns */
static inline void gemm_avx512_masks(size_t nr, __mmask16 *m0, __mmask16 *m1)
{
	*m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
	*m1 = nr >= 32 ? 0xffff :
	      nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);
}

/* X(r) for every row count of a GEMM_MR_AVX micro-kernel */
#define GEMM_AVX512_ROWS(X) \
	X(12) X(11) X(10) X(9) X(8) X(7) X(6) X(5) X(4) X(3) X(2) X(1)

#endif /* AMX_GEMM_AVX512_H */
