// SPDX-License-Identifier: MIT
/*
 * Weight-only quantized B (amx_wq_create(3), amx_gemm_bf16_wq(3)) on both
 * implementations (AVX-512 BF16 where the CPU has it, and
 * AMX_FORCE_FALLBACK=c):
 *
 * - amx_wq_dequantize() bit for bit against the man page's formulas,
 *   computed here, for every type, group and form (zero points, mins);
 * - amx_wq_import_ggml() for Q4_0, Q4_1 and Q8_0 blocks written here
 *   from ggml's block layout (fp16 d [, fp16 m], then the quants; Q4_x:
 *   byte x of a block holds weight x in its low nibble and weight x + 16
 *   in its high one), with negative and zero d: the dequantized weights
 *   equal the reference dequantization d * (q - 8), d * q + m, d * q
 *   computed here in fp32, bit for bit;
 * - the GEMM against an fp64 product of A with the exact weights
 *   s (q - z) (or s q + m): |C - ref| <= 2^-23 (kp + 32) E with E =
 *   sum_k |a| s Q (+ |m|) (Q = 128 for 8 bits, 16 for 4): the rounding of
 *   an fp32 sum of kp + 32 terms at most, whatever the order;
 * - 1 and 2 threads give the same bits; AMX_GEMM_ACCUMULATE gives
 *   fl(C0 + C); an epilogue of scale 2 and a bias gives fl(2 C + bias),
 *   and with bf16 output the bf16 of that, exactly;
 * - every documented error, with C and *w untouched.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amx_test.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static int rnd(int lo, int hi)
{
	return lo + (int)(amx_test_rand(&seed) % (uint64_t)(hi - lo + 1));
}

static float rndf(float lo, float hi)
{
	return lo + (hi - lo) * (float)(amx_test_rand(&seed) >> 40) /
	       (float)(1u << 24);
}

/* one test B: the caller's view and the exact weights */
struct tb {
	int type, form;		/* form: 0 none, 1 zp, 2 mins */
	size_t k, n, group, ng;
	int8_t *q;
	float *s, *mins;
	uint8_t *zp;
	double *wx;		/* [k][n] exact weights */
	float *wf;		/* [k][n] the man page's fp32 weights */
};

static size_t gsz(const struct tb *t)
{
	return t->group ? t->group : t->k;
}

static void tb_make(struct tb *t, int type, int form, size_t k, size_t n,
		    size_t group)
{
	int lo = type == AMX_WQ_S8 ? -128 : type == AMX_WQ_S4 ? -8 : 0;
	int hi = type == AMX_WQ_S8 ? 127 : type == AMX_WQ_S4 ? 7 : 15;

	memset(t, 0, sizeof(*t));
	t->type = type;
	t->form = form;
	t->k = k;
	t->n = n;
	t->group = group;
	t->ng = group ? k / group : 1;
	t->q = malloc(k * n);
	t->s = malloc(t->ng * n * sizeof(float));
	t->wx = malloc(k * n * sizeof(double));
	t->wf = malloc(k * n * sizeof(float));
	if (form == 1)
		t->zp = malloc(t->ng * n);
	if (form == 2)
		t->mins = malloc(t->ng * n * sizeof(float));
	for (size_t x = 0; x < k * n; x++)
		t->q[x] = (int8_t)rnd(lo, hi);
	for (size_t x = 0; x < t->ng * n; x++) {
		/* fp32 scales: some exactly fp16, most not */
		t->s[x] = x % 3 ? rndf(0.001f, 0.1f) : (float)rnd(1, 64) / 1024;
		if (t->zp)
			t->zp[x] = (uint8_t)rnd(0, 15);
		if (t->mins)
			t->mins[x] = rndf(-0.5f, 0.5f);
	}
	for (size_t kk = 0; kk < k; kk++)
		for (size_t j = 0; j < n; j++) {
			size_t g = kk / gsz(t) * n + j;
			int q = t->q[kk * n + j];
			int z = type == AMX_WQ_U4 && !t->zp && !t->mins ? 8 : 0;

			if (t->zp)
				z = t->zp[g];
			if (t->mins) {
				t->wx[kk * n + j] = (double)t->s[g] * q +
						    t->mins[g];
				t->wf[kk * n + j] = t->s[g] * (float)q + t->mins[g];
			} else {
				t->wx[kk * n + j] = (double)t->s[g] * (q - z);
				t->wf[kk * n + j] = t->s[g] * (float)(q - z);
			}
		}
}

static void tb_free(struct tb *t)
{
	free(t->q);
	free(t->s);
	free(t->mins);
	free(t->zp);
	free(t->wx);
	free(t->wf);
}

static struct amx_wq_desc tb_desc(const struct tb *t)
{
	return (struct amx_wq_desc){
		.type = (uint32_t)t->type, .group = (uint32_t)t->group,
		.k = t->k, .n = t->n, .q = t->q, .ldq = t->n,
		.scales = t->s, .zp = t->zp, .mins = t->mins,
	};
}

static amx_bf16 rnd_bf16(void)
{
	return amx_fp32_to_bf16(rndf(-1.0f, 1.0f));
}

/*
 * The GEMM of @w (standing for the exact weights @wx, k x n, with the
 * error measure @emag[k][n] = |weight terms|) on m rows, checked.
 */
