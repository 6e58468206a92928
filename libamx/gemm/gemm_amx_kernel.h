/* SPDX-License-Identifier: MIT */
/*
 * The bodies of the AMX micro-kernels: C tiles in and out, the K loop,
 * the C moves inside it, and the entry points built from them.  Included
 * by the files that build AMX kernels (gemm_amx_*.c) only; the rest of
 * the GEMM sees their prototypes in gemm.h.  Through tile_model.h the
 * tile instructions become calls of a C model in the amx_tile_model build.
 */
#ifndef AMX_GEMM_AMX_KERNEL_H
#define AMX_GEMM_AMX_KERNEL_H

#include "gemm.h"
#include "tile_model.h"

/*
 * The AMX micro-kernels' C block: up to 32 x 32 four-byte elements (fp32
 * or int32) as tiles 0-3 (2 x 2), s bytes between rows; with @half only
 * the top row of tiles (0-1), with @narrow only the left column (0, 2).
 * Load it (acc) or zero it before the K loop, store it after.  The tiles
 * store what their configuration says: 16 x 64 bytes, or an edge block's
 * rows and columns (see gemm_amx_tile.c).
 */
static inline void gemm_amx_c_begin(void *c, size_t s, int acc, int half,
				    int narrow)
{
	char *p = c;

	if (acc) {
		amx_tile_load(0, p, s);
		if (!narrow)
			amx_tile_load(1, p + 64, s);
		if (!half)
			amx_tile_load(2, p + 16 * s, s);
		if (!half && !narrow)
			amx_tile_load(3, p + 16 * s + 64, s);
	} else {
		amx_tile_zero(0);
		if (!narrow)
			amx_tile_zero(1);
		if (!half)
			amx_tile_zero(2);
		if (!half && !narrow)
			amx_tile_zero(3);
	}
}

static inline void gemm_amx_c_end(void *c, size_t s, int half, int narrow)
{
	char *p = c;

	amx_tile_store(0, p, s);
	if (!narrow)
		amx_tile_store(1, p + 64, s);
	if (!half)
		amx_tile_store(2, p + 16 * s, s);
	if (!half && !narrow)
		amx_tile_store(3, p + 16 * s + 64, s);
}

/* the 32 rows x 64 bytes of one K step of A, rows @as bytes apart */
static inline void gemm_amx_prefetch_a(const void *a, size_t as)
{
	const char *p = a;

	for (int r = 0; r < 32; r++)
		__builtin_prefetch(p + r * as, 0, 3);
}

/* the dot-product instruction of an AMX kernel, fixed at compile time */
enum gemm_amx_tdp { GEMM_TDP_BF16PS, GEMM_TDP_BSSD, GEMM_TDP_BUSD,
		    GEMM_TDP_FP16PS };

#define GEMM_AMX_TDP(op, c, a, b) do {					\
	if ((op) == GEMM_TDP_BF16PS)					\
		amx_tdpbf16ps(c, a, b);					\
	else if ((op) == GEMM_TDP_FP16PS)				\
		amx_tdpfp16ps(c, a, b);					\
	else if ((op) == GEMM_TDP_BSSD)					\
		amx_tdpbssd(c, a, b);					\
	else								\
		amx_tdpbusd(c, a, b);					\
} while (0)

/*
 * The K loop of the AMX kernels, per K step of 64 bytes: A tiles 4-5 (rows
 * @as bytes apart, @ak bytes further each step), B tiles 6-7 from the VNNI
 * panel (16 rows of 128 bytes: 32 columns of a bf16 pair or an int8 quad),
 * four dot products into C tiles 0-3.  @rows2 / @cols2: the second row /
 * column of tiles is in use (compile-time constants, like @op).  With pf >
 * 0 the A rows of step t + pf are prefetched at step t while t + pf <
 * @pfend (the block's steps from here on).
 */
