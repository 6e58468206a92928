// SPDX-License-Identifier: MIT
/*
 * BLAS-style GEMM entry points over libamx's public API.
 *
 * Every call is first brought to one row-major form.  A column-major C is
 * the row-major C^T = op(B)^T * op(A)^T, so a column-major call is the
 * row-major call with A and B (and m and n, the transposes, the offsets)
 * swapped.  A transposed operand is copied once into a row-major scratch
 * matrix; libamx then computes the plain product and alpha, beta and the
 * int8 offsets are applied around it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amx.h>

#include "amx_cblas.h"

/* argument positions (1-based, as in the C prototypes) for messages */
struct arg_pos {
	int layout, transa, transb, m, n, k, lda, ldb, ldc;
	int a, b;		/* the operands (a packed one is checked) */
};

static const struct arg_pos bf16_pos = { 1, 2, 3, 4, 5, 6, 9, 11, 14, 8, 10 };
static const struct arg_pos s8u8_pos = { 1, 2, 3, 5, 6, 7, 10, 13, 17, 9, 12 };
#define S8U8_POS_OFFSETC 4
#define S8U8_POS_OC 18

/* the row-major problem C[m x n] = op(A)[m x k] * op(B)[k x n] */
struct rowmajor {
	size_t m, n, k;
	const void *a, *b;
	size_t lda, ldb;
	int ta, tb;		/* 1: the operand is stored transposed */
	int swapped;		/* the call was column-major */
};

/*
 * Requested once per process, so that code that has never heard of
 * amx_request() gets the AMX kernels where the kernel allows them; without
 * permission libamx runs its AVX-512 or C kernels.
 */
static pthread_once_t request_once = PTHREAD_ONCE_INIT;

static void request_amx(void)
{
	(void)amx_request();
}

static void param_error(const char *fn, int pos, const char *why)
{
	fprintf(stderr,
		"libamx_cblas: parameter %d to %s was incorrect (%s); C unchanged\n",
		pos, fn, why);
}

static void run_error(const char *fn, int err)
{
	fprintf(stderr, "libamx_cblas: %s failed: %s\n", fn, strerror(-err));
}

static int valid_trans(int t)
{
	return t == CblasNoTrans || t == CblasTrans || t == CblasConjTrans;
}

static int max1(int v)
{
	return v > 1 ? v : 1;
}

/* BLAS argument checks; 0, or the 1-based position of the first bad one */
static int check_args(const struct arg_pos *p, const char **why, int layout,
		      int transa, int transb, int m, int n, int k, int lda,
		      int ldb, int ldc)
{
	int row = layout == CblasRowMajor;
	int ta = transa != CblasNoTrans, tb = transb != CblasNoTrans;
	/* stored row count (column-major) or row length (row-major) */
	int need_a = row ? (ta ? m : k) : (ta ? k : m);
	int need_b = row ? (tb ? k : n) : (tb ? n : k);
	int need_c = row ? n : m;

	*why = "not a CBLAS_LAYOUT";
	if (layout != CblasRowMajor && layout != CblasColMajor)
		return p->layout;
	*why = "not a CBLAS_TRANSPOSE";
	if (!valid_trans(transa))
		return p->transa;
	if (!valid_trans(transb))
		return p->transb;
	*why = "negative";
	if (m < 0)
		return p->m;
	if (n < 0)
		return p->n;
	if (k < 0)
		return p->k;
	*why = "leading dimension too small";
	if (lda < max1(need_a))
		return p->lda;
	if (ldb < max1(need_b))
		return p->ldb;
	if (ldc < max1(need_c))
		return p->ldc;
	return 0;
}

static void to_rowmajor(struct rowmajor *r, int layout, int transa,
			int transb, int m, int n, int k, const void *a,
			int lda, const void *b, int ldb)
{
	int ta = transa != CblasNoTrans, tb = transb != CblasNoTrans;

	r->k = (size_t)k;
	r->swapped = layout == CblasColMajor;
	if (!r->swapped) {
		r->m = (size_t)m;
		r->n = (size_t)n;
		r->a = a;
		r->lda = (size_t)lda;
		r->ta = ta;
		r->b = b;
		r->ldb = (size_t)ldb;
		r->tb = tb;
	} else {
		r->m = (size_t)n;
		r->n = (size_t)m;
		r->a = b;
		r->lda = (size_t)ldb;
		r->ta = tb;
		r->b = a;
		r->ldb = (size_t)lda;
		r->tb = ta;
	}
}

/*
 * dst[i * ldd + j] = src[j * lds + i] for i < rows, j < cols, of @esz (1 or
 * 2) byte elements, in blocks of 256 destination rows by 16 bytes: the few
 * source rows of a block are read along, instead of one element of a new
 * source row (cache line, and from 4 KiB of leading dimension on, page) per
 * element.  A 2048 x 2048 bf16 transpose took 43 ms element by element,
 * 12 ms in 32 x 32 blocks, 5.4 ms so (4096: 159, 59, 49 ms).
 */