static int check_gemm(const char *what, const struct amx_wq *w, size_t m,
		      size_t k, size_t n, const double *wx, const double *emag)
{
	size_t lda = k + 3, ldc = n + 5, kp = (k + 3) / 4 * 4 + 128;
	amx_bf16 *a = malloc(m * lda * 2);
	float *c = malloc(m * ldc * 4), *c2 = malloc(m * ldc * 4);
	float *c0 = malloc(m * ldc * 4), *bias = malloc(n * 4);
	amx_bf16 *cb = malloc(m * ldc * 2);
	double worst = 0.0;
	int bad = 0, ret;

	for (size_t x = 0; x < m * lda; x++)
		a[x] = rnd_bf16();
	for (size_t x = 0; x < m * ldc; x++)
		c0[x] = c[x] = rndf(-1.0f, 1.0f);
	ret = amx_gemm_bf16_wq(0, m, a, lda, w, c, ldc, NULL);
	if (ret)
		return tap_ok(0, "%s: gemm returned %d", what, ret);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double ref = 0.0, e = 0.0, err;

			for (size_t kk = 0; kk < k; kk++) {
				double av = amx_bf16_to_fp32(a[i * lda + kk]);

				ref += av * wx[kk * n + j];
				e += fabs(av) * emag[kk * n + j];
			}
			err = fabs(c[i * ldc + j] - ref);
			if (!(err <= ldexp((double)kp, -23) * e)) {
				if (!bad++)
					tap_diag("%s: C[%zu][%zu] %.9g, ref %.9g, bound %.3g",
						 what, i, j, c[i * ldc + j], ref,
						 ldexp((double)kp, -23) * e);
			}
			if (e > 0 && err / e > worst)
				worst = err / e;
		}
	/* the columns past n untouched */
	for (size_t i = 0; i < m; i++)
		for (size_t j = n; j < ldc && i + 1 < m; j++)
			if (memcmp(&c[i * ldc + j], &c0[i * ldc + j], 4))
				bad++;
	tap_ok(!bad, "%s: m %zu: within bound (worst %.2g of E)", what, m,
	       worst);

	/* two threads: the same bits */
	amx_set_num_threads(2);
	memcpy(c2, c0, m * ldc * 4);
	ret = amx_gemm_bf16_wq(0, m, a, lda, w, c2, ldc, NULL);
	amx_set_num_threads(1);
	tap_ok(!ret && !memcmp(c, c2, m * ldc * 4), "%s: 2 threads, same bits",
	       what);

	/* accumulate: fl(C0 + C) */
	memcpy(c2, c0, m * ldc * 4);
	ret = amx_gemm_bf16_wq(AMX_GEMM_ACCUMULATE, m, a, lda, w, c2, ldc,
			       NULL);
	bad = !!ret;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			float want = c0[i * ldc + j] + c[i * ldc + j];

			bad += !!memcmp(&want, &c2[i * ldc + j], 4);
		}
	tap_ok(!bad, "%s: accumulate adds C once", what);

	/* AMX_GEMM_QUANTIZE_A: amx_quantize_bf16_s8() then amx_gemm_s8_wq() */
	{
		int8_t *q = malloc(m * k);
		float *rs = malloc(m * 4);

		bad = amx_quantize_bf16_s8(m, k, a, lda, q, k, rs) != 0;
		bad += amx_gemm_s8_wq(0, m, q, k, rs, w, c2, ldc, NULL) != 0;
		{
			float *c3 = malloc(m * ldc * 4);

			memcpy(c3, c0, m * ldc * 4);
			bad += amx_gemm_bf16_wq(AMX_GEMM_QUANTIZE_A, m, a, lda, w,
						c3, ldc, NULL) != 0;
			for (size_t i = 0; i < m; i++)
				bad += !!memcmp(c2 + i * ldc, c3 + i * ldc, n * 4);
			free(c3);
		}
		free(q);
		free(rs);
		tap_ok(!bad, "%s: AMX_GEMM_QUANTIZE_A, the bits of quantize + s8",
		       what);
	}

	/* epilogue: scale 2, bias; fp32 and bf16 out */
	for (size_t j = 0; j < n; j++)
		bias[j] = rndf(-1.0f, 1.0f);
	{
		struct amx_epilogue_desc d = { .n = n, .scale = 2.0f,
					       .bias = bias };
		struct amx_epilogue *ep = NULL, *epb = NULL;

		bad = amx_epilogue_create(&ep, &d) != 0;
		d.out = AMX_OUT_BF16;
		bad += amx_epilogue_create(&epb, &d) != 0;
		memcpy(c2, c0, m * ldc * 4);
		bad += amx_gemm_bf16_wq(0, m, a, lda, w, c2, ldc, ep) != 0;
		bad += amx_gemm_bf16_wq(0, m, a, lda, w, cb, ldc, epb) != 0;
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++) {
				float v = c[i * ldc + j] * 2.0f + bias[j];
				amx_bf16 h = amx_fp32_to_bf16(v);

				bad += !!memcmp(&v, &c2[i * ldc + j], 4);
				bad += cb[i * ldc + j] != h;
			}
		amx_epilogue_free(ep);
		amx_epilogue_free(epb);
		tap_ok(!bad, "%s: epilogue fl(2 C + bias), fp32 and bf16", what);
	}
	free(a);
	free(c);
	free(c2);
	free(c0);
	free(cb);
	free(bias);
	return 0;
}

