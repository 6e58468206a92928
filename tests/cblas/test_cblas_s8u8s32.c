// SPDX-License-Identifier: MIT
/*
 * cblas_gemm_s8u8s32() against an int64/double reference of MKL's
 * definition C := alpha*(op(A) + oa)*(op(B) + ob) + beta*C + C_offset:
 * every layout x transa x transb x offset mode (Fix, Row, Col), offsets at
 * their extremes, odd shapes, wide leading dimensions (padding untouched),
 * alpha = 1 with beta 0/1 exact modulo 2^32 (one case overflows int32),
 * other scalars rounded to nearest and saturated, and every bad argument.
 * Column-major A is int8 and B uint8; row-major A is uint8 and B int8.
 */
#include <math.h>

#include <amx.h>

#include "cblas/cblas_test.h"

static const int layouts[] = { CblasRowMajor, CblasColMajor };
static const int transes[] = { CblasNoTrans, CblasTrans, CblasConjTrans };
static const int offmodes[] = { CblasFixOffset, CblasRowOffset, CblasColOffset };

struct shape {
	int m, n, k, pad;
};

static const struct shape shapes[] = {
	{ 1, 1, 1, 0 }, { 7, 5, 3, 2 }, { 17, 33, 70, 5 }, { 33, 16, 65, 1 },
	{ 5, 4, 0, 3 },
};

struct scalars {
	float alpha, beta;
};

static const struct scalars scal[] = {
	{ 1, 0 }, { 1, 1 }, { 2, 0.5f }, { -1, 0 }, { 0, 1 }, { 0.25f, -1.5f },
	{ 0, 0 }, { 1e10f, 1 },
};

static const int8_t offs[][2] = { { 0, 0 }, { -128, 127 }, { 127, -128 },
				  { 3, -7 }, { -128, -128 } };

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NSCAL (sizeof(scal) / sizeof(scal[0]))
#define NOFFS (sizeof(offs) / sizeof(offs[0]))


static int run_case(int lay, int ta, int tb, int mode, const struct shape *s,
		    const struct scalars *sc, int8_t oa, int8_t ob)
{
	int row = lay == CblasRowMajor, m = s->m, n = s->n, k = s->k;
	int tra = ta != CblasNoTrans, trb = tb != CblasNoTrans;
	int lda = ct_max1(row ? (tra ? m : k) : (tra ? k : m)) + s->pad;
	int ldb = ct_max1(row ? (trb ? k : n) : (trb ? n : k)) + s->pad;
	int ldc = ct_max1(row ? n : m) + s->pad;
	size_t na = ct_elems(row, tra, m, k, lda) + 1;
	size_t nb = ct_elems(row, trb, k, n, ldb) + 1;
	size_t nc = (size_t)ldc * (row ? ct_max1(m) : ct_max1(n));
	size_t noc = mode == CblasRowOffset ? ct_max1(n) :
		     mode == CblasColOffset ? ct_max1(m) : 1;
	uint8_t *a = malloc(na), *b = malloc(nb);
	int32_t *c = malloc(nc * 4), *c0 = malloc(nc * 4), *oc = malloc(noc * 4);
	int ok = 1;

	if (!a || !b || !c || !c0 || !oc)
		exit(TAP_FAIL);
	for (size_t i = 0; i < na; i++)
		a[i] = (uint8_t)ct_rand();
	for (size_t i = 0; i < nb; i++)
		b[i] = (uint8_t)ct_rand();
	for (size_t i = 0; i < nc; i++)
		c0[i] = (int32_t)ct_rand() >> 8;
	for (size_t i = 0; i < noc; i++)
		oc[i] = (int32_t)(ct_rand() % 20001) - 10000;
	memcpy(c, c0, nc * 4);

	cblas_gemm_s8u8s32(lay, ta, tb, mode, m, n, k, sc->alpha, a, lda, oa,
			   b, ldb, ob, sc->beta, c, ldc, oc);

	ok = ct_check_s8u8s32(row, tra, trb, m, n, k, a, lda, oa, b, ldb, ob,
			      mode, oc, sc->alpha, sc->beta, c, c0, nc, ldc);
	tap_ok(ok, "%s %s%s %s m=%d n=%d k=%d pad=%d alpha=%g beta=%g "
	       "oa=%d ob=%d", ct_layout(lay), ct_trans(ta), ct_trans(tb),
	       mode == CblasFixOffset ? "fix" :
	       mode == CblasRowOffset ? "row" : "col", m, n, k, s->pad,
	       sc->alpha, sc->beta, oa, ob);
	free(a);
	free(b);
	free(c);
	free(c0);
	free(oc);
	return ok;
}

