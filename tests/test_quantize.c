// SPDX-License-Identifier: MIT
/*
 * amx_quantize_s8(3), _u8, _bf16_s8, _bf16_u8 on both implementations
 * (AVX-512 where the CPU has it, and AMX_FORCE_FALLBACK=c), each against
 * an oracle written here from the man page's rules with libm's
 * nearbyintf() and fp32 comparisons (not the library's integer keys and
 * rounding constant): q, scales and zero points bit for bit on random
 * rows of every length 1..300 and some long ones, with odd leading
 * dimensions and offset pointers; hand-computed rows (ties to even, the
 * u8 edges zp 0 and 255, outliers, ranges that overflow fp32, tiny and
 * zero rows); |x - s (q - zp)| <= s (1/2 + 2^-14) everywhere; the bytes
 * around and between q's rows untouched.  Then every error: the
 * documented value, errno unchanged, and not one output byte written.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amx_test.h"

#define V_U8	1	/* variant bits */
#define V_BF16	2
#define CANARY	0x5a

static const char *const vname[] = { "s8", "u8", "bf16_s8", "bf16_u8" };

static int qcall(int v, size_t m, size_t k, const void *x, size_t ldx,
		 void *q, size_t ldq, float *s, int32_t *zp)
{
	switch (v) {
	case 0:
		return amx_quantize_s8(m, k, x, ldx, q, ldq, s);
	case V_U8:
		return amx_quantize_u8(m, k, x, ldx, q, ldq, s, zp);
	case V_BF16:
		return amx_quantize_bf16_s8(m, k, x, ldx, q, ldq, s);
	default:
		return amx_quantize_bf16_u8(m, k, x, ldx, q, ldq, s, zp);
	}
}

/* the oracle's round to nearest, ties to even, then clamp */
static int rne_clamp(float v, int lo, int hi)
{
	float r = nearbyintf(v);

	return r < (float)lo ? lo : r > (float)hi ? hi : (int)r;
}

/*
 * One row by the man page: s8, amax = max |x|; u8, lo = min(0, min x),
 * hi = max(0, max x), range hi - lo (below 2^-112 taken as 2^-112;
 * where it overflows fp32, d = hi/2 - lo/2 stands for half of it).
 */
static void ref_row(int u8, size_t k, const float *x, int *q, float *scale,
		    int *zp)
{
	float amax = 0.0f, lo = 0.0f, hi = 0.0f, r, inv;

	*scale = 1.0f;
	*zp = 0;
	for (size_t i = 0; i < k; i++) {
		amax = fabsf(x[i]) > amax ? fabsf(x[i]) : amax;
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
		q[i] = 0;
	}
	if (!u8) {
		if (amax == 0.0f)
			return;
		amax = amax < 0x1p-112f ? 0x1p-112f : amax;
		inv = 127.0f / amax;
		*scale = amax / 127.0f;
		for (size_t i = 0; i < k; i++)
			q[i] = rne_clamp(x[i] * inv, -127, 127);
		return;
	}
	if (hi == lo)
		return;
	r = hi - lo;
	if (isinf(r)) {
		r = hi * 0.5f - lo * 0.5f;
		inv = 127.5f / r;
		*scale = r / 127.5f;
	} else {
		r = r < 0x1p-112f ? 0x1p-112f : r;
		inv = 255.0f / r;
		*scale = r / 255.0f;
	}
	*zp = rne_clamp(-lo * inv, 0, 255);
	for (size_t i = 0; i < k; i++) {
		float v = nearbyintf(x[i] * inv) + (float)*zp;

		q[i] = v < 0.0f ? 0 : v > 255.0f ? 255 : (int)v;
	}
}

/* a matrix of m rows for variant v in its own buffers, with canaries */
struct job {
	int v;
	size_t m, k, ldx, ldq;
	float *xf;		/* the values, fp32 (bf16: widened) */
	void *xbuf, *x;		/* the source as the library reads it */
	uint8_t *qbuf, *q;	/* q inside qbuf, canaries around */
	size_t qlen;
	float sbuf[1024], *s;
	int32_t zbuf[1024], *zp;
};