static inline __attribute__((always_inline)) void
gemm_amx_kloop(size_t kt, const uint8_t *a, size_t as, size_t ak,
	       const uint8_t *b, size_t pf, size_t pfend, const int rows2,
	       const int cols2, const enum gemm_amx_tdp op)
{
	for (size_t t = 0; t < kt; t++) {
		if (rows2 && pf && t + pf < pfend)
			gemm_amx_prefetch_a(a + pf * ak, as);
		amx_tile_load(4, a, as);
		if (rows2)
			amx_tile_load(5, a + 16 * as, as);
		amx_tile_load(6, b, 128);
		if (cols2)
			amx_tile_load(7, b + 64, 128);
		GEMM_AMX_TDP(op, 0, 4, 6);
		if (cols2)
			GEMM_AMX_TDP(op, 1, 4, 7);
		if (rows2)
			GEMM_AMX_TDP(op, 2, 5, 6);
		if (rows2 && cols2)
			GEMM_AMX_TDP(op, 3, 5, 7);
		a += ak;
		b += 16 * 128;
	}
}

/*
 * One K step as above with C moved inside it (GEMM_CIO_INTERLEAVE): with
 * @cin each C tile is loaded from C (s bytes between rows) just before its
 * dot product, with @cout stored just after it.  All switches are
 * compile-time constants.
 */
static inline __attribute__((always_inline)) void
gemm_amx_cstep(const uint8_t *a, size_t as, const uint8_t *b, char *c,
	       size_t s, const int cin, const int cout, const int rows2,
	       const int cols2, const enum gemm_amx_tdp op)
{
	amx_tile_load(4, a, as);
	amx_tile_load(6, b, 128);
	if (cin)
		amx_tile_load(0, c, s);
	GEMM_AMX_TDP(op, 0, 4, 6);
	if (cout)
		amx_tile_store(0, c, s);
	if (cols2) {
		amx_tile_load(7, b + 64, 128);
		if (cin)
			amx_tile_load(1, c + 64, s);
		GEMM_AMX_TDP(op, 1, 4, 7);
		if (cout)
			amx_tile_store(1, c + 64, s);
	}
	if (rows2) {
		amx_tile_load(5, a + 16 * as, as);
		if (cin)
			amx_tile_load(2, c + 16 * s, s);
		GEMM_AMX_TDP(op, 2, 5, 6);
		if (cout)
			amx_tile_store(2, c + 16 * s, s);
	}
	if (rows2 && cols2) {
		if (cin)
			amx_tile_load(3, c + 16 * s + 64, s);
		GEMM_AMX_TDP(op, 3, 5, 7);
		if (cout)
			amx_tile_store(3, c + 16 * s + 64, s);
	}
}

/*
 * A block's K loop and C moves for one tile shape (@rows2, @cols2), in
 * the order @cio says (enum gemm_cio).
 */
static inline __attribute__((always_inline)) void
gemm_amx_shape_body(size_t kt, const uint8_t *a, size_t as, size_t ak,
		    const uint8_t *b, char *c, size_t s, int acc, size_t pf,
		    int cio, const int rows2, const int cols2,
		    const enum gemm_amx_tdp op)
{
	if (cio != GEMM_CIO_INTERLEAVE || !kt) {
		gemm_amx_c_begin(c, s, acc, !rows2, !cols2);
		gemm_amx_kloop(kt, a, as, ak, b, pf, kt, rows2, cols2, op);
		gemm_amx_c_end(c, s, !rows2, !cols2);
		return;
	}
	if (!acc)
		gemm_amx_c_begin(c, s, 0, !rows2, !cols2);
	if (kt == 1) {
		if (acc)
			gemm_amx_cstep(a, as, b, c, s, 1, 1, rows2, cols2, op);
		else
			gemm_amx_cstep(a, as, b, c, s, 0, 1, rows2, cols2, op);
		return;
	}
	if (rows2 && pf && pf < kt)
		gemm_amx_prefetch_a(a + pf * ak, as);
	if (acc)
		gemm_amx_cstep(a, as, b, c, s, 1, 0, rows2, cols2, op);
	else
		gemm_amx_cstep(a, as, b, c, s, 0, 0, rows2, cols2, op);
	gemm_amx_kloop(kt - 2, a + ak, as, ak, b + 16 * 128, pf, kt - 1,
		       rows2, cols2, op);
	gemm_amx_cstep(a + (kt - 1) * ak, as, b + (kt - 1) * 16 * 128, c, s,
		       0, 1, rows2, cols2, op);
}

