// SPDX-License-Identifier: MIT
/*
 * cblas_gemm_bf16bf16f32(), cblas_sbgemm() and cblas_gemm_f16f16f32()
 * (fp16 A and B) against a double reference:
 * every layout x transa x transb, odd shapes, leading dimensions wider
 * than the matrices (the padding must stay untouched), alpha/beta sets
 * including beta = 0 over a NaN-filled C, k = 0, m or n = 0, and every bad
 * argument (a message naming the function and position; C untouched).
 */
#include <math.h>

#include <amx.h>

#include "cblas/cblas_test.h"

static const int layouts[] = { CblasRowMajor, CblasColMajor };
static const int transes[] = { CblasNoTrans, CblasTrans, CblasConjTrans };

struct shape {
	int m, n, k, pad;
};

static const struct shape shapes[] = {
	{ 1, 1, 1, 0 }, { 7, 5, 3, 2 }, { 17, 33, 40, 5 }, { 33, 16, 65, 1 },
	{ 40, 47, 32, 0 }, { 5, 4, 0, 3 }, { 0, 3, 4, 1 }, { 3, 0, 4, 1 },
};

struct scalars {
	float alpha, beta;
	int nan_c;	/* fill C with NaN (only where beta == 0) */
};

static const struct scalars scal[] = {
	{ 1, 0, 1 }, { 1, 1, 0 }, { -0.5f, 2, 0 }, { 2, 0, 1 },
	{ 0, 0, 1 }, { 0, 3, 0 }, { 1.5f, 1, 0 }, { 1, -1, 0 },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NSCAL (sizeof(scal) / sizeof(scal[0]))

static int max1(int v)
{
	return v > 1 ? v : 1;
}

/* the names under test; the last takes fp16 */
enum { MKL_BF16, SBGEMM, MKL_F16, NNAMES };

static const char *const names[] = {
	"cblas_gemm_bf16bf16f32", "cblas_sbgemm", "cblas_gemm_f16f16f32",
};

/* k/64, |k| <= 128: exact in bf16 and fp16, products and sums in fp32 */
static void fill(int which, uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float f = (float)((int)(ct_rand() % 257) - 128) / 64.0f;

		p[i] = which == MKL_F16 ? amx_fp32_to_fp16(f) :
					  amx_test_f2bf(f);
	}
}

static double value(int which, uint16_t h)
{
	return which == MKL_F16 ? amx_fp16_to_fp32(h) : amx_bf16_to_fp32(h);
}

static void call(int which, int lay, int ta, int tb, int m, int n, int k,
		 float alpha, const uint16_t *a, int lda, const uint16_t *b,
		 int ldb, float beta, float *c, int ldc)
{
	if (which == SBGEMM)
		cblas_sbgemm(lay, ta, tb, m, n, k, alpha, (const bfloat16 *)a,
			     lda, (const bfloat16 *)b, ldb, beta, c, ldc);
	else if (which == MKL_F16)
		cblas_gemm_f16f16f32(lay, ta, tb, m, n, k, alpha, a, lda, b,
				     ldb, beta, c, ldc);
	else
		cblas_gemm_bf16bf16f32(lay, ta, tb, m, n, k, alpha, a, lda, b,
				       ldb, beta, c, ldc);
}

static int run_case(int which, int lay, int ta, int tb, const struct shape *s,
		    const struct scalars *sc)
{
	const char *fn = names[which];
	int row = lay == CblasRowMajor, m = s->m, n = s->n, k = s->k;
	int tra = ta != CblasNoTrans, trb = tb != CblasNoTrans;
	int lda = max1(row ? (tra ? m : k) : (tra ? k : m)) + s->pad;
	int ldb = max1(row ? (trb ? k : n) : (trb ? n : k)) + s->pad;
	int ldc = max1(row ? n : m) + s->pad;
	size_t na = ct_elems(row, tra, m, k, lda) + 1;
	size_t nb = ct_elems(row, trb, k, n, ldb) + 1;
	size_t nc = (size_t)ldc * (row ? max1(m) : max1(n));
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2);
	float *c = malloc(nc * 4), *c0 = malloc(nc * 4);
	double worst = 0;
	int ok = 1, inwin;

	if (!a || !b || !c || !c0)
		exit(TAP_FAIL);
	fill(which, a, na);
	fill(which, b, nb);
	for (size_t i = 0; i < nc; i++)
		c0[i] = sc->nan_c ? NAN :
			(float)((int)(ct_rand() % 4096) - 2048) / 512.0f;
	memcpy(c, c0, nc * 4);

	call(which, lay, ta, tb, m, n, k, sc->alpha, a, lda, b, ldb, sc->beta,
	     c, ldc);

	/* every element of C's array: window against the reference,
	 * padding bit-for-bit unchanged */
	for (size_t idx = 0; idx < nc; idx++) {
		size_t i = row ? idx / ldc : idx % ldc;
		size_t j = row ? idx % ldc : idx / ldc;
		double dot = 0, adot = 0, ref, tol;

		inwin = i < (size_t)m && j < (size_t)n;
		if (!inwin) {
			if (memcmp(&c[idx], &c0[idx], 4)) {
				ok = 0;
				tap_diag("%s wrote padding at %zu,%zu", fn, i, j);
			}
			continue;
		}
		for (int p = 0; p < k; p++) {
			size_t ia = ct_at(row, tra, lda, i, p);
			size_t ib = ct_at(row, trb, ldb, p, j);
			double x = value(which, a[ia]);
			double y = value(which, b[ib]);

			dot += x * y;
			adot += fabs(x * y);
		}
		ref = sc->alpha * dot;
		tol = fabs(sc->alpha) * adot;
		if (sc->beta != 0) {
			ref += (double)sc->beta * c0[idx];
			tol += fabs(sc->beta * c0[idx]);
		}
		/* two fp32 roundings; the products and sums are exact */
		tol = 1e-30 + 4 * 0x1p-24 * tol;
		if (!(fabs(c[idx] - ref) <= tol)) {
			if (ok)
				tap_diag("%s (%zu,%zu): got %g want %g", fn, i,
					 j, c[idx], ref);
			ok = 0;
		}
		if (fabs(c[idx] - ref) > worst)
			worst = fabs(c[idx] - ref);
	}
	tap_ok(ok, "%s %s %s%s m=%d n=%d k=%d pad=%d alpha=%g beta=%g%s "
	       "(max err %g)", fn, ct_layout(lay), ct_trans(ta), ct_trans(tb),
	       m, n, k, s->pad,
	       sc->alpha, sc->beta, sc->nan_c ? " C=NaN" : "", worst);
	free(a);
	free(b);
	free(c);
	free(c0);
	return ok;
}

