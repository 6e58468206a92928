/* SPDX-License-Identifier: MIT */
/*
 * Activation quantization (amx_quantize_s8(3)), shared by the portable C
 * rows (quant.c) and the AVX-512 ones (quant_avx512.c).
 *
 * A row is done in two steps.  Its statistics (the largest |x|, or the
 * smallest and largest x) are found on the bit patterns as integers:
 * exact, independent of the order of the elements and of MXCSR, and a
 * NaN or infinity shows up in the same maximum.  The scale, its inverse
 * and the zero point are then computed once per row by quant.c, whatever
 * path found the statistics; both paths then do, lane by lane, the same
 * fp32 operations in the same order on each element:
 *
 *   v = x * inv;  v = v + QUANT_RND;  v = v + zp;  v = min(v, top);
 *   q = the low byte of v's bit pattern
 *
 * with top = QUANT_RND + 127 (s8, zp 0) or + 255 (u8).  v + QUANT_RND
 * lies in [2^23, 2^24), where the fp32 spacing is 1: it is QUANT_RND +
 * round(x * inv), ties to even (QUANT_RND is even); adding the integer
 * zp is exact (not folded into the first addition: its ties would then
 * go to the even q, not the even round(x * inv)).  The bit pattern is
 * then QUANT_RND's, 0x4b400000, plus the integer round(x * inv) + zp, so
 * its low byte is q, as int8_t or uint8_t.
 * Nothing needs clamping below: round(x * inv) >= round(lo * inv) = -zp
 * (u8) and |x * inv| <= 127 (1 + 2^-22) (s8); above, only u8 may reach
 * 256 (x * inv and zp both rounded up).  Both files are built with
 * -ffp-contract=off (no multiply-add fused in one and not the other):
 * the same bits.
 */
#ifndef AMX_QUANT_H
#define AMX_QUANT_H

#include "internal.h"

/* x + 1.5 * 2^23: |x| < 2^22 rounded to an integer (MXCSR), plus this */
#define QUANT_RND	12582912.0f

/* the source and output types of a call */
#define QUANT_BF16	(1u << 0)	/* amx_bf16 x, else float */
#define QUANT_U8	(1u << 1)	/* asymmetric uint8_t q, else int8_t */

/*
 * A row's statistics as fp32 bit patterns: s8, hi = max |x| (lo unused);
 * u8, lo = min x and hi = max x, each of them and 0 (+0.0 when the row
 * has no value below, or above, 0).
 */
struct amx__qstat {
	uint32_t lo, hi;
};

/* what a row is quantized with */
struct amx__qparam {
	float inv;	/* 127 / amax or 255 / (hi - lo); 0 for a zero row */
	float zp;	/* the zero point (s8: 0) */
	float top;	/* QUANT_RND + 127 (s8) or 255 (u8) */
};

/*
 * quant_avx512.c, for CPUs with AVX-512F and BW.  amx__qstat_avx512():
 * 0, or -EDOM when the row holds a NaN or an infinity.
 */
AMX_HIDDEN int amx__qstat_avx512(unsigned int mode, const void *x, size_t k,
				 struct amx__qstat *st);
AMX_HIDDEN void amx__qrow_avx512(unsigned int mode, const void *x, size_t k,
				 const struct amx__qparam *p, uint8_t *q);

/* bits of +inf, and the u8 order key (below) of -inf */
#define QUANT_INF_BITS	0x7f800000u
#define QUANT_NINF_KEY	(INT32_MIN + 0x007fffff)

/*
 * The order key of an fp32 bit pattern: an int32 that orders as the
 * value does (-0.0 just below +0.0), NaNs beyond the infinities.
 */
static inline int32_t quant_key(uint32_t u)
{
	return (int32_t)(u ^ ((uint32_t)((int32_t)u >> 31) >> 1));
}

/* and back: the key is its own inverse */
static inline uint32_t quant_unkey(int32_t key)
{
	return quant_key((uint32_t)key);
}

#endif /* AMX_QUANT_H */
