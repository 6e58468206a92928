// SPDX-License-Identifier: MIT
/*
 * MKL's packed GEMM of libamx_cblas: cblas_gemm_bf16bf16f32_pack_get_size/
 * _pack/_compute and the f16f16f32 and s8u8s32 trios, against a double/int64 reference of
 * the unpacked definition.  Every layout x op(A) x op(B) where each operand
 * is plain (N, T) or packed (CblasPacked, packed from N or from T), odd
 * shapes, wide leading dimensions (padding of C untouched), alpha/beta sets
 * with beta = 0 over NaN, the int8 offsets in every mode.  Every packed
 * buffer is copied to another address (2 bytes off) and the original
 * overwritten before _compute(): the packed form must be self-contained.
 * Bad arguments: a message naming the function and position, and nothing
 * written (dest of _pack(), C of _compute()).
 */
#include <math.h>

#include <amx.h>

#include "cblas/cblas_test.h"

_Static_assert(CblasPacked == 151, "CBLAS_STORAGE");
_Static_assert(CblasAMatrix == 161 && CblasBMatrix == 162, "CBLAS_IDENTIFIER");

static const int layouts[] = { CblasRowMajor, CblasColMajor };
static const int offmodes[] = { CblasFixOffset, CblasRowOffset, CblasColOffset };

/* how an operand reaches _compute() */
enum opmode { PLAIN_N, PLAIN_T, PACKED_N, PACKED_T, NMODES };

static const char *const modename[] = { "N", "T", "P(N)", "P(T)" };

struct shape {
	int m, n, k, pad;
};

static const struct shape shapes[] = {
	{ 1, 1, 1, 0 }, { 7, 5, 3, 2 }, { 17, 33, 40, 5 }, { 33, 16, 65, 1 },
	{ 5, 4, 0, 3 }, { 0, 3, 4, 1 }, { 3, 0, 4, 1 },
	{ 300, 20, 270, 1 },	/* transposes of more than 256 rows */
};

struct scalars {
	float alpha, beta;
	int nan_c;
};

static const struct scalars scal[] = {
	{ 1, 0, 1 }, { 1, 1, 0 }, { -0.5f, 2, 0 }, { 2, 0, 1 },
	{ 0, 3, 0 }, { 1.5f, 1, 0 }, { 0.25f, -1.5f, 0 },
};

static const int8_t offs[][2] = { { 0, 0 }, { -128, 127 }, { 3, -7 } };

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))
#define NSCAL (sizeof(scal) / sizeof(scal[0]))
#define NOFFS (sizeof(offs) / sizeof(offs[0]))


/* the element types, each with its trio */
enum type { T_BF16, T_S8, T_F16, NTYPES };

static const char *const tname[] = { "bf16bf16f32", "s8u8s32", "f16f16f32" };

/* k/64, |k| <= 128: exact in bf16 and fp16, products and sums in fp32 */
static void fill16(int f16, uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float f = (float)((int)(ct_rand() % 257) - 128) / 64.0f;

		p[i] = f16 ? amx_fp32_to_fp16(f) : amx_test_f2bf(f);
	}
}

static size_t get_size(enum type t, int ident, int m, int n, int k)
{
	return t == T_S8 ? cblas_gemm_s8u8s32_pack_get_size(ident, m, n, k) :
	       t == T_F16 ? cblas_gemm_f16f16f32_pack_get_size(ident, m, n, k) :
	       cblas_gemm_bf16bf16f32_pack_get_size(ident, m, n, k);
}

static void do_pack(enum type t, int lay, int ident, int trans, int m, int n,
		    int k, const void *src, int ld, void *dest)
{
	if (t == T_S8)
		cblas_gemm_s8u8s32_pack(lay, ident, trans, m, n, k, src, ld,
					dest);
	else if (t == T_F16)
		cblas_gemm_f16f16f32_pack(lay, ident, trans, m, n, k, src, ld,
					  dest);
	else
		cblas_gemm_bf16bf16f32_pack(lay, ident, trans, m, n, k, src,
					    ld, dest);
}

