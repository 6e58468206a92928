// SPDX-License-Identifier: MIT
/*
 * amx-decode: the GEMMs of a decode step (M = 1..8, N and K of a
 * transformer's projections) with prepacked weights that do not fit in
 * any cache, against the memory bandwidth measured the same way in the
 * same run.  Not a timed test: it prints, and with --csv writes, what it
 * measured; bench/targets.py judges the CSV.
 *
 * Each timed call is preceded by a read of a scrub buffer (256 MiB,
 * more than any L3 it runs on) so that the weights come from memory, as a
 * model's layers do; the time is the best of --reps calls.  The bandwidth
 * probe ("read") is a read of as many bytes as the shape's bf16 weights,
 * after the same scrub, every byte, on as many threads as the GEMM uses.
 * The probe and the calls of every kind take turns, rep after rep, so
 * that the drift of a shared machine's bandwidth hits them alike.
 *
 * Reported per call: the bytes it must read (amx_wq_size() or
 * amx_packed_b_size(), plus A) over its time, as a fraction of the
 * probe's rate ("of bw"), and of the roofline ("of roof"): the time the
 * larger of that read and of the call's 2 m n k flops at the register
 * peak of vdpbf16ps (vpdpbusd for the int8-activation kinds "/i8a";
 * bench/peak_avx512.c, measured here on one thread, times the thread
 * count) would take, over the time taken.  Where the
 * roof is the compute (int4 weights at M = 8 hold four times the
 * multiplies per byte of bf16 ones), "of bw" cannot reach 100 %.
 */
#define _GNU_SOURCE
#include <amx.h>
#include <errno.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

volatile double bench_sink;

#define SCRUB_BYTES	(256u << 20)

static uint64_t seed = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545F4914F6CDD1Dull;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xalloc(size_t bytes)
{
	void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);

	if (!p) {
		fprintf(stderr, "amx-decode: out of memory (%zu bytes)\n", bytes);
		exit(1);
	}
	return p;
}

/* a read of [p, p + bytes) by @nthr threads, 64 bytes a load */
struct rd {
	const uint8_t *p;
	size_t bytes;
	uint64_t sink;
};

/*
 * Every byte, with the widest loads the CPU has (64 bytes where it has
 * AVX-512, as the kernels load B), four independent chains.
 */
__attribute__((target("avx512f")))
static uint64_t rd_avx512(const uint8_t *p, size_t bytes)
{
	const __m512i *q = (const __m512i *)p;
	__m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;

	for (size_t i = 0; i + 4 <= bytes / 64; i += 4) {
		s0 = _mm512_xor_si512(s0, _mm512_load_si512(q + i));
		s1 = _mm512_xor_si512(s1, _mm512_load_si512(q + i + 1));
		s2 = _mm512_xor_si512(s2, _mm512_load_si512(q + i + 2));
		s3 = _mm512_xor_si512(s3, _mm512_load_si512(q + i + 3));
	}
	s0 = _mm512_xor_si512(_mm512_xor_si512(s0, s1), _mm512_xor_si512(s2, s3));
	return (uint64_t)_mm512_reduce_add_epi64(s0);
}

static uint64_t rd_sse2(const uint8_t *p, size_t bytes)
{
	const __m128i *q = (const __m128i *)p;
	__m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
	uint64_t out[2];

	for (size_t i = 0; i + 4 <= bytes / 16; i += 4) {
		s0 = _mm_xor_si128(s0, _mm_load_si128(q + i));
		s1 = _mm_xor_si128(s1, _mm_load_si128(q + i + 1));
		s2 = _mm_xor_si128(s2, _mm_load_si128(q + i + 2));
		s3 = _mm_xor_si128(s3, _mm_load_si128(q + i + 3));
	}
	s0 = _mm_xor_si128(_mm_xor_si128(s0, s1), _mm_xor_si128(s2, s3));
	_mm_storeu_si128((__m128i *)out, s0);
	return out[0] ^ out[1];
}

static void *rd_part(void *arg)
{
	struct rd *r = arg;

	r->sink = __builtin_cpu_supports("avx512f") ?
		  rd_avx512(r->p, r->bytes) : rd_sse2(r->p, r->bytes);
	return NULL;
}

static uint64_t read_all(const uint8_t *p, size_t bytes, int nthr)
{
	pthread_t th[8];
	struct rd parts[8] = { { 0 } };
	size_t per = bytes / nthr / 64 * 64;
	uint64_t s = 0;

	for (int t = 0; t < nthr; t++) {
		parts[t] = (struct rd){ p + t * per,
					t == nthr - 1 ? bytes - t * per : per, 0 };
		if (t)
			pthread_create(&th[t], NULL, rd_part, &parts[t]);
	}
	rd_part(&parts[0]);
	for (int t = 1; t < nthr; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < nthr; t++)
		s += parts[t].sink;
	return s;
}

