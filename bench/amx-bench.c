// SPDX-License-Identifier: MIT
/*
 * amx-bench: libamx GEMM against oneDNN matmul on the same inputs.
 *
 * In one run: the register-only peak of AMX (n/a without it) and of the
 * fallback's vdpbf16ps / vpdpbusd, then for bf16, u8 x s8, fp16 and
 * complex fp16 (cf16), 1 and all threads, square 16..4096 and LLM shapes
 * (M = 1..128, N = K = 4096 and N = 11008, K = 4096): GFLOPS of libamx
 * and oneDNN with plain B and with B pre-packed (plus the packing cost),
 * % of the measured peak and the libamx/oneDNN ratio.  Best of N runs, C
 * restored before each; the four contenders of a row take turns (see
 * best_times()).  Every contender's result is then checked (verify()); a
 * row that does not match prints RESULT MISMATCH on stderr and the exit
 * status is 1.
 *
 * A real GEMM counts 2 M N K flops (a multiply and an add per term).  A
 * cf16 row, amx_gemm_cf16() on M x K by K x N complex matrices, counts
 * 8 M N K: each complex multiply-add is 4 real multiplies and 4 real
 * adds.  cf16 has no prepacked form and oneDNN no complex matmul, so its
 * rows have libamx plain B only; the other columns are nan, as for a
 * contender that is not built.
 *
 *   amx-bench [--quick] [--max N] [--reps N] [--shapes MxNxK,...]
 *             [--threads N|all|LIST] [--csv FILE] [--png FILE]
 *
 * --threads 1,2,4,all times every shape at each of those thread counts
 * (1 always among them; all: one per physical core of the affinity
 * mask) and ends with a scaling table per shape: the NUMA nodes the
 * pool's threads are on and the speedup over 1 thread, plain and packed.
 *
 * --shapes times exactly the given shapes (a model's own layers) instead
 * of the built-in list.  The plot (--png, with --csv) shows, per type,
 * libamx and oneDNN at 1 and N threads against each thread count's
 * measured register peak.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <amx.h>

#include "bench.h"

#ifdef HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#endif


volatile double bench_sink;

#define MAX_THR		64

enum { BF16, INT8, F16, CF16, NTYPES };
static const char *const type_name[] = { "bf16", "u8s8", "f16", "cf16" };

struct opts {
	int quick, reps;
	size_t max;
	const char *threads;
	const char *csv, *png, *shapes;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- peaks ---------------------------------------------------------- */

struct peak_arg {
	double (*fn)(long);
	long iters;
	double flops;
};

static void *peak_thread(void *p)
{
	struct peak_arg *a = p;

	a->flops = a->fn(a->iters);
	return NULL;
}

/*
 * GFLOPS of fn run concurrently on nthr threads: best of 40 short runs with
 * pauses between them, so that on a shared host some run finds its cores
 * free (a long run would average in other processes' time slices).
 */
static double peak(double (*fn)(long), long iters, unsigned int nthr)
{
	double best = 0;

	for (int r = 0; r < 40; r++) {
		pthread_t th[64];
		struct peak_arg arg[64];
		double t0 = now(), flops = 0, t;

		for (unsigned int i = 0; i < nthr; i++) {
			arg[i] = (struct peak_arg){ fn, iters, 0 };
			pthread_create(&th[i], NULL, peak_thread, &arg[i]);
		}
		for (unsigned int i = 0; i < nthr; i++) {
			pthread_join(th[i], NULL);
			flops += arg[i].flops;
		}
		t = now() - t0;
		if (flops / t / 1e9 > best)
			best = flops / t / 1e9;
		usleep(2000);
	}
	return best;
}

/* ---- matrices and timing -------------------------------------------- */

struct problem {
	int type;
	size_t m, n, k;
	void *a, *b, *c, *csave;
	size_t csize;
};