/* one bad argument: message names fn and pos, C untouched */
static void bad(int which, int pos, int lay, int ta, int tb, int m, int n,
		int k, int lda, int ldb, int ldc)
{
	const char *fn = names[which];
	uint16_t a[64], b[64];
	float c[64], c0[64];
	struct ct_capture cap;
	const char *msg;

	fill(which, a, 64);
	fill(which, b, 64);
	for (int i = 0; i < 64; i++)
		c0[i] = c[i] = (float)i + 0.5f;
	ct_capture_begin(&cap);
	call(which, lay, ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c, ldc);
	msg = ct_capture_end(&cap);
	if (!tap_ok(ct_names(msg, fn, pos) && !memcmp(c, c0, sizeof(c)),
		    "%s: bad parameter %d reported, C untouched", fn, pos))
		tap_diag("stderr: %s", msg);
}

int main(void)
{
	const int R = CblasRowMajor, C = CblasColMajor, N = CblasNoTrans;
	size_t combo = 0;

	alarm(50);
	printf("TAP version 13\n");
	for (size_t l = 0; l < 2; l++)
		for (size_t ia = 0; ia < 3; ia++)
			for (size_t ib = 0; ib < 3; ib++, combo++) {
				for (size_t s = 0; s < NSHAPES; s++) {
					size_t t = combo * NSHAPES + s;
					const struct scalars *sc =
						&scal[t % NSCAL];

					run_case((combo + s) % NNAMES, layouts[l],
						 transes[ia], transes[ib],
						 &shapes[s], sc);
				}
				/* beta = 0 never reads C, through every name */
				run_case(MKL_BF16, layouts[l], transes[ia],
					 transes[ib], &shapes[2], &scal[0]);
				run_case(SBGEMM, layouts[l], transes[ia],
					 transes[ib], &shapes[3], &scal[3]);
				run_case(MKL_F16, layouts[l], transes[ia],
					 transes[ib], &shapes[2], &scal[3]);
			}
	tap_diag("backends after the calls: bf16 %d, fp16 %d (1 AMX, 2 AVX-512, 3 C)",
		 amx_gemm_backend(AMX_GEMM_BF16), amx_gemm_backend(AMX_GEMM_F16));

	for (int sb = 0; sb < NNAMES; sb++) {
		bad(sb, 1, 0, N, N, 2, 2, 2, 2, 2, 2);
		bad(sb, 2, R, 0, N, 2, 2, 2, 2, 2, 2);
		bad(sb, 3, R, N, 114, 2, 2, 2, 2, 2, 2);
		bad(sb, 4, R, N, N, -1, 2, 2, 2, 2, 2);
		bad(sb, 5, R, N, N, 2, -1, 2, 2, 2, 2);
		bad(sb, 6, R, N, N, 2, 2, -1, 2, 2, 2);
		bad(sb, 9, R, N, N, 2, 3, 4, 3, 3, 3);	/* lda < k */
		bad(sb, 9, C, N, N, 4, 3, 2, 3, 2, 4);	/* lda < m */
		bad(sb, 9, R, CblasTrans, N, 4, 3, 2, 3, 3, 3); /* lda < m */
		bad(sb, 11, R, N, N, 2, 3, 4, 4, 2, 3);	/* ldb < n */
		bad(sb, 11, C, N, CblasTrans, 2, 3, 4, 2, 2, 2); /* ldb < n */
		bad(sb, 14, R, N, N, 2, 3, 4, 4, 3, 2);	/* ldc < n */
		bad(sb, 14, C, N, N, 3, 2, 4, 3, 4, 2);	/* ldc < m */
		bad(sb, 9, R, N, N, 0, 0, 0, 0, 1, 1);	/* lda < 1 */
		/* the first bad one is named */
		bad(sb, 4, R, N, N, -1, -1, 2, 0, 0, 0);
	}
	tap_done();
}
