// SPDX-License-Identifier: MIT
/*
 * A transformer's feed-forward block with 4-bit weights:
 *
 *   y = (SiLU(x Wg) * (x Wu)) Wd
 *
 * x holds M tokens of d values (bf16), Wg and Wu are d x f, Wd f x d.
 * The fp32 weights are quantized once at start-up with
 * amx_wq_quantize() (int4 with zero points, groups of 32 rows by
 * default), then every forward pass is three GEMMs: the gate with SiLU
 * fused as its epilogue, the up projection, and the down projection of
 * their product.  With --act bf16 (the default) the activations are
 * bf16 (amx_gemm_bf16_wq()); with --act i8 each token is quantized to
 * int8 with one scale (amx_quantize_bf16_s8(), amx_quantize_s8()) and
 * multiplied as integers (amx_gemm_s8_wq()), its scale applied by the
 * GEMM (the gate's epilogue takes it as the row scale).
 *
 * Checked against the same computation in fp32 loops over the weights as
 * quantized (amx_wq_dequantize()): max |y - ref| within 1 % of max |ref|
 * (the GEMMs sum in fp32 in another order; h's rounding to bf16 may
 * differ by an ulp); with --act i8, within 5 % (the reference keeps
 * the activations unquantized: that 8-bit rounding is the difference).  The quantization's own error, against the fp32
 * weights, is printed for information.  Then timed: a decode step (M = 1)
 * as tokens per second, and a prompt (M = 512 by default) as tokens per
 * second.
 *
 *   ffn [--dims DxF] [--type s8|s4|u4] [--group G] [--act bf16|i8]
 *       [--prompt M] [--reps R]
 *
 * The default 256 x 768 checks in well under a second (the test); a
 * 7B model's block is --dims 4096x11008.  The group must divide d and f.
 * Exit 0 pass, 1 fail, 2 usage.
 */
#include <amx.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t seed = 0x853c49e6748fea9bull;

static float rnd(void)	/* uniform in [-1, 1) */
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return (float)((seed * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xmalloc(size_t bytes)
{
	void *p = malloc(bytes);

	if (!p) {
		fprintf(stderr, "ffn: out of memory\n");
		exit(1);
	}
	return p;
}

struct ffn {
	size_t d, f;
	int i8;			/* int8 activations */
	struct amx_wq *wg, *wu, *wd;
	struct amx_epilogue *silu;
	float *g, *u;		/* [m][f] */
	amx_bf16 *h;		/* [m][f] */
	int8_t *q;		/* [m][max(d, f)] int8 activations */
	float *qs;		/* [m] their scales */
	float *hf;		/* [m][f] h in fp32, to quantize */
};

static int check(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "ffn: %s: %s\n", what, strerror(-ret));
		exit(1);
	}
	return 0;
}

/* y[m][d] = (SiLU(x Wg) * (x Wu)) Wd */
static void forward(struct ffn *b, size_t m, const amx_bf16 *x, float *y)
{
	if (b->i8) {
		check(amx_quantize_bf16_s8(m, b->d, x, b->d, b->q, b->d, b->qs),
		      "quantize x");
		check(amx_gemm_s8_wq(0, m, b->q, b->d, b->qs, b->wg, b->g, b->f,
				     b->silu), "gate");
		check(amx_gemm_s8_wq(0, m, b->q, b->d, b->qs, b->wu, b->u, b->f,
				     NULL), "up");
		for (size_t i = 0; i < m * b->f; i++)
			b->hf[i] = b->g[i] * b->u[i];
		check(amx_quantize_s8(m, b->f, b->hf, b->f, b->q, b->f, b->qs),
		      "quantize h");
		check(amx_gemm_s8_wq(0, m, b->q, b->f, b->qs, b->wd, y, b->d,
				     NULL), "down");
		return;
	}
	check(amx_gemm_bf16_wq(0, m, x, b->d, b->wg, b->g, b->f, b->silu),
	      "gate");
	check(amx_gemm_bf16_wq(0, m, x, b->d, b->wu, b->u, b->f, NULL), "up");
	for (size_t i = 0; i < m * b->f; i++)
		b->h[i] = amx_fp32_to_bf16(b->g[i] * b->u[i]);
	check(amx_gemm_bf16_wq(0, m, b->h, b->f, b->wd, y, b->d, NULL), "down");
}