/* fp32 element @i of row @r of kind @kind (random) */
static float gen(uint64_t *seed, int kind, size_t k, size_t i, float a)
{
	uint32_t u = (uint32_t)amx_test_rand(seed);
	float f = (float)(u >> 8) * 0x1p-24f;	/* [0, 1) */

	switch (kind) {
	case 0:		/* uniform [-a, a) */
		return a * (2.0f * f - 1.0f);
	case 1:		/* positive only */
		return a * f;
	case 2:		/* negative only */
		return -a * f;
	case 3:		/* zeros of both signs */
		return u & 1 ? -0.0f : 0.0f;
	case 4:		/* one outlier */
		return i == k / 2 ? a * 1e4f : a * (2.0f * f - 1.0f);
	case 5: {	/* any finite fp32: ranges that overflow, denormals */
		uint32_t b = u & 0xff7fffffu;

		return amx_test_from_bits(b);
	}
	case 6:		/* denormals and tiny normals */
		return amx_test_from_bits(u & 0x80ffffffu);
	default:	/* halves: ties of x * 1 */
		return (float)((int)(u % 509) - 254) * 0.5f;
	}
}

static void job_init(struct job *j, uint64_t *seed, int v, size_t m,
		     size_t k, int kind)
{
	size_t xoff = amx_test_rand(seed) % 16, qoff = amx_test_rand(seed) % 64;
	size_t esz = v & V_BF16 ? 2 : 4;
	float a = ldexpf(1.0f, (int)(amx_test_rand(seed) % 41) - 20);

	j->v = v;
	j->m = m;
	j->k = k;
	j->ldx = k + amx_test_rand(seed) % 4;
	j->ldq = k + amx_test_rand(seed) % 5;
	j->xf = calloc(m * j->ldx + 1, sizeof(float));
	j->xbuf = calloc(m * j->ldx + 16, esz);
	j->x = (uint8_t *)j->xbuf + xoff * esz;
	j->qlen = m * j->ldq + 128;
	j->qbuf = malloc(j->qlen);
	j->q = j->qbuf + qoff;
	j->s = j->sbuf + amx_test_rand(seed) % 4;
	j->zp = v & V_U8 ? j->zbuf + amx_test_rand(seed) % 4 : NULL;
	for (size_t r = 0; r < m; r++) {
		for (size_t i = 0; i < j->ldx; i++) {
			/* the gaps between rows hold NaNs: never looked at */
			float f = i < k ? gen(seed, kind, k, i, a) : NAN;
			uint32_t b = amx_test_bits(f);

			if (v & V_BF16) {
				/* truncated: finite stays finite */
				uint16_t h = (uint16_t)(b >> 16);

				memcpy((uint16_t *)j->x + r * j->ldx + i, &h,
				       2);
				f = amx_test_bf2f(h);
			} else {
				memcpy((float *)j->x + r * j->ldx + i, &f, 4);
			}
			j->xf[r * j->ldx + i] = f;
		}
	}
}

static void job_arm(struct job *j)
{
	memset(j->qbuf, CANARY, j->qlen);
	memset(j->sbuf, CANARY, sizeof(j->sbuf));
	memset(j->zbuf, CANARY, sizeof(j->zbuf));
}

static void job_free(struct job *j)
{
	free(j->xf);
	free(j->xbuf);
	free(j->qbuf);
}

/* outputs as armed: nothing written */
static int job_untouched(const struct job *j)
{
	for (size_t i = 0; i < j->qlen; i++)
		if (j->qbuf[i] != CANARY)
			return 0;
	for (size_t i = 0; i < sizeof(j->sbuf); i++)
		if (((const uint8_t *)j->sbuf)[i] != CANARY ||
		    ((const uint8_t *)j->zbuf)[i] != CANARY)
			return 0;
	return 1;
}

static char why[256];

