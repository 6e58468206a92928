// SPDX-License-Identifier: MIT
/*
 * The fused epilogue (amx_gemm_*_ep(), amx_epilogue_create()):
 * - every op, plain and packed B, every activation, fp32 and bf16 output,
 *   with and without accumulate, row scales, column scales, bias and (u8s8)
 *   zero points, on shapes with ragged edges, one and several K blocks,
 *   one and all threads: against the same backend's plain GEMM (the same
 *   kernels, so the same accumulators) followed by the epilogue computed
 *   here in double with libm, within the bound amx_gemm_bf16_ep(3) states;
 * - the zero-point correction exact (an int64 oracle of the u8 product);
 * - int8 results bit-identical between the AVX-512 and the C epilogue;
 * - K = 0, and every bad input refused with its errno and C untouched.
 *
 *   test_gemm_epilogue fallback   AVX-512 and portable C backends
 *   test_gemm_epilogue amx        AMX (skips without it)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <amx.h>

#include "amx_test.h"

enum { OP_BF16, OP_F16, OP_S8S8, OP_U8S8, NOPS };
static const char *const op_name[NOPS] = { "bf16", "f16", "s8s8", "u8s8" };
static const char *const act_name[] = { "none", "relu", "gelu_tanh",
					"gelu_erf", "silu" };

/*
 * The activations' bound (amx_gemm_bf16_ep(3)): 4 ulp of the result
 * plus 4 * 2^-24 of the argument's magnitude (GELU and SiLU tend to 0
 * where the argument is large and negative: there the second term).
 */
#define ACT_ULP	(4 * 0x1p-23)
#define ACT_ARG	(4 * 0x1p-24)

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static double worst;		/* largest error / bound seen */

static uint32_t rnd(void)
{
	return (uint32_t)(amx_test_rand(&seed) >> 32);
}

/* uniform in [-1, 1) */
static float frnd(void)
{
	return (float)((double)rnd() / 2147483648.0 - 1.0);
}

static size_t esz(int op)
{
	return op <= OP_F16 ? 2 : 1;
}

/* A (m x k) and B (k x n) with small values, in the op's types */
static void fill(int op, void *p, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		float f = frnd() * 4.0f;

		if (op == OP_BF16)
			((uint16_t *)p)[i] = amx_fp32_to_bf16(f);
		else if (op == OP_F16)
			((uint16_t *)p)[i] = amx_fp32_to_fp16(f);
		else
			((uint8_t *)p)[i] = (uint8_t)rnd();
	}
}

static double act_ref(int act, double v)
{
	switch (act) {
	case AMX_ACT_RELU:
		return v > 0 ? v : 0;
	case AMX_ACT_GELU_TANH:
		/* not 1 + tanh(): it cancels to nothing for v < -6 */
		return v / (1 + exp(-2 * sqrt(2 / M_PI) *
				    (v + 0.044715 * v * v * v)));
	case AMX_ACT_GELU_ERF:
		return v / 2 * erfc(-v / sqrt(2));
	case AMX_ACT_SILU:
		return v / (1 + exp(-v));
	}
	return v;
}

/*
 * Each activation on every normal bf16 value of magnitude below 200 (and
 * 0, +-inf, NaN): C = 1 x B through amx_gemm_bf16_ep(), so v is exactly
 * B's element; against libm in double within ACT_ULP and ACT_ARG.
 */