static float silu(float v)
{
	return v / (1.0f + expf(-v));
}

/* the same in fp32 loops over weights @wg, @wu, @wd (k x n row-major) */
static void reference(size_t m, size_t d, size_t f, const amx_bf16 *x,
		      const float *wg, const float *wu, const float *wd,
		      float *y)
{
	float *g = xmalloc(f * 4), *u = xmalloc(f * 4), *h = xmalloc(f * 4);

	for (size_t i = 0; i < m; i++) {
		for (size_t j = 0; j < f; j++)
			g[j] = u[j] = 0.0f;
		for (size_t k = 0; k < d; k++) {
			float a = amx_bf16_to_fp32(x[i * d + k]);

			for (size_t j = 0; j < f; j++) {
				g[j] += a * wg[k * f + j];
				u[j] += a * wu[k * f + j];
			}
		}
		for (size_t j = 0; j < f; j++)
			h[j] = amx_bf16_to_fp32(amx_fp32_to_bf16(silu(g[j]) * u[j]));
		for (size_t j = 0; j < d; j++)
			y[i * d + j] = 0.0f;
		for (size_t k = 0; k < f; k++)
			for (size_t j = 0; j < d; j++)
				y[i * d + j] += h[k] * wd[k * d + j];
	}
	free(g);
	free(u);
	free(h);
}

static double max_abs_diff(const float *a, const float *b, size_t n,
			   double *amax)
{
	double worst = 0.0;

	*amax = 0.0;
	for (size_t i = 0; i < n; i++) {
		double e = fabs((double)a[i] - b[i]);

		worst = e > worst ? e : worst;
		*amax = fabs(b[i]) > *amax ? fabs(b[i]) : *amax;
	}
	return worst;
}