/* every byte of the buffers outside q's window, scales[m], zero_points[m] */
static int outside_untouched(const struct job *j)
{
	const uint8_t *sb = (const uint8_t *)j->sbuf;
	const uint8_t *zb = (const uint8_t *)j->zbuf;
	size_t q0 = (size_t)(j->q - j->qbuf);
	size_t q1 = q0 + (j->m - 1) * j->ldq + j->k;
	size_t s0 = (size_t)(j->s - j->sbuf) * 4, z0 = 0;

	for (size_t i = 0; i < j->qlen; i++)
		if ((i < q0 || i >= q1) && j->qbuf[i] != CANARY)
			return 0;
	if (j->zp)
		z0 = (size_t)(j->zp - j->zbuf) * 4;
	for (size_t i = 0; i < sizeof(j->sbuf); i++) {
		if ((i < s0 || i >= s0 + j->m * 4) && sb[i] != CANARY)
			return 0;
		if ((!j->zp || i < z0 || i >= z0 + j->m * 4) &&
		    zb[i] != CANARY)
			return 0;
	}
	return 1;
}

/*
 * Run and check a job: the oracle's bits, the bound, the zero point's
 * exactness, the bytes around q, scales and zero points.  0 or 1 (with
 * why[] set).
 */
static int job_check(struct job *j)
{
	int *qr = malloc((j->k + 1) * sizeof(int)), ret, zr, bad = 0;
	int u8 = j->v & V_U8;
	float sr;

	job_arm(j);
	errno = 4242;
	ret = qcall(j->v, j->m, j->k, j->x, j->ldx, j->q, j->ldq, j->s, j->zp);
	if (ret || errno != 4242) {
		snprintf(why, sizeof(why), "returned %d, errno %d", ret, errno);
		free(qr);
		return 1;
	}
	for (size_t r = 0; r < j->m && !bad; r++) {
		const float *x = j->xf + r * j->ldx;
		const uint8_t *q = j->q + r * j->ldq;
		int32_t zp = u8 ? j->zp[r] : 0;
		float s = j->s[r];

		ref_row(u8, j->k, x, qr, &sr, &zr);
		if (amx_test_bits(s) != amx_test_bits(sr) || zp != zr) {
			snprintf(why, sizeof(why),
				 "row %zu: scale %a zp %d, oracle %a %d", r,
				 (double)s, zp, (double)sr, zr);
			bad = 1;
			break;
		}
		if (!(s >= FLT_MIN && s <= FLT_MAX) || zp < 0 || zp > 255) {
			snprintf(why, sizeof(why), "row %zu: scale %a zp %d",
				 r, (double)s, zp);
			bad = 1;
			break;
		}
		for (size_t i = 0; i < j->k; i++) {
			int got = u8 ? q[i] : (int8_t)q[i];
			double deq = (double)s * (got - zp);

			if (got != qr[i]) {
				snprintf(why, sizeof(why),
					 "row %zu [%zu] x %a: q %d, oracle %d",
					 r, i, (double)x[i], got, qr[i]);
				bad = 1;
				break;
			}
			if (fabs(x[i] - deq) > (double)s * (0.5 + 0x1p-14)) {
				snprintf(why, sizeof(why),
					 "row %zu [%zu] x %a: s (q - zp) = %a",
					 r, i, (double)x[i], deq);
				bad = 1;
				break;
			}
			if (x[i] == 0.0f && got != zp) {
				snprintf(why, sizeof(why),
					 "row %zu [%zu]: 0 -> %d, zp %d", r, i,
					 got, zp);
				bad = 1;
				break;
			}
		}
		/* the gap after the row, before the next one (or the end) */
		for (size_t i = j->k; i < j->ldq && !bad; i++)
			if (q[i] != CANARY) {
				snprintf(why, sizeof(why),
					 "row %zu: gap byte %zu written", r, i);
				bad = 1;
			}
	}
	if (!bad && !outside_untouched(j)) {
		snprintf(why, sizeof(why), "written outside the outputs");
		bad = 1;
	}
	free(qr);
	return bad;
}