/*
 * An operand as _compute() gets it.  For a packed one: pack it, copy the
 * packed bytes 2 bytes into a fresh allocation, scribble over the
 * original and free it; *arg is the copy, *trans CblasPacked and *ld 0
 * (ignored).  *keep is what to free afterwards.
 */
static int operand(enum type t, int lay, int ident, enum opmode mode, int m,
		   int n, int k, const void *x, int ldx, const void **arg,
		   int *trans, int *ld, void **keep)
{
	int tr = mode == PLAIN_T || mode == PACKED_T ? CblasTrans :
		 CblasNoTrans;
	size_t size;
	char *p, *copy;

	*keep = NULL;
	*arg = x;
	*trans = tr;
	*ld = ldx;
	if (mode == PLAIN_N || mode == PLAIN_T)
		return 1;
	size = get_size(t, ident, m, n, k);
	p = malloc(size + 1);
	copy = malloc(size + 2);
	if (!p || !copy)
		exit(TAP_FAIL);
	do_pack(t, lay, ident, tr, m, n, k, x, ldx, p);
	memcpy(copy + 2, p, size);
	memset(p, 0x5a, size);
	free(p);
	*keep = copy;
	*arg = copy + 2;
	*trans = CblasPacked;
	*ld = 0;
	return 1;
}

/* bf16, or fp16 when f16 */
static int run16(int f16, int lay, enum opmode ma, enum opmode mb,
		 const struct shape *s, const struct scalars *sc)
{
	const char *fn = f16 ? "cblas_gemm_f16f16f32_compute" :
			       "cblas_gemm_bf16bf16f32_compute";
	enum type t = f16 ? T_F16 : T_BF16;
	int row = lay == CblasRowMajor, m = s->m, n = s->n, k = s->k;
	int tra = ma == PLAIN_T || ma == PACKED_T;
	int trb = mb == PLAIN_T || mb == PACKED_T;
	int lda = ct_max1(row ? (tra ? m : k) : (tra ? k : m)) + s->pad;
	int ldb = ct_max1(row ? (trb ? k : n) : (trb ? n : k)) + s->pad;
	int ldc = ct_max1(row ? n : m) + s->pad;
	size_t na = ct_elems(row, tra, m, k, lda) + 1;
	size_t nb = ct_elems(row, trb, k, n, ldb) + 1;
	size_t nc = (size_t)ldc * (row ? ct_max1(m) : ct_max1(n));
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2);
	float *c = malloc(nc * 4), *c0 = malloc(nc * 4);
	const void *aa, *bb;
	void *ka, *kb;
	int ta, tb, la, lb, ok = 1;

	if (!a || !b || !c || !c0)
		exit(TAP_FAIL);
	fill16(f16, a, na);
	fill16(f16, b, nb);
	for (size_t i = 0; i < nc; i++)
		c0[i] = sc->nan_c ? NAN :
			(float)((int)(ct_rand() % 4096) - 2048) / 512.0f;
	memcpy(c, c0, nc * 4);
	operand(t, lay, CblasAMatrix, ma, m, n, k, a, lda, &aa, &ta, &la, &ka);
	operand(t, lay, CblasBMatrix, mb, m, n, k, b, ldb, &bb, &tb, &lb, &kb);
	if (f16)
		cblas_gemm_f16f16f32_compute(lay, ta, tb, m, n, k, sc->alpha,
					     aa, la, bb, lb, sc->beta, c, ldc);
	else
		cblas_gemm_bf16bf16f32_compute(lay, ta, tb, m, n, k, sc->alpha,
					       aa, la, bb, lb, sc->beta, c,
					       ldc);

	for (size_t idx = 0; idx < nc; idx++) {
		size_t i = row ? idx / ldc : idx % ldc;
		size_t j = row ? idx % ldc : idx / ldc;
		double dot = 0, adot = 0, ref, tol;

		if (i >= (size_t)m || j >= (size_t)n) {
			if (memcmp(&c[idx], &c0[idx], 4)) {
				ok = 0;
				tap_diag("wrote padding at %zu,%zu", i, j);
			}
			continue;
		}
		for (int p = 0; p < k; p++) {
			uint16_t ha = a[ct_at(row, tra, lda, i, p)];
			uint16_t hb = b[ct_at(row, trb, ldb, p, j)];
			double x = f16 ? amx_fp16_to_fp32(ha) :
					 amx_bf16_to_fp32(ha);
			double y = f16 ? amx_fp16_to_fp32(hb) :
					 amx_bf16_to_fp32(hb);

			dot += x * y;
			adot += fabs(x * y);
		}
		ref = sc->alpha * dot;
		tol = fabs(sc->alpha) * adot;
		if (sc->beta != 0) {
			ref += (double)sc->beta * c0[idx];
			tol += fabs(sc->beta * c0[idx]);
		}
		tol = 1e-30 + 4 * 0x1p-24 * tol;
		if (!(fabs(c[idx] - ref) <= tol)) {
			if (ok)
				tap_diag("(%zu,%zu): got %g want %g", i, j,
					 c[idx], ref);
			ok = 0;
		}
	}
	tap_ok(ok, "%s %s %s%s m=%d n=%d k=%d pad=%d alpha=%g beta=%g%s", fn,
	       ct_layout(lay), modename[ma], modename[mb], m, n, k, s->pad,
	       sc->alpha, sc->beta, sc->nan_c ? " C=NaN" : "");
	free(ka);
	free(kb);
	free(a);
	free(b);
	free(c);
	free(c0);
	return ok;
}

