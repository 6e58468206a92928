// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the GEMM entry points, packed handles, B packing,
 * activation quantization and weight-only quantized B with fuzzed shapes, leading dimensions,
 * pointers, flags, values and backend (AMX_FORCE_FALLBACK), against the
 * contract of the man pages:
 *
 *  - valid arguments: 0, C equal to a naive reference inside the m x n
 *    window (exact: the inputs are small integers or quarters, whose
 *    products and sums are exact in fp32), untouched between rows;
 *  - invalid arguments: a negative errno, -EOVERFLOW when the only fault
 *    is a span that cannot exist, C untouched;
 *  - errno never changes.
 *
 * Every matrix lives in a heap block of exactly its span, so ASan sees any
 * access outside it.  Input layout: see struct in below; missing bytes
 * read as zero, so the empty input is a valid (all-empty) call.
 */
#include <amx.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* new operations go last: the corpus's first bytes keep their meaning */
enum op { OP_BF16, OP_S8S8, OP_U8S8, OP_BF16_P, OP_S8S8_P, OP_U8S8_P,
	  OP_PACK, OP_QUANT, OP_WQ, NOPS };

/* one matrix argument as the fuzzer chose it */
struct mat {
	size_t rows, cols, ld, esz, bytes;	/* bytes: allocated span */
	uint8_t *buf;				/* NULL when empty */
	const void *arg;			/* what the call gets */
	int fault;				/* 0, -EINVAL or -EOVERFLOW */
};

static const size_t huge_ld[] = { (size_t)1 << 60, SIZE_MAX / 3, (size_t)1 << 50 };
static uint8_t dummy[64];	/* the pointer of a matrix whose span cannot exist */

/* ld mode: 0..3 width + mode, 4 width - 1, 5..7 a span that cannot exist */
static void mat_shape(struct mat *m, size_t rows, size_t cols, size_t esz,
		      uint8_t ldmode, uint8_t ptrmode)
{
	memset(m, 0, sizeof(*m));
	m->rows = rows;
	m->cols = cols;
	m->esz = esz;
	ldmode %= 8;
	if (ldmode < 4)
		m->ld = cols + ldmode;
	else if (ldmode == 4)
		m->ld = cols ? cols - 1 : 0;
	else
		m->ld = huge_ld[ldmode - 5];
	if (!rows || !cols)
		return;			/* empty: pointer and ld not looked at */
	if (m->ld < cols) {
		m->fault = -EINVAL;
	} else if (rows > 1 && m->ld > 4096) {
		m->fault = -EOVERFLOW;
		m->arg = dummy;
	} else {
		m->bytes = ((rows - 1) * m->ld + cols) * esz;
		m->buf = malloc(m->bytes);
		m->arg = m->buf;
	}
	switch (ptrmode % 8) {
	case 6:			/* NULL */
		m->arg = NULL;
		m->fault = -EINVAL;	/* NULL is looked at first */
		break;
	case 7:	/* a span crossing 2^47, or starting at 2^56 if 1 byte long */
		m->arg = (const void *)(uintptr_t)(rows * cols * esz > 1 ?
						   (1ull << 47) - 1 : 1ull << 56);
		if (m->fault != -EINVAL)
			m->fault = -EOVERFLOW;
		break;
	default:
		if (!m->buf && !m->fault)
			m->fault = -EINVAL;
		break;
	}
}

static void fill(struct mat *m, struct in *in, bool raw, bool bf16)
{
	for (size_t i = 0; m->buf && i < m->bytes; i++)
		m->buf[i] = raw ? take(in) : (uint8_t)(i * 37 + 11);
	if (raw || !bf16 || !m->buf)
		return;
	/* bf16 quarters in [-2, 2]: products and sums exact in fp32 */
	for (size_t i = 0; i + 1 < m->bytes; i += 2) {
		float f = (float)((int)(m->buf[i] % 17) - 8) / 4;
		uint16_t h = amx_fp32_to_bf16(f);

		memcpy(m->buf + i, &h, 2);
	}
}

