// SPDX-License-Identifier: MIT
/*
 * cblas_sbgemv() (OpenBLAS's bf16 GEMV) against a double reference of
 * y := alpha * op(A) * x + beta * y: both layouts, NoTrans/Trans/ConjTrans,
 * the M = 1 and N = 1 shapes and odd ones, a leading dimension wider than
 * A, positive, strided and negative incx and incy (BLAS: a negative one
 * runs the vector from its far end), alpha/beta sets with beta = 0 over
 * NaN, m or n = 0 (nothing written, as in BLAS), every element of y's
 * array between the vector's elements untouched, and every bad argument.
 */
#include <math.h>

#include <amx.h>

#include "cblas/cblas_test.h"

static const int layouts[] = { CblasRowMajor, CblasColMajor };
static const int transes[] = { CblasNoTrans, CblasTrans, CblasConjTrans };
static const int incs_x[] = { 1, 2, -1, -3 };
static const int incs_y[] = { 1, 3, -2 };

struct shape {
	int m, n, pad;
};

static const struct shape shapes[] = {
	{ 1, 1, 0 }, { 7, 5, 2 }, { 33, 17, 3 }, { 1, 40, 1 }, { 40, 1, 0 },
	{ 65, 64, 0 }, { 0, 3, 1 }, { 3, 0, 1 },
};

struct scalars {
	float alpha, beta;
	int nan_y;
};