static void *xalloc(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) / 64 * 64);

	if (!p) {
		fprintf(stderr, "amx-bench: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * A, B and C of a row.  cf16 elements are two values each (real part
 * first), so its A and B hold twice the values of f16's, drawn from the
 * same ranges: every product of an fp16 pair is exact in fp32 and lies
 * in [2^-8, 2^-6) in magnitude, with random signs, so no sum of up to
 * 2 K of them comes near fp32's overflow or its denormals.
 */
static void problem_init(struct problem *p, int type, size_t m, size_t n,
			 size_t k)
{
	size_t esz = type == INT8 ? 1 : type == CF16 ? 4 : 2;
	size_t vals = type == CF16 ? 2 : 1;	/* values per element */
	int fp16 = type == F16 || type == CF16;
	uint32_t s = 12345;

	p->type = type;
	p->m = m;
	p->n = n;
	p->k = k;
	p->a = xalloc(m * k * esz);
	p->b = xalloc(k * n * esz);
	p->csize = m * n * 4 * vals;
	p->c = xalloc(p->csize);
	p->csave = xalloc(p->csize);
	for (size_t i = 0; i < m * k * vals; i++) {
		s = s * 1103515245 + 12345;
		if (type == BF16)
			((uint16_t *)p->a)[i] = 0x3f80 | ((s >> 16) & 0x7f) |
						((s >> 8) & 0x8000);
		else if (fp16)	/* [1, 2) and (-2, -1] */
			((uint16_t *)p->a)[i] = 0x3c00 | ((s >> 16) & 0x3ff) |
						((s >> 8) & 0x8000);
		else
			((uint8_t *)p->a)[i] = (uint8_t)(s >> 16);
	}
	for (size_t i = 0; i < k * n * vals; i++) {
		s = s * 1103515245 + 12345;
		if (type == BF16)
			((uint16_t *)p->b)[i] = 0x3c00 | ((s >> 16) & 0x7f) |
						((s >> 8) & 0x8000);
		else if (fp16)	/* [2^-8, 2^-7) and its negative */
			((uint16_t *)p->b)[i] = 0x1c00 | ((s >> 16) & 0x3ff) |
						((s >> 8) & 0x8000);
		else
			((int8_t *)p->b)[i] = (int8_t)(s >> 16);
	}
	memset(p->csave, 0, p->csize);
}

static void problem_free(struct problem *p)
{
	free(p->a);
	free(p->b);
	free(p->c);
	free(p->csave);
}

typedef int (*run_fn)(struct problem *p, void *ctx);

/* one contender of a row: a call, its best time and how long it ran */
struct contender {
	run_fn fn;
	void *ctx;
	double best, spent;
	int runs;
};

static int contender_done(const struct contender *c, int reps)
{
	return isnan(c->best) || c->runs >= 2000 ||
	       (c->runs >= reps && c->runs >= 2 && c->spent >= 0.2);
}

/*
 * Best time of each contender over at least @reps runs and at least 0.2 s
 * of runs (at most 2000), after one untimed run; a contender whose first
 * run fails gets NAN.
 *
 * The contenders take turns of at least 25 ms each until all are done:
 * the clock of a shared machine drifts by 5-10 % over seconds, and timing
 * one library for 0.2 s and then the other put that drift into their
 * ratio.  A turn is long for a reason too: oneDNN's OpenMP threads and
 * libamx's pool both spin for a while after a call, and the first runs
 * right after the other library only measure that; the best of a turn
 * does not.
 */
static void best_times(struct problem *p, struct contender *ct, int n,
		       int reps)
{
	int done;

	for (int i = 0; i < n; i++) {
		memcpy(p->c, p->csave, p->csize);
		ct[i].best = ct[i].fn(p, ct[i].ctx) ? NAN : INFINITY;
		ct[i].spent = 0;
		ct[i].runs = 0;
	}
	do {
		done = 1;
		for (int i = 0; i < n; i++) {
			double start = now(), t;

			if (contender_done(&ct[i], reps))
				continue;
			do {
				memcpy(p->c, p->csave, p->csize);
				t = now();
				ct[i].fn(p, ct[i].ctx);
				t = now() - t;
				if (t < ct[i].best)
					ct[i].best = t;
				ct[i].runs++;
			} while (now() - start < 0.025 && ct[i].runs < 2000);
			ct[i].spent += now() - start;
			done &= contender_done(&ct[i], reps);
		}
	} while (!done);
}

static int run_libamx(struct problem *p, void *ctx)
{
	(void)ctx;
	if (p->type == BF16)
		return amx_gemm_bf16(0, p->m, p->n, p->k, p->a, p->k, p->b,
				     p->n, p->c, p->n);
	if (p->type == F16)
		return amx_gemm_f16(0, p->m, p->n, p->k, p->a, p->k, p->b,
				    p->n, p->c, p->n);
	if (p->type == CF16)	/* lda, ldb, ldc in complex elements */
		return amx_gemm_cf16(0, p->m, p->n, p->k, p->a, p->k, p->b,
				     p->n, p->c, p->n);
	return amx_gemm_u8s8(0, p->m, p->n, p->k, p->a, p->k, p->b, p->n,
			     p->c, p->n);
}

static int run_libamx_packed(struct problem *p, void *ctx)
{
	if (p->type == BF16)
		return amx_gemm_bf16_packed(0, p->m, p->a, p->k, ctx, p->c, p->n);
	if (p->type == F16)
		return amx_gemm_f16_packed(0, p->m, p->a, p->k, ctx, p->c, p->n);
	return amx_gemm_u8s8_packed(0, p->m, p->a, p->k, ctx, p->c, p->n);
}

/* ---- oneDNN ---------------------------------------------------------- */

#ifdef HAVE_DNNL
static dnnl_engine_t eng;
static dnnl_stream_t strm;

struct dnnl_mm {
	dnnl_primitive_t mm;
	dnnl_memory_t a, b, c, bpk, bias;
	const char *impl;
	double pack_s;
};

#define DNNL_OK(x) do { if ((x) != dnnl_success) return -1; } while (0)

/*
 * The epilogue of the -ep rows for oneDNN: bias, GELU (tanh) and a bf16
 * destination @c, and for int8 output scales per column; NULL: none.
 */
struct dnnl_ep {
	const float *bias, *col;
	void *c;
};

static int dnnl_setup(struct dnnl_mm *d, struct problem *p, int packed,
		      const struct dnnl_ep *ep)
{
	dnnl_memory_desc_t amd, bmd, bplain, cmd, biasmd;
	dnnl_dims_t biasd = { 1, (dnnl_dim_t)p->n };
	dnnl_primitive_attr_t attr = NULL;
	dnnl_dims_t ad = { (dnnl_dim_t)p->m, (dnnl_dim_t)p->k };
	dnnl_dims_t bd = { (dnnl_dim_t)p->k, (dnnl_dim_t)p->n };
	dnnl_dims_t cd = { (dnnl_dim_t)p->m, (dnnl_dim_t)p->n };
	dnnl_data_type_t at = p->type == BF16 ? dnnl_bf16 :
			      p->type == F16 ? dnnl_f16 : dnnl_u8;
	dnnl_data_type_t bt = p->type == BF16 ? dnnl_bf16 :
			      p->type == F16 ? dnnl_f16 : dnnl_s8;
	dnnl_data_type_t ct = ep ? dnnl_bf16 :
			      p->type == INT8 ? dnnl_s32 : dnnl_f32;
	dnnl_matmul_desc_t desc;
	dnnl_primitive_desc_t pd;
	const dnnl_memory_desc_t *wmd;

	memset(d, 0, sizeof(*d));
	DNNL_OK(dnnl_memory_desc_init_by_tag(&amd, 2, ad, at, dnnl_ab));
	DNNL_OK(dnnl_memory_desc_init_by_tag(&bplain, 2, bd, bt, dnnl_ab));
	DNNL_OK(dnnl_memory_desc_init_by_tag(&bmd, 2, bd, bt,
			packed ? dnnl_format_tag_any : dnnl_ab));
	DNNL_OK(dnnl_memory_desc_init_by_tag(&cmd, 2, cd, ct, dnnl_ab));
	DNNL_OK(dnnl_memory_desc_init_by_tag(&biasmd, 2, biasd, dnnl_f32,
					     dnnl_ab));
	DNNL_OK(dnnl_matmul_desc_init(&desc, &amd, &bmd, ep ? &biasmd : NULL,
				      &cmd));
	if (ep) {
		dnnl_post_ops_t po;

		DNNL_OK(dnnl_primitive_attr_create(&attr));
		DNNL_OK(dnnl_post_ops_create(&po));
		DNNL_OK(dnnl_post_ops_append_eltwise(po, 1.0f,
						     dnnl_eltwise_gelu_tanh,
						     0.0f, 0.0f));
		DNNL_OK(dnnl_primitive_attr_set_post_ops(attr, po));
		dnnl_post_ops_destroy(po);
		if (ep->col)
			DNNL_OK(dnnl_primitive_attr_set_output_scales(attr,
					(dnnl_dim_t)p->n, 1 << 1, ep->col));
	}
	DNNL_OK(dnnl_primitive_desc_create(&pd, &desc, attr, eng, NULL));
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &d->impl);
	d->impl = strdup(d->impl ? d->impl : "?");
	wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	DNNL_OK(dnnl_primitive_create(&d->mm, pd));
	DNNL_OK(dnnl_memory_create(&d->a, &amd, eng, p->a));
	DNNL_OK(dnnl_memory_create(&d->c, &cmd, eng, ep ? ep->c : p->c));
	if (ep)
		DNNL_OK(dnnl_memory_create(&d->bias, &biasmd, eng,
					   (void *)ep->bias));
	DNNL_OK(dnnl_memory_create(&d->b, &bplain, eng, p->b));
	if (packed) {
		dnnl_primitive_desc_t rpd;
		dnnl_primitive_t r;
		double best = INFINITY;

		DNNL_OK(dnnl_memory_create(&d->bpk, wmd, eng, DNNL_MEMORY_ALLOCATE));
		DNNL_OK(dnnl_reorder_primitive_desc_create(&rpd, &bplain, eng,
							   wmd, eng, NULL));
		DNNL_OK(dnnl_primitive_create(&r, rpd));
		for (int i = 0; i < 3; i++) {
			dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, d->b },
						    { DNNL_ARG_TO, d->bpk } };
			double t = now();

			DNNL_OK(dnnl_primitive_execute(r, strm, 2, args));
			DNNL_OK(dnnl_stream_wait(strm));
			t = now() - t;
			if (t < best)
				best = t;
		}
		d->pack_s = best;
		dnnl_primitive_destroy(r);
		dnnl_primitive_desc_destroy(rpd);
	}
	dnnl_primitive_desc_destroy(pd);
	return 0;
}

static void dnnl_teardown(struct dnnl_mm *d)
{
	dnnl_primitive_destroy(d->mm);
	dnnl_memory_destroy(d->a);
	dnnl_memory_destroy(d->b);
	dnnl_memory_destroy(d->c);
	if (d->bpk)
		dnnl_memory_destroy(d->bpk);
	if (d->bias)
		dnnl_memory_destroy(d->bias);
	free((void *)d->impl);
}