static uint8_t *scrub_buf;
static volatile uint64_t sink;
static int hot;		/* --hot: no scrub (what the kernels do from cache) */

static void scrub(void)
{
	if (!hot)
		sink += read_all(scrub_buf, SCRUB_BYTES, 1);
}

enum kind { K_BF16, K_S8, K_Q8_0, K_S4_G128, K_Q4_0, K_Q4_1, K_U4ZP_G32,
	    K_Q8_0_I8, K_S4_G128_I8, K_Q4_0_I8, K_NKIND };
/* the kinds with int8 activations (amx_gemm_s8_wq) and their weights */
#define K_I8(kd)	((kd) >= K_Q8_0_I8)
#define K_WEIGHTS(kd)	((kd) == K_Q8_0_I8 ? K_Q8_0 : (kd) == K_S4_G128_I8 ? \
			 K_S4_G128 : (kd) == K_Q4_0_I8 ? K_Q4_0 : (kd))
static const char *const kname[K_NKIND] = {
	"bf16", "s8-g32-f32", "q8_0", "s4-g128", "q4_0", "q4_1", "u4zp-g32",
	"q8_0/i8a", "s4-g128/i8a", "q4_0/i8a",
};

struct weights {
	struct amx_packed_b *pb;
	struct amx_wq *wq;
	size_t bytes;
};

static amx_bf16 rbf16(void)
{
	return amx_fp32_to_bf16((float)((int)(rnd() % 2001) - 1000) / 1000.0f);
}

static int make_weights(enum kind kd, size_t n, size_t k, struct weights *w)
{
	int ret;

	kd = K_WEIGHTS(kd);
	memset(w, 0, sizeof(*w));
	if (kd == K_BF16) {
		amx_bf16 *b = xalloc(k * n * 2);

		for (size_t x = 0; x < k * n; x++)
			b[x] = rbf16();
		ret = amx_packed_b_create(&w->pb, AMX_GEMM_BF16, k, n, b, n);
		free(b);
		w->bytes = ret ? 0 : amx_packed_b_size(w->pb);
		return ret;
	}
	if (kd == K_Q8_0 || kd == K_Q4_0 || kd == K_Q4_1) {
		size_t bb = kd == K_Q8_0 ? 34 : kd == K_Q4_1 ? 20 : 18;
		size_t rb = k / 32 * bb;
		uint8_t *d = xalloc(n * rb);

		for (size_t x = 0; x < n * rb; x++)
			d[x] = (uint8_t)rnd();
		for (size_t j = 0; j < n; j++)
			for (size_t b = 0; b < k / 32; b++) {
				amx_fp16 h = amx_fp32_to_fp16(0.01f);

				memcpy(d + j * rb + b * bb, &h, 2);
				if (kd == K_Q4_1)
					memcpy(d + j * rb + b * bb + 2, &h, 2);
			}
		ret = amx_wq_import_ggml(&w->wq, kd == K_Q8_0 ? AMX_GGML_Q8_0 :
					 kd == K_Q4_1 ? AMX_GGML_Q4_1 :
					 AMX_GGML_Q4_0, n, k, d, rb);
		free(d);
	} else {
		size_t g = kd == K_S4_G128 ? 128 : 32, ng = k / g;
		int8_t *q = xalloc(k * n);
		float *s = xalloc(ng * n * 4);
		uint8_t *zp = kd == K_U4ZP_G32 ? xalloc(ng * n) : NULL;
		struct amx_wq_desc desc = {
			.type = kd == K_S8 ? AMX_WQ_S8 : kd == K_S4_G128 ?
				AMX_WQ_S4 : AMX_WQ_U4,
			.group = (uint32_t)g, .k = k, .n = n, .q = q, .ldq = n,
			.scales = s, .zp = zp,
		};

		for (size_t x = 0; x < k * n; x++)
			q[x] = (int8_t)(kd == K_S8 ? (int)(rnd() % 255) - 127 :
					kd == K_S4_G128 ? (int)(rnd() % 16) - 8 :
					(int)(rnd() % 16));
		for (size_t x = 0; x < ng * n; x++) {
			/* fp32 scales for s8 (not fp16s), fp16 ones for the rest */
			s[x] = kd == K_S8 ? 0.01f + (float)(rnd() % 1000) * 1e-7f :
			       (float)(1 + rnd() % 64) / 4096.0f;
			if (zp)
				zp[x] = (uint8_t)(rnd() % 16);
		}
		ret = amx_wq_create(&w->wq, &desc);
		free(q);
		free(s);
		free(zp);
	}
	w->bytes = ret ? 0 : amx_wq_size(w->wq);
	return ret;
}

