/* SPDX-License-Identifier: MIT */
/*
 * What the AVX-512 micro-kernel files share: the N-edge store masks, how
 * far ahead B is prefetched, and the switch that instantiates a kernel
 * body once per row count, so that mr is a compile-time constant in each
 * (ragged M without masks).
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

/*
 * Packed B read ahead into L2 by the bf16 and u8s8 kernels: bytes past
 * the K step at hand (64 steps of one 32-column panel, which with
 * prepacked B run on into the next panels of the K block in memory
 * order), from GEMM_AVX512_PF_ROWS rows on.  With that many rows a K
 * step's multiplies take about as long as its 128 bytes take to arrive
 * from memory, and the core's own prefetch leaves the two in turn rather
 * than together; with fewer, the loop waits on memory either way and the
 * extra requests slowed it.  Zen 4, 1 thread, prepacked 4096 x 4096 with
 * cold weights, share of the roofline (amx-decode, 2 runs each):
 *
 *   M          1        2         4        6        7        8       16
 *   none     99-101  103-105   83-94    79-98    79-91    72-76   76-79
 *   8 KiB    79-93    73-78    67-76    83-85  102-104   90-99   93-94
 *
 * (bf16; u8s8 alike), 2 KiB ahead 57-58 % at M = 8, 12-16 KiB as 8 KiB.
 * M = 32 88 -> 93 %, M = 512 the same, plain (unpacked) B the same
 * within noise.
 */
#define GEMM_AVX512_PF_B	8192
#define GEMM_AVX512_PF_ROWS	7

/* X(r) for every row count of a GEMM_MR_AVX micro-kernel */
#define GEMM_AVX512_ROWS(X) \
	X(12) X(11) X(10) X(9) X(8) X(7) X(6) X(5) X(4) X(3) X(2) X(1)

#endif /* AMX_GEMM_AVX512_H */