static double elem(const struct mat *m, size_t r, size_t c, enum op op,
		   bool is_a)
{
	const uint8_t *p = m->buf + (r * m->ld + c) * m->esz;

	if (m->esz == 2) {
		uint16_t h;

		memcpy(&h, p, 2);
		return amx_bf16_to_fp32(h);
	}
	if (is_a && (op == OP_U8S8 || op == OP_U8S8_P))
		return *p;
	return (int8_t)*p;
}

static int gemm_call(enum op op, unsigned int flags, struct mat *a,
		     struct mat *b, const struct amx_packed_b *pb,
		     struct mat *c, size_t m, size_t n, size_t k)
{
	switch (op) {
	case OP_BF16:
		return amx_gemm_bf16(flags, m, n, k, a->arg, a->ld, b->arg, b->ld,
				     (float *)c->arg, c->ld);
	case OP_S8S8:
		return amx_gemm_s8s8(flags, m, n, k, a->arg, a->ld, b->arg, b->ld,
				     (int32_t *)c->arg, c->ld);
	case OP_U8S8:
		return amx_gemm_u8s8(flags, m, n, k, a->arg, a->ld, b->arg, b->ld,
				     (int32_t *)c->arg, c->ld);
	case OP_BF16_P:
		return amx_gemm_bf16_packed(flags, m, a->arg, a->ld, pb,
					    (float *)c->arg, c->ld);
	case OP_S8S8_P:
		return amx_gemm_s8s8_packed(flags, m, a->arg, a->ld, pb,
					    (int32_t *)c->arg, c->ld);
	default:
		return amx_gemm_u8s8_packed(flags, m, a->arg, a->ld, pb,
					    (int32_t *)c->arg, c->ld);
	}
}

static int first_fault(const struct mat *const *ms, int n)
{
	int f = 0;

	/* matrices are checked in the order A, B, C: the first faulty one
	 * decides (within one, NULL and ld < width before the span) */
	for (int i = 0; i < n && !f; i++)
		f = ms[i]->fault;
	return f;
}

