/* SPDX-License-Identifier: MIT */
/*
 * Weight-only quantized B (amx_wq_create(3)): the packed layout, shared
 * by the packers and importers (wq.c) and the kernels (wq.c for the
 * portable C, wq_avx512.c for AVX-512 BF16).
 *
 * B is cut into panels of WQ_NR = 16 columns (the last one padded with
 * zero weights) and each panel into the groups of rows that share a
 * scale.  A panel is one run of memory, its groups one after the other;
 * a group is a header, then its rows four at a time ("steps"):
 *
 *   header  s[16]            the scales of the group's 16 columns
 *           v[16]            WQ_ZP: the zero points z; WQ_MIN: the mins m
 *                            (absent in WQ_PLAIN), each fp16 when every
 *                            value of B's header is exactly an fp16
 *                            (w->f16: so are ggml's), else fp32
 *   step    8-bit: 64 bytes  byte b < 32: row 4t + (b & 1), column b / 2;
 *                            byte 32 + b: the same of row 4t + 2
 *           4-bit: 32 bytes  logical byte b: low nibble row 4t + (b & 1),
 *                            high nibble row 4t + 2 + (b & 1), column b / 2
 *                            (so a group has an even number of steps:
 *                            K is padded to 8 with one scale a column),
 *                            steps 2u and 2u + 1 interleaved byte by byte
 *                            into 64: logical byte b of step t is byte
 *                            wq_nib(t, b) of the group's steps
 *
 * so that widening a step's bytes to 16-bit words puts the K pairs
 * (4t, 4t + 1) and (4t + 2, 4t + 3) of each column in the order
 * vdpbf16ps multiplies them.  4-bit: a 64-byte load, as 32 words, holds
 * the 4 nibbles of two steps that such widening and a shift by 4 would
 * give, in bits 0, 4, 8 and 12 of each word: no widening to do, and one
 * load for 128 weights.  The int8 kernels read the same words as dwords,
 * K rows (8u + 0, 4, 1, 5) in the low nibbles and (2, 6, 3, 7) in the
 * high ones: they multiply A permuted to that order (wq_perm8()).
 * 4-bit values are stored as u = q + 8 (S4)
 * or q (U4): 0..15, and mean u - w->center (8, or 0 with WQ_ZP/WQ_MIN).
 * A group's contribution to C[i][j] is then
 *
 *   WQ_PLAIN  s * dot                 dot = sum a[i][k] (u - center)
 *   WQ_ZP     s * dot - s * z * asum  asum = sum a[i][k] over the group
 *   WQ_MIN    s * dot + m * asum
 *
 * in fp32, the groups' contributions added in order of k.
 */
#ifndef AMX_GEMM_WQ_H
#define AMX_GEMM_WQ_H

#include <string.h>

#include "gemm.h"
#include "../pool/place.h"

#define WQ_MAGIC	0x616d7771u	/* "amxq" */
#define WQ_NR		16	/* columns of a panel */
#define WQ_MR		8	/* most rows of A in one kernel call */
#define WQ_NP		4	/* most panels in one kernel call */
/*
 * Bytes ahead in each panel that the AVX-512 kernels prefetch into L1
 * (besides the next chunk into L2): with 2 to 4 panels read at once the
 * core's own L1 prefetch falls behind.  Measured on Zen 4, 4096 x 4096:
 * for bf16 A, from 1 row on (1024 bytes ahead rather than 2048 for one
 * or two rows; their loop reads B faster); for int8 A, from 3 rows on
 * (1 or 2 rows: 512 bytes, as good as none).
 */
#define WQ_PF_L1(mr)	((mr) <= 2 ? 1024 : 2048)
#define WQ_PF_L1_I8(mr)	((mr) <= 2 ? 512 : 3072)

enum wq_form {
	WQ_PLAIN = 0,
	WQ_ZP = 1,
	WQ_MIN = 2,
};

struct amx_wq {
	uint32_t magic;
	uint32_t bits;		/* 4 or 8 */
	uint32_t form;		/* enum wq_form */
	uint32_t center;	/* 8 (4-bit plain) or 0 */
	uint32_t f16;		/* header values are fp16 */
	size_t k, n;
	size_t kp;		/* k rounded up to 4, 8 if 4-bit (group 0 only) */
	size_t group;		/* rows per scale (kp for one per column) */
	size_t ngroups, npanels;
	size_t hdr;		/* bytes of a group's header */
	size_t gbytes;		/* bytes of a group of a panel */
	size_t pbytes;		/* bytes of a panel */
	size_t bytes;		/* all panels */
	uint8_t *data;		/* 64-byte aligned (copy 0) */
	struct amx_place pl;	/* its node(s), ../pool/place.h */
	struct amx_wq *rep;	/* AMX_PLACE_REPLICATE: one per copy */
	float *colw;		/* [n] sum over kp rows of the weights (int8 A) */
};