static int run_s8u8(int lay, enum opmode ma, enum opmode mb, int mode,
		    const struct shape *s, const struct scalars *sc,
		    int8_t oa, int8_t ob)
{
	static const char fn[] = "cblas_gemm_s8u8s32_compute";
	int row = lay == CblasRowMajor, m = s->m, n = s->n, k = s->k;
	int tra = ma == PLAIN_T || ma == PACKED_T;
	int trb = mb == PLAIN_T || mb == PACKED_T;
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
	const void *aa, *bb;
	void *ka, *kb;
	int ta, tb, la, lb, ok = 1;

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
	operand(T_S8, lay, CblasAMatrix, ma, m, n, k, a, lda, &aa, &ta, &la,
		&ka);
	operand(T_S8, lay, CblasBMatrix, mb, m, n, k, b, ldb, &bb, &tb, &lb,
		&kb);
	cblas_gemm_s8u8s32_compute(lay, ta, tb, mode, m, n, k, sc->alpha, aa,
				   la, oa, bb, lb, ob, sc->beta, c, ldc, oc);

	ok = ct_check_s8u8s32(row, tra, trb, m, n, k, a, lda, oa, b, ldb, ob,
			      mode, oc, sc->alpha, sc->beta, c, c0, nc, ldc);
	tap_ok(ok, "%s %s %s%s %s m=%d n=%d k=%d pad=%d alpha=%g beta=%g "
	       "oa=%d ob=%d", fn, ct_layout(lay), modename[ma], modename[mb],
	       mode == CblasFixOffset ? "fix" :
	       mode == CblasRowOffset ? "row" : "col", m, n, k, s->pad,
	       sc->alpha, sc->beta, oa, ob);
	free(ka);
	free(kb);
	free(a);
	free(b);
	free(c);
	free(c0);
	free(oc);
	return ok;
}

/* ---- bad arguments ---- */

