// SPDX-License-Identifier: MIT
/*
 * Quantized MLP inference with the libamx GEMM helpers.
 *
 * A 4-layer perceptron (256 -> 512 -> 512 -> 256 -> 10, ReLU between
 * layers) with random fp32 weights, run two ways by this program:
 *   - fp32 reference: plain loops;
 *   - int8: weights quantized to s8 per output column and pre-packed once
 *     at start-up (amx_packed_b_create), activations u8 (ReLU outputs are
 *     non-negative), one u8 x s8 -> s32 GEMM per layer, then requantization
 *     (s32 * scale_a * scale_w[n] + bias, ReLU, round to u8 with the scale
 *     calibrated on a reference batch).
 * amx_request() is called at init: with AMX the GEMMs use tiles, without it
 * they fall back to AVX-512 VNNI or C, with the same results.
 *
 * Verdict: the first layer's s32 GEMM must equal a scalar int64 check
 * exactly; the int8 logits must pick the same class as fp32 for >= 90 % of
 * the inputs and stay within 10 % of the reference logits' range.
 * Prints throughput.  Exit 0 pass, 1 fail.
 */
#include <amx.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NLAYERS	4
#define BATCH	256
static const size_t dims[NLAYERS + 1] = { 256, 512, 512, 256, 10 };

struct layer {
	size_t k, n;
	float *w, *bias;		/* fp32: k x n, n */
	int8_t *wq;			/* s8 k x n */
	float *wscale;			/* per column */
	struct amx_packed_b *packed;
	float out_scale;		/* u8 activation scale of the output */
};

static struct layer L[NLAYERS];
static uint32_t rng = 2463534242u;

static float frand(void)		/* uniform [-1, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return (float)(rng >> 8) / (1 << 23) - 1.0f;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* fp32 forward; keeps the per-layer activation maximum for calibration */
static void forward_fp32(const float *x, float *logits, float *amax)
{
	float *cur = malloc(BATCH * 512 * sizeof(float));
	float *nxt = malloc(BATCH * 512 * sizeof(float));

	memcpy(cur, x, BATCH * dims[0] * sizeof(float));
	for (int l = 0; l < NLAYERS; l++) {
		size_t k = L[l].k, n = L[l].n;
		float m = 0;

		for (size_t i = 0; i < BATCH; i++)
			for (size_t j = 0; j < n; j++) {
				float s = L[l].bias[j];

				for (size_t p = 0; p < k; p++)
					s += cur[i * k + p] * L[l].w[p * n + j];
				if (l < NLAYERS - 1 && s < 0)
					s = 0;
				nxt[i * n + j] = s;
				if (s > m)
					m = s;
			}
		if (amax)
			amax[l] = m;
		memcpy(cur, nxt, BATCH * n * sizeof(float));
	}
	memcpy(logits, cur, BATCH * dims[NLAYERS] * sizeof(float));
	free(cur);
	free(nxt);
}

/* int8 forward: u8 activations, packed s8 weights, s32 GEMMs */
static int forward_int8(const uint8_t *xq, float xscale, float *logits,
			int32_t *first_acc)
{
	uint8_t *cur = malloc(BATCH * 512), *nxt = malloc(BATCH * 512);
	int32_t *acc = malloc(BATCH * 512 * sizeof(int32_t));
	float ascale = xscale;
	int ret = 0;

	memcpy(cur, xq, BATCH * dims[0]);
	for (int l = 0; l < NLAYERS && !ret; l++) {
		size_t n = L[l].n;

		ret = amx_gemm_u8s8_packed(0, BATCH, cur, L[l].k, L[l].packed,
					   acc, n);
		if (ret)
			break;
		if (l == 0 && first_acc)
			memcpy(first_acc, acc, BATCH * n * sizeof(int32_t));
		for (size_t i = 0; i < BATCH; i++)
			for (size_t j = 0; j < n; j++) {
				float y = acc[i * n + j] * ascale * L[l].wscale[j] +
					  L[l].bias[j];

				if (l == NLAYERS - 1) {
					logits[i * n + j] = y;
					continue;
				}
				y = y > 0 ? y / L[l].out_scale : 0;
				nxt[i * n + j] = y > 255 ? 255 : (uint8_t)lrintf(y);
			}
		if (l < NLAYERS - 1) {
			memcpy(cur, nxt, BATCH * n);
			ascale = L[l].out_scale;
		}
	}
	free(cur);
	free(nxt);
	free(acc);
	return ret;
}

static const char *backend_name(int b)
{
	return b == AMX_GEMM_BACKEND_AMX ? "AMX" :
	       b == AMX_GEMM_BACKEND_AVX512 ? "AVX-512 VNNI" : "portable C";
}