static int run_dnnl(struct problem *p, void *ctx)
{
	struct dnnl_mm *d = ctx;
	dnnl_exec_arg_t args[4] = { { DNNL_ARG_SRC, d->a },
				    { DNNL_ARG_WEIGHTS, d->bpk ? d->bpk : d->b },
				    { DNNL_ARG_DST, d->c },
				    { DNNL_ARG_BIAS, d->bias } };

	(void)p;
	if (dnnl_primitive_execute(d->mm, strm, d->bias ? 4 : 3, args) !=
	    dnnl_success)
		return -1;
	return dnnl_stream_wait(strm) == dnnl_success ? 0 : -1;
}
#endif

/* ---- checking the results -------------------------------------------- */

/* results that did not match, over the whole run (the exit status) */
static unsigned long mismatches;

static double elem_a(const struct problem *p, size_t i)
{
	if (p->type == F16)
		return amx_fp16_to_fp32(((const uint16_t *)p->a)[i]);
	return p->type == BF16 ? amx_bf16_to_fp32(((const uint16_t *)p->a)[i]) :
				 ((const uint8_t *)p->a)[i];
}

static double elem_b(const struct problem *p, size_t i)
{
	if (p->type == F16)
		return amx_fp16_to_fp32(((const uint16_t *)p->b)[i]);
	return p->type == BF16 ? amx_bf16_to_fp32(((const uint16_t *)p->b)[i]) :
				 ((const int8_t *)p->b)[i];
}

static double elem_c(const struct problem *p, const void *c, size_t i)
{
	return p->type != INT8 ? ((const float *)c)[i] : ((const int32_t *)c)[i];
}

/*
 * cf16: its one contender (libamx, plain B) run once more and every value
 * of its C checked against the product computed here in double.  The
 * bound is amx_gemm_cf16(3)'s: each part of an element is a sum of 2 K
 * exact products x_p, y_p (real: re a re b and -im a im b; imaginary:
 * re a im b and im a re b), and with C starting at 0
 *
 *	|c - exact| <= 2 (2 K + 2) 2^-24 sum_p (|x_p| + |y_p|).
 *
 * The fp16 products are exact in double too, and the double sum of the
 * 2 K of them is within 2 K 2^-53 sum_p (|x_p| + |y_p|) of the exact one
 * (some 2^-30 of the bound), which the tolerance adds.
 *
 * The reference is a GEMM of its own (4096^3 is 69 G complex terms), so
 * it runs blocked on every core of the affinity mask: REF_R rows of A by
 * REF_JC columns of B at a time, the loop over those columns of fixed
 * length (the compiler vectorizes it), B split into real and imaginary
 * parts padded to whole blocks, each thread a share of the blocks of
 * columns so that its B stays in cache over the rows.  Up to REF_TERMS
 * complex terms every row is checked; beyond, every ref_step()-th block
 * of REF_R rows (the first and the last among them), whole: at 4096^3 64
 * rows, 1 G terms, about 1 s on two cores where all of C took 48 s.
 * The other types check 64 sampled entries; a time on the silicon
 * machine is worth more than the rest of C.
 */
#define REF_R		4
#define REF_JC		64
#define REF_TERMS	(1ull << 30)

/* check every step-th block of REF_R rows of @p (and the last) */
static size_t ref_step(const struct problem *p)
{
	double terms = (double)p->m * p->n * p->k;

	return terms <= REF_TERMS ? 1 :
	       (size_t)ceil(terms / REF_TERMS);
}

struct cf16_ref {
	const struct problem *p;
	const float *a;			/* A as fp32 pairs */
	const float *bre, *bim;		/* K x npad */
	size_t npad;
	double f;			/* the tolerance per sum of |products| */
	unsigned int id, nthr;
	/* out: values off the bound, the worst of them */
	size_t bad, worst_i;
	double worst, worst_tol;
};

static void cf16_ref_block(struct cf16_ref *x, size_t i0, size_t rows,
			   size_t j0)
{
	const struct problem *p = x->p;
	const float *c = p->c;
	size_t n2 = 2 * p->n, cols = p->n - j0 < REF_JC ? p->n - j0 : REF_JC;
	/* per row: re, im, and the sums of |x_p| + |y_p| of each */
	double acc[REF_R][4][REF_JC];

	memset(acc, 0, sizeof(acc));
	for (size_t q = 0; q < p->k; q++) {
		const float *br = x->bre + q * x->npad + j0;
		const float *bi = x->bim + q * x->npad + j0;

		for (size_t r = 0; r < rows; r++) {
			const float *a = x->a + 2 * ((i0 + r) * p->k + q);
			double ar = a[0], ai = a[1];
			double sr = fabs(ar), si = fabs(ai);

			for (int j = 0; j < REF_JC; j++) {
				double xr = br[j], xi = bi[j];

				acc[r][0][j] += ar * xr - ai * xi;
				acc[r][1][j] += ar * xi + ai * xr;
				acc[r][2][j] += sr * fabs(xr) + si * fabs(xi);
				acc[r][3][j] += sr * fabs(xi) + si * fabs(xr);
			}
		}
	}
	for (size_t r = 0; r < rows; r++)
		for (size_t j = 0; j < cols; j++)
			for (int h = 0; h < 2; h++) {
				size_t v = (i0 + r) * n2 + 2 * (j0 + j) + h;
				double tol = x->f * acc[r][2 + h][j];
				double d = fabs(c[v] - acc[r][h][j]);

				if (d <= tol)	/* not NaN either */
					continue;
				x->bad++;
				if (!(d <= x->worst)) {
					x->worst = d;
					x->worst_tol = tol;
					x->worst_i = v;
				}
			}
}

static void *cf16_ref_thread(void *arg)
{
	struct cf16_ref *x = arg;
	size_t nblk = x->npad / REF_JC, step = ref_step(x->p);
	size_t last = (x->p->m - 1) / REF_R;

	for (size_t b = x->id; b < nblk; b += x->nthr)
		for (size_t ib = 0; ib <= last; ib++) {
			size_t i = ib * REF_R;

			if (ib % step && ib != last)
				continue;
			cf16_ref_block(x, i, x->p->m - i < REF_R ?
				       x->p->m - i : REF_R, b * REF_JC);
		}
	return NULL;
}

static int verify_cf16(unsigned int thr, struct problem *p,
		       struct contender *ct)
{
	static const char *const part[] = { "re", "im" };
	size_t npad = (p->n + REF_JC - 1) / REF_JC * REF_JC, n2 = 2 * p->n;
	size_t bad = 0, worst_i = 0;
	float *a = xalloc(p->m * p->k * 2 * sizeof(float));
	float *bre = xalloc(p->k * npad * sizeof(float));
	float *bim = xalloc(p->k * npad * sizeof(float));
	float *row = xalloc(n2 * sizeof(float));
	unsigned int nthr = bench_all_threads();
	struct cf16_ref x[MAX_THR];
	pthread_t th[MAX_THR];
	int made[MAX_THR];
	/* unit roundoff of fp32 (2^-24) and of double (2^-53) */
	double uf = FLT_EPSILON / 2, ud = DBL_EPSILON / 2;
	double worst = 0, worst_tol = 0;