static int check_msg(const char *msg, const char *fn, int pos, int untouched,
		     const char *what)
{
	if (!tap_ok(ct_names(msg, fn, pos) && untouched,
		    "%s: bad parameter %d reported, %s untouched", fn, pos,
		    what)) {
		tap_diag("stderr: %s", msg);
		return 0;
	}
	return 1;
}

static void bad_get_size(enum type t, int pos, int ident, int m, int n, int k)
{
	char fn[64];
	struct ct_capture cap;
	const char *msg;
	size_t size;

	snprintf(fn, sizeof(fn), "cblas_gemm_%s_pack_get_size", tname[t]);
	ct_capture_begin(&cap);
	size = get_size(t, ident, m, n, k);
	msg = ct_capture_end(&cap);
	check_msg(msg, fn, pos, size == 0, "0 returned,");
}

static void bad_pack(enum type t, int pos, int lay, int ident, int trans,
		     int m, int n, int k, int ld, int null_dest)
{
	char fn[64];
	uint16_t src[64] = { 1, 2, 3 };
	uint16_t dest[256], dest0[256];
	struct ct_capture cap;
	const char *msg;
	void *d = null_dest ? NULL : dest;

	memset(dest0, 0xa5, sizeof(dest0));
	memcpy(dest, dest0, sizeof(dest));
	snprintf(fn, sizeof(fn), "cblas_gemm_%s_pack", tname[t]);
	ct_capture_begin(&cap);
	do_pack(t, lay, ident, trans, m, n, k, src, ld, d);
	msg = ct_capture_end(&cap);
	check_msg(msg, fn, pos, !memcmp(dest, dest0, sizeof(dest)), "dest");
}

/* a packed bf16 buffer for a 2 x 3 x 4 problem (m, n, k) */
struct pk {
	uint16_t a[128], b[128];	/* packed A and B, row-major */
	uint16_t ac[128];		/* packed A, column-major */
	uint8_t a8[256];		/* packed A of s8u8s32, row-major */
	uint16_t ah[128];		/* packed A of f16f16f32, row-major */
};

static void make_pk(struct pk *p)
{
	uint16_t src[64];
	uint8_t src8[64];

	fill16(0, src, 64);
	memset(src8, 3, sizeof(src8));
	if (cblas_gemm_bf16bf16f32_pack_get_size(CblasAMatrix, 2, 3, 4) >
	    sizeof(p->a) ||
	    cblas_gemm_s8u8s32_pack_get_size(CblasAMatrix, 2, 3, 4) >
	    sizeof(p->a8))
		exit(TAP_FAIL);
	cblas_gemm_bf16bf16f32_pack(CblasRowMajor, CblasAMatrix, CblasNoTrans,
				    2, 3, 4, src, 4, p->a);
	cblas_gemm_bf16bf16f32_pack(CblasRowMajor, CblasBMatrix, CblasNoTrans,
				    2, 3, 4, src, 3, p->b);
	cblas_gemm_bf16bf16f32_pack(CblasColMajor, CblasAMatrix, CblasNoTrans,
				    2, 3, 4, src, 2, p->ac);
	cblas_gemm_s8u8s32_pack(CblasRowMajor, CblasAMatrix, CblasNoTrans,
				2, 3, 4, src8, 4, p->a8);
	cblas_gemm_f16f16f32_pack(CblasRowMajor, CblasAMatrix, CblasNoTrans,
				  2, 3, 4, src, 4, p->ah);
}

static void bad_compute16(int f16, int pos, int lay, int ta, int tb, int m,
			  int n, int k, const void *a, int lda, const void *b,
			  int ldb, int ldc)
{
	const char *fn = f16 ? "cblas_gemm_f16f16f32_compute" :
			       "cblas_gemm_bf16bf16f32_compute";
	float c[64], c0[64];
	struct ct_capture cap;
	const char *msg;

	for (int i = 0; i < 64; i++)
		c0[i] = c[i] = (float)i + 0.5f;
	ct_capture_begin(&cap);
	if (f16)
		cblas_gemm_f16f16f32_compute(lay, ta, tb, m, n, k, 1, a, lda,
					     b, ldb, 0, c, ldc);
	else
		cblas_gemm_bf16bf16f32_compute(lay, ta, tb, m, n, k, 1, a, lda,
					       b, ldb, 0, c, ldc);
	msg = ct_capture_end(&cap);
	check_msg(msg, fn, pos, !memcmp(c, c0, sizeof(c)), "C");
}