/*
 * int8 A (amx_gemm_s8_wq(), amx_gemm_u8_wq()): rows of random fp32
 * quantized by amx_quantize_s8() / _u8(), multiplied by @w and checked
 * against an fp64 product of the real A values rs (q - zp) with the exact
 * weights: within 2^-23 (ng + 8 + zp) E', E' = sum_k |a| |w| + the
 * zero point's share zp rs sum_k |w|: the fp32 sum of the groups' exact
 * integer products and the zero point's correction.  Accumulate, the
 * epilogue (scale 2, bias) and 2 threads as for bf16.
 */
static void check_gemm_i8(const char *what, const struct amx_wq *w, size_t m,
			  size_t k, size_t n, size_t ng, const double *wx)
{
	size_t lda = k + 5, ldc = n + 3;
	float *x = malloc(m * k * 4), *rs = malloc(m * 4), *bias = malloc(n * 4);
	int32_t *zp = malloc(m * 4);
	uint8_t *a = malloc(m * lda);
	float *c = malloc(m * ldc * 4), *c2 = malloc(m * ldc * 4);
	float *c0 = malloc(m * ldc * 4);
	int bad = 0, ret;
	double worst = 0.0;

	for (int u8 = 0; u8 < 2; u8++) {
		for (size_t x0 = 0; x0 < m * k; x0++)
			x[x0] = rndf(-1.0f, 1.0f) + (u8 ? 0.5f : 0.0f);
		if (u8)
			ret = amx_quantize_u8(m, k, x, k, a, lda, rs, zp);
		else
			ret = amx_quantize_s8(m, k, x, k, (int8_t *)a, lda, rs);
		if (ret) {
			tap_ok(0, "%s: quantize A: %d", what, ret);
			break;
		}
		for (size_t i = 0; i < m * ldc; i++)
			c0[i] = c[i] = rndf(-1.0f, 1.0f);
		ret = u8 ? amx_gemm_u8_wq(0, m, a, lda, rs, zp, w, c, ldc, NULL) :
			   amx_gemm_s8_wq(0, m, (int8_t *)a, lda, rs, w, c, ldc,
					  NULL);
		bad = !!ret;
		worst = 0.0;
		for (size_t i = 0; !ret && i < m; i++)
			for (size_t j = 0; j < n; j++) {
				double ref = 0.0, e = 0.0, err, z = u8 ? zp[i] : 0;

				for (size_t kk = 0; kk < k; kk++) {
					int q = u8 ? a[i * lda + kk] :
						     ((int8_t *)a)[i * lda + kk];
					double av = rs[i] * (q - z);

					ref += av * wx[kk * n + j];
					e += (fabs(av) + rs[i] * (fabs(z) + 128)) *
					     fabs(wx[kk * n + j]);
				}
				e *= ldexp((double)ng + 8, -23);
				err = fabs(c[i * ldc + j] - ref);
				if (!(err <= e) && !bad++)
					tap_diag("%s: C[%zu][%zu] %.9g, ref %.9g, bound %.3g",
						 what, i, j, c[i * ldc + j], ref, e);
				if (e > 0 && err / e > worst)
					worst = err / e;
			}
		tap_ok(!bad, "%s: %s A, m %zu: within bound (worst %.2g of it)",
		       what, u8 ? "u8" : "s8", m, worst);

		amx_set_num_threads(2);
		memcpy(c2, c0, m * ldc * 4);
		ret = u8 ? amx_gemm_u8_wq(0, m, a, lda, rs, zp, w, c2, ldc, NULL) :
			   amx_gemm_s8_wq(0, m, (int8_t *)a, lda, rs, w, c2, ldc,
					  NULL);
		amx_set_num_threads(1);
		tap_ok(!ret && !memcmp(c, c2, m * ldc * 4),
		       "%s: %s A: 2 threads, same bits", what, u8 ? "u8" : "s8");

		memcpy(c2, c0, m * ldc * 4);
		ret = u8 ? amx_gemm_u8_wq(AMX_GEMM_ACCUMULATE, m, a, lda, rs, zp,
					  w, c2, ldc, NULL) :
			   amx_gemm_s8_wq(AMX_GEMM_ACCUMULATE, m, (int8_t *)a,
					  lda, rs, w, c2, ldc, NULL);
		bad = !!ret;
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++) {
				float want = c0[i * ldc + j] + c[i * ldc + j];

				bad += !!memcmp(&want, &c2[i * ldc + j], 4);
			}
		tap_ok(!bad, "%s: %s A: accumulate adds C once", what,
		       u8 ? "u8" : "s8");
	}
	/* the epilogue takes the row scales: fl(fl(v rs) 2 + bias) */
	for (size_t j = 0; j < n; j++)
		bias[j] = rndf(-1.0f, 1.0f);
	{
		struct amx_epilogue_desc d = { .n = n, .scale = 2.0f,
					       .bias = bias };
		struct amx_epilogue *ep = NULL;
		float *one = malloc(m * 4);

		for (size_t i = 0; i < m; i++)
			one[i] = 1.0f;
		bad = amx_epilogue_create(&ep, &d) != 0;
		/* without row scales, C is the epilogue's input itself */
		bad += amx_gemm_u8_wq(0, m, a, lda, NULL, zp, w, c, ldc, NULL) != 0;
		bad += amx_gemm_u8_wq(0, m, a, lda, one, zp, w, c2, ldc, ep) != 0;
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++) {
				float v = c[i * ldc + j] * 2.0f + bias[j];

				bad += !!memcmp(&v, &c2[i * ldc + j], 4);
			}
		amx_epilogue_free(ep);
		free(one);
		tap_ok(!bad, "%s: u8 A: epilogue fl(2 C + bias)", what);
	}
	free(x);
	free(rs);
	free(bias);
	free(zp);
	free(a);
	free(c);
	free(c2);
	free(c0);
}