/* every length 1..300 and some long rows, every kind of row */
static void random_rows(int v, const char *path)
{
	static const size_t longk[] = { 511, 1000, 4095, 4096, 4097 };
	uint64_t seed = 0x9a27 + (uint64_t)v;
	int bad = 0, n = 0;
	char first[300] = "";

	for (size_t k = 1; k <= 300 + sizeof(longk) / sizeof(longk[0]); k++) {
		size_t kk = k <= 300 ? k : longk[k - 301];

		for (int kind = 0; kind < 8; kind++) {
			struct job j;

			job_init(&j, &seed, v, 1 + amx_test_rand(&seed) % 3,
				 kk, kind);
			n++;
			if (job_check(&j) && !bad++)
				snprintf(first, sizeof(first),
					 "k %zu kind %d ldx %zu ldq %zu: %s",
					 kk, kind, j.ldx, j.ldq, why);
			job_free(&j);
		}
	}
	tap_ok(!bad, "%s %s: %d random matrices, k 1..300 and to 4097, "
	       "bit-exact against the oracle, |x - s (q - zp)| <= s/2 "
	       "(%d bad) %s", vname[v], path, n, bad, first);
}

/* more rows than the library keeps statistics for between its passes */
static void many_rows(int v, const char *path)
{
	uint64_t seed = 0x3000 + (uint64_t)v;
	struct job j;
	int bad;

	job_init(&j, &seed, v, 700, 37, 4);
	bad = job_check(&j);
	tap_ok(!bad, "%s %s: 700 rows of 37: %s", vname[v], path,
	       bad ? why : "as the oracle");
	job_free(&j);
}

/* one row of the values given, hand-computed results */
static void hand(int v, const char *path, const char *what, size_t k,
		 const float *x, const int *want, float want_s, int want_zp)
{
	uint8_t q[16];
	float xf[16], s = 0;
	uint16_t xh[16];
	int32_t zp = -1;
	int ret, ok;

	memset(q, CANARY, sizeof(q));
	for (size_t i = 0; i < k; i++) {
		xh[i] = (uint16_t)(amx_test_bits(x[i]) >> 16);
		xf[i] = x[i];
	}
	ret = qcall(v, 1, k, v & V_BF16 ? (const void *)xh : (const void *)xf,
		    k, q, k, &s, &zp);
	ok = ret == 0 && s == want_s && (!(v & V_U8) || zp == want_zp) &&
	     q[k] == CANARY;
	for (size_t i = 0; i < k; i++)
		ok &= (v & V_U8 ? q[i] : (int8_t)q[i]) == want[i];
	tap_ok(ok, "%s %s: %s (ret %d, scale %a, zp %d, q %d %d %d ...)",
	       vname[v], path, what, ret, (double)s, (int)zp,
	       v & V_U8 ? q[0] : (int8_t)q[0], v & V_U8 ? q[1] : (int8_t)q[1],
	       v & V_U8 ? q[2] : (int8_t)q[2]);
}