	if (ct->fn(p, ct->ctx)) {
		fprintf(stderr,
			"amx-bench: RESULT MISMATCH: cf16 libamx %zux%zux%zu %u thr: the call failed\n",
			p->m, p->n, p->k, thr);
		bad = 1;
		goto out;
	}
	/* fp16 to fp32 is exact */
	amx_fp16_to_fp32_array(a, p->a, p->m * p->k * 2);
	for (size_t q = 0; q < p->k; q++) {
		amx_fp16_to_fp32_array(row, (const uint16_t *)p->b + q * n2, n2);
		for (size_t j = 0; j < npad; j++) {
			bre[q * npad + j] = j < p->n ? row[2 * j] : 0;
			bim[q * npad + j] = j < p->n ? row[2 * j + 1] : 0;
		}
	}
	if (nthr > npad / REF_JC)
		nthr = (unsigned int)(npad / REF_JC);
	if (nthr > MAX_THR)
		nthr = MAX_THR;
	for (unsigned int t = 0; t < nthr; t++) {
		x[t] = (struct cf16_ref){ .p = p, .a = a, .bre = bre,
					  .bim = bim, .npad = npad,
					  .id = t, .nthr = nthr };
		x[t].f = 2 * (2.0 * p->k + 2) * uf + 2.0 * p->k * ud;
		/* a thread that cannot start: its share runs here */
		made[t] = t && !pthread_create(&th[t], NULL, cf16_ref_thread,
					       &x[t]);
	}
	for (unsigned int t = 0; t < nthr; t++) {
		if (made[t])
			pthread_join(th[t], NULL);
		else
			cf16_ref_thread(&x[t]);
		bad += x[t].bad;
		if (x[t].bad && !(x[t].worst <= worst)) {
			worst = x[t].worst;
			worst_tol = x[t].worst_tol;
			worst_i = x[t].worst_i;
		}
	}
	if (bad)
		fprintf(stderr,
			"amx-bench: RESULT MISMATCH: cf16 libamx %zux%zux%zu %u thr: %zu values differ from the product in double (worst: row %zu col %zu %s by %g, bound %g)\n",
			p->m, p->n, p->k, thr, bad, worst_i / n2,
			worst_i % n2 / 2, part[worst_i & 1], worst, worst_tol);
out:
	free(row);
	free(bim);
	free(bre);
	free(a);
	mismatches += !!bad;
	return bad ? -1 : 0;
}

/*
 * Each contender run once more after the timing and its C checked: the
 * first (libamx, plain B) against a dot product in double at 64 sampled
 * entries, the others against the first over all of C.  u8 x s8 must
 * match exactly; bf16 within amx_gemm_bf16(3)'s bound, 2 (K + 2) 2^-24
 * sum |a||b|, against the dot product, and within twice that, with sum
 * |a||b| <= K max|a| max|b|, between two implementations.
 * Prints what differs and counts it in mismatches; 0 or -1.
 */
static int verify(unsigned int thr, struct problem *p, struct contender *ct,
		  int n)
{
	static const char *const who[] = { "libamx", "libamx prepacked",
					   "oneDNN", "oneDNN prepacked" };
	size_t mn = p->m * p->n, bad = 0, worst_i = 0;
	double amax = 0, bmax = 0, tol, worst = 0;
	void *ref = xalloc(p->csize);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	const char *against = "a dot product in double";
	int c;

	for (size_t i = 0; i < p->m * p->k; i++)
		amax = fmax(amax, fabs(elem_a(p, i)));
	for (size_t i = 0; i < p->k * p->n; i++)
		bmax = fmax(bmax, fabs(elem_b(p, i)));
	tol = p->type != INT8 ?
	      4.0 * (p->k + 2) * 0x1p-24 * p->k * amax * bmax : 0;
	for (c = 0; c < n && !bad; c++) {
		if (ct[c].fn(p, ct[c].ctx)) {
			fprintf(stderr, "amx-bench: RESULT MISMATCH: %s %s "
				"%zux%zux%zu %u thr: the call failed\n",
				type_name[p->type], who[c], p->m, p->n, p->k,
				thr);
			bad = 1;
			break;
		}
		if (c == 0) {
			memcpy(ref, p->c, p->csize);
			for (int t = 0; t < 64; t++) {
				size_t i, j;
				double sum = 0, abs = 0, d;

				s = s * 6364136223846793005ull +
				    1442695040888963407ull;
				i = (s >> 33) % p->m;
				j = (s >> 11) % p->n;
				for (size_t q = 0; q < p->k; q++) {
					double x = elem_a(p, i * p->k + q) *
						   elem_b(p, q * p->n + j);

					sum += x;
					abs += fabs(x);
				}
				d = fabs(elem_c(p, ref, i * p->n + j) - sum);
				if (!(d <= (p->type != INT8 ?
					    2.0 * (p->k + 2) * 0x1p-24 * abs :
					    0))) {
					bad++;
					worst = d;
					worst_i = i * p->n + j;
				}
			}
		} else {
			against = "libamx";
			for (size_t i = 0; i < mn; i++) {
				double d = fabs(elem_c(p, p->c, i) -
						elem_c(p, ref, i));

				if (!(d <= tol)) {	/* NaN too */
					bad++;
					if (!(d <= worst)) {
						worst = d;
						worst_i = i;
					}
				}
			}
		}
		if (bad)
			fprintf(stderr, "amx-bench: RESULT MISMATCH: %s %s "
				"%zux%zux%zu %u thr: %zu entries differ from %s "
				"(worst: row %zu col %zu by %g)\n",
				type_name[p->type], who[c], p->m, p->n, p->k,
				thr, bad, against, worst_i / p->n,
				worst_i % p->n, worst);
	}
	free(ref);
	mismatches += !!bad;
	return bad ? -1 : 0;
}

/* ---- one row --------------------------------------------------------- */

struct row {
	int type;
	unsigned int thr;
	size_t m, n, k;
	double amx, dnnl, amx_pk, dnnl_pk, amx_pack_ms, dnnl_pack_ms, peak;
	const char *impl;
};

/* real flops of one call: 2 M N K, and 8 M N K for complex (cf16) */
static double row_flops(const struct row *r)
{
	return (r->type == CF16 ? 8.0 : 2.0) * r->m * r->n * r->k;
}

static void measure(struct row *r, const struct opts *o)
{
	struct problem p;
	struct amx_packed_b *pb = NULL;
	double flops = row_flops(r), t, best = INFINITY;
	struct contender ct[4] = { { .fn = run_libamx },
				   { .fn = run_libamx_packed } };
	/* cf16: libamx with plain B alone (no prepacked form, no oneDNN) */
	int packed = r->type != CF16, n = packed ? 2 : 1;
#ifdef HAVE_DNNL
	static char impl[64];
	struct dnnl_mm d[2];
	int dok[2] = { 0, 0 };
#endif

	problem_init(&p, r->type, r->m, r->n, r->k);
	for (int i = 0; packed && i < 3; i++) {
		t = now();
		amx_packed_b_create(&pb, r->type == BF16 ? AMX_GEMM_BF16 :
				    r->type == F16 ? AMX_GEMM_F16 : AMX_GEMM_S8,
				    r->k, r->n, p.b, r->n);
		t = now() - t;
		if (t < best)
			best = t;
		if (i < 2)
			amx_packed_b_free(pb);
	}
	r->amx_pack_ms = packed ? best * 1e3 : NAN;
	ct[1].ctx = pb;
	r->dnnl = r->dnnl_pk = r->dnnl_pack_ms = NAN;
	r->impl = "none";
#ifdef HAVE_DNNL
	for (int i = 0; packed && i < 2; i++) {
		dok[i] = !dnnl_setup(&d[i], &p, i, NULL);
		if (dok[i])
			ct[n++] = (struct contender){ .fn = run_dnnl,
						      .ctx = &d[i] };
	}
#endif
	best_times(&p, ct, n, o->reps);
	if (r->type == CF16)
		verify_cf16(r->thr, &p, &ct[0]);
	else
		verify(r->thr, &p, ct, n);
	r->amx = flops / ct[0].best / 1e9;
	r->amx_pk = packed ? flops / ct[1].best / 1e9 : NAN;
	amx_packed_b_free(pb);
#ifdef HAVE_DNNL
	n = 2;
	if (dok[0]) {
		r->dnnl = flops / ct[n++].best / 1e9;
		snprintf(impl, sizeof(impl), "%s", d[0].impl);
		r->impl = impl;
		dnnl_teardown(&d[0]);
	}
	if (dok[1]) {
		r->dnnl_pk = flops / ct[n++].best / 1e9;
		r->dnnl_pack_ms = d[1].pack_s * 1e3;
		dnnl_teardown(&d[1]);
	}
#endif
	problem_free(&p);
}

