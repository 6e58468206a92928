// SPDX-License-Identifier: MIT
/*
 * Per-row (per-token) quantization of fp32 or bf16 activations to int8
 * (symmetric) or uint8 (with a zero point) for amx_gemm_s8s8() and
 * amx_gemm_u8s8(): the checks, the scales, and the portable C rows; the
 * AVX-512 rows are in quant_avx512.c (the same bits, see quant.h).
 *
 * Nothing is written unless the call succeeds, and only a full pass over
 * the input can tell that no value is a NaN or an infinity.  So pass 1
 * finds every row's statistics (which is that check) and keeps them, on
 * the stack for up to QUANT_KEEP rows, else in a heap array; pass 2
 * quantizes row by row.  Pass 1 is the cost of the rule: it reads the
 * input once more (from L1 or L2 for a few rows, from memory for many).
 * Keeping them saves a third pass over each row in pass 2 (in L1 then):
 * on Zen 5, 25 to 75 % of the time for 1 to 200 rows of 4096, 10 to 45 %
 * for 1024.  Where the heap array cannot be had, pass 2 finds the
 * statistics of the rows past QUANT_KEEP again, as slower but no error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "quant.h"

/* a max |x| (range, u8) below this is taken as this: scales stay normal */
#define QUANT_TINY	0x1p-112f
/* rows whose statistics pass 1 keeps for pass 2: 2 KiB of stack */
#define QUANT_KEEP	256

static float f_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Element @i of a row as fp32 bits (bf16: widened, exact).  The rows
 * below are instantiated per type (@bf16, @u8 constants), so that the
 * compiler can vectorise their loops with the baseline's SSE2.
 */
static inline uint32_t bits_of(const void *x, size_t i, const int bf16)
{
	uint32_t u;

	if (bf16)
		return (uint32_t)((const amx_bf16 *)x)[i] << 16;
	memcpy(&u, (const float *)x + i, sizeof(u));
	return u;
}

static inline __attribute__((always_inline)) int
qstat_t(const void *x, size_t k, struct amx__qstat *st, const int bf16,
	const int u8)
{
	uint32_t amax = 0;
	int32_t lo = 0, hi = 0;	/* keys of +0.0: lo <= 0 <= hi */

	if (!u8) {
		for (size_t i = 0; i < k; i++) {
			uint32_t a = bits_of(x, i, bf16) & 0x7fffffffu;

			amax = a > amax ? a : amax;
		}
		if (amax >= QUANT_INF_BITS)
			return -EDOM;
		st->lo = 0;
		st->hi = amax;
		return 0;
	}
	for (size_t i = 0; i < k; i++) {
		int32_t key = quant_key(bits_of(x, i, bf16));

		lo = key < lo ? key : lo;
		hi = key > hi ? key : hi;
	}
	if (hi >= (int32_t)QUANT_INF_BITS || lo <= QUANT_NINF_KEY)
		return -EDOM;
	st->lo = quant_unkey(lo);
	st->hi = quant_unkey(hi);
	return 0;
}

static inline __attribute__((always_inline)) void
qrow_t(const void *x, size_t k, const struct amx__qparam *p, uint8_t *q,
       const int bf16)
{
	const float inv = p->inv, zp = p->zp, top = p->top;

	for (size_t i = 0; i < k; i++) {
		float v = f_of(bits_of(x, i, bf16)) * inv;
		uint32_t u;

		v = v + QUANT_RND;
		v = v + zp;
		v = v < top ? v : top;
		memcpy(&u, &v, sizeof(u));
		q[i] = (uint8_t)u;
	}
}

static int qstat_c(unsigned int mode, const void *x, size_t k,
		   struct amx__qstat *st)
{
	switch (mode & (QUANT_BF16 | QUANT_U8)) {
	case 0:
		return qstat_t(x, k, st, 0, 0);
	case QUANT_U8:
		return qstat_t(x, k, st, 0, 1);
	case QUANT_BF16:
		return qstat_t(x, k, st, 1, 0);
	default:
		return qstat_t(x, k, st, 1, 1);
	}
}

static void qrow_c(unsigned int mode, const void *x, size_t k,
		   const struct amx__qparam *p, uint8_t *q)
{
	if (mode & QUANT_BF16)
		qrow_t(x, k, p, q, 1);
	else
		qrow_t(x, k, p, q, 0);
}

/*
 * A row's scale, zero point and what its elements are multiplied by
 * (amx_quantize_s8(3) gives the rules).  s8: inv = 127 / a, scale =
 * a / 127.  u8: d = hi / 2 - lo / 2, which is (hi - lo) / 2 exactly
 * but cannot overflow, then inv = 127.5 / d = 255 / (hi - lo) and
 * scale = d / 127.5 = (hi - lo) / 255, the same roundings.
 */
static void quant_param(unsigned int mode, const struct amx__qstat *st,
			struct amx__qparam *p, float *scale, int32_t *zp)
{
	float a, lo, hi, d, z;