static void test_desc(int type, int form, size_t k, size_t n, size_t group,
		      const char *path)
{
	struct tb t;
	struct amx_wq_desc d;
	struct amx_wq *w = NULL;
	double *emag;
	float *b;
	char what[160];
	int ret, bad = 0;
	static const size_t ms[] = { 1, 2, 3, 5, 8, 9, 20, 33, 70 };
	/* int8 A: 70 and 263 rows widen B on AVX-512 (8-bit, 4-bit) */
	static const size_t ms8[] = { 1, 3, 8, 20, 70, 263 };

	tb_make(&t, type, form, k, n, group);
	snprintf(what, sizeof(what), "%s %s%s k %zu n %zu group %zu", path,
		 type == AMX_WQ_S8 ? "s8" : type == AMX_WQ_S4 ? "s4" : "u4",
		 form == 1 ? "+zp" : form == 2 ? "+mins" : "", k, n, group);
	d = tb_desc(&t);
	ret = amx_wq_create(&w, &d);
	if (!tap_ok(!ret, "%s: create", what)) {
		tap_diag("returned %d", ret);
		tb_free(&t);
		return;
	}
	b = malloc(k * (n + 1) * 4);
	emag = malloc(k * n * sizeof(double));
	ret = amx_wq_dequantize(w, b, n + 1);
	for (size_t kk = 0; kk < k; kk++)
		for (size_t j = 0; j < n; j++) {
			size_t g = kk / gsz(&t) * n + j;
			double q = type == AMX_WQ_S8 ? 128 : 16;

			bad += !!memcmp(&b[kk * (n + 1) + j], &t.wf[kk * n + j], 4);
			emag[kk * n + j] = t.s[g] * q + (t.mins ? fabs(t.mins[g]) : 0);
		}
	tap_ok(!ret && !bad, "%s: dequantize, bit for bit (%d differ)", what,
	       bad);
	tap_ok(amx_wq_size(w) >= k * n * (type == AMX_WQ_S8 ? 1 : 0.5),
	       "%s: size %zu bytes", what, amx_wq_size(w));
	for (size_t x = 0; x < sizeof(ms) / sizeof(ms[0]); x++)
		check_gemm(what, w, ms[x], k, n, t.wx, emag);
	for (size_t x = 0; x < sizeof(ms8) / sizeof(ms8[0]); x++)
		check_gemm_i8(what, w, ms8[x], k, n, t.ng, t.wx);
	amx_wq_free(w);
	free(b);
	free(emag);
	tb_free(&t);
}

/* ---- ggml blocks ---- */

static void put16(uint8_t *p, float f)
{
	amx_fp16 h = amx_fp32_to_fp16(f);

	memcpy(p, &h, 2);
}

static float get16(const uint8_t *p)
{
	amx_fp16 h;

	memcpy(&h, p, 2);
	return amx_fp16_to_fp32(h);
}