/* ---- the fused epilogue (rows bf16-ep and u8s8-ep) -------------------- */

/*
 * The epilogue of a layer whose output feeds the next one: a bias per
 * column, GELU (tanh form) and bf16 output, and for u8s8 the int32
 * product dequantized by a scale per column (oneDNN's output scales).
 * libamx's _ep calls, plain and prepacked B, and the same product
 * without epilogue (the cost of the epilogue: time with / time without,
 * bench/targets.py's "epilogue"), against oneDNN's matmul with the same
 * bias, scales, eltwise post-op and bf16 destination.
 */
struct ep_run {
	struct amx_epilogue *ep;
	struct amx_packed_b *pb;	/* NULL: plain B */
	uint16_t *c;
};

static int run_ep(struct problem *p, void *ctx)
{
	struct ep_run *e = ctx;

	if (p->type == BF16)
		return e->pb ?
		       amx_gemm_bf16_packed_ep(0, p->m, p->a, p->k, e->pb, e->c,
					       p->n, e->ep, NULL, NULL) :
		       amx_gemm_bf16_ep(0, p->m, p->n, p->k, p->a, p->k, p->b,
					p->n, e->c, p->n, e->ep, NULL, NULL);
	return e->pb ?
	       amx_gemm_u8s8_packed_ep(0, p->m, p->a, p->k, e->pb, e->c, p->n,
				       e->ep, NULL, NULL) :
	       amx_gemm_u8s8_ep(0, p->m, p->n, p->k, p->a, p->k, p->b, p->n,
				e->c, p->n, e->ep, NULL, NULL);
}

/*
 * Every element of each bf16 output @c against the epilogue applied in
 * double to libamx's plain product in p->c: within 2^-7 of the value
 * (bf16 output, and oneDNN's GELU may be an approximation) plus 2^-12 of
 * the largest one.  Counts a mismatch; 0 or -1.
 */
static int ep_verify(unsigned int thr, struct problem *p, const float *bias,
		     const float *col, uint16_t *const *c, const char *const *who,
		     int n)
{
	size_t mn = p->m * p->n;
	double *ref = xalloc(mn * sizeof(double)), big = 0;
	int bad = 0;

	for (size_t i = 0; i < mn; i++) {
		double v = elem_c(p, p->c, i) * (col ? col[i % p->n] : 1.0) +
			   bias[i % p->n];

		ref[i] = v / (1 + exp(-2 * sqrt(2 / M_PI) *
				      (v + 0.044715 * v * v * v)));
		big = fmax(big, fabs(ref[i]));
	}
	for (int w = 0; w < n; w++) {
		size_t nbad = 0, wi = 0;
		double worst = 0;

		for (size_t i = 0; i < mn; i++) {
			double d = fabs(amx_bf16_to_fp32(c[w][i]) - ref[i]);

			if (!(d <= fabs(ref[i]) / 128 + big / 4096)) {
				nbad++;
				if (!(d <= worst)) {
					worst = d;
					wi = i;
				}
			}
		}
		if (nbad) {
			fprintf(stderr, "amx-bench: RESULT MISMATCH: %s-ep %s "
				"%zux%zux%zu %u thr: %zu entries differ from "
				"the epilogue in double (worst: row %zu col %zu "
				"by %g)\n", type_name[p->type], who[w], p->m,
				p->n, p->k, thr, nbad, wi / p->n, wi % p->n,
				worst);
			bad = 1;
		}
	}
	free(ref);
	mismatches += bad;
	return bad ? -1 : 0;
}

/* r->amx etc. with the epilogue; *cost, *pcost: with / without, libamx */
static void measure_ep(struct row *r, const struct opts *o, double *cost,
		       double *pcost)
{
	static const char *const who[] = { "libamx", "libamx prepacked",
					   "oneDNN", "oneDNN prepacked" };
	double flops = 2.0 * r->m * r->n * r->k;
	struct amx_epilogue_desc desc = { .n = r->n, .act = AMX_ACT_GELU_TANH,
					  .out = AMX_OUT_BF16 };
	struct contender ct[6] = { { .fn = run_ep }, { .fn = run_ep },
				   { .fn = run_libamx },
				   { .fn = run_libamx_packed } };
	struct ep_run e[2] = { { 0 } };
	uint16_t *outs[4];
	struct amx_packed_b *pb = NULL;
	float *bias = xalloc(r->n * sizeof(float));
	float *col = xalloc(r->n * sizeof(float));
	float *dbias = xalloc(r->n * sizeof(float));
	struct problem p;
	int n = 4, nout = 2;
#ifdef HAVE_DNNL
	static char impl[64];
	struct dnnl_mm d[2];
	struct dnnl_ep dep[2];
	int dok[2];
#endif

	problem_init(&p, r->type, r->m, r->n, r->k);
	/*
	 * GELU's interesting range, a few units around 0: the bf16 products
	 * (problem_init()) are about sqrt(K) / 50 already, the u8s8 ones
	 * about 9400 sqrt(K), scaled down per column.
	 */
	for (size_t j = 0; j < r->n; j++) {
		bias[j] = (float)((int)(j % 7) - 3) / 4;
		col[j] = (float)(1 + j % 3) / (float)(sqrt((double)r->k) * 9400);
		/*
		 * oneDNN 2.x adds an int8 matmul's bias before the output
		 * scales: scale (acc + bias)
		 */
		dbias[j] = r->type == INT8 ? bias[j] / col[j] : bias[j];
	}
	desc.bias = bias;
	desc.col_scale = r->type == INT8 ? col : NULL;
	if (amx_epilogue_create(&e[0].ep, &desc) ||
	    amx_packed_b_create(&pb, r->type == BF16 ? AMX_GEMM_BF16 :
				AMX_GEMM_S8, r->k, r->n, p.b, r->n)) {
		fprintf(stderr, "amx-bench: epilogue setup failed\n");
		exit(1);
	}
	e[1].ep = e[0].ep;
	e[1].pb = pb;
	for (int i = 0; i < 4; i++)
		outs[i] = xalloc(r->m * r->n * 2);
	e[0].c = outs[0];
	e[1].c = outs[1];
	ct[0].ctx = &e[0];
	ct[1].ctx = &e[1];
	ct[3].ctx = pb;
	r->dnnl = r->dnnl_pk = NAN;
	r->impl = "none";
#ifdef HAVE_DNNL
	for (int i = 0; i < 2; i++) {
		dep[i] = (struct dnnl_ep){ .bias = dbias, .c = outs[2 + i],
			.col = r->type == INT8 ? col : NULL };
		dok[i] = !dnnl_setup(&d[i], &p, i, &dep[i]);
		if (dok[i]) {
			ct[n++] = (struct contender){ .fn = run_dnnl,
						      .ctx = &d[i] };
			outs[nout++] = outs[2 + i];
		}
	}
#endif
	best_times(&p, ct, n, o->reps);
	for (int i = 0; i < n; i++)
		if (i != 2 && i != 3)
			ct[i].fn(&p, ct[i].ctx);
	memcpy(p.c, p.csave, p.csize);
	run_libamx(&p, NULL);	/* the product the check starts from */
	ep_verify(r->thr, &p, bias, r->type == INT8 ? col : NULL, outs, who,
		  nout);
	r->amx = flops / ct[0].best / 1e9;
	r->amx_pk = flops / ct[1].best / 1e9;
	*cost = ct[0].best / ct[2].best;
	*pcost = ct[1].best / ct[3].best;
#ifdef HAVE_DNNL
	n = 4;
	for (int i = 0; i < 2; i++) {
		if (!dok[i])
			continue;
		if (i)
			r->dnnl_pk = flops / ct[n++].best / 1e9;
		else
			r->dnnl = flops / ct[n++].best / 1e9;
		if (!i) {
			snprintf(impl, sizeof(impl), "%s", d[0].impl);
			r->impl = impl;
		}
		dnnl_teardown(&d[i]);
	}
#endif
	for (int i = 0; i < 4; i++)
		free(outs[i]);
	amx_epilogue_free(e[0].ep);
	amx_packed_b_free(pb);
	free(bias);
	free(col);
	free(dbias);
	problem_free(&p);
}