/*
 * A whole AMX kernel body (gemm_amx_ukr below) for dot product @op: C
 * loaded or zeroed, the K loop for the block's shape, C stored, in the
 * order @cio says.
 */
static inline __attribute__((always_inline)) void
gemm_amx_body(size_t kt, const void *a, size_t as, size_t ak, const void *b,
	      void *c, size_t ldc, int acc, size_t pf, int cio, int half,
	      int narrow, const enum gemm_amx_tdp op)
{
	if (!half && !narrow)
		gemm_amx_shape_body(kt, a, as, ak, b, c, ldc * 4, acc, pf, cio,
				    1, 1, op);
	else if (!narrow)
		gemm_amx_shape_body(kt, a, as, ak, b, c, ldc * 4, acc, 0, cio,
				    0, 1, op);
	else if (!half)
		gemm_amx_shape_body(kt, a, as, ak, b, c, ldc * 4, acc, pf, cio,
				    1, 0, op);
	else
		gemm_amx_shape_body(kt, a, as, ak, b, c, ldc * 4, acc, 0, cio,
				    0, 0, op);
}

/*
 * An AMX micro-kernel on a whole block: kt K steps, A rows @as bytes apart
 * and @ak bytes further each K step (packed: 64 and 32 x 64; in place: lda
 * and 64), C with ldc elements a row; 32 x 32, or with @half the top 16
 * rows (A tile 4, C tiles 0-1: half the TDPs and half the A traffic, for
 * blocks of at most 16 rows, e.g. the M = 1..16 of LLM decoding), and
 * with @narrow the left 16 columns (B tile 6, C tiles 0 and 2).
 */
typedef void (*gemm_amx_ukr)(size_t kt, const void *a, size_t as, size_t ak,
			     const void *b, void *c, size_t ldc, int acc,
			     size_t pf, int cio, int half, int narrow);

/*
 * Run @ukr on an mr x nr block of C (at most 32 x 32).  A full (or full
 * half) block runs directly.  An edge block runs as bs->edge says:
 * - GEMM_EDGE_COPY: through a 32 x 32 scratch block of which only the
 *   mr x nr corner is copied in and out (the other rows and columns of
 *   C depend on other rows of A and columns of B only, so whatever they
 *   hold is computed and dropped), so the micro-kernel never sees an edge;
 * - GEMM_EDGE_TILES: on C itself, with the tiles configured to mr rows
 *   and nr columns for the block and back to 16 x 64 bytes after.
 * Either way the tiles are in the gemm_amx_begin() configuration after.
 */
AMX_HIDDEN void gemm_amx_block(gemm_amx_ukr ukr, size_t mr, size_t nr,
			       size_t kt, const void *a, size_t as, size_t ak,
			       const void *b, void *c, size_t ldc, int acc,
			       const struct gemm_blocks *bs);

/*
 * The kernel for dot product @op (enum gemm_amx_tdp) as two entry points:
 * @name over a packed A micro-panel (rows 64 bytes apart, 32 x 64 bytes a
 * K step) and @name##_direct over A in place (rows lda apart, 64 bytes a
 * K step), each through gemm_amx_block() with the body @name##_body.
 */
#define GEMM_AMX_ENTRIES(name, op)					\
static void name##_body(size_t kt, const void *a, size_t as, size_t ak,	\
			const void *b, void *c, size_t ldc, int acc,	\
			size_t pf, int cio, int half, int narrow)	\
{									\
	gemm_amx_body(kt, a, as, ak, b, c, ldc, acc, pf, cio, half,	\
		      narrow, op);					\
}									\
GEMM_UKR(name)								\
{									\
	(void)corr;							\
	gemm_amx_block(name##_body, mr, nr, kcpad_bytes / 64, ap, 64,	\
		       32 * 64, bp, c, ldc, acc, bs);			\
}									\
GEMM_UKR_DIRECT(name##_direct)						\
{									\
	(void)corr;							\
	gemm_amx_block(name##_body, mr, nr, k_bytes / 64, a, lda_bytes,	\
		       64, bp, c, ldc, acc, bs);			\
}

#endif