static void hand_rows(int v, const char *path)
{
	/* exact in bf16 too */
	static const float ties[] = { 127, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f,
				      -2.5f, 126.5f, -127, -0.0f };
	static const int ties_q[] = { 127, 0, 2, 2, 0, -2, -2, 126, -127, 0 };
	static const float uties[] = { -100, 155, 0, 0.5f, 1.5f, -0.5f,
				       -99.5f, 154.5f };
	static const int uties_q[] = { 0, 255, 100, 100, 102, 100, 0, 254 };
	/* zp odd: round(x * inv) ties to even before zp is added */
	static const float oties[] = { -101, 154, 0.5f, 1.5f, 2.5f, -0.5f,
				       -1.5f, 0 };
	static const int oties_q[] = { 0, 255, 101, 103, 103, 101, 99, 101 };
	static const float neg[] = { -3, -1, -2 }, pos[] = { 3, 1, 2 };
	static const int neg_q[] = { 0, 170, 85 }, pos_q[] = { 255, 85, 170 };
	static const float outl[] = { 0x1p100f, 1, -1 };
	static const int outl_q[] = { 127, 0, 0 };
	static const float uoutl[] = { 0x1p100f, 1, -1 };
	static const int uoutl_q[] = { 255, 0, 0 };
	static const float zero[] = { 0.0f, -0.0f, 0.0f };
	static const int zero_q[] = { 0, 0, 0 };

	if (v & V_U8) {
		hand(v, path, "range 255: scale 1, zp 100, ties to even", 8,
		     uties, uties_q, 1.0f, 100);
		hand(v, path, "range 255, zp 101: ties to even, then + zp", 8,
		     oties, oties_q, 1.0f, 101);
		hand(v, path, "negative only: zp 255, min -> 0", 3, neg,
		     neg_q, 3.0f / 255.0f, 255);
		hand(v, path, "positive only: zp 0, max -> 255", 3, pos,
		     pos_q, 3.0f / 255.0f, 0);
		hand(v, path, "one outlier 2^100: the rest at zp 0", 3, uoutl,
		     uoutl_q, 0x1p100f / 255.0f, 0);
	} else {
		hand(v, path, "amax 127: scale 1, ties to even", 10, ties,
		     ties_q, 1.0f, 0);
		hand(v, path, "one outlier 2^100: the rest 0", 3, outl, outl_q,
		     0x1p100f / 127.0f, 0);
	}
	hand(v, path, "zeros (+0, -0): scale 1, q and zp 0", 3, zero, zero_q,
	     1.0f, 0);
}

/* the ends of fp32: ranges past FLT_MAX, rows below 2^-112 */
static void extreme_rows(int v, const char *path)
{
	static const float big[] = { FLT_MAX, -FLT_MAX, 0, 1e38f, -3e38f };
	static const float tiny[] = { 0x1p-149f, -0x3p-149f, 0x1p-130f, 0 };
	static const float tiny2[] = { 0x1p-113f, -0x1p-114f, 0x1p-126f };
	const float *rows[] = { big, tiny, tiny2 };
	const size_t len[] = { 5, 4, 3 };
	int bad = 0;
	char first[300] = "";

	for (int r = 0; r < 3; r++) {
		uint64_t seed = 1;
		struct job j;

		job_init(&j, &seed, v, 1, len[r], 3);
		for (size_t i = 0; i < len[r]; i++) {
			uint32_t b = amx_test_bits(rows[r][i]);

			if (v & V_BF16) {
				uint16_t h = (uint16_t)(b >> 16);

				memcpy((uint16_t *)j.x + i, &h, 2);
				j.xf[i] = amx_test_bf2f(h);
			} else {
				memcpy((float *)j.x + i, &b, 4);
				j.xf[i] = rows[r][i];
			}
		}
		if (job_check(&j) && !bad++)
			snprintf(first, sizeof(first), "row %d: %s", r, why);
		job_free(&j);
	}
	tap_ok(!bad, "%s %s: +-FLT_MAX (range past fp32), rows below "
	       "2^-112: normal scale, the oracle's bits, the bound %s",
	       vname[v], path, first);
}

/* one error case: the value, errno, every output as it was */
static void err(int v, const char *path, const char *what, int want,
		size_t m, size_t k, const void *x, size_t ldx, void *q,
		size_t ldq, float *s, int32_t *zp, struct job *j)
{
	int ret, e;

	job_arm(j);
	errno = 4242;
	ret = qcall(v, m, k, x, ldx, q, ldq, s, zp);
	e = errno;
	tap_ok(ret == want && e == 4242 && job_untouched(j),
	       "%s %s: %s: %d (want %d)%s%s", vname[v], path, what, ret,
	       want, e == 4242 ? "" : ", errno changed",
	       job_untouched(j) ? "" : ", output written");
}