	p->inv = 0.0f;	/* a zero row: every q is 0 (or zp, 0) */
	p->zp = 0.0f;
	p->top = mode & QUANT_U8 ? QUANT_RND + 255.0f : QUANT_RND + 127.0f;
	*scale = 1.0f;
	*zp = 0;
	if (!(mode & QUANT_U8)) {
		a = f_of(st->hi);
		if (a == 0.0f)
			return;
		a = a < QUANT_TINY ? QUANT_TINY : a;
		p->inv = 127.0f / a;
		*scale = a / 127.0f;
		return;
	}
	lo = f_of(st->lo);
	hi = f_of(st->hi);
	lo = lo < 0.0f ? lo : 0.0f;
	hi = hi > 0.0f ? hi : 0.0f;
	if (hi == lo)
		return;
	d = hi * 0.5f - lo * 0.5f;
	d = d < QUANT_TINY * 0.5f ? QUANT_TINY * 0.5f : d;
	p->inv = 127.5f / d;
	*scale = d / 127.5f;
	z = -lo * p->inv;
	z = z + QUANT_RND;
	z = z - QUANT_RND;
	z = z < 255.0f ? z : 255.0f;	/* a safeguard: -lo * inv <= 255 */
	p->zp = z;
	*zp = (int32_t)z;
}

/* the byte window of a matrix, as gemm.c's span() */
static int span(size_t rows, size_t cols, size_t ld, size_t esz,
		const void *p, uintptr_t w[2])
{
	size_t n;
	int ret = amx__matrix_span(rows, cols, ld, esz, p, &n);

	w[0] = w[1] = 0;
	if (ret || !n)
		return ret;
	w[0] = (uintptr_t)p;
	w[1] = w[0] + n;
	return 0;
}

static int overlap(const uintptr_t a[2], const uintptr_t b[2])
{
	return a[0] < a[1] && b[0] < b[1] && a[0] < b[1] && b[0] < a[1];
}

static int quant_stat(int avx, unsigned int mode, const void *x, size_t k,
		      struct amx__qstat *st)
{
	return avx ? amx__qstat_avx512(mode, x, k, st) :
		     qstat_c(mode, x, k, st);
}

static int quant(unsigned int mode, size_t m, size_t k, const void *x,
		 size_t ldx, void *q, size_t ldq, float *scales,
		 int32_t *zero_points)
{
	struct amx__qstat keep[QUANT_KEEP], *kept = keep, st;
	struct amx__qparam p;
	size_t esz = mode & QUANT_BF16 ? 2 : 4, nkept = QUANT_KEEP;
	uintptr_t wx[2], wq[2], ws[2], wz[2] = { 0, 0 };
	bool ignored;
	int avx, ret;

	if (!m)
		return 0;
	ret = span(m, k, ldx, esz, x, wx);
	if (!ret)
		ret = span(m, k, ldq, 1, q, wq);
	if (!ret)
		ret = span(1, m, m, sizeof(*scales), scales, ws);
	if (!ret && (mode & QUANT_U8))
		ret = span(1, m, m, sizeof(*zero_points), zero_points, wz);
	if (ret)
		return ret;
	if (overlap(wq, wx) || overlap(ws, wx) || overlap(wz, wx) ||
	    overlap(wq, ws) || overlap(wq, wz) || overlap(ws, wz))
		return -EINVAL;
	if (!k) {
		for (size_t i = 0; i < m; i++) {
			scales[i] = 1.0f;
			if (zero_points)
				zero_points[i] = 0;
		}
		return 0;
	}
	avx = (amx__cpu()->simd & AMX__SIMD_AVX512) &&
	      amx__force_fallback(&ignored, true) != AMX_FORCE_C;
	/* m * 8 bytes cannot overflow: x's window (>= 2 m bytes) < 2^56 */
	if (m > QUANT_KEEP && (kept = malloc(m * sizeof(*kept))))
		nkept = m;
	else
		kept = keep;

	for (size_t i = 0; i < m; i++) {
		ret = quant_stat(avx, mode, (const uint8_t *)x + i * ldx * esz,
				 k, i < nkept ? &kept[i] : &st);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < m; i++) {
		const void *row = (const uint8_t *)x + i * ldx * esz;
		uint8_t *out = (uint8_t *)q + i * ldq;
		float scale;
		int32_t zp;

		if (i < nkept)
			st = kept[i];
		else	/* cannot fail now */
			quant_stat(avx, mode, row, k, &st);
		quant_param(mode, &st, &p, &scale, &zp);
		if (avx)
			amx__qrow_avx512(mode, row, k, &p, out);
		else
			qrow_c(mode, row, k, &p, out);
		scales[i] = scale;
		if (zero_points)
			zero_points[i] = zp;
	}
out:
	if (kept != keep)
		free(kept);
	return ret;
}

int amx_quantize_s8(size_t m, size_t k, const float *x, size_t ldx,
		    int8_t *q, size_t ldq, float *scales)
{
	return quant(0, m, k, x, ldx, q, ldq, scales, NULL);
}

int amx_quantize_u8(size_t m, size_t k, const float *x, size_t ldx,
		    uint8_t *q, size_t ldq, float *scales,
		    int32_t *zero_points)
{
	return quant(QUANT_U8, m, k, x, ldx, q, ldq, scales, zero_points);
}

int amx_quantize_bf16_s8(size_t m, size_t k, const amx_bf16 *x, size_t ldx,
			 int8_t *q, size_t ldq, float *scales)
{
	return quant(QUANT_BF16, m, k, x, ldx, q, ldq, scales, NULL);
}

int amx_quantize_bf16_u8(size_t m, size_t k, const amx_bf16 *x, size_t ldx,
			 uint8_t *q, size_t ldq, float *scales,
			 int32_t *zero_points)
{
	return quant(QUANT_BF16 | QUANT_U8, m, k, x, ldx, q, ldq, scales,
		     zero_points);
}