static void activations(const char *what)
{
	amx_bf16 one = amx_fp32_to_bf16(1.0f), *b = malloc(65536 * 2);
	float *c = malloc(65536 * 4);
	size_t n = 0;

	for (uint32_t h = 0; h < 65536; h++) {
		float f = amx_bf16_to_fp32((amx_bf16)h);

		if ((fabsf(f) < 200 && (f == 0 || fabsf(f) >= 0x1p-126f)) ||
		    isinf(f) || h == 0x7fc0)
			b[n++] = (amx_bf16)h;
	}
	for (int act = 0; act <= AMX_ACT_SILU; act++) {
		struct amx_epilogue_desc d = { .n = n, .act = act };
		struct amx_epilogue *ep;
		double most = 0;
		int bad = 0;

		if (amx_epilogue_create(&ep, &d) ||
		    amx_gemm_bf16_ep(0, 1, n, 1, &one, 1, b, n, c, n, ep, NULL,
				     NULL))
			tap_bail_out("activation sweep: a call failed");
		for (size_t j = 0; j < n; j++) {
			double x = amx_bf16_to_fp32(b[j]), r = act_ref(act, x);
			double e = fabs(c[j] - r);
			double bound = ACT_ULP * fabs(r) + ACT_ARG * fabs(x);

			if (isnan(x) || isinf(x)) {
				/* NaN stays NaN; +inf -> +inf (relu, gelu, silu), -inf -> 0 */
				int ok = isnan(x) ? isnan(c[j]) :
					 act == AMX_ACT_NONE ? c[j] == x :
					 x > 0 ? c[j] == x : c[j] == 0;

				if (!ok && bad++ < 3)
					tap_diag("%s(%g) = %g", act_name[act], x, c[j]);
				continue;
			}
			if (!(e <= bound) && bad++ < 3)
				tap_diag("%s(%.9g) = %.9g, want %.9g", act_name[act],
					 x, c[j], r);
			if (x != 0 && e / bound > most)
				most = e / bound;
		}
		tap_ok(!bad, "%s: %s on %zu bf16 values within 4 ulp + 4 |v| 2^-24 (largest %.2f of it)",
		       what, act_name[act], n, most);
		amx_epilogue_free(ep);
	}
	free(b);
	free(c);
}

static int gemm_plain(int op, int packed, size_t m, size_t n, size_t k,
		      const void *a, const void *b, const struct amx_packed_b *pb,
		      void *c)
{
	switch (op) {
	case OP_BF16:
		return packed ? amx_gemm_bf16_packed(0, m, a, k, pb, c, n) :
				amx_gemm_bf16(0, m, n, k, a, k, b, n, c, n);
	case OP_F16:
		return packed ? amx_gemm_f16_packed(0, m, a, k, pb, c, n) :
				amx_gemm_f16(0, m, n, k, a, k, b, n, c, n);
	case OP_S8S8:
		return packed ? amx_gemm_s8s8_packed(0, m, a, k, pb, c, n) :
				amx_gemm_s8s8(0, m, n, k, a, k, b, n, c, n);
	default:
		return packed ? amx_gemm_u8s8_packed(0, m, a, k, pb, c, n) :
				amx_gemm_u8s8(0, m, n, k, a, k, b, n, c, n);
	}
}

static int gemm_ep(int op, int packed, unsigned int flags, size_t m, size_t n,
		   size_t k, const void *a, size_t lda, const void *b,
		   const struct amx_packed_b *pb, void *c, size_t ldc,
		   const struct amx_epilogue *ep, const float *rs,
		   const int32_t *zp)
{
	switch (op) {
	case OP_BF16:
		return packed ?
		       amx_gemm_bf16_packed_ep(flags, m, a, lda, pb, c, ldc, ep,
					       rs, zp) :
		       amx_gemm_bf16_ep(flags, m, n, k, a, lda, b, n, c, ldc,
					ep, rs, zp);
	case OP_F16:
		return packed ?
		       amx_gemm_f16_packed_ep(flags, m, a, lda, pb, c, ldc, ep,
					      rs, zp) :
		       amx_gemm_f16_ep(flags, m, n, k, a, lda, b, n, c, ldc, ep,
				       rs, zp);
	case OP_S8S8:
		return packed ?
		       amx_gemm_s8s8_packed_ep(flags, m, a, lda, pb, c, ldc, ep,
					       rs, zp) :
		       amx_gemm_s8s8_ep(flags, m, n, k, a, lda, b, n, c, ldc,
					ep, rs, zp);
	default:
		return packed ?
		       amx_gemm_u8s8_packed_ep(flags, m, a, lda, pb, c, ldc, ep,
					       rs, zp) :
		       amx_gemm_u8s8_ep(flags, m, n, k, a, lda, b, n, c, ldc,
					ep, rs, zp);
	}
}

struct cfg {
	int op, packed, act, out, acc, cols, bias, rows, zp;
};

/*
 * One call against the oracle.  Returns the number of elements out of
 * bound (0 passes).  @bits, when not NULL, receives C's bytes.
 */