static void bad(int pos, int lay, int ta, int tb, int mode, int m, int n,
		int k, int lda, int ldb, int ldc, const int32_t *oc)
{
	static const char fn[] = "cblas_gemm_s8u8s32";
	uint8_t a[64] = { 1 }, b[64] = { 2 };
	int32_t c[64], c0[64];
	struct ct_capture cap;
	const char *msg;

	for (int i = 0; i < 64; i++)
		c0[i] = c[i] = i * 7 - 100;
	ct_capture_begin(&cap);
	cblas_gemm_s8u8s32(lay, ta, tb, mode, m, n, k, 1, a, lda, 1, b, ldb,
			   1, 0, c, ldc, oc);
	msg = ct_capture_end(&cap);
	if (!tap_ok(ct_names(msg, fn, pos) && !memcmp(c, c0, sizeof(c)),
		    "%s: bad parameter %d reported, C untouched", fn, pos))
		tap_diag("stderr: %s", msg);
}

int main(void)
{
	const int R = CblasRowMajor, C = CblasColMajor, N = CblasNoTrans;
	const int F = CblasFixOffset;
	const int32_t oc0[8] = { 0 };
	size_t combo = 0;

	alarm(50);
	printf("TAP version 13\n");
	for (size_t l = 0; l < 2; l++)
		for (size_t ia = 0; ia < 3; ia++)
			for (size_t ib = 0; ib < 3; ib++)
				for (size_t o = 0; o < 3; o++, combo++)
					for (size_t s = 0; s < NSHAPES; s++) {
						size_t t = combo * NSHAPES + s;

						run_case(layouts[l], transes[ia],
							 transes[ib], offmodes[o],
							 &shapes[s],
							 &scal[t % NSCAL],
							 offs[t % NOFFS][0],
							 offs[t % NOFFS][1]);
					}
	/* int32 overflow: exact modulo 2^32, both layouts, all offset modes */
	for (size_t l = 0; l < 2; l++)
		for (size_t o = 0; o < 3; o++) {
			static const struct shape big = { 2, 3, 70000, 0 };

			run_case(layouts[l], CblasNoTrans, CblasTrans,
				 offmodes[o], &big, &scal[o & 1], -128, 127);
		}
	tap_diag("backend for int8 after the calls: %d (1 AMX, 2 AVX-512, 3 C)",
		 amx_gemm_backend(AMX_GEMM_S8));

	bad(1, 0, N, N, F, 2, 2, 2, 2, 2, 2, oc0);
	bad(2, R, 0, N, F, 2, 2, 2, 2, 2, 2, oc0);
	bad(3, R, N, 114, F, 2, 2, 2, 2, 2, 2, oc0);
	bad(4, R, N, N, 170, 2, 2, 2, 2, 2, 2, oc0);
	bad(5, R, N, N, F, -1, 2, 2, 2, 2, 2, oc0);
	bad(6, R, N, N, F, 2, -1, 2, 2, 2, 2, oc0);
	bad(7, R, N, N, F, 2, 2, -1, 2, 2, 2, oc0);
	bad(10, R, N, N, F, 2, 3, 4, 3, 3, 3, oc0);	/* lda < k */
	bad(10, C, N, N, F, 4, 3, 2, 3, 2, 4, oc0);	/* lda < m */
	bad(13, R, N, N, F, 2, 3, 4, 4, 2, 3, oc0);	/* ldb < n */
	bad(13, C, N, N, F, 2, 3, 4, 2, 3, 2, oc0);	/* ldb < k */
	bad(17, R, N, N, F, 2, 3, 4, 4, 3, 2, oc0);	/* ldc < n */
	bad(17, C, N, N, F, 3, 2, 4, 3, 4, 2, oc0);	/* ldc < m */
	bad(18, R, N, N, CblasRowOffset, 2, 3, 4, 4, 3, 3, NULL);
	/* offsetc (4) is checked before m (5) */
	bad(4, R, N, N, 0, -1, 2, 2, 2, 2, 2, oc0);
	tap_done();
}