/* 4-bit: the offset of logical byte @b of step @t in a group's steps */
static inline size_t wq_nib(size_t t, size_t b)
{
	return t / 2 * 64 + 2 * b + (t & 1);
}

/*
 * 4-bit B with int8 A in the AVX-512 VNNI kernel: A's K order in each 8
 * as the 4-bit layout pairs the rows (0, 4, 1, 5, 2, 6, 3, 7), in place,
 * for @rows rows of @kp (a multiple of 8) bytes, @ld apart
 */
static inline void wq_perm8(int8_t *a, size_t rows, size_t kp, size_t ld)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t k = 0; k < kp; k += 8) {
			int8_t *p = a + i * ld + k, t[8];

			for (int e = 0; e < 4; e++) {
				t[2 * e] = p[e];
				t[2 * e + 1] = p[4 + e];
			}
			memcpy(p, t, sizeof(t));
		}
}

/*
 * The form of the groups of widened B (wq_expand_avx512() and its C
 * twin): zero points are in the values there, so WQ_ZP adds as WQ_PLAIN
 */
static inline unsigned int wq_xform(const struct amx_wq *w)
{
	return w->form == WQ_ZP ? WQ_PLAIN : w->form;
}

/* entry @i of a group header's array at @h (wq.h: fp16 or fp32) */
static inline float wq_hdr(const struct amx_wq *w, const uint8_t *h,
			   size_t i)
{
	float f;

	if (w->f16) {
		amx_fp16 v;

		memcpy(&v, h + i * 2, sizeof(v));
		return amx_fp16_to_fp32(v);
	}
	memcpy(&f, h + i * 4, sizeof(f));
	return f;
}

/*
 * Rows [0, mr) x panels [0, np) of C's accumulators from A rows @a (bf16
 * pairs, rows @lda elements apart, kp columns readable) and the panels at
 * @panel (w->pbytes apart): out[r][16 p + x], rows WQ_NP * WQ_NR floats
 * apart.  @asum: [mr][ngroups] group sums of A's rows (WQ_ZP, WQ_MIN).
 */
AMX_HIDDEN void wq_kernel_c(const struct amx_wq *w, size_t mr, size_t np,
			    const uint16_t *a, size_t lda, const float *asum,
			    const uint8_t *panel, float *out);
/*
 * and with each 64 bytes of B read, the byte @pf further on into L2 (0:
 * none); with @xd, the panels' integers come from there, as
 * wq_expand_avx512() wrote them (the headers still from @panel)
 */
AMX_HIDDEN void wq_kernel_avx512(const struct amx_wq *w, size_t mr,
				 size_t np, const uint16_t *a, size_t lda,
				 const float *asum, const uint8_t *panel,
				 const uint8_t *xd, size_t pf, float *out);
/*
 * The integers of @np panels from @panel as bf16 K pairs (exact), 128
 * bytes a step, panel after panel, group after group, to the 64-byte
 * aligned @xd: np * kp * WQ_NR * 2 bytes.  Done once per chunk of B
 * when many blocks of rows pass over it (the prefill).  The values are u
 * - center, except with zero points (WQ_ZP): u - z, so that a widened
 * group adds s * dot alone, as WQ_PLAIN does (wq_xform()).
 */
AMX_HIDDEN void wq_expand_avx512(const struct amx_wq *w, const uint8_t *panel,
				 size_t np, uint8_t *xd);

/*
 * AMX (wq_amx.c): rows [0, mr) (16 or 32) of bf16 A x panels [0, np) (1
 * or 2) widened at @xd (@xpanel bytes apart) into @out as the AVX-512
 * kernel writes it; AMX configured as gemm_amx_begin() does.  Groups of
 * a multiple of 32 rows, A rows readable to kp.
 */
AMX_HIDDEN void wq_amx_kernel(const struct amx_wq *w, size_t mr, size_t np,
			      const uint16_t *a, size_t lda, const float *asum,
			      const uint8_t *panel, const uint8_t *xd,
			      size_t xpanel, int avx512, float *out);
/*
 * out[r][x] += s[x] * src[r][x] (+ v[x] * asum[r * asum_ld]) for the 16
 * columns of the group header @h, r < rows: a group's dot products into
 * the accumulators (wq.h's formulas, with @form for w's: wq_xform() of
 * widened B); with AVX-512F or in C.
 */
AMX_HIDDEN void wq_group_add(const struct amx_wq *w, unsigned int form,
			     const uint8_t *h, size_t rows, const float *src,
			     size_t lds, const float *asum, size_t asum_ld,
			     float *out, size_t ldo, int avx512);