static int check_one(const struct cfg *g, size_t m, size_t n, size_t k,
		     uint8_t *bits)
{
	size_t ldc = n + 3, osz = g->out == AMX_OUT_BF16 ? 2 : 4;
	void *a = malloc(m * k * esz(g->op) + 1);
	void *b = malloc(k * n * esz(g->op) + 1);
	void *plain = malloc(m * n * 4 + 4);
	uint8_t *c = malloc(m * ldc * osz + 4), *old = malloc(m * ldc * osz + 4);
	float *col = malloc(n * 4), *bias = malloc(n * 4), *rs = malloc(m * 4);
	int32_t *zp = malloc(m * 4);
	struct amx_epilogue *ep = NULL;
	struct amx_packed_b *pb = NULL;
	struct amx_epilogue_desc d = {
		.n = n, .scale = 0.5f, .act = g->act, .out = g->out,
	};
	int bad = 0, ret;

	fill(g->op, a, m * k);
	fill(g->op, b, k * n);
	for (size_t j = 0; j < n; j++) {
		col[j] = 0.01f + (float)(rnd() % 1000) / 1000.0f;
		bias[j] = frnd() * 3.0f;
	}
	for (size_t i = 0; i < m; i++) {
		rs[i] = g->op >= OP_S8S8 ? 2e-5f + (float)(rnd() % 100) * 4e-6f :
			0.25f + (float)(rnd() % 100) / 100.0f;
		zp[i] = (int32_t)(rnd() % 256);
	}
	for (size_t i = 0; i < m * ldc * osz; i++)
		old[i] = (uint8_t)rnd();
	/* old C: finite values in both types */
	for (size_t i = 0; i < m * ldc; i++) {
		float f = frnd() * 2.0f;

		if (osz == 4)
			memcpy(old + i * 4, &f, 4);
		else {
			uint16_t h = amx_fp32_to_bf16(f);

			memcpy(old + i * 2, &h, 2);
		}
	}
	memcpy(c, old, m * ldc * osz);
	d.col_scale = g->cols ? col : NULL;
	d.bias = g->bias ? bias : NULL;
	if (amx_epilogue_create(&ep, &d))
		tap_bail_out("amx_epilogue_create refused a good description");
	if (g->packed && amx_packed_b_create(&pb, g->op == OP_BF16 ? AMX_GEMM_BF16 :
					     g->op == OP_F16 ? AMX_GEMM_F16 :
					     AMX_GEMM_S8, k, n, b, n))
		tap_bail_out("amx_packed_b_create failed");
	if (gemm_plain(g->op, g->packed, m, n, k, a, b, pb, plain))
		tap_bail_out("plain GEMM failed");
	ret = gemm_ep(g->op, g->packed, g->acc ? AMX_GEMM_ACCUMULATE : 0, m, n,
		      k, a, k, b, pb, c, ldc, ep, g->rows ? rs : NULL,
		      g->zp ? zp : NULL);
	if (ret) {
		tap_diag("ep call returned %d", ret);
		bad = 1;
		goto out;
	}
	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < n; j++) {
			double v, scaled, ref, got, o = 0, bound;
			float w = g->cols ? 0.5f * col[j] : 0.5f;

			if (g->op >= OP_S8S8) {
				int64_t acc = ((int32_t *)plain)[i * n + j];

				if (g->zp) {	/* exact, from the operands */
					int64_t s = 0, e = 0;

					for (size_t p = 0; p < k; p++) {
						s += ((int8_t *)b)[p * n + j];
						e += (int64_t)((uint8_t *)a)[i * k + p] *
						     ((int8_t *)b)[p * n + j];
					}
					if (e != acc)
						tap_bail_out("u8s8 plain product wrong");
					acc -= (int64_t)zp[i] * s;
				}
				v = (double)acc;
			} else {
				v = ((float *)plain)[i * n + j];
			}
			scaled = v * (g->rows ? rs[i] : 1.0f) * w;
			ref = scaled + (g->bias ? bias[j] : 0);
			bound = 4e-7 * (fabs(scaled) + (g->bias ? fabs(bias[j]) : 0));
			if (g->act >= AMX_ACT_GELU_TANH)
				bound = 1.5 * bound + ACT_ARG * fabs(ref);
			ref = act_ref(g->act, ref);
			if (g->act >= AMX_ACT_GELU_TANH)
				bound += ACT_ULP * fabs(ref) + 1e-37;
			if (g->acc) {
				if (osz == 4)
					o = ((float *)(void *)old)[i * ldc + j];
				else
					o = amx_test_bf2f(((uint16_t *)(void *)old)[i * ldc + j]);
				ref += o;
				bound += 6e-8 * (fabs(ref) + fabs(o));
			}
			if (osz == 4) {
				got = ((float *)(void *)c)[i * ldc + j];
			} else {
				got = amx_test_bf2f(((uint16_t *)(void *)c)[i * ldc + j]);
				bound += fabs(ref) / 256;
			}
			if (!(fabs(got - ref) <= bound)) {
				if (bad++ < 3)
					tap_diag("C[%zu][%zu] = %.9g, want %.9g (bound %.3g, v %.9g)",
						 i, j, got, ref, bound, v);
			} else if (bound > 0 && fabs(got - ref) / bound > worst) {
				worst = fabs(got - ref) / bound;
			}
		}
		/* the columns past n untouched */
		if (memcmp(c + (i * ldc + n) * osz, old + (i * ldc + n) * osz,
			   (ldc - n) * osz) && bad++ < 3)
			tap_diag("row %zu: written past column n", i);
	}
	if (bits)
		memcpy(bits, c, m * ldc * osz);