static const struct scalars scal[] = {
	{ 1, 0, 1 }, { 1, 1, 0 }, { -0.5f, 2, 0 }, { 2, 0, 1 },
	{ 0, 0, 1 }, { 0, 3, 0 }, { 1.5f, 1, 0 }, { 0, 1, 0 },
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NSCAL (sizeof(scal) / sizeof(scal[0]))

static int max1(int v)
{
	return v > 1 ? v : 1;
}

static void fill_bf16(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = amx_test_f2bf((float)((int)(ct_rand() % 257) - 128) /
				     64.0f);
}

/* BLAS: element i of a vector of len elements at stride inc */
static size_t at(size_t i, size_t len, int inc)
{
	return inc > 0 ? i * (size_t)inc : (len - 1 - i) * (size_t)-inc;
}

static int run_case(int lay, int trans, const struct shape *s, int incx,
		    int incy, const struct scalars *sc)
{
	int row = lay == CblasRowMajor, m = s->m, n = s->n;
	int tr = trans != CblasNoTrans;
	int lda = max1(row ? n : m) + s->pad;
	size_t lenx = tr ? m : n, leny = tr ? n : m;
	size_t na = (size_t)lda * (row ? max1(m) : max1(n));
	size_t nx = lenx ? (lenx - 1) * abs(incx) + 1 : 1;
	size_t ny = leny ? (leny - 1) * abs(incy) + 1 : 1;
	uint16_t *a = malloc(na * 2), *x = malloc(nx * 2);
	float *y = malloc(ny * 4), *y0 = malloc(ny * 4);
	int ok = 1;

	if (!a || !x || !y || !y0)
		exit(TAP_FAIL);
	fill_bf16(a, na);
	fill_bf16(x, nx);
	for (size_t i = 0; i < ny; i++)
		y0[i] = sc->nan_y ? NAN :
			(float)((int)(ct_rand() % 4096) - 2048) / 512.0f;
	/* between the vector's elements: never NaN, must stay as it is */
	for (size_t i = 0; i < ny; i++)
		if (incy != 1 && i % abs(incy))
			y0[i] = -7.25f;
	memcpy(y, y0, ny * 4);

	cblas_sbgemv(lay, trans, m, n, sc->alpha, a, lda, x, incx, sc->beta, y,
		     incy);

	for (size_t i = 0; i < leny && m && n; i++) {
		size_t iy = at(i, leny, incy);
		double dot = 0, adot = 0, ref, tol;

		for (size_t j = 0; j < lenx; j++) {
			/* op(A)(i, j): A(i, j), or A(j, i) when transposed */
			size_t r = tr ? j : i, c = tr ? i : j;
			size_t ia = row ? r * lda + c : c * lda + r;
			double va = amx_bf16_to_fp32(a[ia]);
			double vx = amx_bf16_to_fp32(x[at(j, lenx, incx)]);

			dot += va * vx;
			adot += fabs(va * vx);
		}
		ref = sc->alpha * dot;
		tol = fabs(sc->alpha) * adot;
		if (sc->beta != 0) {
			ref += (double)sc->beta * y0[iy];
			tol += fabs(sc->beta * y0[iy]);
		}
		tol = 1e-30 + 4 * 0x1p-24 * tol;
		if (!(fabs(y[iy] - ref) <= tol)) {
			if (ok)
				tap_diag("y[%zu]: got %g want %g", i, y[iy],
					 ref);
			ok = 0;
		}
		y[iy] = y0[iy];	/* checked: the rest must be untouched */
	}
	if (memcmp(y, y0, ny * 4)) {
		tap_diag("wrote outside the vector (or into y with m or n 0)");
		ok = 0;
	}
	tap_ok(ok, "cblas_sbgemv %s %s m=%d n=%d pad=%d incx=%d incy=%d "
	       "alpha=%g beta=%g%s", ct_layout(lay), ct_trans(trans), m, n,
	       s->pad, incx, incy, sc->alpha, sc->beta,
	       sc->nan_y ? " y=NaN" : "");
	free(a);
	free(x);
	free(y);
	free(y0);
	return ok;
}

static void bad(int pos, int lay, int trans, int m, int n, int lda, int incx,
		int incy)
{
	static const char fn[] = "cblas_sbgemv";
	uint16_t a[64], x[64];
	float y[64], y0[64];
	struct ct_capture cap;
	const char *msg;

	fill_bf16(a, 64);
	fill_bf16(x, 64);
	for (int i = 0; i < 64; i++)
		y0[i] = y[i] = (float)i + 0.5f;
	ct_capture_begin(&cap);
	cblas_sbgemv(lay, trans, m, n, 1, a, lda, x, incx, 0, y, incy);
	msg = ct_capture_end(&cap);
	if (!tap_ok(ct_names(msg, fn, pos) && !memcmp(y, y0, sizeof(y)),
		    "%s: bad parameter %d reported, y untouched", fn, pos))
		tap_diag("stderr: %s", msg);
}

int main(void)
{
	const int R = CblasRowMajor, C = CblasColMajor, N = CblasNoTrans;
	size_t t = 0;

	alarm(100);
	printf("TAP version 13\n");
	for (size_t l = 0; l < 2; l++)
		for (size_t tr = 0; tr < 3; tr++)
			for (size_t s = 0; s < NSHAPES; s++)
				for (size_t ix = 0; ix < 4; ix++)
					for (size_t iy = 0; iy < 3; iy++, t++)
						run_case(layouts[l], transes[tr],
							 &shapes[s], incs_x[ix],
							 incs_y[iy],
							 &scal[t % NSCAL]);
	tap_diag("backend for bf16 after the calls: %d (1 AMX, 2 AVX-512, 3 C)",
		 amx_gemm_backend(AMX_GEMM_BF16));

	bad(1, 0, N, 2, 2, 2, 1, 1);
	bad(2, R, 114, 2, 2, 2, 1, 1);
	bad(3, R, N, -1, 2, 2, 1, 1);
	bad(4, C, N, 2, -1, 2, 1, 1);
	bad(7, R, N, 2, 3, 2, 1, 1);	/* lda < n */
	bad(7, C, N, 3, 2, 2, 1, 1);	/* lda < m */
	bad(7, R, N, 0, 0, 0, 1, 1);	/* lda < 1 */
	bad(9, R, N, 2, 2, 2, 0, 1);
	bad(12, R, CblasTrans, 2, 2, 2, 1, 0);
	bad(3, R, N, -1, -1, 0, 0, 0);	/* the first bad one is named */
	tap_done();
}