#define TRANSPOSE_ROWS 256
#define TRANSPOSE_BYTES 16

static void transpose(void *dst, size_t ldd, const void *src, size_t lds,
		      size_t rows, size_t cols, size_t esz)
{
	size_t bj = TRANSPOSE_BYTES / esz;

	for (size_t i0 = 0; i0 < rows; i0 += TRANSPOSE_ROWS) {
		size_t i1 = rows - i0 < TRANSPOSE_ROWS ? rows :
			    i0 + TRANSPOSE_ROWS;

		for (size_t j0 = 0; j0 < cols; j0 += bj) {
			size_t j1 = cols - j0 < bj ? cols : j0 + bj;

			for (size_t i = i0; i < i1; i++) {
				if (esz == 2) {
					uint16_t *d = (uint16_t *)dst + i * ldd;
					const uint16_t *s = src;

					for (size_t j = j0; j < j1; j++)
						d[j] = s[j * lds + i];
				} else {
					uint8_t *d = (uint8_t *)dst + i * ldd;
					const uint8_t *s = src;

					for (size_t j = j0; j < j1; j++)
						d[j] = s[j * lds + i];
				}
			}
		}
	}
}

/*
 * X as a rows x cols row-major matrix in *out: X itself when it is not
 * stored transposed, else a copy made into *buf (freed by the caller).
 * 0 or -ENOMEM.
 */
static int rows_of(const void *x, size_t ldx, int trans, size_t rows,
		   size_t cols, size_t esz, const void **out, void **buf,
		   size_t *ld)
{
	size_t bytes;

	*buf = NULL;
	*ld = ldx;
	*out = x;
	if (!trans || !rows || !cols)
		return 0;
	if (__builtin_mul_overflow(rows, cols, &bytes) ||
	    __builtin_mul_overflow(bytes, esz, &bytes))
		return -ENOMEM;
	*buf = malloc(bytes);
	if (!*buf)
		return -ENOMEM;
	/* x is stored cols x rows with leading dimension ldx */
	transpose(*buf, cols, x, ldx, rows, cols, esz);
	*ld = cols;
	*out = *buf;
	return 0;
}

static void *alloc_mn(size_t m, size_t n, size_t esz)
{
	size_t bytes;

	if (__builtin_mul_overflow(m, n, &bytes) ||
	    __builtin_mul_overflow(bytes, esz, &bytes))
		return NULL;
	return malloc(bytes ? bytes : 1);
}

/* ---- bf16 or fp16 x the same -> fp32 ---- */

/* amx_gemm_bf16() or amx_gemm_f16(): 16-bit A and B, fp32 C */
typedef int (*gemm16_fn)(unsigned int flags, size_t m, size_t n, size_t k,
			 const uint16_t *a, size_t lda, const uint16_t *b,
			 size_t ldb, float *c, size_t ldc);

/* the product of arguments that passed the checks */
static void gemm16_run(const char *fn, gemm16_fn gemm, int layout,
		       int transa, int transb, int m, int n, int k,
		       float alpha, const uint16_t *a, int lda,
		       const uint16_t *b, int ldb, float beta, float *c,
		       int ldc)
{
	void *abuf = NULL, *bbuf = NULL;
	const void *ar, *br;
	struct rowmajor r;
	size_t lda_r, ldb_r, ldc_r = (size_t)ldc;
	int ret;

	if (!m || !n)
		return;
	to_rowmajor(&r, layout, transa, transb, m, n, k, a, lda, b, ldb);

	/* C := beta * C; beta == 0 writes zeros without reading C */
	if (alpha == 0.0f || !k) {
		if (beta == 1.0f)
			return;
		for (size_t i = 0; i < r.m; i++) {
			float *ci = c + i * ldc_r;

			for (size_t j = 0; j < r.n; j++)
				ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
		}
		return;
	}

	pthread_once(&request_once, request_amx);
	ret = rows_of(r.a, r.lda, r.ta, r.m, r.k, 2, &ar, &abuf, &lda_r);
	if (!ret)
		ret = rows_of(r.b, r.ldb, r.tb, r.k, r.n, 2, &br, &bbuf,
			      &ldb_r);
	if (ret)
		goto out;

	if (alpha == 1.0f && (beta == 0.0f || beta == 1.0f)) {
		/* libamx does not read C without AMX_GEMM_ACCUMULATE */
		ret = gemm(beta == 1.0f ? AMX_GEMM_ACCUMULATE : 0, r.m, r.n,
			   r.k, ar, lda_r, br, ldb_r, c, ldc_r);
	} else {
		float *t = alloc_mn(r.m, r.n, sizeof(float));

		ret = t ? gemm(0, r.m, r.n, r.k, ar, lda_r, br, ldb_r, t, r.n) :
			  -ENOMEM;
		for (size_t i = 0; !ret && i < r.m; i++) {
			float *ci = c + i * ldc_r;
			const float *ti = t + i * r.n;

			for (size_t j = 0; j < r.n; j++)
				ci[j] = beta == 0.0f ? alpha * ti[j] :
					alpha * ti[j] + beta * ci[j];
		}
		free(t);
	}
out:
	free(abuf);
	free(bbuf);
	if (ret)
		run_error(fn, ret);
}

