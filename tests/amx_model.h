/* SPDX-License-Identifier: MIT */
/*
 * The tests' one C model of the AMX instructions: the architectural state
 * (the 64-byte LDTILECFG image and eight 16 x 64-byte tiles) and what
 * LDTILECFG, TILELOADD, TILESTORED, TILEZERO and the TDP* and TCMM* dot
 * products do to it, as the SDM describes them and as AMX silicon was
 * recorded doing (tests/emu/silicon_vectors.c holds the recorded cases):
 *
 * - a load zeroes the bytes of the tile outside rows x colsb, a TDP* the
 *   rows below and the columns right of its destination's shape;
 * - TDPB[SU][SU]D add the four byte products of each group in 32 bits
 *   with wrap-around;
 * - TDPBF16PS reads denormal inputs as zero (DAZ), adds the even and the
 *   odd products of a K step separately, rounding each addition once
 *   (nearest even) and flushing a result below FLT_MIN to zero after that
 *   rounding (FTZ), and adds the two sums to the destination at the end.
 * - TDPFP16PS (AMX-FP16) and TCMMIMFP16PS/TCMMRLFP16PS (AMX-COMPLEX), from
 *   the SDM's pseudo-code, not yet recorded on silicon: each FP16 input is
 *   converted to FP32 exactly (FP16 denormals are honoured: they are
 *   normal FP32 values); per destination element two FP32 lanes start at
 *   +0 and, for k ascending, each takes one fused multiply-add
 *   lane = lane + x * y rounded once (nearest even, DAZ, FTZ after
 *   rounding); then dst = dst + (even + odd), the incoming dst read with
 *   DAZ, each addition rounded once, FTZ.  The lanes' operands, with
 *   A = src1.row[m] and B = src2.row[k] read as FP16 pairs (re, im):
 *     TDPFP16PS      even A.re * B.re        odd A.im * B.im
 *     TCMMIMFP16PS   even A.im * B.re        odd A.re * B.im
 *     TCMMRLFP16PS   even A.re * B.re        odd (-A.im) * B.im
 *   where -A.im flips the FP16 sign bit, NaNs included.  Special values,
 *   as the TDPBF16PS ones were recorded (and, for FP16, unrecorded): in a
 *   multiply-add a NaN x wins over a NaN y, which wins over the lane's
 *   NaN; in an addition the first operand's NaN (even lane, dst) wins;
 *   a NaN result is quieted (bit 22 set) keeping sign and payload, an
 *   FP16 payload shifted up 13 bits; Inf * 0 and Inf - Inf give the
 *   default NaN 0xffc00000.  Products of FP16 values are at most 2^32 in
 *   magnitude and multiples of 2^-48, so the lanes never overflow nor
 *   underflow: FTZ only ever flushes the final sum.
 *
 * The callers check what the hardware would fault on (tmodel_tile_ok(),
 * tmodel_ldst_ok(), tmodel_tdp_ok()) before they call the operations.
 * tests/emu/amx_diff.c compares silicon (or the emulator) with it;
 * tests/gemm_amx_emul.c runs the library's AMX GEMM on it.
 */
#ifndef AMX_TESTS_MODEL_H
#define AMX_TESTS_MODEL_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The LDTILECFG / STTILECFG image */
struct tmodel_cfg {
	uint8_t palette, start_row;
	uint8_t rsvd[14];
	uint16_t colsb[16];
	uint8_t rows[16];
} __attribute__((packed));

_Static_assert(sizeof(struct tmodel_cfg) == 64, "LDTILECFG image is 64 bytes");

struct tmodel {
	struct tmodel_cfg cfg;		/* palette 0: init (no configuration) */
	uint8_t t[8][16][64];
};

/* The TDP* and TCMM* instructions (tests/emu/amx_diff.c names them) */
enum tmodel_op {
	TMODEL_SSD, TMODEL_SUD, TMODEL_USD, TMODEL_UUD, TMODEL_BF16,
	TMODEL_FP16, TMODEL_CMMIM, TMODEL_CMMRL,
	TMODEL_NOPS
};