static void check_gemm(enum op op, struct in *in)
{
	static const char *const paths[] = { "0", "1", "c", "" };
	bool bf16 = op == OP_BF16 || op == OP_BF16_P;
	bool packed = op >= OP_BF16_P;
	size_t esz = bf16 ? 2 : 1, m, n, k;
	unsigned int flags;
	struct mat a, b, c;
	struct amx_packed_b *pb = NULL;
	uint8_t *cref = NULL;
	bool raw, alias;
	int ret, want;

	setenv("AMX_FORCE_FALLBACK", paths[take(in) % 4], 1);
	flags = take(in) & 3;
	m = take(in) % 40;
	n = take(in) % 40;
	k = take(in) % 70;
	raw = take(in) & 1;
	mat_shape(&a, m, k, esz, take(in), take(in));
	mat_shape(&b, k, n, esz, take(in), take(in));
	{
		uint8_t cl = take(in), cp = take(in);

		mat_shape(&c, m, n, 4, cl, cp);
		alias = (cp & 0x18) == 0x18 && a.buf && c.buf && !c.fault &&
			a.bytes >= c.bytes;
	}
	fill(&a, in, raw, bf16);
	fill(&b, in, raw, bf16);
	fill(&c, in, true, false);
	if (packed) {
		/* a bad B is create's error; the GEMM then gets NULL */
		errno = 4242;
		ret = amx_packed_b_create(&pb, bf16 ? AMX_GEMM_BF16 : AMX_GEMM_S8,
					  k, n, b.arg, b.ld);
		if (errno != 4242)
			abort();
		if (ret != first_fault((const struct mat *[]){ &b }, 1))
			abort();
		if (ret)
			pb = NULL;
	}
	if (alias) {			/* C inside A: overlap */
		c.arg = a.buf;
		memcpy(a.buf, c.buf, c.bytes);
		free(c.buf);
		c.buf = a.buf;
	}
	if (c.buf) {
		cref = malloc(c.bytes);
		memcpy(cref, c.buf, c.bytes);
	}
	if (flags & 2)
		want = -EINVAL;
	else if (packed && !pb)
		want = -EINVAL;
	else if (packed)
		want = first_fault((const struct mat *[]){ &a, &c }, 2);
	else
		want = first_fault((const struct mat *[]){ &a, &b, &c }, 3);
	if (!want && alias && m && n && k)
		want = -EINVAL;

	errno = 4242;
	ret = gemm_call(op, flags, &a, &b, pb, &c, m, n, k);
	if (errno != 4242) {
		fprintf(stderr, "errno changed\n");
		abort();
	}
	if (ret != want) {
		fprintf(stderr, "op %d m %zu n %zu k %zu lda %zu ldb %zu ldc %zu: %d, want %d\n",
			op, m, n, k, a.ld, b.ld, c.ld, ret, want);
		abort();
	}
	if (ret && cref && memcmp(cref, c.buf, c.bytes)) {
		fprintf(stderr, "C written on error %d\n", ret);
		abort();
	}
	if (!ret && c.buf) {
		for (size_t i = 0; i < m; i++) {
			for (size_t j = 0; j < c.ld && i * c.ld + j < c.bytes / 4; j++) {
				size_t at = (i * c.ld + j) * 4;
				double s = 0, got;

				if (j >= n) {	/* between rows: untouched */
					if (memcmp(c.buf + at, cref + at, 4))
						abort();
					continue;
				}
				if (raw && bf16)
					continue;	/* NaN, Inf, denormals: no crash is enough */
				for (size_t p = 0; p < k; p++)
					s += elem(&a, i, p, op, true) * elem(&b, p, j, op, false);
				if (flags & AMX_GEMM_ACCUMULATE) {
					if (bf16) {
						float f;

						memcpy(&f, cref + at, 4);
						if (f != f || f - f != 0)
							continue;
						s += f;
					} else {
						int32_t v;

						memcpy(&v, cref + at, 4);
						s = (double)(int32_t)((uint32_t)v + (uint32_t)(int64_t)s);
					}
				}
				if (bf16) {
					float f;

					memcpy(&f, c.buf + at, 4);
					got = f;
					/* accumulating into raw C may round */
					if (flags & AMX_GEMM_ACCUMULATE ?
					    got - s > 1e-3 * (1 + (s < 0 ? -s : s)) ||
					    s - got > 1e-3 * (1 + (s < 0 ? -s : s)) :
					    got != s) {
						fprintf(stderr, "bf16 C[%zu,%zu] %g want %g\n",
							i, j, got, s);
						abort();
					}
				} else {
					int32_t v;

					memcpy(&v, c.buf + at, 4);
					if (v != (int32_t)(int64_t)s) {
						fprintf(stderr, "int8 C[%zu,%zu] %d want %.0f\n",
							i, j, v, s);
						abort();
					}
				}
			}
		}
	}
	amx_packed_b_free(pb);
	free(cref);
	free(a.buf);
	free(b.buf);
	if (!alias)
		free(c.buf);
}

/* pack then unpack: the inverse, or the same error from both */
static void check_pack(struct in *in)
{
	bool i8 = take(in) & 1;
	size_t k = take(in) % 150, n = take(in) % 40, size;
	struct mat b;
	uint8_t *img, *back;
	int ret, ret2;

	mat_shape(&b, k, n, i8 ? 1 : 2, take(in), take(in));
	fill(&b, in, true, false);
	size = i8 ? amx_pack_b_size_i8(k, n) : amx_pack_b_size_bf16(k, n);
	img = malloc(size ? size : 1);
	back = b.bytes ? calloc(1, b.bytes) : NULL;
	errno = 4242;
	ret = i8 ? amx_pack_b_i8(size ? img : NULL, b.arg, k, n, b.ld) :
		   amx_pack_b_bf16(size ? img : NULL, b.arg, k, n, b.ld);
	if (ret != b.fault)
		abort();
	ret2 = i8 ? amx_unpack_b_i8((int8_t *)(b.fault ? (void *)b.arg : back),
				    size ? img : NULL, k, n, b.ld) :
		    amx_unpack_b_bf16((amx_bf16 *)(b.fault ? (void *)b.arg : back),
				      size ? img : NULL, k, n, b.ld);
	if (ret2 != ret || errno != 4242)
		abort();
	if (!ret && b.buf) {
		for (size_t r = 0; r < k; r++)
			if (memcmp(back + r * b.ld * b.esz, b.buf + r * b.ld * b.esz,
				   n * b.esz))
				abort();
	}
	free(back);
	free(img);
	free(b.buf);
}