static void test_ggml(int gt, size_t n, size_t k, const char *path)
{
	size_t bb = gt == AMX_GGML_Q8_0 ? 34 : gt == AMX_GGML_Q4_1 ? 20 : 18;
	size_t nb = k / 32, rb = nb * bb + 7;	/* rows padded */
	uint8_t *data = malloc(n * rb);
	float *ref = malloc(k * n * 4), *b = malloc(k * n * 4);
	double *wx = malloc(k * n * sizeof(double));
	double *emag = malloc(k * n * sizeof(double));
	struct amx_wq *w = NULL;
	char what[96];
	int bad = 0, ret;

	snprintf(what, sizeof(what), "%s ggml %s n %zu k %zu", path,
		 gt == AMX_GGML_Q8_0 ? "Q8_0" : gt == AMX_GGML_Q4_1 ? "Q4_1" :
		 "Q4_0", n, k);
	for (size_t x = 0; x < n * rb; x++)
		data[x] = (uint8_t)rnd(0, 255);
	for (size_t j = 0; j < n; j++)
		for (size_t bl = 0; bl < nb; bl++) {
			uint8_t *p = data + j * rb + bl * bb;
			/* d of either sign, sometimes 0 (an all-zero block) */
			float d = bl % 7 == 3 ? 0.0f : rndf(-0.05f, 0.05f);

			put16(p, d);
			if (gt == AMX_GGML_Q4_1)
				put16(p + 2, rndf(-1.0f, 1.0f));
			for (size_t x = 0; x < 32; x++) {
				size_t kk = bl * 32 + x;
				float dd = get16(p), v;
				int q;

				if (gt == AMX_GGML_Q8_0) {
					q = (int8_t)p[2 + x];
					v = dd * (float)q;
					wx[kk * n + j] = (double)dd * q;
				} else {
					const uint8_t *qs = p + (gt == AMX_GGML_Q4_1 ? 4 : 2);

					q = x < 16 ? qs[x] & 15 : qs[x - 16] >> 4;
					if (gt == AMX_GGML_Q4_0) {
						v = (float)(q - 8) * dd;
						wx[kk * n + j] = (double)dd * (q - 8);
					} else {
						v = (float)q * dd + get16(p + 2);
						wx[kk * n + j] = (double)dd * q +
								 get16(p + 2);
					}
				}
				ref[kk * n + j] = v;
				emag[kk * n + j] = fabs(dd) * (gt == AMX_GGML_Q8_0 ?
					128 : 16) + (gt == AMX_GGML_Q4_1 ?
					fabs(get16(p + 2)) : 0);
			}
		}
	ret = amx_wq_import_ggml(&w, gt, n, k, data, rb);
	if (!tap_ok(!ret, "%s: import", what)) {
		tap_diag("returned %d", ret);
		goto out;
	}
	ret = amx_wq_dequantize(w, b, n);
	for (size_t x = 0; x < k * n; x++)
		bad += !!memcmp(&b[x], &ref[x], 4);
	tap_ok(!ret && !bad, "%s: dequantized as ggml's, bit for bit (%d differ)",
	       what, bad);
	check_gemm(what, w, 1, k, n, wx, emag);
	check_gemm(what, w, 7, k, n, wx, emag);
	check_gemm_i8(what, w, 1, k, n, k / 32, wx);
	check_gemm_i8(what, w, 9, k, n, k / 32, wx);
	amx_wq_free(w);
out:
	free(data);
	free(ref);
	free(b);
	free(wx);
	free(emag);
}

/*
 * amx_wq_quantize() against the man page's rules computed here with
 * nearbyintf(): the dequantized weights bit for bit, and |x - w| within
 * s / 2 (symmetric) or s (U4, whose z and q are rounded apart).
 */
static void test_quantize_b(int type, size_t group, size_t k, size_t n)
{
	size_t gs = group ? group : k, ldb = n + 2;
	float *b = malloc(k * ldb * 4), *d = malloc(k * n * 4);
	struct amx_wq *w = NULL;
	int bad = 0, far = 0, ret;
	int qlo = type == AMX_WQ_S8 ? -128 : type == AMX_WQ_S4 ? -8 : 0;
	int qhi = type == AMX_WQ_S8 ? 127 : type == AMX_WQ_S4 ? 7 : 15;

	for (size_t x = 0; x < k * ldb; x++)
		b[x] = rndf(-2.0f, 2.0f) + (x % 5 == 0 ? 1.5f : 0.0f);
	for (size_t kk = 0; kk < gs && n > 1; kk++)
		b[kk * ldb + 1] = 0.0f;		/* a group of zeros */
	ret = amx_wq_quantize(&w, type, (uint32_t)group, k, n, b, ldb);
	if (!tap_ok(!ret, "quantize type %d group %zu k %zu n %zu", type,
		    group, k, n))
		goto out;
	ret = amx_wq_dequantize(w, d, n);
	for (size_t g = 0; g < k / gs; g++)
		for (size_t j = 0; j < n; j++) {
			float lo = 0.0f, hi = 0.0f, s, z = 0.0f;

			for (size_t r = 0; r < gs; r++) {
				float x = b[(g * gs + r) * ldb + j];

				lo = fminf(lo, x);
				hi = fmaxf(hi, x);
			}
			s = type == AMX_WQ_U4 ? (hi - lo) / 15.0f :
			    fmaxf(-lo, hi) / (float)qhi;
			if (s == 0.0f)
				s = 1.0f;
			if (type == AMX_WQ_U4)
				z = fminf(nearbyintf(-lo / s), 15.0f);
			for (size_t r = 0; r < gs; r++) {
				size_t kk = g * gs + r;
				float x = b[kk * ldb + j];
				float q = fmaxf((float)qlo, fminf((float)qhi,
					nearbyintf(x / s) + z));
				float want = s * (q - z);

				bad += !!memcmp(&want, &d[kk * n + j], 4);
				far += !(fabsf(x - d[kk * n + j]) <=
					 s * (type == AMX_WQ_U4 ? 1.0f : 0.5f) *
					 (1 + 0x1p-20f));
			}
		}
	tap_ok(!ret && !bad && !far,
	       "quantize type %d group %zu: the man page's bits (%d differ), "
	       "within s/2 or s (%d beyond)", type, group, bad, far);
	amx_wq_free(w);
out:
	free(b);
	free(d);
}

/*
 * A B wide enough for every thread to have tasks (the pool's workers join
 * late or not at all: no panel may depend on one): 2 and 3 threads give
 * 1 thread's bits, at M = 1 (decode), 9 and 80 (widened B).
 */