static const char *backend_name(int b)
{
	const char *n = amx_gemm_backend_name((enum amx_gemm_backend)b);

	return n ? n : "?";
}

/*
 * Per type, one panel: GFLOPS of libamx and oneDNN at both thread counts
 * over the shapes in run order (x = shape index, labelled MxNxK), and
 * each thread count's measured peak as a dashed line.  The cf16 panel
 * (8 M N K flops a call) has no oneDNN points, its CSV columns being nan,
 * and the peak of f16 (none yet, as in the f16 panel).
 */
static int write_png(const char *csv, const char *png, const unsigned int thr[2],
		     size_t shapes[][3], size_t nshapes)
{
	FILE *g;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		printf("# gnuplot not found: no plot\n");
		return 0;
	}
	g = popen("gnuplot", "w");
	if (!g)
		return -errno;
	fprintf(g,
		"set terminal pngcairo size 1400,700 noenhanced\n"
		"set output '%s'\n"
		"set datafile separator ','\n"
		"set ylabel 'GFLOPS (GOPS for int8; cf16: 8 MNK flops)'\n"
		"set key top left\n"
		"set xtics rotate by -45 font ',8'\n"
		"set grid ytics\n"
		"sel(t, n) = (strcol(1) eq t && $2 == n)\n"
		"set multiplot layout 1,%d title 'libamx vs oneDNN, 1 and %u threads, against the measured peak'\n",
		png, NTYPES, thr[1]);
	fprintf(g, "set xtics (");
	for (size_t i = 0; i < nshapes; i++)
		fprintf(g, "%s'%zux%zux%zu' %zu", i ? ", " : "", shapes[i][0],
			shapes[i][1], shapes[i][2], i);
	fprintf(g, ")\nset xrange [-0.5:%zu.5]\n", nshapes ? nshapes - 1 : 0);
	for (int t = 0; t < NTYPES; t++) {
		const char *ty = type_name[t];

		fprintf(g, "set title '%s'\n", ty);
		fprintf(g,
			"plot '%s' using (sel('%s', %u) ? $18 : 1/0):6 with linespoints lw 2 title 'libamx %u thr', "
			"'' using (sel('%s', %u) ? $18 : 1/0):6 with linespoints lw 2 title 'libamx %u thr', "
			"'' using (sel('%s', %u) ? $18 : 1/0):7 with linespoints dt 2 title 'oneDNN %u thr', "
			"'' using (sel('%s', %u) ? $18 : 1/0):7 with linespoints dt 2 title 'oneDNN %u thr', "
			"'' using (sel('%s', %u) ? $18 : 1/0):14 with lines dt 3 lw 2 title 'peak %u thr', "
			"'' using (sel('%s', %u) ? $18 : 1/0):14 with lines dt 3 lw 2 title 'peak %u thr'\n",
			csv, ty, thr[0], thr[0],
			ty, thr[1], thr[1],
			ty, thr[0], thr[0],
			ty, thr[1], thr[1],
			ty, thr[0], thr[0],
			ty, thr[1], thr[1]);
	}
	fprintf(g, "unset multiplot\n");
	return pclose(g) ? -EIO : 0;
}

/*
 * Per type and shape, libamx at each thread count: the nodes its pool's
 * threads are on, GFLOPS and the speedup over 1 thread (thr[0]), with B
 * plain and packed.
 */
static void print_scaling(const unsigned int *thr, const int *nodes,
			  int nthr, size_t shapes[][3], size_t nshapes,
			  double gf[][NTYPES][64], double gf_pk[][NTYPES][64])
{
	printf("# scaling: libamx, speedup over 1 thread\n");
	printf("%-4s %17s %4s %5s | %8s %7s | %8s %7s\n", "type",
	       "M x N x K", "thr", "nodes", "GFLOPS", "speedup", "packed",
	       "speedup");
	for (int type = BF16; type < NTYPES; type++)
		for (size_t s = 0; s < nshapes; s++)
			for (int t = 0; t < nthr; t++) {
				char shape[48];

				snprintf(shape, sizeof(shape), "%zux%zux%zu",
					 shapes[s][0], shapes[s][1],
					 shapes[s][2]);
				printf("%-4s %17s %4u %5d | %8.1f %6.2fx | "
				       "%8.1f %6.2fx\n", type_name[type],
				       shape, thr[t], nodes[t], gf[t][type][s],
				       gf[t][type][s] / gf[0][type][s],
				       gf_pk[t][type][s],
				       gf_pk[t][type][s] / gf_pk[0][type][s]);
			}
}

/* "MxNxK,MxNxK,..." into shapes; the count, or -1 */
static int parse_shapes(const char *arg, size_t shapes[][3], size_t max)
{
	const char *p = arg;
	size_t n = 0;

	while (*p) {
		unsigned long long v[3];
		char *end;

		for (int d = 0; d < 3; d++) {
			if (*p < '0' || *p > '9')
				return -1;
			v[d] = strtoull(p, &end, 10);
			if (!v[d] || v[d] > 65536)
				return -1;
			p = end;
			if (d < 2 && *p++ != 'x')
				return -1;
		}
		if (n == max)
			return -1;
		shapes[n][0] = v[0];
		shapes[n][1] = v[1];
		shapes[n][2] = v[2];
		n++;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return n ? (int)n : -1;
}

/*
 * A decimal number in [lo, hi] for option @opt, else a message and exit 2:
 * "abc", "2x", "-1" or an overflow is never taken as something else.
 */
static unsigned long parse_num(const char *opt, const char *arg,
			       unsigned long lo, unsigned long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = (*arg >= '0' && *arg <= '9') ? strtoull(arg, &end, 10) : 0;
	if (*arg < '0' || *arg > '9' || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "amx-bench: %s wants a number from %lu to %lu, "
			"not '%s'\n", opt, lo, hi, arg);
		exit(2);
	}
	return (unsigned long)v;
}

static void usage(FILE *f, int status)
{
	fprintf(f, "usage: amx-bench [--quick] [--max N] [--reps N] "
			"[--shapes MxNxK,...] [--threads N] [--csv FILE] [--png FILE]\n"
			"  --shapes   time these shapes instead of the built-in list\n"
			"  --threads  N, all or a list (1,2,4,all): the thread\n"
			"             counts besides 1 (default: the pool's)\n"
			"see amx-bench(1)\n");
	exit(status);
}