/* fp32 value of element @i of a quantizer's source */
static float qsrc(const struct mat *x, size_t r, size_t c)
{
	const uint8_t *p = x->buf + (r * x->ld + c) * x->esz;
	uint32_t u = 0;
	uint16_t h;
	float f;

	if (x->esz == 2) {
		memcpy(&h, p, 2);
		u = (uint32_t)h << 16;
	} else {
		memcpy(&u, p, 4);
	}
	memcpy(&f, &u, 4);
	return f;
}

/*
 * amx_quantize_*(): the order of the checks (x, q, scales, zero points,
 * then the overlap of q on x, then -EDOM for a NaN or an infinity in x's
 * window), nothing written on error, and on success a normal scale, a
 * zero point 0..255, |x - s (q - zp)| <= s / 2 (amx_quantize_s8(3)) and
 * q's gaps between rows untouched.
 */
static void check_quant(struct in *in)
{
	static const char *const paths[] = { "0", "1", "c", "" };
	unsigned int v = take(in);
	bool u8 = v & 1, bf16 = v & 2, raw = v & 4, alias;
	size_t m, k;
	struct mat x, q, s, z;
	uint8_t *ref[3] = { NULL, NULL, NULL };
	struct mat *out[3] = { &q, &s, &z };
	int ret, want;

	setenv("AMX_FORCE_FALLBACK", paths[take(in) % 4], 1);
	m = take(in) % 20;
	k = take(in) % 200;
	mat_shape(&x, m, k, bf16 ? 2 : 4, take(in), take(in));
	{
		uint8_t ql = take(in), qp = take(in);

		mat_shape(&q, m, k, 1, ql, qp);
		alias = (qp & 0x18) == 0x18 && x.buf && q.buf && !q.fault &&
			x.bytes >= q.bytes;
	}
	mat_shape(&s, 1, m, 4, 0, take(in));
	mat_shape(&z, u8 ? 1 : 0, m, 4, 0, u8 ? take(in) : 0);
	/* fuzzed values; unless raw, finite (exponent's top bit cleared) */
	fill(&x, in, true, false);
	for (size_t i = 0; !raw && x.buf && i < x.bytes / x.esz; i++)
		x.buf[i * x.esz + x.esz - 1] &= 0xbf;
	for (int o = 0; o < 3; o++)
		fill(out[o], in, true, false);
	if (alias) {			/* q inside x: overlap */
		q.arg = x.buf;
		free(q.buf);
		q.buf = NULL;
	}
	for (int o = 0; o < 3; o++) {
		struct mat *w = o || !alias ? out[o] : &x;

		if (w->buf) {
			ref[o] = malloc(w->bytes);
			memcpy(ref[o], w->buf, w->bytes);
		}
	}
	want = first_fault((const struct mat *[]){ &x, &q, &s, &z }, 4);
	if (!want && alias && m && k)
		want = -EINVAL;
	for (size_t r = 0; !want && r < m; r++)
		for (size_t c = 0; c < k; c++) {
			float f = qsrc(&x, r, c);

			if (f != f || f - f != 0) {
				want = -EDOM;
				break;
			}
		}

	errno = 4242;
	switch (v & 3) {
	case 0:
		ret = amx_quantize_s8(m, k, x.arg, x.ld, (void *)q.arg, q.ld,
				      (void *)s.arg);
		break;
	case 1:
		ret = amx_quantize_u8(m, k, x.arg, x.ld, (void *)q.arg, q.ld,
				      (void *)s.arg, (void *)z.arg);
		break;
	case 2:
		ret = amx_quantize_bf16_s8(m, k, x.arg, x.ld, (void *)q.arg,
					   q.ld, (void *)s.arg);
		break;
	default:
		ret = amx_quantize_bf16_u8(m, k, x.arg, x.ld, (void *)q.arg,
					   q.ld, (void *)s.arg, (void *)z.arg);
		break;
	}
	if (errno != 4242 || ret != want) {
		fprintf(stderr, "quantize %u m %zu k %zu ldx %zu ldq %zu: "
			"%d, want %d\n", v & 3, m, k, x.ld, q.ld, ret, want);
		abort();
	}
	for (int o = 0; ret && o < 3; o++) {
		struct mat *w = o || !alias ? out[o] : &x;

		if (ref[o] && memcmp(ref[o], w->buf, w->bytes)) {
			fprintf(stderr, "quantize: written on error %d\n", ret);
			abort();
		}
	}
	for (size_t r = 0; !ret && q.buf && r < m; r++) {
		float sc;
		int32_t zp = 0;

		memcpy(&sc, s.buf + r * 4, 4);
		if (u8)
			memcpy(&zp, z.buf + r * 4, 4);
		if (!(sc >= 1.17549435e-38f && sc <= 3.40282347e38f) ||
		    zp < 0 || zp > 255)
			abort();
		for (size_t c = 0; c < q.ld && r * q.ld + c < q.bytes; c++) {
			uint8_t b = q.buf[r * q.ld + c];
			double d, e;

			if (c >= k) {	/* between rows: untouched */
				if (b != ref[0][r * q.ld + c])
					abort();
				continue;
			}
			d = (double)sc * ((u8 ? (int)b : (int8_t)b) - zp);
			e = (double)qsrc(&x, r, c) - d;
			e = e < 0 ? -e : e;
			if (e > sc * (0.5 + 0x1p-14)) {
				fprintf(stderr, "quantize [%zu,%zu] %a: %a\n",
					r, c, (double)qsrc(&x, r, c), d);
				abort();
			}
		}
	}
	for (int o = 0; o < 3; o++) {
		free(ref[o]);
		free(out[o]->buf);
	}
	free(x.buf);
}