static void test_threads(int type)
{
	size_t k = 256, n = 2000, ms[] = { 1, 9, 80 };
	float *b = malloc(k * n * 4), *c1 = malloc(80 * n * 4);
	float *c2 = malloc(80 * n * 4);
	amx_bf16 *a = malloc(80 * k * 2);
	struct amx_wq *w = NULL;
	int bad = 0;

	for (size_t x = 0; x < k * n; x++)
		b[x] = rndf(-1.0f, 1.0f);
	for (size_t x = 0; x < 80 * k; x++)
		a[x] = rnd_bf16();
	bad += amx_wq_quantize(&w, type, 32, k, n, b, n) != 0;
	for (size_t x = 0; !bad && x < 3; x++)
		for (unsigned int t = 2; t <= 3; t++) {
			memset(c1, 0xff, 80 * n * 4);
			memset(c2, 0xff, 80 * n * 4);
			amx_set_num_threads(1);
			bad += amx_gemm_bf16_wq(0, ms[x], a, k, w, c1, n, NULL) != 0;
			amx_set_num_threads(t);
			for (int rep = 0; rep < 5; rep++) {
				bad += amx_gemm_bf16_wq(0, ms[x], a, k, w, c2, n,
							NULL) != 0;
				bad += !!memcmp(c1, c2, ms[x] * n * 4);
			}
		}
	amx_set_num_threads(1);
	tap_ok(!bad, "type %d, n %zu: 2 and 3 threads, 1 thread's bits (%d "
	       "wrong)", type, n, bad);
	amx_wq_free(w);
	free(b);
	free(c1);
	free(c2);
	free(a);
}

/* ---- errors ---- */

static void test_errors(void)
{
	int8_t q[64 * 4] = { 0 };
	float s[4 * 2 * 4], mins[2 * 4] = { 0 }, c[4 * 4];
	uint8_t zp[2 * 4] = { 0 }, blk[4 * 36] = { 0 };
	struct amx_wq *w = NULL, *keep = (struct amx_wq *)&seed, *good = NULL;
	struct amx_wq_desc d, ok = {
		.type = AMX_WQ_U4, .group = 32, .k = 64, .n = 4, .q = q,
		.ldq = 4, .scales = s,
	};
	struct amx_epilogue_desc ed = { .n = 5 };
	struct amx_epilogue *ep = NULL;
	amx_bf16 a[2 * 64] = { 0 };
	float cs[4 * 4];
	int bad = 0, e;

	for (size_t x = 0; x < sizeof(s) / 4; x++)
		s[x] = 0.5f;
#define EXPECT(want, call) do {						\
		w = keep;						\
		e = (call);						\
		if (e != (want) || w != keep) {				\
			bad++;						\
			tap_diag("line %d: %d, want %d", __LINE__, e, want); \
		}							\
	} while (0)
	EXPECT(-EINVAL, amx_wq_create(NULL, &ok));
	EXPECT(-EINVAL, amx_wq_create(&w, NULL));
	d = ok; d.q = NULL;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.scales = NULL;	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.type = 0;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.type = 4;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.group = 16;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.k = 0;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.n = 0;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.k = 48;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.group = 128;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.ldq = 3;		EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.scales = (const float *)((const char *)s + 1);
	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.mins = (const float *)((const char *)mins + 2);
	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.type = AMX_WQ_S4; d.zp = zp;
	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.type = AMX_WQ_S8; d.mins = mins;
	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.zp = zp; d.mins = mins;
	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	d = ok; d.reserved[3] = 1;	EXPECT(-EINVAL, amx_wq_create(&w, &d));
	q[77] = 16;
	EXPECT(-ERANGE, amx_wq_create(&w, &ok));
	q[77] = -1;
	EXPECT(-ERANGE, amx_wq_create(&w, &ok));
	d = ok; d.type = AMX_WQ_S4; q[77] = 8;
	EXPECT(-ERANGE, amx_wq_create(&w, &d));
	d.type = AMX_WQ_S8; q[77] = -128;
	e = amx_wq_create(&good, &d);
	bad += e != 0;
	amx_wq_free(good);
	good = NULL;
	q[77] = 0;
	zp[5] = 16;
	d = ok; d.zp = zp;		EXPECT(-ERANGE, amx_wq_create(&w, &d));
	zp[5] = 0;
	s[6] = 0.0f;			EXPECT(-EDOM, amx_wq_create(&w, &ok));
	s[6] = -1.0f;			EXPECT(-EDOM, amx_wq_create(&w, &ok));
	s[6] = NAN;			EXPECT(-EDOM, amx_wq_create(&w, &ok));
	s[6] = INFINITY;		EXPECT(-EDOM, amx_wq_create(&w, &ok));
	s[6] = 0.5f;
	mins[1] = -INFINITY;
	d = ok; d.mins = mins;		EXPECT(-EDOM, amx_wq_create(&w, &d));
	mins[1] = 0.0f;
	d = ok; d.ldq = SIZE_MAX / 2;
	EXPECT(-EOVERFLOW, amx_wq_create(&w, &d));

	/* quantize from fp32 */
	EXPECT(-EINVAL, amx_wq_quantize(NULL, AMX_WQ_S8, 32, 64, 4, s, 4));
	EXPECT(-EINVAL, amx_wq_quantize(&w, AMX_WQ_S8, 32, 64, 4, NULL, 4));
	EXPECT(-EINVAL, amx_wq_quantize(&w, 0, 32, 64, 4, s, 4));
	EXPECT(-EINVAL, amx_wq_quantize(&w, AMX_WQ_S8, 48, 64, 4, s, 4));
	EXPECT(-EINVAL, amx_wq_quantize(&w, AMX_WQ_S8, 32, 48, 4, s, 4));
	EXPECT(-EINVAL, amx_wq_quantize(&w, AMX_WQ_S8, 32, 64, 4, s, 3));
	EXPECT(-EINVAL, amx_wq_quantize(&w, AMX_WQ_S8, 32, 0, 4, s, 4));
	EXPECT(-EOVERFLOW, amx_wq_quantize(&w, AMX_WQ_S8, 32, 64, 4, s,
					   SIZE_MAX / 8));
	{
		float big[64 * 4];

		for (size_t x = 0; x < 64 * 4; x++)
			big[x] = 1.0f;
		big[200] = NAN;
		EXPECT(-EDOM, amx_wq_quantize(&w, AMX_WQ_U4, 0, 64, 4, big, 4));
		big[200] = -INFINITY;
		EXPECT(-EDOM, amx_wq_quantize(&w, AMX_WQ_S4, 64, 64, 4, big, 4));
	}

	/* importers */
	EXPECT(-EINVAL, amx_wq_import_ggml(&w, 1, 4, 32, blk, 18));
	EXPECT(-EINVAL, amx_wq_import_ggml(&w, AMX_GGML_Q4_0, 4, 48, blk, 36));
	EXPECT(-EINVAL, amx_wq_import_ggml(&w, AMX_GGML_Q4_0, 4, 32, blk, 17));
	EXPECT(-EINVAL, amx_wq_import_ggml(&w, AMX_GGML_Q4_0, 0, 32, blk, 18));
	EXPECT(-EINVAL, amx_wq_import_ggml(&w, AMX_GGML_Q4_0, 4, 32, NULL, 18));
	EXPECT(-EINVAL, amx_wq_import_ggml(NULL, AMX_GGML_Q4_0, 4, 32, blk, 18));
	blk[18 * 2 + 1] = 0x7c;		/* d of row 2: +inf */
	EXPECT(-EDOM, amx_wq_import_ggml(&w, AMX_GGML_Q4_0, 4, 32, blk, 18));
	blk[18 * 2 + 1] = 0;
	blk[20 + 3] = 0x7e;		/* m of row 1: NaN */
	EXPECT(-EDOM, amx_wq_import_ggml(&w, AMX_GGML_Q4_1, 4, 32, blk, 20));
	blk[20 + 3] = 0;

	/* the GEMM: C untouched on every error */
	bad += amx_wq_create(&good, &ok) != 0;
	bad += amx_epilogue_create(&ep, &ed) != 0;
	for (size_t x = 0; x < 16; x++)
		cs[x] = c[x] = (float)x;
