/* SPDX-License-Identifier: MIT */
/*
 * Internal interfaces of the GEMM helpers: blocksizes, packing, micro-kernels,
 * thread pool.  Nothing here is exported.
 */
#ifndef AMX_GEMM_INTERNAL_H
#define AMX_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "amx_gemm.h"
#include "internal.h"

/* register/tile blocking */
#define GEMM_NR		32	/* columns per B micro-panel: 2 AMX tiles, 2 zmm */
#define GEMM_MR_AVX	12	/* rows of the AVX-512 / C micro-kernel */
#define GEMM_MR_AMX	32	/* rows of the AMX micro-kernel: 2 tiles */
#define GEMM_KGRAN_BYTES 64	/* K padded to one tile row: 32 bf16 / 64 int8 */

enum gemm_op { GEMM_OP_BF16, GEMM_OP_S8S8, GEMM_OP_U8S8 };

/* cache blocksizes, in elements; kc multiple of 64, mc multiple of 96 */
struct gemm_blocks {
	size_t mc, nc, kc;
};

AMX_HIDDEN void gemm_blocks_get(enum gemm_op op, struct gemm_blocks *bs);

/* CPU features for the fallback (CPUID + XCR0), cached */
AMX_HIDDEN int gemm_cpu_avx512bf16(void);
AMX_HIDDEN int gemm_cpu_avx512vnni(void);
AMX_HIDDEN int gemm_cpu_avx2(void);
AMX_HIDDEN int gemm_select_backend(enum gemm_op op);

/*
 * Packed B block: panels of GEMM_NR columns; panel j holds kcpad/g groups of
 * [GEMM_NR][g] elements (g = 2 bf16 or 4 int8: 4 bytes per column and group),
 * zero-padded in K and N.  The same layout feeds TDPBF16PS/TDPB*D (a tile row
 * is 16 columns x 4 bytes, tile stride 128 B) and vdpbf16ps/vpdpbusd.
 * int8 packs also produce corr[j] = -128 * sum_k B[k][j] per column (mod 2^32),
 * which turns u8 (a ^ 0x80) x s8 products back into s8 x s8 on VNNI.
 */
AMX_HIDDEN void gemm_pack_b_bf16(size_t kc, size_t nc, const uint16_t *b,
				 size_t ldb, uint16_t *dst, size_t panel_stride);
AMX_HIDDEN void gemm_pack_b_s8(size_t kc, size_t nc, const int8_t *b,
			       size_t ldb, int8_t *dst, size_t panel_stride,
			       int32_t *corr, size_t corr_stride);

/*
 * Packed A block, byte-generic (esz = 2 bf16, 1 int8; rows of kc elements):
 * - VNNI layout (AVX-512/C): micro-panels of up to GEMM_MR_AVX rows, each
 *   [kcpad_bytes/4][mr] 32-bit groups;
 * - tile layout (AMX): micro-panels of GEMM_MR_AMX rows (zero rows past m),
 *   each [kcpad_bytes/64][32 rows][64 bytes].
 * Each byte of A is XORed with @flip (0x80 turns s8 into biased u8).
 */
AMX_HIDDEN void gemm_pack_a_vnni(size_t mc, size_t kc_bytes, const uint8_t *a,
				 size_t lda_bytes, uint8_t *dst, uint8_t flip);
AMX_HIDDEN void gemm_pack_a_tile(size_t mc, size_t kc_bytes, const uint8_t *a,
				 size_t lda_bytes, uint8_t *dst);

static inline size_t gemm_round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

/*
 * Micro-kernel contract: C[mr x nr] (+)= Ap * Bp over kcpad_bytes of packed
 * K (a multiple of 64).  Ap/Bp are one micro-panel each; corr (int8
 * fallback only, else NULL) is added per column.  When !acc, C is not read.
 */
typedef void (*gemm_ukr_fn)(size_t mr, size_t nr, size_t kcpad_bytes,
			    const void *ap, const void *bp, void *c, size_t ldc,
			    const int32_t *corr, int acc);

AMX_HIDDEN void gemm_ukr_c_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
				const void *ap, const void *bp, void *c,
				size_t ldc, const int32_t *corr, int acc);
AMX_HIDDEN void gemm_ukr_c_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
				const void *ap, const void *bp, void *c,
				size_t ldc, const int32_t *corr, int acc);
AMX_HIDDEN void gemm_ukr_avx512_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
				     const void *ap, const void *bp, void *c,
				     size_t ldc, const int32_t *corr, int acc);
AMX_HIDDEN void gemm_ukr_avx512_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
				     const void *ap, const void *bp, void *c,
				     size_t ldc, const int32_t *corr, int acc);
AMX_HIDDEN void gemm_ukr_amx_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
				  const void *ap, const void *bp, void *c,
				  size_t ldc, const int32_t *corr, int acc);
AMX_HIDDEN void gemm_ukr_amx_s8s8(size_t mr, size_t nr, size_t kcpad_bytes,
				  const void *ap, const void *bp, void *c,
				  size_t ldc, const int32_t *corr, int acc);
AMX_HIDDEN void gemm_ukr_amx_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
				  const void *ap, const void *bp, void *c,
				  size_t ldc, const int32_t *corr, int acc);

/*
 * The AMX micro-kernels' C block: 32 x 32 four-byte elements (fp32 or
 * int32) as tiles 0-3 (2 x 2), s bytes between rows.  Load it (acc) or
 * zero it before the K loop, store it after.
 */
static inline void gemm_amx_c_begin(void *c, size_t s, int acc)
{
	char *p = c;

	if (acc) {
		amx_tile_load(0, p, s);
		amx_tile_load(1, p + 64, s);
		amx_tile_load(2, p + 16 * s, s);
		amx_tile_load(3, p + 16 * s + 64, s);
	} else {
		amx_tile_zero(0);
		amx_tile_zero(1);
		amx_tile_zero(2);
		amx_tile_zero(3);
	}
}

static inline void gemm_amx_c_end(void *c, size_t s)
{
	char *p = c;

	amx_tile_store(0, p, s);
	amx_tile_store(1, p + 64, s);
	amx_tile_store(2, p + 16 * s, s);
	amx_tile_store(3, p + 16 * s + 64, s);
}

/* A full-block AMX micro-kernel: kt K steps, C with ldc elements a row. */
typedef void (*gemm_amx_ukr)(size_t kt, const void *a, const void *b, void *c,
			     size_t ldc, int acc);

/*
 * Run @ukr on an mr x nr block of C (at most 32 x 32): directly when it
 * is full, else through a 32 x 32 scratch block, so that the micro-kernel
 * never sees an edge.
 */
AMX_HIDDEN void gemm_amx_block(gemm_amx_ukr ukr, size_t mr, size_t nr,
			       size_t kt, const void *a, const void *b,
			       void *c, size_t ldc, int acc);

/* AMX tile setup for the micro-kernels: 8 tiles of 16 rows x 64 bytes */
AMX_HIDDEN int gemm_amx_begin(void);
AMX_HIDDEN void gemm_amx_end(void);
/* first tile instruction of a thread (pays the XFD first-use trap) */
AMX_HIDDEN void gemm_amx_warmup(void);

/* thread pool (libamx/pool) */
typedef void (*amx_pool_fn)(void *arg, unsigned int tid, unsigned int nthr);

/* Run fn on up to @want threads (caller is tid 0); returns the count used. */
AMX_HIDDEN unsigned int amx_pool_run(amx_pool_fn fn, void *arg,
				     unsigned int want);
AMX_HIDDEN unsigned int amx_pool_size(void);

#endif