static void gemm16(const char *fn, gemm16_fn gemm, int layout, int transa,
		   int transb, int m, int n, int k, float alpha,
		   const uint16_t *a, int lda, const uint16_t *b, int ldb,
		   float beta, float *c, int ldc)
{
	const char *why;
	int pos;

	pos = check_args(&bf16_pos, &why, layout, transa, transb, m, n, k, lda,
			 ldb, ldc);
	if (pos) {
		param_error(fn, pos, why);
		return;
	}
	gemm16_run(fn, gemm, layout, transa, transb, m, n, k, alpha, a, lda, b,
		   ldb, beta, c, ldc);
}

AMX_CBLAS_API void
cblas_gemm_bf16bf16f32(const CBLAS_LAYOUT Layout,
		       const CBLAS_TRANSPOSE transa,
		       const CBLAS_TRANSPOSE transb, const int m, const int n,
		       const int k, const float alpha, const uint16_t *a,
		       const int lda, const uint16_t *b, const int ldb,
		       const float beta, float *c, const int ldc)
{
	gemm16("cblas_gemm_bf16bf16f32", amx_gemm_bf16, Layout, transa, transb,
	       m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

AMX_CBLAS_API void
cblas_sbgemm(const CBLAS_LAYOUT Order, const CBLAS_TRANSPOSE TransA,
	     const CBLAS_TRANSPOSE TransB, const int M, const int N,
	     const int K, const float alpha, const uint16_t *A, const int lda,
	     const uint16_t *B, const int ldb, const float beta, float *C,
	     const int ldc)
{
	gemm16("cblas_sbgemm", amx_gemm_bf16, Order, TransA, TransB, M, N, K,
	       alpha, A, lda, B, ldb, beta, C, ldc);
}

AMX_CBLAS_API void
cblas_gemm_f16f16f32(const CBLAS_LAYOUT Layout, const CBLAS_TRANSPOSE transa,
		     const CBLAS_TRANSPOSE transb, const int m, const int n,
		     const int k, const float alpha, const uint16_t *a,
		     const int lda, const uint16_t *b, const int ldb,
		     const float beta, float *c, const int ldc)
{
	gemm16("cblas_gemm_f16f16f32", amx_gemm_f16, Layout, transa, transb, m,
	       n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* ---- s8/u8 x u8/s8 -> s32 with offsets ---- */

/* double -> int32: round to nearest (even), saturate, NaN -> 0 */
static int32_t sat_i32(double d)
{
	if (isnan(d))
		return 0;
	d = nearbyint(d);
	if (d >= 2147483647.0)
		return INT32_MAX;
	if (d <= -2147483648.0)
		return INT32_MIN;
	return (int32_t)d;
}

/* alpha * s + beta * c + off in double, as documented; beta == 0: C unread */
static int32_t scale_i32(float alpha, int32_t s, float beta, int32_t c,
			 int32_t off)
{
	double d = (double)alpha * s;

	if (beta != 0.0f)
		d += (double)beta * c;
	return sat_i32(d + off);
}

/* check_args() and the offset arguments of the s8u8s32 functions */
static int s8u8_check(const char **why, int layout, int transa, int transb,
		      int offsetc, int m, int n, int k, int lda, int ldb,
		      int ldc, const int32_t *oc)
{
	int pos;

	pos = check_args(&s8u8_pos, why, layout, transa, transb, m, n, k, lda,
			 ldb, ldc);
	/* offsetc comes between transb and m */
	if ((!pos || pos > S8U8_POS_OFFSETC) && offsetc != CblasFixOffset &&
	    offsetc != CblasRowOffset && offsetc != CblasColOffset) {
		pos = S8U8_POS_OFFSETC;
		*why = "not a CBLAS_OFFSET";
	}
	if (!pos && !oc && m && n) {
		pos = S8U8_POS_OC;
		*why = "NULL";
	}
	return pos;
}

/* the product of arguments that passed s8u8_check() */
static void s8u8_run(const char *fn, int Layout, int transa, int transb,
		     int offsetc, int m, int n, int k, float alpha,
		     const void *a, int lda, int8_t oa, const void *b, int ldb,
		     int8_t ob, float beta, int32_t *c, int ldc,
		     const int32_t *oc)
{
	void *xbuf = NULL, *ybuf = NULL, *tbuf = NULL;
	uint32_t *rx = NULL, *cy = NULL;
	size_t ldx, ldy, ldc_r = (size_t)ldc;
	const void *xv = NULL, *yv = NULL;
	const uint8_t *x;	/* row-major op(X), unsigned */
	const int8_t *y;	/* row-major op(Y), signed */
	int32_t xo, yo;		/* their offsets */
	struct rowmajor r;
	int row_vec, col_vec;	/* C_offset indexed by column j / row i */
	int ret = 0, exact;
	uint32_t kxy;

	if (!m || !n)
		return;
	to_rowmajor(&r, Layout, transa, transb, m, n, k, a, lda, b, ldb);
	/* row-major: A is the unsigned operand; column-major: B (swapped) */
	xo = r.swapped ? ob : oa;
	yo = r.swapped ? oa : ob;
	row_vec = offsetc == (r.swapped ? CblasColOffset : CblasRowOffset);
	col_vec = offsetc == (r.swapped ? CblasRowOffset : CblasColOffset);
	exact = alpha == 1.0f && (beta == 0.0f || beta == 1.0f);

	if (alpha != 0.0f) {
		pthread_once(&request_once, request_amx);
		ret = rows_of(r.a, r.lda, r.ta, r.m, r.k, 1, &xv, &xbuf, &ldx);
		if (!ret)
			ret = rows_of(r.b, r.ldb, r.tb, r.k, r.n, 1, &yv, &ybuf,
				      &ldy);
		x = xv;
		y = yv;
		rx = calloc(r.m, sizeof(*rx));
		cy = calloc(r.n, sizeof(*cy));
		if (!exact)
			tbuf = alloc_mn(r.m, r.n, sizeof(int32_t));
		if (!ret && (!rx || !cy || (!exact && !tbuf)))
			ret = -ENOMEM;
		if (ret)
			goto out;
		/*
		 * (X + xo)(Y + yo) = XY + yo * rowsum(X)_i + xo * colsum(Y)_j
		 *                    + k * xo * yo, all modulo 2^32.
		 */
		for (size_t i = 0; yo && i < r.m; i++)
			for (size_t p = 0; p < r.k; p++)
				rx[i] += x[i * ldx + p];
		for (size_t p = 0; xo && p < r.k; p++)
			for (size_t j = 0; j < r.n; j++)
				cy[j] += (uint32_t)(int32_t)y[p * ldy + j];
		if (exact)
			ret = amx_gemm_u8s8(beta == 1.0f ?
					    AMX_GEMM_ACCUMULATE : 0, r.m, r.n,
					    r.k, x, ldx, y, ldy, c, ldc_r);
		else
			ret = amx_gemm_u8s8(0, r.m, r.n, r.k, x, ldx, y, ldy,
					    tbuf, r.n);
		if (ret)
			goto out;
	}

	kxy = (uint32_t)r.k * (uint32_t)xo * (uint32_t)yo;
	for (size_t i = 0; i < r.m; i++) {
		int32_t *ci = c + i * ldc_r;
		const int32_t *ti = tbuf ? (int32_t *)tbuf + i * r.n : NULL;

		for (size_t j = 0; j < r.n; j++) {
			size_t o = row_vec ? j : col_vec ? i : 0;
			uint32_t off = (uint32_t)oc[o];
			uint32_t s = 0;	/* (X+xo)(Y+yo) - XY, mod 2^32 */

			if (alpha != 0.0f)
				s = (uint32_t)yo * rx[i] +
				    (uint32_t)xo * cy[j] + kxy;
			if (exact) {
				/* C holds XY (+ C) */
				ci[j] = (int32_t)((uint32_t)ci[j] + s + off);
				continue;
			}
			if (ti)
				s += (uint32_t)ti[j];
			ci[j] = scale_i32(alpha, (int32_t)s, beta, ci[j],
					  (int32_t)off);
		}
	}
out:
	free(xbuf);
	free(ybuf);
	free(tbuf);
	free(rx);
	free(cy);
	if (ret)
		run_error(fn, ret);
}

AMX_CBLAS_API void
cblas_gemm_s8u8s32(const CBLAS_LAYOUT Layout, const CBLAS_TRANSPOSE transa,
		   const CBLAS_TRANSPOSE transb, const CBLAS_OFFSET offsetc,
		   const int m, const int n, const int k, const float alpha,
		   const void *a, const int lda, const int8_t oa,
		   const void *b, const int ldb, const int8_t ob,
		   const float beta, int32_t *c, const int ldc,
		   const int32_t *oc)
{
	static const char fn[] = "cblas_gemm_s8u8s32";
	const char *why;
	int pos;

	pos = s8u8_check(&why, Layout, transa, transb, offsetc, m, n, k, lda,
			 ldb, ldc, oc);
	if (pos) {
		param_error(fn, pos, why);
		return;
	}
	s8u8_run(fn, Layout, transa, transb, offsetc, m, n, k, alpha, a, lda,
		 oa, b, ldb, ob, beta, c, ldc, oc);
}

/* ---- MKL's packed operands: cblas_gemm_*_pack_get_size/_pack/_compute ---- */

/*
 * The packed form of op(X): a header, then op(X) stored the way the
 * call's layout stores an untransposed matrix, with the smallest leading
 * dimension (row-major: rows x cols, ld = cols; column-major: ld = rows).
 * _compute() passes it on as that untransposed operand, so that every
 * layout and transpose runs through the unpacked path above, and a
 * packed B is exactly the row-major k x n B that libamx reads in place.
 * Nothing in the buffer points anywhere: it may be copied, moved, written
 * to a file and read back (on a machine of the same byte order).
 */
#define PACKED_MAGIC "amxcblP"	/* 8 bytes with the NUL */
#define PACKED_VERSION 1u
#define PACKED_HDR 64u		/* the data start 64 bytes in */

enum packed_type {
	PACKED_BF16 = 1,
	PACKED_S8U8 = 2,
	PACKED_F16 = 3,
};

struct packed_hdr {
	char magic[8];
	uint32_t version;
	uint32_t type;		/* enum packed_type */
	int32_t layout;		/* CBLAS_LAYOUT of the pack */
	int32_t ident;		/* CBLAS_IDENTIFIER */
	int32_t rows, cols;	/* op(X): m x k (A) or k x n (B) */
	uint8_t reserved[PACKED_HDR - 32];	/* 0 */
};

_Static_assert(sizeof(struct packed_hdr) == PACKED_HDR, "packed header");

/* argument positions of cblas_gemm_*_pack_get_size() and _pack() */
#define PGS_POS_IDENT 1
#define PACK_POS_LAYOUT 1
#define PACK_POS_IDENT 2
#define PACK_POS_TRANS 3
#define PACK_POS_LD 8
#define PACK_POS_DEST 9

static size_t packed_esz(enum packed_type type)
{
	return type == PACKED_S8U8 ? 1 : 2;
}

/* op(X)'s shape for @ident; -1 for an identifier that is none */
static int packed_shape(int ident, int m, int n, int k, int *rows, int *cols)
{
	if (ident == CblasAMatrix) {
		*rows = m;
		*cols = k;
	} else if (ident == CblasBMatrix) {
		*rows = k;
		*cols = n;
	} else {
		return -1;
	}
	return 0;
}

/* 1-based position of the first bad size argument (m, n, k at 2..4 of
 * _pack_get_size(), 4..6 of _pack()), 0 if none */
static int bad_mnk(int first, int m, int n, int k)
{
	if (m < 0)
		return first;
	if (n < 0)
		return first + 1;
	if (k < 0)
		return first + 2;
	return 0;
}

static size_t pack_get_size(const char *fn, enum packed_type type,
			    int ident, int m, int n, int k)
{
	int rows, cols, pos;

	if (packed_shape(ident, m, n, k, &rows, &cols)) {
		param_error(fn, PGS_POS_IDENT, "not a CBLAS_IDENTIFIER");
		return 0;
	}
	pos = bad_mnk(PGS_POS_IDENT + 1, m, n, k);
	if (pos) {
		param_error(fn, pos, "negative");
		return 0;
	}
	/* at most 2^31 * 2^31 * 2 + 64: no overflow in a 64-bit size_t */
	return PACKED_HDR + (size_t)rows * (size_t)cols * packed_esz(type);
}

static void pack(const char *fn, enum packed_type type, int layout,
		 int ident, int trans, int m, int n, int k, const void *src,
		 int ld, void *dest)
{
	size_t esz = packed_esz(type);
	struct packed_hdr h;
	int row = layout == CblasRowMajor, tr = trans != CblasNoTrans;
	int rows = 0, cols = 0, need, pos = 0;
	size_t lines, len;
	const char *why = "";
	char *d;

	if (layout != CblasRowMajor && layout != CblasColMajor) {
		pos = PACK_POS_LAYOUT;
		why = "not a CBLAS_LAYOUT";
	} else if (packed_shape(ident, m, n, k, &rows, &cols)) {
		pos = PACK_POS_IDENT;
		why = "not a CBLAS_IDENTIFIER";
	} else if (!valid_trans(trans)) {
		pos = PACK_POS_TRANS;
		why = "not a CBLAS_TRANSPOSE";
	} else if ((pos = bad_mnk(PACK_POS_TRANS + 1, m, n, k))) {
		why = "negative";
	} else {
		/* src is stored rows x cols, or cols x rows when transposed */
		need = row ? (tr ? rows : cols) : (tr ? cols : rows);
		if (ld < max1(need)) {
			pos = PACK_POS_LD;
			why = "leading dimension too small";
		} else if (!dest) {
			pos = PACK_POS_DEST;
			why = "NULL";
		}
	}
	if (pos) {
		param_error(fn, pos, why);
		return;
	}

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PACKED_MAGIC, sizeof(h.magic));
	h.version = PACKED_VERSION;
	h.type = type;
	h.layout = layout;
	h.ident = ident;
	h.rows = rows;
	h.cols = cols;
	memcpy(dest, &h, sizeof(h));
	d = (char *)dest + PACKED_HDR;

	/*
	 * op(X) stored untransposed in the call's layout: lines of @len
	 * elements (rows when row-major, columns when column-major).  A
	 * transposed src has them as its columns.
	 */
	lines = (size_t)(row ? rows : cols);
	len = (size_t)(row ? cols : rows);
	if (tr) {
		transpose(d, len, src, (size_t)ld, lines, len, esz);
		return;
	}
	for (size_t l = 0; l < lines; l++)
		memcpy(d + l * len * esz, (const char *)src + l * (size_t)ld * esz,
		       len * esz);
}

/*
 * The data of a packed operand @p for a _compute() call: the pack must be
 * ours, of @type, for operand @ident, made with @layout for op(X) of
 * @rows x @cols.  0, or 1 with *why set.
 */
static int packed_operand(enum packed_type type, int layout, int ident,
			  int rows, int cols, const void *p, const void **data,
			  int *ld, const char **why)
{
	struct packed_hdr h;

	*why = "NULL";
	if (!p)
		return 1;
	memcpy(&h, p, sizeof(h));
	*why = "not a packed matrix of libamx_cblas";
	if (memcmp(h.magic, PACKED_MAGIC, sizeof(h.magic)) ||
	    h.version != PACKED_VERSION)
		return 1;
	*why = "packed by the other element type's _pack()";
	if (h.type != (uint32_t)type)
		return 1;
	*why = "packed as the other operand";
	if (h.ident != ident)
		return 1;
	*why = "packed with the other layout";
	if (h.layout != layout)
		return 1;
	*why = "packed for other dimensions";
	if (h.rows != rows || h.cols != cols)
		return 1;
	*data = (const char *)p + PACKED_HDR;
	*ld = max1(layout == CblasRowMajor ? cols : rows);
	return 0;
}

/*
 * The operands of a _compute() call that passed the other checks, a
 * packed one (transa/transb CblasPacked) replaced by its data, stored
 * untransposed.  The position of the bad one (a before b) goes into
 * *pos unless an earlier argument is already named there.
 */
struct compute_ops {
	int ta, tb;		/* transa, transb with CblasPacked resolved */
	int lda, ldb;
	const void *a, *b;
};

static void compute_resolve(enum packed_type type, const struct arg_pos *ap,
			    int layout, int m, int n, int k,
			    struct compute_ops *o, int *pos, const char **why)
{
	/* an earlier argument named (layout, transposes, sizes: all before
	 * a) stops here; a later one (ld, C) is replaced */
	const char *w;

	if (o->ta == CblasPacked && (!*pos || *pos > ap->a)) {
		if (packed_operand(type, layout, CblasAMatrix, m, k, o->a,
				   &o->a, &o->lda, &w)) {
			*pos = ap->a;
			*why = w;
		}
	}
	if (o->tb == CblasPacked && (!*pos || *pos > ap->b)) {
		if (packed_operand(type, layout, CblasBMatrix, k, n, o->b,
				   &o->b, &o->ldb, &w)) {
			*pos = ap->b;
			*why = w;
		}
	}
	if (o->ta == CblasPacked)
		o->ta = CblasNoTrans;
	if (o->tb == CblasPacked)
		o->tb = CblasNoTrans;
}

/*
 * transa/transb as check_args() sees them: CblasPacked passes as
 * CblasNoTrans, with a leading dimension that passes (it is ignored).
 */
static void compute_args(int transa, int transb, int lda, int ldb,
			 int *ta, int *tb, int *la, int *lb)
{
	*ta = transa == CblasPacked ? CblasNoTrans : transa;
	*tb = transb == CblasPacked ? CblasNoTrans : transb;
	*la = transa == CblasPacked ? INT32_MAX : lda;
	*lb = transb == CblasPacked ? INT32_MAX : ldb;
}

AMX_CBLAS_API size_t
cblas_gemm_bf16bf16f32_pack_get_size(const CBLAS_IDENTIFIER identifier,
				     const int m, const int n, const int k)
{
	return pack_get_size("cblas_gemm_bf16bf16f32_pack_get_size",
			     PACKED_BF16, identifier, m, n, k);
}

AMX_CBLAS_API void
cblas_gemm_bf16bf16f32_pack(const CBLAS_LAYOUT Layout,
			    const CBLAS_IDENTIFIER identifier,
			    const CBLAS_TRANSPOSE trans, const int m,
			    const int n, const int k, const uint16_t *src,
			    const int ld, uint16_t *dest)
{
	pack("cblas_gemm_bf16bf16f32_pack", PACKED_BF16, Layout, identifier,
	     trans, m, n, k, src, ld, dest);
}

static void compute16(const char *fn, enum packed_type type, gemm16_fn gemm,
		      int layout, int transa, int transb, int m, int n, int k,
		      float alpha, const uint16_t *a, int lda,
		      const uint16_t *b, int ldb, float beta, float *c,
		      int ldc)
{
	struct compute_ops o = { .ta = transa, .tb = transb, .a = a, .b = b,
				 .lda = lda, .ldb = ldb };
	int ta, tb, la, lb, pos;
	const char *why;

	compute_args(transa, transb, lda, ldb, &ta, &tb, &la, &lb);
	pos = check_args(&bf16_pos, &why, layout, ta, tb, m, n, k, la, lb,
			 ldc);
	compute_resolve(type, &bf16_pos, layout, m, n, k, &o, &pos, &why);
	if (pos) {
		param_error(fn, pos, why);
		return;
	}
	gemm16_run(fn, gemm, layout, o.ta, o.tb, m, n, k, alpha, o.a, o.lda,
		   o.b, o.ldb, beta, c, ldc);
}

AMX_CBLAS_API void
cblas_gemm_bf16bf16f32_compute(const CBLAS_LAYOUT Layout, const int transa,
			       const int transb, const int m, const int n,
			       const int k, const float alpha,
			       const uint16_t *a, const int lda,
			       const uint16_t *b, const int ldb,
			       const float beta, float *c, const int ldc)
{
	compute16("cblas_gemm_bf16bf16f32_compute", PACKED_BF16, amx_gemm_bf16,
		  Layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
		  c, ldc);
}

AMX_CBLAS_API size_t
cblas_gemm_f16f16f32_pack_get_size(const CBLAS_IDENTIFIER identifier,
				   const int m, const int n, const int k)
{
	return pack_get_size("cblas_gemm_f16f16f32_pack_get_size", PACKED_F16,
			     identifier, m, n, k);
}

AMX_CBLAS_API void
cblas_gemm_f16f16f32_pack(const CBLAS_LAYOUT Layout,
			  const CBLAS_IDENTIFIER identifier,
			  const CBLAS_TRANSPOSE trans, const int m,
			  const int n, const int k, const uint16_t *src,
			  const int ld, uint16_t *dest)
{
	pack("cblas_gemm_f16f16f32_pack", PACKED_F16, Layout, identifier,
	     trans, m, n, k, src, ld, dest);
}

AMX_CBLAS_API void
cblas_gemm_f16f16f32_compute(const CBLAS_LAYOUT Layout, const int transa,
			     const int transb, const int m, const int n,
			     const int k, const float alpha,
			     const uint16_t *a, const int lda,
			     const uint16_t *b, const int ldb,
			     const float beta, float *c, const int ldc)
{
	compute16("cblas_gemm_f16f16f32_compute", PACKED_F16, amx_gemm_f16,
		  Layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta,
		  c, ldc);
}

AMX_CBLAS_API size_t
cblas_gemm_s8u8s32_pack_get_size(const CBLAS_IDENTIFIER identifier,
				 const int m, const int n, const int k)
{
	return pack_get_size("cblas_gemm_s8u8s32_pack_get_size", PACKED_S8U8,
			     identifier, m, n, k);
}

AMX_CBLAS_API void
cblas_gemm_s8u8s32_pack(const CBLAS_LAYOUT Layout,
			const CBLAS_IDENTIFIER identifier,
			const CBLAS_TRANSPOSE trans, const int m, const int n,
			const int k, const void *src, const int ld,
			void *dest)
{
	pack("cblas_gemm_s8u8s32_pack", PACKED_S8U8, Layout, identifier,
	     trans, m, n, k, src, ld, dest);
}

AMX_CBLAS_API void
cblas_gemm_s8u8s32_compute(const CBLAS_LAYOUT Layout, const int transa,
			   const int transb, const CBLAS_OFFSET offsetc,
			   const int m, const int n, const int k,
			   const float alpha, const void *a, const int lda,
			   const int8_t oa, const void *b, const int ldb,
			   const int8_t ob, const float beta, int32_t *c,
			   const int ldc, const int32_t *oc)
{
	static const char fn[] = "cblas_gemm_s8u8s32_compute";
	struct compute_ops o = { .ta = transa, .tb = transb, .a = a, .b = b,
				 .lda = lda, .ldb = ldb };
	int ta, tb, la, lb, pos;
	const char *why;

	compute_args(transa, transb, lda, ldb, &ta, &tb, &la, &lb);
	pos = s8u8_check(&why, Layout, ta, tb, offsetc, m, n, k, la, lb, ldc,
			 oc);
	compute_resolve(PACKED_S8U8, &s8u8_pos, Layout, m, n, k, &o, &pos,
			&why);
	if (pos) {
		param_error(fn, pos, why);
		return;
	}
	s8u8_run(fn, Layout, o.ta, o.tb, offsetc, m, n, k, alpha, o.a, o.lda,
		 oa, o.b, o.ldb, ob, beta, c, ldc, oc);
}

/* ---- bf16 matrix-vector product (OpenBLAS's cblas_sbgemv) ---- */

/* argument positions of cblas_sbgemv() */
#define GEMV_POS_ORDER 1
#define GEMV_POS_TRANS 2
#define GEMV_POS_M 3
#define GEMV_POS_N 4
#define GEMV_POS_LDA 7
#define GEMV_POS_INCX 9
#define GEMV_POS_INCY 12

/* element i of a BLAS vector of @len elements at stride @inc */
static size_t vec_at(size_t i, size_t len, int inc)
{
	return inc > 0 ? i * (size_t)inc : (len - 1 - i) * (size_t)-(long)inc;
}

/*
 * The array of A read as a row-major matrix R (rows x cols, ld lda) is A
 * itself (row-major) or A^T (column-major), so op(A) x is either R x or
 * R^T x.  Both are one libamx GEMM with R in place as a row-major operand:
 * R x is C[rows x 1] = R * x (N = 1), R^T x is C[1 x cols] = x^T * R
 * (M = 1, the small-M path libamx streams B through).  A strided or
 * backwards x is gathered first; y is written directly when it is
 * contiguous and alpha = 1, beta 0 or 1, else through scratch.
 */
AMX_CBLAS_API void
cblas_sbgemv(const CBLAS_LAYOUT order, const CBLAS_TRANSPOSE trans,
	     const int m, const int n, const float alpha, const uint16_t *a,
	     const int lda, const uint16_t *x, const int incx,
	     const float beta, float *y, const int incy)
{
	static const char fn[] = "cblas_sbgemv";
	int row = order == CblasRowMajor, tr = trans != CblasNoTrans;
	const char *why = "";
	int pos = 0, ret = 0, direct, rx;
	size_t rows, cols, lenx, leny;
	uint16_t *xbuf = NULL;
	float *t = NULL, *out;
	const uint16_t *xv;

	if (order != CblasRowMajor && order != CblasColMajor) {
		pos = GEMV_POS_ORDER;
		why = "not a CBLAS_LAYOUT";
	} else if (!valid_trans(trans)) {
		pos = GEMV_POS_TRANS;
		why = "not a CBLAS_TRANSPOSE";
	} else if (m < 0 || n < 0) {
		pos = m < 0 ? GEMV_POS_M : GEMV_POS_N;
		why = "negative";
	} else if (lda < max1(row ? n : m)) {
		pos = GEMV_POS_LDA;
		why = "leading dimension too small";
	} else if (!incx || !incy) {
		pos = !incx ? GEMV_POS_INCX : GEMV_POS_INCY;
		why = "zero";
	}
	if (pos) {
		param_error(fn, pos, why);
		return;
	}
	/* BLAS: nothing at all for an empty A, even with y not empty */
	if (!m || !n)
		return;
	rows = (size_t)(row ? m : n);
	cols = (size_t)(row ? n : m);
	lenx = (size_t)(tr ? m : n);
	leny = (size_t)(tr ? n : m);
	rx = row != tr;		/* op(A) x = R x; else R^T x */

	if (alpha == 0.0f) {
		if (beta == 1.0f)
			return;
		for (size_t i = 0; i < leny; i++) {
			float *yi = y + vec_at(i, leny, incy);

			*yi = beta == 0.0f ? 0.0f : beta * *yi;
		}
		return;
	}

	pthread_once(&request_once, request_amx);
	xv = x;
	if (incx != 1) {
		xbuf = malloc(lenx * sizeof(*xbuf));
		if (!xbuf) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < lenx; i++)
			xbuf[i] = x[vec_at(i, lenx, incx)];
		xv = xbuf;
	}
	direct = incy == 1 && alpha == 1.0f && (beta == 0.0f || beta == 1.0f);
	out = y;
	if (!direct) {
		t = malloc(leny * sizeof(*t));
		if (!t) {
			ret = -ENOMEM;
			goto out;
		}
		out = t;
	}
	if (rx)
		ret = amx_gemm_bf16(direct && beta == 1.0f ?
				    AMX_GEMM_ACCUMULATE : 0, rows, 1, cols, a,
				    (size_t)lda, xv, 1, out, 1);
	else
		ret = amx_gemm_bf16(direct && beta == 1.0f ?
				    AMX_GEMM_ACCUMULATE : 0, 1, cols, rows, xv,
				    rows, a, (size_t)lda, out, cols);
	for (size_t i = 0; !ret && !direct && i < leny; i++) {
		float *yi = y + vec_at(i, leny, incy);

		*yi = beta == 0.0f ? alpha * t[i] : alpha * t[i] + beta * *yi;
	}
out:
	free(xbuf);
	free(t);
	if (ret)
		run_error(fn, ret);
}