int main(int argc, char **argv)
{
	struct opts o = { .reps = 3, .max = 4096 };
	static const size_t llm_m[] = { 1, 4, 16, 32, 128 };
	static const size_t llm_nk[][2] = { { 4096, 4096 }, { 11008, 4096 } };
	size_t shapes[64][3], nshapes = 0, ep_shapes[64][3], nshapes_ep = 0;
	double pk_fb[MAX_THR][NTYPES], pk_amx[MAX_THR][NTYPES];
	unsigned int thr[MAX_THR + 1], png_thr[2];
	int nthr, nodes[MAX_THR];
	/* libamx's GFLOPS, plain and packed, per thread count, type, shape */
	static double gf[MAX_THR][NTYPES][64], gf_pk[MAX_THR][NTYPES][64];
	FILE *csv = NULL;
	struct amx_info info;
	unsigned int avx512 = 0;
	int amx_ok;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* progress through pipes too */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			usage(stdout, 0);
		else if (!strcmp(argv[i], "--quick"))
			o.quick = 1;
		else if (!strcmp(argv[i], "--max") && i + 1 < argc)
			o.max = parse_num("--max", argv[++i], 16, 65536);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			o.reps = (int)parse_num("--reps", argv[++i], 1, 1000000);
		else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			o.csv = argv[++i];
		else if (!strcmp(argv[i], "--png") && i + 1 < argc)
			o.png = argv[++i];
		else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
			o.shapes = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			o.threads = argv[++i];
		else
			usage(stderr, 2);
	}
	if (o.reps < 1)
		o.reps = 1;
	if (o.quick && o.max > 512)
		o.max = 512;

	amx_ok = amx_request() == 0;
	/* the fallback's instructions, where CPU and OS (XCR0) have them */
	if (!amx_get_info(&info) && (info.cpu & AMX_CPU_AVX512F) &&
	    (info.xcr0 & 0xe6) == 0xe6)
		avx512 = info.cpu & (AMX_CPU_AVX512_BF16 | AMX_CPU_AVX512_VNNI);
	amx_set_num_threads(0);
	thr[0] = 1;
	if (o.threads) {
		nthr = bench_parse_threads(o.threads, thr + 1, MAX_THR - 1);
	} else {
		thr[1] = (unsigned int)amx_get_num_threads();
		nthr = 1;
	}
	if (nthr < 0) {
		fprintf(stderr, "amx-bench: --threads wants N, all or a list "
			"such as 1,2,4,all (each 1..256, at most %d)\n",
			MAX_THR - 1);
		return 2;
	}
	/* 1 first, whether or not the list had it */
	if (thr[1] == 1)
		memmove(thr, thr + 1, (size_t)nthr * sizeof(*thr));
	else
		nthr++;
	if (nthr > MAX_THR)
		nthr = MAX_THR;
	png_thr[0] = thr[0];
	png_thr[1] = thr[nthr - 1];
	for (int t = 0; t < nthr; t++) {
		amx_set_num_threads(thr[t]);
		nodes[t] = bench_pool_nodes();
	}
#ifdef HAVE_DNNL
	if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
	    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success) {
		fprintf(stderr, "amx-bench: oneDNN engine unavailable\n");
		return 1;
	}