out:
	amx_epilogue_free(ep);
	amx_packed_b_free(pb);
	free(a);
	free(b);
	free(plain);
	free(c);
	free(old);
	free(col);
	free(bias);
	free(rs);
	free(zp);
	return bad;
}

static const size_t shapes[][3] = {
	{ 1, 1, 1 }, { 1, 37, 64 }, { 3, 100, 130 }, { 13, 33, 77 },
	{ 33, 64, 200 }, { 40, 70, 1100 },
};

/* the whole grid on the backend in force */
static void grid(const char *what)
{
	for (int op = 0; op < NOPS; op++) {
		int bad = 0, calls = 0;

		for (int act = 0; act <= AMX_ACT_SILU; act++)
			for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
				for (int v = 0; v < 4; v++) {
					struct cfg g = {
						.op = op, .act = act,
						.packed = (s + v) & 1,
						.out = v & 1, .acc = v >> 1,
						.cols = (s + act) & 1,
						.bias = !((s + v + act) & 1) || v == 3,
						.rows = v != 2,
						.zp = op == OP_U8S8 && (v + s) % 3,
					};

					bad += check_one(&g, shapes[s][0],
							 shapes[s][1],
							 shapes[s][2], NULL) != 0;
					calls++;
				}
		tap_ok(!bad, "%s %s: %d calls (5 activations, fp32/bf16, accumulate, scales, bias%s), %d wrong",
		       what, op_name[op], calls,
		       op == OP_U8S8 ? ", zero points" : "", bad);
	}
}

/* several K blocks (kc = 64 elements) and threads */
static void grid_kblocks(const char *what, enum amx_gemm_backend be)
{
	static const enum amx_gemm_op gops[NOPS] = {
		AMX_GEMM_OP_BF16, AMX_GEMM_OP_F16, AMX_GEMM_OP_S8S8,
		AMX_GEMM_OP_U8S8 };
	struct amx_gemm_blocking saved[NOPS], bl;
	int bad = 0;

	for (int op = 0; op < NOPS; op++) {
		amx_gemm_get_blocking(be, gops[op], &saved[op]);
		bl = saved[op];
		bl.kc = 64;
		bl.nc = 64;
		bl.source = 0;
		if (amx_gemm_set_blocking(be, gops[op], &bl))
			tap_bail_out("amx_gemm_set_blocking");
	}
	for (int op = 0; op < NOPS; op++)
		for (int v = 0; v < 8; v++) {
			struct cfg g = {
				.op = op, .act = v % 5, .packed = v & 1,
				.out = (v >> 1) & 1, .acc = v >> 2, .cols = 1,
				.bias = 1, .rows = 1, .zp = op == OP_U8S8,
			};

			bad += check_one(&g, 70 + v, 150, 300 + v, NULL) != 0;
		}
	for (int op = 0; op < NOPS; op++)
		amx_gemm_set_blocking(be, gops[op], NULL);
	tap_ok(!bad, "%s: several K and N blocks (kc 64, nc 64), every op: %d wrong",
	       what, bad);
}