static void free_weights(struct weights *w)
{
	amx_packed_b_free(w->pb);
	amx_wq_free(w->wq);
}

/* int8 A of the i8a kinds: amx_quantize_s8() of A's values */
static int8_t *a8;
static float *a8s;

/* best time of @reps cold calls */
static double time_call(const struct weights *w, size_t m, size_t n,
			size_t k, const amx_bf16 *a, float *c, int reps,
			int i8)
{
	double best = 1e30;

	for (int r = 0; r < reps; r++) {
		double t;
		int ret;

		scrub();
		t = now();
		ret = w->pb ? amx_gemm_bf16_packed(0, m, a, k, w->pb, c, n) :
		      i8 ? amx_gemm_s8_wq(0, m, a8, k, a8s, w->wq, c, n, NULL) :
			   amx_gemm_bf16_wq(0, m, a, k, w->wq, c, n, NULL);
		t = now() - t;
		if (ret) {
			fprintf(stderr, "amx-decode: GEMM returned %d\n", ret);
			exit(1);
		}
		if (t < best)
			best = t;
	}
	return best;
}

static int parse_list(const char *s, size_t *out, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;

		out[n++] = strtoul(s, &end, 10);
		if (end == s)
			return -1;
		s = *end ? end + 1 : end;
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: amx-decode [--quick] [--hot] [--reps R] [--threads T]\n"
		"                  [--m 1,2,4,8] [--shapes NxK,...] [--csv FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t ms[16] = { 1, 2, 4, 8 }, shapes[16][2] = {
		{ 4096, 4096 }, { 11008, 4096 }, { 4096, 11008 },
		{ 14336, 4096 }, { 4096, 14336 },
	};
	int nm = 4, nshape = 5, reps = 5, nthr = 1;
	const char *csv = NULL;
	size_t mmax = 1;
	FILE *f = NULL;
	double peak = 0.0, peak8 = 0.0;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--quick")) {
			nshape = 1;
			reps = 3;
		} else if (!strcmp(argv[i], "--hot")) {
			hot = 1;
		} else if (!strcmp(argv[i], "--reps") && v) {
			reps = atoi(v);
			i++;
		} else if (!strcmp(argv[i], "--threads") && v) {
			nthr = atoi(v);
			i++;
		} else if (!strcmp(argv[i], "--m") && v) {
			nm = parse_list(v, ms, 16);
			i++;
		} else if (!strcmp(argv[i], "--shapes") && v) {
			const char *s = v;

			for (nshape = 0; *s && nshape < 16; nshape++) {
				char *end;

				shapes[nshape][0] = strtoul(s, &end, 10);
				if (*end != 'x')
					usage();
				shapes[nshape][1] = strtoul(end + 1, &end, 10);
				s = *end ? end + 1 : end;
			}
			i++;
		} else if (!strcmp(argv[i], "--csv") && v) {
			csv = v;
			i++;
		} else {
			usage();
		}
	}
	if (nm <= 0 || reps <= 0 || nthr < 1 || nthr > 8)
		usage();
	for (int x = 0; x < nm; x++) {
		if (!ms[x] || ms[x] > 4096)
			usage();
		if (ms[x] > mmax)
			mmax = ms[x];
	}
	if (amx_set_num_threads((unsigned int)nthr)) {
		fprintf(stderr, "amx-decode: amx_set_num_threads(%d) refused\n",
			nthr);
		return 1;
	}
	amx_request();	/* AMX where there is some: the bf16 peer uses it */
	scrub_buf = xalloc(SCRUB_BYTES);
	memset(scrub_buf, 3, SCRUB_BYTES);
	{
		struct amx_info info;

		if (!amx_get_info(&info) && (info.cpu & AMX_CPU_AVX512_BF16))
			for (int r = 0; r < 20; r++) {
				double t = now(), fl = bench_peak_avx512_bf16(200000);

				t = now() - t;
				if (fl / t / 1e9 * nthr > peak)
					peak = fl / t / 1e9 * nthr;
			}
		if (!amx_get_info(&info) && (info.cpu & AMX_CPU_AVX512_VNNI))
			for (int r = 0; r < 20; r++) {
				double t = now(), fl = bench_peak_avx512_int8(200000);

				t = now() - t;
				if (fl / t / 1e9 * nthr > peak8)
					peak8 = fl / t / 1e9 * nthr;
			}
	}
	printf("# amx-decode: %d thread(s), %s weights, best of %d; "
	       "vdpbf16ps peak %.0f GFLOPS, vpdpbusd %.0f GOPS\n", nthr,
	       hot ? "HOT" : "cold", reps, peak, peak8);
	printf("%-11s %5s %5s %2s %10s %8s %7s %5s %6s %7s %8s\n", "weights", "n",
	       "k", "m", "bytes", "us", "GB/s", "read", "of bw", "of roof",
	       "vs bf16");
	if (csv && !(f = fopen(csv, "w"))) {
		perror(csv);
		return 1;
	}
	if (f)
		fprintf(f, "weights,threads,m,n,k,bytes,seconds,gbps,bw_gbps,"
			"bw_frac,peak_gflops,roof_frac,vs_bf16\n");
	for (int s = 0; s < nshape; s++) {
		size_t n = shapes[s][0], k = shapes[s][1];
		amx_bf16 *a = xalloc(mmax * k * 2);
		float *c = xalloc(mmax * n * 4);
		uint8_t *rd = xalloc(n * k * 2);
		struct weights w[K_NKIND];

		for (size_t x = 0; x < mmax * k; x++)
			a[x] = rbf16();
		a8 = xalloc(mmax * k);
		a8s = xalloc(mmax * 4);
		if (amx_quantize_bf16_s8(mmax, k, a, k, a8, k, a8s)) {
			fprintf(stderr, "amx-decode: amx_quantize_bf16_s8 failed\n");
			return 1;
		}
		memset(rd, 1, n * k * 2);
		for (int kd = 0; kd < K_NKIND; kd++) {
			int ret = make_weights(kd, n, k, &w[kd]);

			if (ret) {
				fprintf(stderr, "amx-decode: %s %zux%zu: %s\n",
					kname[kd], n, k, amx_strerror(ret));
				return 1;
			}
		}
		for (int x = 0; x < nm; x++) {
			size_t m = ms[x];
			double t[K_NKIND], bw = 0.0;

			/*
			 * The kinds and the read probe (the bf16 weights'
			 * bytes) in turn, rep after rep: a shared machine's
			 * drift hits them all alike.
			 */
			for (int kd = 0; kd < K_NKIND; kd++)
				t[kd] = 1e30;
			for (int r = 0; r < reps; r++) {
				double tr;

				scrub();
				tr = now();
				sink += read_all(rd, n * k * 2, nthr);
				tr = n * k * 2 / (now() - tr) / 1e9;
				if (tr > bw)
					bw = tr;
				for (int kd = 0; kd < K_NKIND; kd++) {
					double tk = time_call(&w[kd], m, n, k, a,
							      c, 1, K_I8(kd));

					if (tk < t[kd])
						t[kd] = tk;
				}
			}
			for (int kd = 0; kd < K_NKIND; kd++) {
				double bytes = w[kd].bytes +
					       m * k * (K_I8(kd) ? 1.0 : 2.0);
				double gbps = bytes / t[kd] / 1e9;
				double roof = bytes / bw / 1e9, tc;
				double pk = K_I8(kd) ? peak8 : peak;

				tc = pk > 0 ? 2.0 * m * n * k / pk / 1e9 : 0;
				roof = (roof > tc ? roof : tc) / t[kd];
				printf("%-11s %5zu %5zu %2zu %10.0f %8.1f %7.1f %5.1f %5.0f%% %6.0f%% %7.2fx\n",
				       kname[kd], n, k, m, bytes, t[kd] * 1e6, gbps,
				       bw, 100 * gbps / bw, 100 * roof,
				       t[K_BF16] / t[kd]);
				if (f)
					fprintf(f, "%s,%d,%zu,%zu,%zu,%.0f,%.9f,%.3f,%.3f,%.4f,%.1f,%.4f,%.4f\n",
						kname[kd], nthr, m, n, k, bytes, t[kd],
						gbps, bw, gbps / bw, pk, roof,
						t[K_BF16] / t[kd]);
			}
		}
		for (int kd = 0; kd < K_NKIND; kd++)
			free_weights(&w[kd]);
		free(rd);
		free(a8);
		free(a8s);
		free(a);
		free(c);
	}
	if (f && fclose(f)) {
		perror(csv);
		return 1;
	}
	return 0;
}