static void usage(void)
{
	fprintf(stderr, "usage: ffn [--dims DxF] [--type s8|s4|u4] [--group G] "
		"[--act bf16|i8] [--prompt M] [--reps R]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t d = 256, f = 768, prompt = 512, group = 32, mcheck = 3;
	int reps = 3, type = AMX_WQ_U4;
	struct ffn b = { 0 };
	struct amx_epilogue_desc ed = { .act = AMX_ACT_SILU };
	float *wg, *wu, *wd, *qg, *qu, *qd, *y, *ref;
	amx_bf16 *x;
	double err, amax, t1 = 1e30, tp = 1e30;
	int ok;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (!strcmp(argv[i], "--dims")) {
			if (sscanf(v, "%zux%zu", &d, &f) != 2 || !d || !f)
				usage();
		} else if (!strcmp(argv[i], "--type")) {
			type = !strcmp(v, "s8") ? AMX_WQ_S8 :
			       !strcmp(v, "s4") ? AMX_WQ_S4 :
			       !strcmp(v, "u4") ? AMX_WQ_U4 : 0;
			if (!type)
				usage();
		} else if (!strcmp(argv[i], "--act")) {
			if (strcmp(v, "bf16") && strcmp(v, "i8"))
				usage();
			b.i8 = !strcmp(v, "i8");
		} else if (!strcmp(argv[i], "--group")) {
			group = strtoul(v, NULL, 10);
		} else if (!strcmp(argv[i], "--prompt")) {
			prompt = strtoul(v, NULL, 10);
			if (!prompt)
				usage();
		} else if (!strcmp(argv[i], "--reps")) {
			reps = atoi(v);
			if (reps < 1)
				usage();
		} else {
			usage();
		}
		i++;
	}
	/* at library init: AMX where the kernel grants it (not needed here) */
	amx_request();

	wg = xmalloc(d * f * 4);
	wu = xmalloc(d * f * 4);
	wd = xmalloc(f * d * 4);
	for (size_t i = 0; i < d * f; i++) {
		wg[i] = rnd() / sqrtf((float)d);
		wu[i] = rnd() / sqrtf((float)d);
		wd[i] = rnd() / sqrtf((float)f);
	}
	check(amx_wq_quantize(&b.wg, type, (uint32_t)group, d, f, wg, f),
	      "quantize Wg");
	check(amx_wq_quantize(&b.wu, type, (uint32_t)group, d, f, wu, f),
	      "quantize Wu");
	check(amx_wq_quantize(&b.wd, type, (uint32_t)group, f, d, wd, d),
	      "quantize Wd");
	ed.n = f;
	check(amx_epilogue_create(&b.silu, &ed), "epilogue");
	b.d = d;
	b.f = f;
	b.g = xmalloc(prompt * f * 4);
	b.u = xmalloc(prompt * f * 4);
	b.h = xmalloc(prompt * f * 2);
	b.q = xmalloc(prompt * (d > f ? d : f));
	b.qs = xmalloc(prompt * 4);
	b.hf = xmalloc(prompt * f * 4);
	x = xmalloc(prompt * d * 2);
	y = xmalloc(prompt * d * 4);
	ref = xmalloc(mcheck * d * 4);
	for (size_t i = 0; i < prompt * d; i++)
		x[i] = amx_fp32_to_bf16(rnd());

	printf("ffn: d %zu, f %zu, %s weights, groups of %zu, %s "
	       "activations: %.1f MB (bf16: %.1f MB)\n", d, f,
	       type == AMX_WQ_S8 ? "int8" :
	       type == AMX_WQ_S4 ? "int4" : "int4 + zero point",
	       group ? group : d, b.i8 ? "int8" : "bf16",
	       (amx_wq_size(b.wg) + amx_wq_size(b.wu) +
				  amx_wq_size(b.wd)) / 1e6, 3.0 * d * f * 2 / 1e6);

	/* correctness on the first tokens, against the quantized weights */
	qg = xmalloc(d * f * 4);
	qu = xmalloc(d * f * 4);
	qd = xmalloc(f * d * 4);
	check(amx_wq_dequantize(b.wg, qg, f), "dequantize");
	check(amx_wq_dequantize(b.wu, qu, f), "dequantize");
	check(amx_wq_dequantize(b.wd, qd, d), "dequantize");
	if (mcheck > prompt)
		mcheck = prompt;
	forward(&b, mcheck, x, y);
	reference(mcheck, d, f, x, qg, qu, qd, ref);
	err = max_abs_diff(y, ref, mcheck * d, &amax);
	ok = err <= (b.i8 ? 0.05 : 0.01) * amax;
	printf("check: %zu tokens, max |y - ref| %.3g = %.2g of max |ref| "
	       "(want <= %.2f): %s\n", mcheck, err, err / amax,
	       b.i8 ? 0.05 : 0.01, ok ? "ok" : "FAIL");
	reference(mcheck, d, f, x, wg, wu, wd, ref);
	err = max_abs_diff(y, ref, mcheck * d, &amax);
	printf("       against the fp32 weights (quantization error): %.2g of "
	       "max |ref|\n", err / amax);

	/* speed: a decode step and a prompt */
	for (int r = 0; r < reps; r++) {
		double t = now();

		forward(&b, 1, x, y);
		t = now() - t;
		t1 = t < t1 ? t : t1;
		t = now();
		forward(&b, prompt, x, y);
		t = now() - t;
		tp = t < tp ? t : tp;
	}
	printf("decode (M = 1): %.0f us, %.1f tokens/s; prompt (M = %zu): "
	       "%.1f ms, %.0f tokens/s (AVX-512 %s where the CPU has it, "
	       "else C)\n", t1 * 1e6, 1.0 / t1, prompt, tp * 1e3,
	       prompt / tp, b.i8 ? "VNNI" : "BF16");

	amx_wq_free(b.wg);
	amx_wq_free(b.wu);
	amx_wq_free(b.wd);
	amx_epilogue_free(b.silu);
	free(wg); free(wu); free(wd); free(qg); free(qu); free(qd);
	free(b.g); free(b.u); free(b.h); free(b.q); free(b.qs); free(b.hf);
	free(x); free(y); free(ref);
	return ok ? 0 : 1;
}