static float f32_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/*
 * amx_wq_create() and amx_gemm_bf16_wq(): a fuzzed description (type,
 * group, shape, integers, scales, zero points or mins or both, a
 * reserved word) gets -EINVAL for a bad shape or combination, else
 * -EDOM / -ERANGE exactly when a value is outside its domain / range
 * (either when both are), *w untouched; a B that is created dequantizes
 * to amx_wq_create(3)'s weights bit for bit, and its GEMM (fuzzed m,
 * backend and accumulate) lies within amx_gemm_bf16_wq(3)'s bound of an
 * fp64 product.
 */
static void check_wq(struct in *in)
{
	static const char *const paths[] = { "0", "1", "c", "" };
	static const uint32_t groups[] = { 0, 32, 64, 128, 16, 96 };
	unsigned int v = take(in);
	uint32_t type = take(in) % 5, group = groups[take(in) % 6];
	size_t k = v & 8 ? take(in) % 200 : 32 * (size_t)(take(in) % 5);
	size_t n = take(in) % 40, ldq = n + take(in) % 3, ng, gs;
	int zmode = (v >> 1) & 3, raws = !!(v & 64), rawq = !!(v & 32);
	int lo = type == AMX_WQ_S8 ? -128 : type == AMX_WQ_S4 ? -8 : 0;
	int hi = type == AMX_WQ_S8 ? 127 : type == AMX_WQ_S4 ? 7 : 15;
	struct amx_wq_desc d = { .type = type, .group = group, .k = k, .n = n };
	struct amx_wq *w = (struct amx_wq *)dummy;
	bool inval, edom = false, erange = false;
	int8_t *q;
	float *sc, *mins = NULL, *b;
	uint8_t *zp = NULL;
	int ret;

	setenv("AMX_FORCE_FALLBACK", paths[take(in) % 4], 1);
	if (v & 16)
		ldq = n ? n - 1 : 0;
	gs = group ? group : k;
	ng = group && k % group == 0 ? k / group : 1;
	q = malloc(k * ldq + 1);
	sc = malloc(ng * n * 4 + 4);
	for (size_t x = 0; x < k * ldq; x++)
		q[x] = (int8_t)(rawq ? take(in) : lo + take(in) % (hi - lo + 1));
	for (size_t x = 0; x < ng * n; x++) {
		uint32_t u = take(in);

		if (raws) {
			u |= (uint32_t)take(in) << 8 | (uint32_t)take(in) << 16 |
			     (uint32_t)take(in) << 24;
			sc[x] = f32_of(u);
		} else {
			sc[x] = (float)(1 + u % 64) / 256.0f;
		}
	}
	if (zmode & 1) {
		zp = malloc(ng * n + 1);
		for (size_t x = 0; x < ng * n; x++)
			zp[x] = rawq ? take(in) : take(in) % 16;
	}
	if (zmode & 2) {
		mins = malloc(ng * n * 4 + 4);
		for (size_t x = 0; x < ng * n; x++)
			mins[x] = raws ? f32_of((uint32_t)take(in) << 24 |
						(uint32_t)take(in) << 16) :
				  (float)((int)take(in) - 128) / 64.0f;
	}
	d.q = q;
	d.ldq = ldq;
	d.scales = sc;
	d.zp = zp;
	d.mins = mins;
	d.reserved[2] = take(in) == 255;
	inval = !k || !n || type < 1 || type > 3 || group == 16 ||
		group == 96 || (group && k % group) || ldq < n ||
		((zp || mins) && (type != AMX_WQ_U4 || (zp && mins))) ||
		d.reserved[2];
	for (size_t x = 0; !inval && x < ng * n; x++) {
		if (!(sc[x] > 0.0f && sc[x] - sc[x] == 0.0f))
			edom = true;
		if (mins && mins[x] - mins[x] != 0.0f)
			edom = true;
		if (zp && zp[x] > 15)
			erange = true;
	}
	for (size_t x = 0; !inval && x < k * n; x++)
		if (q[x / n * ldq + x % n] < lo || q[x / n * ldq + x % n] > hi)
			erange = true;
	errno = 4242;
	ret = amx_wq_create(&w, &d);
	if (errno != 4242 ||
	    (inval ? ret != -EINVAL :
	     edom && erange ? ret != -EDOM && ret != -ERANGE :
	     edom ? ret != -EDOM : erange ? ret != -ERANGE : ret != 0) ||
	    (ret && w != (struct amx_wq *)dummy)) {
		fprintf(stderr, "wq_create type %u group %u k %zu n %zu ldq %zu "
			"zmode %d: %d\n", type, group, k, n, ldq, zmode, ret);
		abort();
	}
	if (ret)
		goto out;
	b = malloc(k * n * 4);
	if (amx_wq_dequantize(w, b, n))
		abort();
	for (size_t kk = 0; kk < k; kk++)
		for (size_t j = 0; j < n; j++) {
			size_t g = kk / gs * n + j;
			int qq = q[kk * ldq + j];
			int z = type == AMX_WQ_U4 && !zp && !mins ? 8 : 0;
			float want;

			if (zp)
				z = zp[g];
			want = mins ? sc[g] * (float)qq + mins[g] :
			       sc[g] * (float)(qq - z);
			if (memcmp(&want, &b[kk * n + j], 4)) {
				fprintf(stderr, "wq dequantize [%zu][%zu]\n", kk, j);
				abort();
			}
		}
	if (!raws) {
		size_t m = 1 + take(in) % 9, kp = (k + 3) / 4 * 4 + 32;
		unsigned int flags = take(in) & 1;
		uint16_t *a = malloc(m * k * 2);
		float *c = malloc(m * n * 4), *c0 = malloc(m * n * 4);

		for (size_t x = 0; x < m * k; x++)	/* quarters in [-2, 2) */
			a[x] = amx_fp32_to_bf16((float)((int)(take(in) % 16) - 8) / 4);
		for (size_t x = 0; x < m * n; x++)
			c0[x] = c[x] = (float)(x % 7);
		if (amx_gemm_bf16_wq(flags, m, a, k, w, c, n, NULL))
			abort();
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++) {
				double ref = flags ? c0[i * n + j] : 0, e = 0;

				for (size_t kk = 0; kk < k; kk++) {
					size_t g = kk / gs * n + j;
					double av = amx_bf16_to_fp32(a[i * k + kk]);
					int qq = q[kk * ldq + j];
					double z = type == AMX_WQ_U4 && !zp && !mins ? 8 :
						   zp ? zp[g] : 0;
					double wx = mins ? (double)sc[g] * qq + mins[g] :
						    (double)sc[g] * (qq - z);

					ref += av * wx;
					e += (av < 0 ? -av : av) *
					     (sc[g] * (type == AMX_WQ_S8 ? 128 : 16) +
					      (mins ? (mins[g] < 0 ? -mins[g] : mins[g]) : 0));
				}
				e = e * 0x1p-23 * (double)kp +
				    (flags ? c0[i * n + j] * 0x1p-23 : 0);
				if (!(c[i * n + j] - ref <= e && ref - c[i * n + j] <= e)) {
					fprintf(stderr, "wq gemm [%zu][%zu] %a, ref %a\n",
						i, j, (double)c[i * n + j], ref);
					abort();
				}
			}
		free(a);
		free(c);
		free(c0);
	}
	if (!raws) {	/* int8 A: u8 rows with a zero point, no row scale */
		size_t m = 1 + take(in) % 9, kp = (k + 3) / 4 * 4;
		size_t ng8 = group ? k / group : 1;
		uint8_t *a = malloc(m * k + 1);
		int32_t *zpa = malloc(m * 4);
		float *c = malloc(m * n * 4);

		for (size_t x = 0; x < m * k; x++)
			a[x] = take(in);
		for (size_t i = 0; i < m; i++)
			zpa[i] = take(in);
		if (amx_gemm_u8_wq(0, m, a, k, NULL, zpa, w, c, n, NULL))
			abort();
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++) {
				double ref = 0, e = 0;

				for (size_t kk = 0; kk < k; kk++) {
					size_t g = kk / gs * n + j;
					double av = (double)a[i * k + kk] - zpa[i];
					int qq = q[kk * ldq + j];
					double z = type == AMX_WQ_U4 && !zp && !mins ? 8 :
						   zp ? zp[g] : 0;
					double wx = mins ? (double)sc[g] * qq + mins[g] :
						    (double)sc[g] * (qq - z);

					ref += av * wx;
					e += ((av < 0 ? -av : av) + zpa[i] + 128) *
					     (wx < 0 ? -wx : wx);
				}
				e *= 0x1p-23 * (double)(ng8 + 8 + (kp - k));
				if (!(c[i * n + j] - ref <= e && ref - c[i * n + j] <= e)) {
					fprintf(stderr, "wq u8 gemm [%zu][%zu] %a, ref %a\n",
						i, j, (double)c[i * n + j], ref);
					abort();
				}
			}
		free(a);
		free(zpa);
		free(c);
	}
	free(b);
	amx_wq_free(w);
out:
	free(q);
	free(sc);
	free(zp);
	free(mins);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	enum op op = (enum op)(take(&in) % NOPS);

	if (op == OP_PACK)
		check_pack(&in);
	else if (op == OP_QUANT)
		check_quant(&in);
	else if (op == OP_WQ)
		check_wq(&in);
	else
		check_gemm(op, &in);
	return 0;
}