/* int8: the AVX-512 and the C epilogue give the same bits */
static void same_bits(void)
{
	size_t m = 9, n = 70, k = 90, sz = m * (n + 3) * 4;
	uint8_t *x = malloc(sz), *y = malloc(sz);
	int diff = 0;

	for (int act = 0; act <= AMX_ACT_SILU; act++)
		for (int out = 0; out < 2; out++) {
			struct cfg g = { .op = OP_U8S8, .act = act, .out = out,
					 .cols = 1, .bias = 1, .rows = 1,
					 .zp = 1 };
			uint64_t s0 = seed;

			setenv("AMX_FORCE_FALLBACK", "1", 1);
			check_one(&g, m, n, k, x);
			seed = s0;
			setenv("AMX_FORCE_FALLBACK", "c", 1);
			check_one(&g, m, n, k, y);
			diff += memcmp(x, y, m * (n + 3) * (out ? 2 : 4)) != 0;
		}
	setenv("AMX_FORCE_FALLBACK", "1", 1);
	tap_ok(!diff, "u8s8: AVX-512 and C epilogues give the same bits (%d of 10 differ)",
	       diff);
	free(x);
	free(y);
}

/* K = 0: C is the epilogue of zeros */
static void zero_k(void)
{
	float col[5] = { 1, 2, 3, 4, 5 }, bias[5] = { -2, -1, 0, 1, 2 };
	float c[2 * 5], rs[2] = { 1, 1 };
	struct amx_epilogue_desc d = { .n = 5, .col_scale = col, .bias = bias,
				       .act = AMX_ACT_RELU };
	struct amx_epilogue *ep;
	int ok = 1;

	if (amx_epilogue_create(&ep, &d))
		tap_bail_out("create");
	for (int i = 0; i < 10; i++)
		c[i] = 100;
	ok = !amx_gemm_u8s8_ep(AMX_GEMM_ACCUMULATE, 2, 5, 0, NULL, 0, NULL, 5,
			       c, 5, ep, rs, NULL);
	for (int i = 0; i < 10; i++)
		ok &= c[i] == 100 + (bias[i % 5] > 0 ? bias[i % 5] : 0);
	ok &= !amx_gemm_bf16_ep(0, 2, 5, 0, NULL, 0, NULL, 5, c, 5, ep, NULL,
				NULL);
	for (int i = 0; i < 10; i++)
		ok &= c[i] == (bias[i % 5] > 0 ? bias[i % 5] : 0);
	amx_epilogue_free(ep);
	tap_ok(ok, "K = 0: relu(bias), and accumulated onto C");
}

