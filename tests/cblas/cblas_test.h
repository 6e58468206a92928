/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libamx_cblas tests: the logical view of a
 * CBLAS operand, and capturing what a call writes to stderr.
 */
#ifndef AMX_CBLAS_TEST_H
#define AMX_CBLAS_TEST_H

#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amx_cblas.h>

#include "amx_test.h"

#define CT_FN static __attribute__((unused))

/* the values every CBLAS uses: the ABI code relinks against */
_Static_assert(CblasRowMajor == 101 && CblasColMajor == 102, "layout");
_Static_assert(CblasNoTrans == 111 && CblasTrans == 112 &&
	       CblasConjTrans == 113, "transpose");
_Static_assert(CblasRowOffset == 171 && CblasColOffset == 172 &&
	       CblasFixOffset == 173, "offset");

static uint64_t ct_rng = 0x2545f4914f6cdd1dull;

/* the tests' one generator (amx_test.h) */
CT_FN uint32_t ct_rand(void)
{
	return (uint32_t)(amx_test_rand(&ct_rng) >> 32);
}

CT_FN const char *ct_layout(int l)
{
	return l == CblasRowMajor ? "row" : "col";
}

CT_FN const char *ct_trans(int t)
{
	return t == CblasNoTrans ? "N" : t == CblasTrans ? "T" : "C";
}

/*
 * Index of op(X)(i, j) in the array of a matrix X stored with layout
 * @row, transposed when @trans, leading dimension @ld.
 */
CT_FN size_t ct_at(int row, int trans, size_t ld, size_t i, size_t j)
{
	size_t r = trans ? j : i, c = trans ? i : j;

	return row ? r * ld + c : c * ld + r;
}

/* at least 1: the smallest leading dimension a BLAS accepts */
CT_FN int ct_max1(int v)
{
	return v > 1 ? v : 1;
}

/* double -> int32, rounded to nearest and saturated */
CT_FN int32_t ct_sat(double d)
{
	d = nearbyint(d);
	return d >= 2147483647.0 ? INT32_MAX :
	       d <= -2147483648.0 ? INT32_MIN : (int32_t)d;
}

/*
 * MKL's cblas_gemm_s8u8s32 for every element of C (the @nc elements of a
 * C of leading dimension @ldc, @c after the call, @c0 before): the sum in
 * int64 of (a + oa)(b + ob), the offset of @mode from @oc, then exact
 * modulo 2^32 with alpha 1 and beta 0 or 1, else alpha and beta in double
 * rounded and saturated; nothing outside m x n changed.  1 when all
 * match, else 0 with the first difference on a diagnostic line.
 */
CT_FN int ct_check_s8u8s32(int row, int tra, int trb, int m, int n, int k,
			   const uint8_t *a, int lda, int oa,
			   const uint8_t *b, int ldb, int ob, int mode,
			   const int32_t *oc, float alpha, float beta,
			   const int32_t *c, const int32_t *c0, size_t nc,
			   int ldc)
{
	int exact = alpha == 1 && (beta == 0 || beta == 1);
	int ok = 1;

	for (size_t idx = 0; idx < nc; idx++) {
		size_t i = row ? idx / ldc : idx % ldc;
		size_t j = row ? idx % ldc : idx / ldc;
		int64_t sum = 0;
		int32_t off, want;

		if (i >= (size_t)m || j >= (size_t)n) {
			if (c[idx] != c0[idx]) {
				ok = 0;
				tap_diag("wrote padding at %zu,%zu", i, j);
			}
			continue;
		}
		for (int p = 0; p < k; p++) {
			uint8_t xa = a[ct_at(row, tra, lda, i, p)];
			uint8_t xb = b[ct_at(row, trb, ldb, p, j)];
			/* MKL: column-major A is signed, row-major B is */
			int64_t va = row ? (int64_t)xa : (int64_t)(int8_t)xa;
			int64_t vb = row ? (int64_t)(int8_t)xb : (int64_t)xb;

			sum += (va + oa) * (vb + ob);
		}
		off = oc[mode == CblasRowOffset ? j :
			 mode == CblasColOffset ? i : 0];
		if (exact) {
			uint32_t w = (uint32_t)sum + (uint32_t)off;

			if (beta == 1)
				w += (uint32_t)c0[idx];
			want = (int32_t)w;
		} else {
			double d = (double)alpha * (double)sum;

			if (beta != 0)
				d += (double)beta * c0[idx];
			want = ct_sat(d + off);
		}
		if (c[idx] != want) {
			if (ok)
				tap_diag("(%zu,%zu): got %d want %d", i, j,
					 c[idx], want);
			ok = 0;
		}
	}
	return ok;
}

/* stored rows x cols of X (its array is ld x cols or rows x ld) */
CT_FN size_t ct_elems(int row, int trans, size_t rows_op, size_t cols_op,
		      size_t ld)
{
	size_t r = trans ? cols_op : rows_op, c = trans ? rows_op : cols_op;

	return row ? (r ? (r - 1) * ld + c : 0) : (c ? (c - 1) * ld + r : 0);
}

/* stderr into a temporary file while a call runs */
struct ct_capture {
	FILE *f;
	int saved;
};

CT_FN void ct_capture_begin(struct ct_capture *cap)
{
	fflush(stderr);
	cap->f = tmpfile();
	cap->saved = dup(2);
	if (!cap->f || cap->saved < 0 || dup2(fileno(cap->f), 2) < 0) {
		perror("capture stderr");
		exit(TAP_FAIL);
	}
}

/* the captured text (static buffer) */
CT_FN const char *ct_capture_end(struct ct_capture *cap)
{
	static char buf[1024];
	size_t n;

	fflush(stderr);
	dup2(cap->saved, 2);
	close(cap->saved);
	rewind(cap->f);
	n = fread(buf, 1, sizeof(buf) - 1, cap->f);
	buf[n] = 0;
	fclose(cap->f);
	return buf;
}

/* "parameter <pos> to <fn>" in @msg */
CT_FN int ct_names(const char *msg, const char *fn, int pos)
{
	char want[128];

	snprintf(want, sizeof(want), "parameter %d to %s ", pos, fn);
	return strstr(msg, want) != NULL;
}

#endif /* AMX_CBLAS_TEST_H */