#define GEXPECT(want, call) do {					\
		e = (call);						\
		if (e != (want) || memcmp(c, cs, sizeof(c))) {		\
			bad++;						\
			tap_diag("line %d: %d, want %d", __LINE__, e, want); \
		}							\
	} while (0)
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(4, 2, a, 64, good, c, 4, NULL));
	a[70] = 0x7fc0;	/* NaN: only the quantizing form refuses it */
	GEXPECT(-EDOM, amx_gemm_bf16_wq(AMX_GEMM_QUANTIZE_A, 2, a, 64, good, c,
					4, NULL));
	a[70] = 0;
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 64, NULL, c, 4, NULL));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, NULL, 64, good, c, 4, NULL));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 64, good, NULL, 4, NULL));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 63, good, c, 4, NULL));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 64, good, c, 3, NULL));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 64, good, c, 4, ep));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 64, good,
					  (float *)(void *)a, 4, NULL));
	GEXPECT(-EINVAL, amx_gemm_bf16_wq(0, 2, a, 64,
					  (const struct amx_wq *)(void *)cs,
					  c, 4, NULL));
	GEXPECT(-EOVERFLOW, amx_gemm_bf16_wq(0, 2, a, SIZE_MAX / 4, good, c,
					     4, NULL));
	GEXPECT(0, amx_gemm_bf16_wq(0, 0, a, 64, good, c, 4, NULL));
	/* int8 A: row scales, zero points, their places */
	{
		static const int8_t a8[2 * 64];
		float rs[2] = { 1.0f, 1.0f };
		int32_t zp[2] = { 0, 255 };

		GEXPECT(0, amx_gemm_u8_wq(0, 0, (const uint8_t *)a8, 64, rs, zp,
					  good, c, 4, NULL));
		GEXPECT(-EINVAL, amx_gemm_s8_wq(2, 2, a8, 64, rs, good, c, 4,
						NULL));
		GEXPECT(-EINVAL, amx_gemm_s8_wq(0, 2, a8, 63, rs, good, c, 4,
						NULL));
		GEXPECT(-EINVAL, amx_gemm_s8_wq(0, 2, a8, 64, rs, NULL, c, 4,
						NULL));
		GEXPECT(-EINVAL, amx_gemm_s8_wq(0, 2, a8, 64, rs, good, c, 4,
						ep));
		rs[1] = 0.0f;
		GEXPECT(-EINVAL, amx_gemm_s8_wq(0, 2, a8, 64, rs, good, c, 4,
						NULL));
		rs[1] = NAN;
		GEXPECT(-EINVAL, amx_gemm_u8_wq(0, 2, (const uint8_t *)a8, 64, rs,
						zp, good, c, 4, NULL));
		rs[1] = INFINITY;
		GEXPECT(-EINVAL, amx_gemm_s8_wq(0, 2, a8, 64, rs, good, c, 4,
						NULL));
		rs[1] = 1.0f;
		zp[1] = 256;
		GEXPECT(-EINVAL, amx_gemm_u8_wq(0, 2, (const uint8_t *)a8, 64, rs,
						zp, good, c, 4, NULL));
		zp[1] = -1;
		GEXPECT(-EINVAL, amx_gemm_u8_wq(0, 2, (const uint8_t *)a8, 64, rs,
						zp, good, c, 4, NULL));
		zp[1] = 0;
		/* row scales or zero points inside C */
		GEXPECT(-EINVAL, amx_gemm_s8_wq(0, 2, a8, 64, c + 2, good, c, 4,
						NULL));
		GEXPECT(-EINVAL, amx_gemm_u8_wq(0, 2, (const uint8_t *)a8, 64, rs,
						(const int32_t *)(void *)(c + 4), good,
						c, 4, NULL));
		GEXPECT(-EOVERFLOW, amx_gemm_s8_wq(0, 2, a8, SIZE_MAX / 2, rs,
						   good, c, 4, NULL));
		/* and the valid calls go through */
		e = amx_gemm_u8_wq(0, 2, (const uint8_t *)a8, 64, rs, zp, good,
				   cs, 4, NULL);
		bad += e != 0;
		memcpy(cs, c, sizeof(cs));
	}
	e = amx_wq_dequantize(good, NULL, 4);
	bad += e != -EINVAL;
	e = amx_wq_dequantize(good, cs, 3);
	bad += e != -EINVAL;
	e = amx_wq_dequantize(NULL, cs, 4);
	bad += e != -EINVAL;
	bad += amx_wq_size(NULL) != 0;
	amx_wq_free(NULL);
	amx_wq_free(good);
	amx_epilogue_free(ep);
	tap_ok(!bad, "every error: its errno, nothing written (%d wrong)", bad);
}