/* a value put in the source of @j at row @r, column @i */
static void poke(struct job *j, size_t r, size_t i, uint32_t bits)
{
	if (j->v & V_BF16) {
		uint16_t h = (uint16_t)(bits >> 16);

		memcpy((uint16_t *)j->x + r * j->ldx + i, &h, 2);
	} else {
		memcpy((float *)j->x + r * j->ldx + i, &bits, 4);
	}
}

static void errors(int v, const char *path)
{
	static const uint32_t bad[] = { 0x7fc00000u, 0xffc00000u, 0x7f800000u,
					0xff800000u, 0x7f810000u };
	static const char *const badname[] = { "NaN", "-NaN", "+inf", "-inf",
					       "sNaN" };
	uint64_t seed = 77;
	struct job j;
	size_t m = 3, k = 37, big = (size_t)1 << 60;
	int u8 = v & V_U8;
	int32_t *zp;
	char what[96];
	void *x;

	job_init(&j, &seed, v, m, k, 0);
	x = j.x;
	zp = j.zp;
	err(v, path, "x NULL", -EINVAL, m, k, NULL, j.ldx, j.q, j.ldq, j.s,
	    zp, &j);
	err(v, path, "q NULL", -EINVAL, m, k, x, j.ldx, NULL, j.ldq, j.s, zp,
	    &j);
	err(v, path, "scales NULL", -EINVAL, m, k, x, j.ldx, j.q, j.ldq, NULL,
	    zp, &j);
	err(v, path, "scales NULL, k 0", -EINVAL, m, 0, NULL, 0, NULL, 0,
	    NULL, zp, &j);
	if (u8) {
		err(v, path, "zero_points NULL", -EINVAL, m, k, x, j.ldx, j.q,
		    j.ldq, j.s, NULL, &j);
		err(v, path, "zero_points NULL, k 0", -EINVAL, m, 0, NULL, 0,
		    NULL, 0, j.s, NULL, &j);
	}
	err(v, path, "ldx = k - 1", -EINVAL, m, k, x, k - 1, j.q, j.ldq, j.s,
	    zp, &j);
	err(v, path, "ldq = k - 1", -EINVAL, m, k, x, j.ldx, j.q, k - 1, j.s,
	    zp, &j);
	err(v, path, "ldx = 1<<60", -EOVERFLOW, m, k, x, big, j.q, j.ldq, j.s,
	    zp, &j);
	err(v, path, "ldq = SIZE_MAX", -EOVERFLOW, m, k, x, j.ldx, j.q,
	    SIZE_MAX, j.s, zp, &j);
	err(v, path, "m = SIZE_MAX / 2", -EOVERFLOW, SIZE_MAX / 2, k, x,
	    j.ldx, j.q, j.ldq, j.s, zp, &j);
	err(v, path, "x crosses 2^47", -EOVERFLOW, m, k,
	    (void *)(uintptr_t)((1ull << 47) - 64), j.ldx, j.q, j.ldq, j.s,
	    zp, &j);
	err(v, path, "scales crosses 2^47", -EOVERFLOW, m, k, x, j.ldx, j.q,
	    j.ldq, (float *)(uintptr_t)((1ull << 47) - 8), zp, &j);
	if (u8)
		err(v, path, "zero_points a kernel address", -EOVERFLOW, m, k,
		    x, j.ldx, j.q, j.ldq, j.s,
		    (int32_t *)(uintptr_t)0xffff800000000000ull, &j);
	/* overlaps: every output against the input and the other outputs */
	err(v, path, "q overlaps x", -EINVAL, m, k, x, j.ldx,
	    (uint8_t *)x + 8, j.ldq, j.s, zp, &j);
	err(v, path, "q overlaps scales", -EINVAL, m, k, x, j.ldx, j.q, j.ldq,
	    (float *)(void *)(j.q + 4), zp, &j);
	err(v, path, "scales overlap x", -EINVAL, m, k, x, j.ldx, j.q, j.ldq,
	    (float *)x + 2, zp, &j);
	if (u8) {
		err(v, path, "zero_points overlap x", -EINVAL, m, k, x, j.ldx,
		    j.q, j.ldq, j.s, (int32_t *)x + 5, &j);
		err(v, path, "zero_points overlap scales", -EINVAL, m, k, x,
		    j.ldx, j.q, j.ldq, j.s, (int32_t *)(void *)(j.s + 2), &j);
		err(v, path, "zero_points overlap q", -EINVAL, m, k, x, j.ldx,
		    j.q, j.ldq, j.s, (int32_t *)(void *)(j.q + 12), &j);
	}
	/* a span that cannot exist is reported before the overlap */
	err(v, path, "q = x, ldx 1<<60: overflow before overlap", -EOVERFLOW,
	    m, k, x, big, x, j.ldq, j.s, zp, &j);
	/* a NaN or infinity anywhere in the window, none outside it */
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		size_t at[][2] = { { 0, 0 }, { m - 1, k - 1 }, { 1, 17 } };

		for (size_t p = 0; p < 3; p++) {
			uint32_t old = amx_test_bits(
				j.xf[at[p][0] * j.ldx + at[p][1]]);

			poke(&j, at[p][0], at[p][1], bad[b]);
			snprintf(what, sizeof(what), "%s at row %zu col %zu",
				 badname[b], at[p][0], at[p][1]);
			err(v, path, what, -EDOM, m, k, x, j.ldx, j.q, j.ldq,
			    j.s, zp, &j);
			poke(&j, at[p][0], at[p][1], old);
		}
	}
	job_free(&j);

	/* a NaN in the last of many rows: no earlier row written either */
	job_init(&j, &seed, v, 700, 40, 0);
	poke(&j, 699, 39, 0x7fc00000u);
	err(v, path, "NaN in row 699 of 700", -EDOM, j.m, j.k, j.x, j.ldx,
	    j.q, j.ldq, j.s, j.zp, &j);
	job_free(&j);
}