/* LDTILECFG of @image (64 bytes): palette 0 is the init state; tiles zero */
static inline void tmodel_ldtilecfg(struct tmodel *m, const void *image)
{
	memcpy(&m->cfg, image, sizeof(m->cfg));
	if (!m->cfg.palette)
		memset(&m->cfg, 0, sizeof(m->cfg));
	memset(m->t, 0, sizeof(m->t));
}

/* TILERELEASE: the init state */
static inline void tmodel_release(struct tmodel *m)
{
	memset(m, 0, sizeof(*m));
}

/* Whether tile @t is configured (else its instructions raise #UD) */
static inline int tmodel_tile_ok(const struct tmodel *m, int t)
{
	return t >= 0 && t < 8 && m->cfg.palette && m->cfg.rows[t] &&
	       m->cfg.colsb[t];
}

/* TILELOADD and TILESTORED also need colsb to be a multiple of 4 (#UD) */
static inline int tmodel_ldst_ok(const struct tmodel *m, int t)
{
	return tmodel_tile_ok(m, t) && !(m->cfg.colsb[t] & 3);
}

/* Whether TDP* @d, @a, @b would execute: configured, distinct, shapes */
static inline int tmodel_tdp_ok(const struct tmodel *m, int d, int a, int b)
{
	const struct tmodel_cfg *c = &m->cfg;

	return tmodel_tile_ok(m, d) && tmodel_tile_ok(m, a) &&
	       tmodel_tile_ok(m, b) && d != a && d != b && a != b &&
	       !((c->colsb[d] | c->colsb[a] | c->colsb[b]) & 3) &&
	       c->rows[d] == c->rows[a] && c->colsb[a] / 4 == c->rows[b] &&
	       c->colsb[d] == c->colsb[b];
}

static inline void tmodel_loadd(struct tmodel *m, int t, const void *base,
				long stride)
{
	memset(m->t[t], 0, sizeof(m->t[t]));
	for (int r = 0; r < m->cfg.rows[t]; r++)
		memcpy(m->t[t][r], (const uint8_t *)base + r * stride,
		       m->cfg.colsb[t]);
	m->cfg.start_row = 0;
}

static inline void tmodel_stored(struct tmodel *m, int t, void *base,
				 long stride)
{
	for (int r = 0; r < m->cfg.rows[t]; r++)
		memcpy((uint8_t *)base + r * stride, m->t[t][r],
		       m->cfg.colsb[t]);
	m->cfg.start_row = 0;
}

static inline void tmodel_zero(struct tmodel *m, int t)
{
	memset(m->t[t], 0, sizeof(m->t[t]));
	m->cfg.start_row = 0;
}

static inline float tmodel_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* DAZ: a denormal input reads as zero of the same sign */
static inline float tmodel_daz(float x)
{
	uint32_t u;

	memcpy(&u, &x, 4);
	return (u & 0x7f800000) ? x : tmodel_f32(u & 0x80000000);
}

/*
 * One TDPBF16PS step as silicon rounds it: the exact result @x (products
 * of bf16 values and sums of two such terms are exact in double, or
 * rounded there without harm: 53 >= 2 * 24 + 2) rounded once to a 24-bit
 * significand, nearest even, with an unbounded exponent; a result below
 * FLT_MIN is then flushed to zero of the same sign (FTZ after rounding),
 * one above FLT_MAX becomes infinity.  Inputs stay finite.
 */