int main(int argc, char **argv)
{
	static const struct { int type, form; size_t k, n, group; } cs[] = {
		{ AMX_WQ_S8, 0, 128, 50, 32 },
		{ AMX_WQ_S8, 0, 37, 17, 0 },
		{ AMX_WQ_S4, 0, 256, 33, 64 },
		{ AMX_WQ_S4, 0, 130, 16, 0 },
		{ AMX_WQ_U4, 0, 256, 20, 128 },
		{ AMX_WQ_U4, 1, 192, 47, 64 },
		{ AMX_WQ_U4, 1, 96, 64, 32 },
		{ AMX_WQ_U4, 2, 128, 31, 32 },
		{ AMX_WQ_U4, 2, 21, 1, 0 },
	};
	const char *paths[2] = { "c", "avx512" };
	struct amx_info info;

	if (amx_get_info(&info))
		tap_bail_out("amx_get_info");
	/* "amx": the AMX part alone, a skip (exit 4) without AMX */
	if (argc > 1 && !strcmp(argv[1], "amx")) {
		amx_test_request();
		setenv("AMX_FORCE_FALLBACK", "0", 1);
		test_desc(AMX_WQ_S4, 0, 256, 33, 64, "amx");
		test_desc(AMX_WQ_U4, 1, 96, 64, 32, "amx");
		test_desc(AMX_WQ_S8, 0, 128, 40, 0, "amx");
		return tap_done();
	}

	for (int path = 1; path >= 0; path--) {
		if (path == 1 && !(info.cpu & AMX_CPU_AVX512_BF16)) {
			tap_skip("no AVX-512 BF16 here", "the avx512 path");
			continue;
		}
		setenv("AMX_FORCE_FALLBACK", path ? "1" : "c", 1);
		for (size_t x = 0; x < sizeof(cs) / sizeof(cs[0]); x++)
			test_desc(cs[x].type, cs[x].form, cs[x].k, cs[x].n,
				  cs[x].group, paths[path]);
		test_ggml(AMX_GGML_Q4_0, 40, 96, paths[path]);
		test_ggml(AMX_GGML_Q4_1, 33, 64, paths[path]);
		test_ggml(AMX_GGML_Q8_0, 18, 128, paths[path]);
	}
	setenv("AMX_FORCE_FALLBACK", "0", 1);
	test_quantize_b(AMX_WQ_S8, 32, 128, 19);
	test_quantize_b(AMX_WQ_S4, 64, 192, 33);
	test_quantize_b(AMX_WQ_U4, 128, 256, 16);
	test_quantize_b(AMX_WQ_U4, 0, 45, 7);
	test_threads(AMX_WQ_U4);
	test_threads(AMX_WQ_S8);
	/* AMX: "test_wq amx" (wq.amx, under amx-run and in the guest) */
	test_errors();
	return tap_done();
}