static void errors(void)
{
	float col[4] = { 1, 1, 1, 1 }, bias[4] = { 0 }, rs[2] = { 1, 1 };
	float c[2 * 4], canary[2 * 4];
	uint16_t a[2 * 8] = { 0 }, b[8 * 4] = { 0 };
	int32_t zp[2] = { 0, 0 };
	struct amx_epilogue_desc d = { .n = 4, .col_scale = col, .bias = bias };
	struct amx_epilogue *ep = NULL, *e2 = (struct amx_epilogue *)&d;
	int ok = 1;

	/* descriptions */
	ok &= amx_epilogue_create(NULL, &d) == -EINVAL;
	ok &= amx_epilogue_create(&e2, NULL) == -EINVAL &&
	      e2 == (struct amx_epilogue *)&d;
	d.n = 0;
	ok &= amx_epilogue_create(&e2, &d) == -EINVAL;
	d.n = 4;
	d.act = 5;
	ok &= amx_epilogue_create(&e2, &d) == -EINVAL;
	d.act = 0;
	d.out = 2;
	ok &= amx_epilogue_create(&e2, &d) == -EINVAL;
	d.out = 0;
	d.reserved[5] = 1;
	ok &= amx_epilogue_create(&e2, &d) == -EINVAL;
	d.reserved[5] = 0;
	for (int v = 0; v < 4; v++) {
		float bad[4] = { 0.0f, -1.0f, NAN, INFINITY };

		d.scale = bad[v];
		ok &= amx_epilogue_create(&e2, &d) == (v ? -EINVAL : 0);
		if (!v)
			amx_epilogue_free(e2);
		e2 = (struct amx_epilogue *)&d;
		d.scale = 0;
		col[2] = bad[v];
		ok &= amx_epilogue_create(&e2, &d) == -EINVAL;
		col[2] = 1;
		bias[3] = v >= 2 ? bad[v] : 0;
		ok &= amx_epilogue_create(&e2, &d) == (v >= 2 ? -EINVAL : 0);
		if (v < 2)
			amx_epilogue_free(e2);
		e2 = (struct amx_epilogue *)&d;
		bias[3] = 0;
	}
	tap_ok(ok, "amx_epilogue_create: NULL, n 0, unknown act/out, reserved, bad scales and biases: -EINVAL, *ep kept");

	if (amx_epilogue_create(&ep, &d))
		tap_bail_out("create");
	for (int i = 0; i < 8; i++)
		canary[i] = c[i] = 42.0f + i;
	ok = amx_gemm_bf16_ep(0, 2, 4, 8, a, 8, b, 4, c, 4, NULL, NULL, NULL) == -EINVAL;
	ok &= amx_gemm_bf16_ep(0, 2, 3, 8, a, 8, b, 4, c, 4, ep, NULL, NULL) == -EINVAL;
	ok &= amx_gemm_bf16_ep(0, 2, 4, 8, a, 8, b, 4, c, 4, ep, NULL, zp) == -EINVAL;
	ok &= amx_gemm_s8s8_ep(0, 2, 4, 8, (int8_t *)a, 8, (int8_t *)b, 4, c, 4,
			       ep, NULL, zp) == -EINVAL;
	ok &= amx_gemm_bf16_ep(4, 2, 4, 8, a, 8, b, 4, c, 4, ep, NULL, NULL) == -EINVAL;
	for (int v = 0; v < 4; v++) {
		float bad[4] = { 0.0f, -1.0f, NAN, INFINITY };

		rs[1] = bad[v];
		ok &= amx_gemm_bf16_ep(0, 2, 4, 8, a, 8, b, 4, c, 4, ep, rs,
				       NULL) == -EINVAL;
	}
	rs[1] = 1;
	/* C over the row scales or zero points */
	ok &= amx_gemm_u8s8_ep(0, 2, 4, 8, (uint8_t *)a, 8, (int8_t *)b, 4, c, 4,
			       ep, c + 6, NULL) == -EINVAL;
	ok &= amx_gemm_u8s8_ep(0, 2, 4, 8, (uint8_t *)a, 8, (int8_t *)b, 4, c, 4,
			       ep, NULL, (int32_t *)(void *)(c + 1)) == -EINVAL;
	ok &= amx_gemm_bf16_packed_ep(0, 2, a, 8, NULL, c, 4, ep, NULL, NULL) == -EINVAL;
	ok &= !memcmp(c, canary, sizeof(c));
	tap_ok(ok, "GEMM: NULL ep, n not ep's, zero points off u8s8, unknown flags, bad row scales, C over scales or zero points: -EINVAL, C untouched");
	amx_epilogue_free(ep);
	amx_epilogue_free(NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "amx")) {
		unsetenv("AMX_FORCE_FALLBACK");
		setenv("AMX_GEMM_BLOCKS", "amx:*:small=0", 1);
		amx_test_request();
		if (amx_gemm_backend(AMX_GEMM_BF16) != AMX_GEMM_BACKEND_AMX)
			tap_bail_out("backend is not AMX after amx_request()");
		for (int th = 0; th < 2; th++) {
			amx_set_num_threads(th ? 0 : 1);
			grid(th ? "amx all thr" : "amx 1 thr");
		}
		grid_kblocks("amx", AMX_GEMM_BACKEND_AMX);
		activations("amx");
	} else if (!strcmp(mode, "fallback")) {
		setenv("AMX_FORCE_FALLBACK", "1", 1);
		for (int th = 0; th < 2; th++) {
			amx_set_num_threads(th ? 0 : 1);
			if (amx_gemm_backend(AMX_GEMM_S8) == AMX_GEMM_BACKEND_AVX512) {
				grid(th ? "avx512 all thr" : "avx512 1 thr");
				if (!th) {
					grid_kblocks("avx512", AMX_GEMM_BACKEND_AVX512);
					activations("avx512");
				}
			} else {
				tap_skip("no AVX-512 here", "avx512 grid");
			}
		}
		if (amx_gemm_backend(AMX_GEMM_S8) == AMX_GEMM_BACKEND_AVX512)
			same_bits();
		setenv("AMX_FORCE_FALLBACK", "c", 1);
		amx_set_num_threads(0);
		grid("c all thr");
		grid_kblocks("c", AMX_GEMM_BACKEND_C);
		activations("c");
		zero_k();
		errors();
	} else {
		tap_bail_out("usage: test_gemm_epilogue fallback|amx");
	}
	tap_diag("largest error seen: %.2f of the bound", worst);
	return tap_done();
}