int main(void)
{
	float *x = malloc(BATCH * dims[0] * sizeof(float));
	uint8_t *xq = malloc(BATCH * dims[0]);
	float ref[BATCH * 10], out[BATCH * 10], amax[NLAYERS];
	int32_t *acc0 = malloc(BATCH * dims[1] * sizeof(int32_t));
	size_t agree = 0, mism = 0, packed_bytes = 0;
	double maxerr = 0, range = 0, t, ops = 0;
	int ret, iters;

	/* init: ask for AMX like any application would; fall back if refused */
	ret = amx_request();
	printf("amx_request: %s; GEMMs run on %s with %d thread(s)\n",
	       ret ? amx_strerror(ret) : "granted",
	       backend_name(amx_gemm_backend(AMX_GEMM_S8)),
	       amx_get_num_threads());

	for (int l = 0; l < NLAYERS; l++) {
		size_t k = dims[l], n = dims[l + 1];
		float he = sqrtf(6.0f / k);

		L[l].k = k;
		L[l].n = n;
		L[l].w = malloc(k * n * sizeof(float));
		L[l].bias = malloc(n * sizeof(float));
		L[l].wq = malloc(k * n);
		L[l].wscale = malloc(n * sizeof(float));
		for (size_t i = 0; i < k * n; i++)
			L[l].w[i] = frand() * he;
		for (size_t j = 0; j < n; j++)
			L[l].bias[j] = 0.05f * frand();
		/* symmetric per-column quantization to s8 */
		for (size_t j = 0; j < n; j++) {
			float m = 1e-30f;

			for (size_t p = 0; p < k; p++)
				m = fmaxf(m, fabsf(L[l].w[p * n + j]));
			L[l].wscale[j] = m / 127;
			for (size_t p = 0; p < k; p++)
				L[l].wq[p * n + j] = (int8_t)lrintf(L[l].w[p * n + j] /
								   L[l].wscale[j]);
		}
		/* pack once at start-up */
		ret = amx_packed_b_create(&L[l].packed, AMX_GEMM_S8, k, n,
					  L[l].wq, n);
		if (ret) {
			fprintf(stderr, "mlp: amx_packed_b_create: %s\n",
				amx_strerror(ret));
			return 1;
		}
		packed_bytes += amx_packed_b_size(L[l].packed);
	}
	for (size_t i = 0; i < BATCH * dims[0]; i++) {
		x[i] = (frand() + 1) / 2;
		xq[i] = (uint8_t)lrintf(x[i] * 255);
		x[i] = xq[i] / 255.0f;	/* same input for both paths */
	}

	forward_fp32(x, ref, amax);
	for (int l = 0; l < NLAYERS - 1; l++)
		L[l].out_scale = amax[l] > 0 ? amax[l] / 255 : 1;

	ret = forward_int8(xq, 1 / 255.0f, out, acc0);
	if (ret) {
		fprintf(stderr, "mlp: GEMM failed: %s\n", amx_strerror(ret));
		return 1;
	}
	/* layer 1 GEMM exact against int64 sums */
	for (size_t i = 0; i < BATCH; i++)
		for (size_t j = 0; j < dims[1]; j++) {
			long long s = 0;

			for (size_t p = 0; p < dims[0]; p++)
				s += (long long)xq[i * dims[0] + p] *
				     L[0].wq[p * dims[1] + j];
			mism += s != acc0[i * dims[1] + j];
		}
	for (size_t i = 0; i < BATCH; i++) {
		size_t br = 0, bo = 0;

		for (size_t j = 0; j < 10; j++) {
			if (ref[i * 10 + j] > ref[i * 10 + br])
				br = j;
			if (out[i * 10 + j] > out[i * 10 + bo])
				bo = j;
			maxerr = fmax(maxerr, fabs(out[i * 10 + j] - ref[i * 10 + j]));
			range = fmax(range, fabs(ref[i * 10 + j]));
		}
		agree += br == bo;
	}

	for (int l = 0; l < NLAYERS; l++)
		ops += 2.0 * BATCH * dims[l] * dims[l + 1];
	iters = 0;
	t = now();
	do {
		forward_int8(xq, 1 / 255.0f, out, NULL);
		iters++;
	} while (now() - t < 0.5);
	t = now() - t;

	printf("weights packed once: %zu bytes\n", packed_bytes);
	printf("layer-1 s32 GEMM vs int64 loop: %zu mismatches\n", mism);
	printf("top-1 agreement int8 vs fp32: %zu/%d; max |logit err| %.4f of range %.4f\n",
	       agree, BATCH, maxerr, range);
	printf("throughput: %.0f inferences/s, %.1f GOPS (batch %d, %d runs)\n",
	       iters * BATCH / t, iters * ops / t / 1e9, BATCH, iters);
	ret = !mism && agree * 10 >= BATCH * 9 && maxerr <= 0.1 * range;
	printf("%s\n", ret ? "PASS" : "FAIL");
	for (int l = 0; l < NLAYERS; l++) {
		amx_packed_b_free(L[l].packed);
		free(L[l].w);
		free(L[l].bias);
		free(L[l].wq);
		free(L[l].wscale);
	}
	free(x);
	free(xq);
	free(acc0);
	return ret ? 0 : 1;
}
