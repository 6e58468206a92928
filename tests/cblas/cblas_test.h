/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libamx_cblas tests: the logical view of a
 * CBLAS operand, and capturing what a call writes to stderr.
 */
#ifndef AMX_CBLAS_TEST_H
#define AMX_CBLAS_TEST_H

#define _GNU_SOURCE
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