/* m = 0 writes nothing, k = 0 writes the scales (and zero points) only */
static void empty(int v, const char *path)
{
	uint64_t seed = 5;
	struct job j;
	int ret, ok;

	job_init(&j, &seed, v, 3, 4, 0);
	err(v, path, "m = 0, all NULL", 0, 0, 5, NULL, 0, NULL, 0, NULL, NULL,
	    &j);
	err(v, path, "m = 0, outputs given", 0, 0, 5, j.x, 5, j.q, 5, j.s,
	    j.zp, &j);
	job_arm(&j);
	ret = qcall(v, 3, 0, NULL, 0, NULL, 0, j.s, j.zp);
	ok = ret == 0;
	for (size_t i = 0; i < 3; i++)
		ok &= j.s[i] == 1.0f && (!j.zp || j.zp[i] == 0);
	for (size_t i = 0; i < j.qlen; i++)
		ok &= j.qbuf[i] == CANARY;
	ok &= ((const uint8_t *)(j.s + 3))[0] == CANARY;
	tap_ok(ok, "%s %s: k = 0: %d, scales 1%s, x and q NULL and untouched",
	       vname[v], path, ret, v & V_U8 ? ", zero points 0" : "");
	job_free(&j);
}

int main(void)
{
	static const char *const paths[] = { "default", "c" };

	printf("TAP version 13\n");
	tap_diag("AVX-512F/BW here: %d (the default path uses them then)",
		 __builtin_cpu_supports("avx512f") &&
		 __builtin_cpu_supports("avx512bw"));
	for (int p = 0; p < 2; p++) {
		const char *path = paths[p];

		if (p)
			setenv("AMX_FORCE_FALLBACK", "c", 1);
		else
			unsetenv("AMX_FORCE_FALLBACK");
		for (int v = 0; v < 4; v++) {
			random_rows(v, path);
			many_rows(v, path);
			hand_rows(v, path);
			extreme_rows(v, path);
			empty(v, path);
			errors(v, path);
		}
	}
	tap_done();
}