AMX_HIDDEN void wq_group_add_avx512(const struct amx_wq *w, unsigned int form,
				    const uint8_t *h, size_t rows,
				    const float *src, size_t lds,
				    const float *asum, size_t asum_ld,
				    float *out, size_t ldo);

/*
 * The int8-activation GEMM (amx_gemm_s8_wq(3)): A as int8 rows (u8 A is
 * shifted by -128 first, its zero points with it), B's stored values as
 * the unsigned operand of vpdpbusd: u (4-bit, 0..15) or q + 128 (8-bit).
 * A group's contribution to acc[i][j], before the row's zero point and
 * scale, with dot = sum a u and asum = sum a over the group, exact in
 * int32:
 *
 *   WQ_PLAIN  s * (float)(dot - c * asum)    c = center, or 128 (8-bit)
 *   WQ_ZP     s * (float)dot + (-s * z) * (float)asum
 *   WQ_MIN    s * (float)dot + m * (float)asum
 *
 * then C = rs * (acc - zp * colw[j]): colw[j] = the sum of column j's
 * weights, as the zero point's share of every product.
 */
AMX_HIDDEN void wq_i8_kernel_c(const struct amx_wq *w, size_t mr, size_t np,
			       const int8_t *a, size_t lda, const int32_t *asum,
			       const uint8_t *panel, float *out);
AMX_HIDDEN void wq_i8_kernel_avx512(const struct amx_wq *w, size_t mr,
				    size_t np, const int8_t *a, size_t lda,
				    const int32_t *asum, const uint8_t *panel,
				    size_t pf, float *out);

/*
 * For TDPBUSD and the VNNI prefill kernel wq_i8x_kernel_avx512() (A
 * unsigned, B signed): the integers of @np panels
 * as int8 (4-bit u - 8, 8-bit q) in vpdpbusd/TDPBUSD's order, 64 bytes
 * a step (4 rows x 16 columns), panel after panel, group after group, to
 * the 64-byte aligned @xd (np * kp * WQ_NR bytes), and each group's
 * column sums of them to @cs ([np][ngroups][16]).
 */
AMX_HIDDEN void wq_expand_i8_avx512(const struct amx_wq *w,
				    const uint8_t *panel, size_t np,
				    uint8_t *xd, int32_t *cs);
/*
 * The same on AVX-512 VNNI (the prefill without AMX): rows [0, mr) (up
 * to WQ_I8X_MR) x panels [0, np) (up to WQ_I8X_NP), A as for
 * wq_amx_i8_kernel() or, with @lda 0, packed: the block's kp / 4 steps
 * one after the other, each the mr rows' 4 bytes; into @out as
 * wq_i8_kernel_avx512() writes it
 */
/*
 * @sums[i * ngroups + g] = the sum of row i's group g (@group bytes) of
 * int8 @a (rows @kp apart)
 */
AMX_HIDDEN void wq_group_sums_avx512(const int8_t *a, size_t m, size_t kp,
				     size_t group, size_t ngroups,
				     int32_t *sums);
#define WQ_I8X_MR	6
#define WQ_I8X_NP	2
AMX_HIDDEN void wq_i8x_kernel_avx512(const struct amx_wq *w, size_t mr,
				     size_t np, const uint8_t *a, size_t lda,
				     const int32_t *asum, const uint8_t *panel,
				     const uint8_t *xd, size_t xpanel,
				     const int32_t *cs, float *out);
/*
 * The int8-A GEMM on AMX (wq_amx.c): rows [0, mr) (16 or 32) of A as
 * uint8 (a + 128, rows @lda bytes apart) x panels [0, np) (1 or 2)
 * widened by wq_expand_i8_avx512() at @xd (@xpanel bytes apart, group
 * sums @cs), into @out as wq_i8_kernel_avx512() writes it; the tiles
 * configured by wq_amx_i8_config() for w's group.  @asum: A's group sums
 * (of a, not a + 128).
 */
AMX_HIDDEN void wq_amx_i8_kernel(const struct amx_wq *w, size_t mr,
				 size_t np, const uint8_t *a, size_t lda,
				 const int32_t *asum, const uint8_t *panel,
				 const uint8_t *xd, size_t xpanel,
				 const int32_t *cs, int avx512, float *out);
/* 0, or a negative errno: the tiles for wq_amx_i8_kernel() */
AMX_HIDDEN int wq_amx_i8_config(const struct amx_wq *w);
/* K rows of one TDPBUSD for w: 32 or 64; 0 when AMX cannot take w */
AMX_HIDDEN size_t wq_amx_i8_kt(const struct amx_wq *w);

#endif /* AMX_GEMM_WQ_H */