#endif

	if (o.shapes) {
		int n = parse_shapes(o.shapes, shapes, 64);

		if (n < 0) {
			fprintf(stderr, "amx-bench: --shapes wants MxNxK[,MxNxK...] "
				"(at most 64, each dimension 1..65536)\n");
			return 2;
		}
		nshapes = (size_t)n;
	}
	for (size_t s = 16; !o.shapes && s <= o.max; s *= 2) {
		shapes[nshapes][0] = shapes[nshapes][1] = shapes[nshapes][2] = s;
		nshapes++;
	}
	for (size_t i = 0; !o.quick && !o.shapes && i < 2; i++)
		for (size_t j = 0; j < 5; j++) {
			if (llm_nk[i][0] > o.max * 4 || llm_nk[i][1] > o.max * 4)
				continue;
			shapes[nshapes][0] = llm_m[j];
			shapes[nshapes][1] = llm_nk[i][0];
			shapes[nshapes][2] = llm_nk[i][1];
			nshapes++;
		}

	/*
	 * The epilogue rows: a decode, a small batch and a prefill shape
	 * (--shapes: those), within --max.
	 */
	if (o.shapes) {
		memcpy(ep_shapes, shapes, sizeof(shapes));
		nshapes_ep = nshapes;
	}
	for (size_t i = 0; !o.shapes && i < 3; i++) {
		static const size_t ms[3] = { 1, 16, 512 };
		size_t nk = o.quick ? 256 : 4096;

		if (nk > o.max * 4 || ms[i] > o.max)
			continue;
		ep_shapes[nshapes_ep][0] = ms[i] < nk ? ms[i] : nk;
		ep_shapes[nshapes_ep][1] = ep_shapes[nshapes_ep][2] = nk;
		nshapes_ep++;
	}

	/*
	 * cf16 runs on the f16 GEMM's backend (on AMX, TCMMRLFP16PS /
	 * TCMMIMFP16PS where the CPU has AMX-COMPLEX; amx_gemm_cf16(3))
	 */
	printf("# libamx backends: bf16 %s, int8 %s, f16 and cf16 %s; threads",
	       backend_name(amx_gemm_backend(AMX_GEMM_BF16)),
	       backend_name(amx_gemm_backend(AMX_GEMM_S8)),
	       backend_name(amx_gemm_backend(AMX_GEMM_F16)));
	for (int t = 0; t < nthr; t++)
		printf("%s%u", t ? "," : " ", thr[t]);
	printf(" (nodes");
	for (int t = 0; t < nthr; t++)
		printf("%s%d", t ? "," : " ", nodes[t]);
	printf("); oneDNN %s\n",
#ifdef HAVE_DNNL
	       "2.x (C API)"
#else
	       "not built"
#endif
	       );
	for (int t = 0; t < nthr; t++) {
		long it = o.quick ? 50000 : 200000;

		/*
		 * no peak loop for fp16 (yet): its %peak is n/a.  cf16 is
		 * held against the same peak as f16 (pk_*[t][CF16] =
		 * pk_*[t][F16] below): its 8 M N K flops are 4 M N K real
		 * fp16 products with their adds, made by the f16 GEMM's
		 * kernels or by TCMMRLFP16PS / TCMMIMFP16PS, which take as
		 * many fp16 products per tile instruction as TDPFP16PS
		 * (amx_gemm_cf16(3))
		 */
		pk_fb[t][BF16] = pk_fb[t][INT8] = pk_fb[t][F16] = NAN;
		pk_amx[t][BF16] = pk_amx[t][INT8] = pk_amx[t][F16] = NAN;
		if (avx512 & AMX_CPU_AVX512_BF16)
			pk_fb[t][BF16] = peak(bench_peak_avx512_bf16, it, thr[t]);
		if (avx512 & AMX_CPU_AVX512_VNNI)
			pk_fb[t][INT8] = peak(bench_peak_avx512_int8, it, thr[t]);
		if (amx_ok) {
			pk_amx[t][BF16] = peak(bench_peak_amx_bf16, it / 4, thr[t]);
			pk_amx[t][INT8] = peak(bench_peak_amx_int8, it / 4, thr[t]);
		}
		pk_fb[t][CF16] = pk_fb[t][F16];
		pk_amx[t][CF16] = pk_amx[t][F16];
		printf("# peak %u thr: AMX bf16 ", thr[t]);
		printf(amx_ok ? "%.0f" : "n/a", pk_amx[t][BF16]);
		printf(" GFLOPS, int8 ");
		printf(amx_ok ? "%.0f" : "n/a", pk_amx[t][INT8]);
		printf(" GOPS; AVX-512 vdpbf16ps ");
		printf(isnan(pk_fb[t][BF16]) ? "n/a" : "%.0f", pk_fb[t][BF16]);
		printf(" GFLOPS, vpdpbusd ");
		printf(isnan(pk_fb[t][INT8]) ? "n/a" : "%.0f", pk_fb[t][INT8]);
		printf(" GOPS\n");
	}

	if (o.csv) {
		csv = fopen(o.csv, "w");
		if (!csv) {
			perror(o.csv);
			return 1;
		}
		fprintf(csv, "type,threads,m,n,k,libamx_gflops,onednn_gflops,"
			"ratio,libamx_packed_gflops,onednn_packed_gflops,"
			"packed_ratio,libamx_pack_ms,onednn_pack_ms,peak_gflops,"
			"libamx_pct_peak,libamx_backend,onednn_impl,shape_index,shape,"
			"ep_cost,ep_packed_cost,nodes,speedup,"
			"packed_speedup\n");
	}
	printf("%s\n%s\n",
	       "# GFLOPS: 2 M N K flops a call (GOPS for u8s8); cf16: 8 M N K (a complex multiply-add is 4 real multiplies and 4 adds)",
	       "# nan: not measured (oneDNN not built or without the type; cf16 has no prepacked form and no oneDNN peer)");
	printf("%-4s %3s %17s | %8s %5s %8s %6s | %8s %8s %6s | %9s %9s | %s\n",
	       "type", "thr", "M x N x K", "libamx", "%peak", "oneDNN", "ratio",
	       "lib-pk", "dnnl-pk", "ratio", "pack ms", "dnnl ms", "oneDNN impl");
	for (int t = 0; t < nthr; t++) {
		amx_set_num_threads(thr[t]);
#ifdef HAVE_DNNL
		omp_set_num_threads((int)thr[t]);
#endif
		for (int type = BF16; type < NTYPES; type++)
			for (size_t s = 0; s < nshapes; s++) {
				struct row r = { .type = type, .thr = thr[t],
						 .m = shapes[s][0],
						 .n = shapes[s][1],
						 .k = shapes[s][2] };
				int be = amx_gemm_backend(type == BF16 ?
						AMX_GEMM_BF16 : type == INT8 ?
						AMX_GEMM_S8 : AMX_GEMM_F16);
				char shape[48];

				r.peak = be == AMX_GEMM_BACKEND_AMX ?
					 pk_amx[t][type] : pk_fb[t][type];
				measure(&r, &o);
				gf[t][type][s] = r.amx;
				gf_pk[t][type][s] = r.amx_pk;
				snprintf(shape, sizeof(shape), "%zux%zux%zu",
					 r.m, r.n, r.k);
				printf("%-4s %3u %17s | %8.1f %5.1f %8.1f %6.2f | "
				       "%8.1f %8.1f %6.2f | %9.3f %9.3f | %s\n",
				       type_name[type], r.thr, shape, r.amx,
				       100 * r.amx / r.peak, r.dnnl,
				       r.amx / r.dnnl, r.amx_pk, r.dnnl_pk,
				       r.amx_pk / r.dnnl_pk, r.amx_pack_ms,
				       r.dnnl_pack_ms, r.impl);
				fflush(stdout);
				if (csv)
					fprintf(csv, "%s,%u,%zu,%zu,%zu,%.3f,%.3f,"
						"%.4f,%.3f,%.3f,%.4f,%.4f,%.4f,"
						"%.1f,%.2f,%s,%s,%zu,%s,nan,nan,"
						"%d,%.4f,%.4f\n",
						type_name[type], r.thr, r.m,
						r.n, r.k, r.amx, r.dnnl,
						r.amx / r.dnnl, r.amx_pk,
						r.dnnl_pk, r.amx_pk / r.dnnl_pk,
						r.amx_pack_ms, r.dnnl_pack_ms,
						r.peak, 100 * r.amx / r.peak,
						backend_name(be), r.impl, s,
						shape, nodes[t],
						r.amx / gf[0][type][s],
						r.amx_pk / gf_pk[0][type][s]);
			}
	}
	/* the fused epilogue, on the decode and prefill shapes */
	for (size_t s = 0; s < nshapes_ep; s++)
		for (int t = 0; t < nthr; t++)
			for (int type = BF16; type <= INT8; type++) {
				struct row r = { .type = type, .thr = thr[t],
						 .m = ep_shapes[s][0],
						 .n = ep_shapes[s][1],
						 .k = ep_shapes[s][2] };
				int be = amx_gemm_backend(type == BF16 ?
						AMX_GEMM_BF16 : AMX_GEMM_S8);
				double cost, pcost;
				static double ep1[2], ep1_pk[2];
				char shape[48], ty[16];

				if (!s && !t && !type)
					printf("%-7s %3s %17s | %8s %8s %6s | %8s %8s %6s | %9s %9s\n",
					       "type", "thr", "M x N x K", "libamx",
					       "oneDNN", "ratio", "lib-pk", "dnnl-pk",
					       "ratio", "ep cost", "pk cost");
				amx_set_num_threads(thr[t]);
#ifdef HAVE_DNNL
				omp_set_num_threads((int)thr[t]);
#endif
				r.peak = be == AMX_GEMM_BACKEND_AMX ?
					 pk_amx[t][type] : pk_fb[t][type];
				measure_ep(&r, &o, &cost, &pcost);
				if (!t) {
					ep1[type] = r.amx;
					ep1_pk[type] = r.amx_pk;
				}
				snprintf(shape, sizeof(shape), "%zux%zux%zu",
					 r.m, r.n, r.k);
				snprintf(ty, sizeof(ty), "%s-ep", type_name[type]);
				printf("%-7s %3u %17s | %8.1f %8.1f %6.2f | "
				       "%8.1f %8.1f %6.2f | %8.3fx %8.3fx\n",
				       ty, r.thr, shape, r.amx, r.dnnl,
				       r.amx / r.dnnl, r.amx_pk, r.dnnl_pk,
				       r.amx_pk / r.dnnl_pk, cost, pcost);
				if (csv)
					fprintf(csv, "%s,%u,%zu,%zu,%zu,%.3f,%.3f,"
						"%.4f,%.3f,%.3f,%.4f,nan,nan,"
						"%.1f,%.2f,%s,%s,%zu,%s,%.4f,%.4f,"
						"%d,%.4f,%.4f\n",
						ty, r.thr, r.m, r.n, r.k, r.amx,
						r.dnnl, r.amx / r.dnnl, r.amx_pk,
						r.dnnl_pk, r.amx_pk / r.dnnl_pk,
						r.peak, 100 * r.amx / r.peak,
						backend_name(be), r.impl,
						nshapes + s, shape, cost, pcost,
						nodes[t], r.amx / ep1[type],
						r.amx_pk / ep1_pk[type]);
			}
	if (nthr >= 2)
		print_scaling(thr, nodes, nthr, shapes, nshapes, gf, gf_pk);
	if (csv) {
		fclose(csv);
		if (o.png && write_png(o.csv, o.png, png_thr, shapes, nshapes))
			fprintf(stderr, "amx-bench: gnuplot failed\n");
	} else if (o.png) {
		fprintf(stderr, "amx-bench: --png needs --csv\n");
	}
	if (mismatches) {
		fprintf(stderr, "amx-bench: %lu rows with results that do not "
			"match (see RESULT MISMATCH above)\n", mismatches);
		return 1;
	}
	return 0;
}