static void bad_compute8(int pos, int lay, int ta, int tb, int m, int n,
			 int k, const void *a, int lda, const void *b, int ldb,
			 int ldc)
{
	static const char fn[] = "cblas_gemm_s8u8s32_compute";
	const int32_t oc[8] = { 0 };
	int32_t c[64], c0[64];
	struct ct_capture cap;
	const char *msg;

	for (int i = 0; i < 64; i++)
		c0[i] = c[i] = i * 7 - 100;
	ct_capture_begin(&cap);
	cblas_gemm_s8u8s32_compute(lay, ta, tb, CblasFixOffset, m, n, k, 1, a,
				   lda, 0, b, ldb, 0, 0, c, ldc, oc);
	msg = ct_capture_end(&cap);
	check_msg(msg, fn, pos, !memcmp(c, c0, sizeof(c)), "C");
}

static void bad_args(void)
{
	const int R = CblasRowMajor, C = CblasColMajor, N = CblasNoTrans;
	const int A = CblasAMatrix, B = CblasBMatrix, P = CblasPacked;
	static struct pk p;
	uint16_t plain[64], junk[128];
	uint8_t plain8[64] = { 0 };

	fill16(0, plain, 64);
	memset(junk, 0, sizeof(junk));
	make_pk(&p);
	for (int t = 0; t < NTYPES; t++) {
		bad_get_size(t, 1, 160, 2, 3, 4);
		bad_get_size(t, 2, A, -1, 3, 4);
		bad_get_size(t, 3, B, 2, -1, 4);
		bad_get_size(t, 4, B, 2, 3, -1);
		bad_pack(t, 1, 100, A, N, 2, 3, 4, 4, 0);
		bad_pack(t, 2, R, 163, N, 2, 3, 4, 4, 0);
		bad_pack(t, 3, R, A, 110, 2, 3, 4, 4, 0);
		bad_pack(t, 3, R, A, P, 2, 3, 4, 4, 0);
		bad_pack(t, 4, R, A, N, -1, 3, 4, 4, 0);
		bad_pack(t, 5, R, B, N, 2, -1, 4, 4, 0);
		bad_pack(t, 6, R, A, N, 2, 3, -1, 4, 0);
		bad_pack(t, 8, R, A, N, 2, 3, 4, 3, 0);	/* ld < k */
		bad_pack(t, 8, R, A, CblasTrans, 2, 3, 4, 1, 0); /* < m */
		bad_pack(t, 8, C, A, N, 2, 3, 4, 1, 0);	/* ld < m */
		bad_pack(t, 8, R, B, N, 2, 3, 4, 2, 0);	/* ld < n */
		bad_pack(t, 8, C, B, CblasTrans, 2, 3, 4, 2, 0); /* < n */
		bad_pack(t, 9, R, A, N, 2, 3, 4, 4, 1);	/* NULL */
	}
	/* compute: a packed operand that is not what the call says */
	bad_compute16(0, 2, R, 150, N, 2, 3, 4, plain, 4, plain, 3, 3);
	bad_compute16(0, 3, R, N, 152, 2, 3, 4, plain, 4, plain, 3, 3);
	bad_compute16(0, 8, R, P, N, 2, 3, 4, junk, 4, plain, 3, 3); /* no pack */
	bad_compute16(0, 8, R, P, N, 2, 3, 4, NULL, 4, plain, 3, 3);
	bad_compute16(0, 8, R, P, N, 3, 3, 4, p.a, 0, plain, 3, 3);	/* m */
	bad_compute16(0, 8, R, P, N, 2, 3, 5, p.a, 0, plain, 3, 3);	/* k */
	bad_compute16(0, 8, R, P, N, 2, 3, 4, p.b, 0, plain, 3, 3);	/* B as A */
	bad_compute16(0, 8, C, P, N, 2, 3, 4, p.a, 0, plain, 4, 2);	/* layout */
	bad_compute16(0, 10, R, N, P, 2, 3, 4, plain, 4, p.a, 0, 3); /* A as B */
	bad_compute16(0, 10, R, N, P, 2, 4, 4, plain, 4, p.b, 0, 4); /* n */
	bad_compute16(0, 8, R, P, N, 2, 3, 4, p.a8, 0, plain, 3, 3); /* int8 */
	bad_compute16(0, 8, C, P, P, 2, 3, 4, p.a, 0, p.b, 0, 2);	/* a first */
	/* the bad packed a (8) before a later bad ldc (14) */
	bad_compute16(0, 8, R, P, N, 2, 3, 4, junk, 0, plain, 3, 1);
	/* an earlier bad argument before the packed a */
	bad_compute16(0, 4, R, P, N, -1, 3, 4, junk, 0, plain, 3, 3);
	/* plain operands are still checked */
	bad_compute16(0, 11, R, P, N, 2, 3, 4, p.a, 0, plain, 2, 3);
	bad_compute16(0, 14, R, P, P, 2, 3, 4, p.a, 0, p.b, 0, 2);
	bad_compute8(9, R, P, N, 2, 3, 4, p.a, 0, plain8, 3, 3); /* bf16 */
	/* fp16: a bf16 pack is not one, an fp16 one with the other layout */
	bad_compute16(1, 8, R, P, N, 2, 3, 4, p.a, 0, plain, 3, 3);
	bad_compute16(1, 10, R, N, P, 2, 3, 4, plain, 4, p.b, 0, 3);
	bad_compute16(1, 8, C, P, N, 2, 3, 4, p.ah, 0, plain, 4, 2);
	bad_compute16(1, 14, R, P, N, 2, 3, 4, p.ah, 0, plain, 3, 2);
	bad_compute8(9, R, P, N, 2, 3, 5, p.a8, 0, plain8, 3, 3); /* k */
	bad_compute8(12, R, N, P, 2, 3, 4, plain8, 4, p.a8, 0, 3);
	bad_compute8(2, R, 150, N, 2, 3, 4, plain8, 4, plain8, 3, 3);
	bad_compute8(17, R, P, N, 2, 3, 4, p.a8, 0, plain8, 3, 2);
}

int main(void)
{
	size_t t = 0;

	alarm(100);
	printf("TAP version 13\n");
	for (size_t l = 0; l < 2; l++)
		for (int ma = 0; ma < NMODES; ma++)
			for (int mb = 0; mb < NMODES; mb++)
				for (size_t s = 0; s < NSHAPES; s++, t++) {
					run16(0, layouts[l], ma, mb, &shapes[s],
					      &scal[t % NSCAL]);
					run16(1, layouts[l], ma, mb, &shapes[s],
					      &scal[(t + 1) % NSCAL]);
					run_s8u8(layouts[l], ma, mb,
						 offmodes[t % 3], &shapes[s],
						 &scal[(t + 3) % NSCAL],
						 offs[t % NOFFS][0],
						 offs[t % NOFFS][1]);
				}
	tap_diag("backends after the calls: bf16 %d, fp16 %d, int8 %d (1 AMX, 2 AVX-512, 3 C)",
		 amx_gemm_backend(AMX_GEMM_BF16), amx_gemm_backend(AMX_GEMM_F16),
		 amx_gemm_backend(AMX_GEMM_S8));
	bad_args();
	tap_done();
}