static inline float tmodel_round_ftz(double x)
{
	int e;
	double f;

	/*
	 * From FLT_MIN up, the conversion to float is that rounding (and
	 * gives infinity above FLT_MAX); below, it would round at the
	 * denormals' precision, so round by hand.
	 */
	if (fabs(x) >= FLT_MIN)
		return (float)x;
	f = frexp(x, &e);		/* x = f * 2^e, 0.5 <= |f| < 1 */

	f = nearbyint(ldexp(f, 24));	/* 24 significant bits, RNE */
	x = ldexp(f, e - 24);
	if (fabs(x) < FLT_MIN)
		return copysignf(0.0f, (float)x);
	return (float)x;		/* exact, or +-Inf on overflow */
}

static inline double tmodel_bf16(const uint8_t *p)
{
	return tmodel_daz(tmodel_f32((uint32_t)(p[0] | p[1] << 8) << 16));
}

static inline int32_t tmodel_dp4(const uint8_t *x, const uint8_t *y, int xu,
				 int yu)
{
	uint32_t s = 0;

	for (int i = 0; i < 4; i++) {
		int32_t a = xu ? x[i] : (int8_t)x[i];
		int32_t b = yu ? y[i] : (int8_t)y[i];

		s += (uint32_t)(a * b);
	}
	return (int32_t)s;
}

/* ---- AMX-FP16 / AMX-COMPLEX: FP32 images, special values exact ---- */

#define TMODEL_F32_QNAN		0x00400000u
#define TMODEL_F32_DEFAULT_NAN	0xffc00000u

static inline uint32_t tmodel_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline int tmodel_isnan32(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

static inline int tmodel_isinf32(uint32_t u)
{
	return (u & 0x7fffffffu) == 0x7f800000u;
}

/* FP16 @h as an FP32 image: exact; NaN keeps sign and payload (<< 13) */
static inline uint32_t tmodel_fp16(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31;
	int e = (h >> 10) & 0x1f;
	int f = h & 0x3ff;

	if (e == 0x1f)
		return sign | 0x7f800000u | (uint32_t)f << 13;
	/* (1024 + f) * 2^(e - 25) normal, f * 2^-24 denormal: exact */
	return sign | tmodel_bits((float)ldexp(e ? 1024 + f : f,
					       e ? e - 25 : -24));
}

/* x * y + acc, once rounded (x, y: FP16 values as FP32 images) */
static inline uint32_t tmodel_fma16(uint32_t acc, uint32_t x, uint32_t y)
{
	int xz = !(x & 0x7fffffffu), yz = !(y & 0x7fffffffu);
	uint32_t psign = (x ^ y) & 0x80000000u;

	if (tmodel_isnan32(x))
		return x | TMODEL_F32_QNAN;
	if (tmodel_isnan32(y))
		return y | TMODEL_F32_QNAN;
	if (tmodel_isnan32(acc))
		return acc | TMODEL_F32_QNAN;
	if ((tmodel_isinf32(x) && yz) || (tmodel_isinf32(y) && xz))
		return TMODEL_F32_DEFAULT_NAN;
	if (tmodel_isinf32(x) || tmodel_isinf32(y)) {
		if (tmodel_isinf32(acc) && (acc & 0x80000000u) != psign)
			return TMODEL_F32_DEFAULT_NAN;
		return psign | 0x7f800000u;
	}
	if (tmodel_isinf32(acc))
		return acc;
	/* exact product (22 bits), sum rounded to double then once more */
	return tmodel_bits(tmodel_round_ftz((double)tmodel_f32(x) *
					    tmodel_f32(y) +
					    tmodel_daz(tmodel_f32(acc))));
}

/* x + y, once rounded, DAZ on both */
static inline uint32_t tmodel_add32(uint32_t x, uint32_t y)
{
	if (tmodel_isnan32(x))
		return x | TMODEL_F32_QNAN;
	if (tmodel_isnan32(y))
		return y | TMODEL_F32_QNAN;
	if (tmodel_isinf32(x) && tmodel_isinf32(y) && x != y)
		return TMODEL_F32_DEFAULT_NAN;
	if (tmodel_isinf32(x))
		return x;
	if (tmodel_isinf32(y))
		return y;
	return tmodel_bits(tmodel_round_ftz((double)tmodel_daz(tmodel_f32(x)) +
					    tmodel_daz(tmodel_f32(y))));
}

/* One FP32 result of TDPFP16PS/TCMM*FP16PS: @c + A.row . B.col over @k4 */
static inline uint32_t tmodel_fp16_elem(enum tmodel_op op, uint32_t c,
					const uint8_t *x, const uint8_t *y,
					int k4)
{
	uint32_t even = 0, odd = 0;

	for (int k = 0; k < k4; k++, x += 4, y += 64) {
		uint16_t are = x[0] | x[1] << 8, aim = x[2] | x[3] << 8;
		uint16_t bre = y[0] | y[1] << 8, bim = y[2] | y[3] << 8;

		switch (op) {
		case TMODEL_CMMIM:
			even = tmodel_fma16(even, tmodel_fp16(aim), tmodel_fp16(bre));
			odd = tmodel_fma16(odd, tmodel_fp16(are), tmodel_fp16(bim));
			break;
		case TMODEL_CMMRL:
			even = tmodel_fma16(even, tmodel_fp16(are), tmodel_fp16(bre));
			odd = tmodel_fma16(odd, tmodel_fp16(aim ^ 0x8000),
					   tmodel_fp16(bim));
			break;
		default:
			even = tmodel_fma16(even, tmodel_fp16(are), tmodel_fp16(bre));
			odd = tmodel_fma16(odd, tmodel_fp16(aim), tmodel_fp16(bim));
			break;
		}
	}
	return tmodel_add32(c, tmodel_add32(even, odd));
}

/* TDP* @op: tile @d += @a . @b (tmodel_tdp_ok() must hold) */
static inline void tmodel_tdp(struct tmodel *m, enum tmodel_op op, int d,
			      int a, int b)
{
	int rows = m->cfg.rows[d], n4 = m->cfg.colsb[d] / 4;
	int k4 = m->cfg.colsb[a] / 4;
	int au = op == TMODEL_USD || op == TMODEL_UUD;
	int bu = op == TMODEL_SUD || op == TMODEL_UUD;

	for (int i = 0; i < rows; i++) {
		uint8_t row[64] = { 0 };

		for (int n = 0; n < n4; n++) {
			const uint8_t *y = &m->t[b][0][4 * n];

			if (op >= TMODEL_FP16) {
				uint32_t c;

				memcpy(&c, &m->t[d][i][4 * n], 4);
				c = tmodel_fp16_elem(op, c, m->t[a][i], y, k4);
				memcpy(&row[4 * n], &c, 4);
			} else if (op == TMODEL_BF16) {
				float t0 = 0.0f, t1 = 0.0f, c;

				for (int k = 0; k < k4; k++, y += 64) {
					const uint8_t *x = &m->t[a][i][4 * k];

					t0 = tmodel_round_ftz(tmodel_bf16(x) *
							      tmodel_bf16(y) + t0);
					t1 = tmodel_round_ftz(tmodel_bf16(x + 2) *
							      tmodel_bf16(y + 2) + t1);
				}
				memcpy(&c, &m->t[d][i][4 * n], 4);
				c = tmodel_round_ftz((double)tmodel_daz(c) +
						     tmodel_round_ftz((double)t0 + t1));
				memcpy(&row[4 * n], &c, 4);
			} else {
				uint32_t acc;

				memcpy(&acc, &m->t[d][i][4 * n], 4);
				for (int k = 0; k < k4; k++, y += 64)
					acc += (uint32_t)tmodel_dp4(&m->t[a][i][4 * k],
								    y, au, bu);
				memcpy(&row[4 * n], &acc, 4);
			}
		}
		memcpy(m->t[d][i], row, 64);
	}
	for (int i = rows; i < 16; i++)
		memset(m->t[d][i], 0, 64);
	m->cfg.start_row = 0;
}

#endif /* AMX_TESTS_MODEL_H */
