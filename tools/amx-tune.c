// SPDX-License-Identifier: MIT
/*
 * amx-tune: measure the GEMM's cache blocking (kc, mc, nc, prefetch) on
 * this CPU for every usable backend and operation, and save the best as
 * the tuning file the library reads at its first GEMM.
 *
 * Per backend and operation, one thread, one problem (M = N, K = 2M):
 * kc x mc on a grid, then (AMX) when the C tiles move (around the K loop
 * or inside its first and last step), then nc, then the prefetch distance
 * (AMX), each step keeping the best so far; each candidate is timed
 * best-of-N after a warm run; the C schedule, and at the end the winner
 * against the default, are timed alternately and changed only when
 * clearly (3 %) faster.  Then, for AMX, how edge blocks run (copied
 * through scratch, or on partial tiles), timed the same way on a problem
 * whose M and N are not multiples of 32.  int8 results must be
 * bit-identical for every candidate (the GEMM is exact whatever the
 * blocking); a difference aborts the run.
 * Progress goes to stderr; the result table to stdout.
 *
 * Exit status: 0 saved (or --dry-run), 1 error, 2 usage.
 */
#define _GNU_SOURCE
#include <amx.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct tune_opts {
	int quick, dry_run, verbose;
	unsigned int backends;		/* bit 1 << AMX_GEMM_BACKEND_* */
	size_t size;
	const char *output;
};

/* the library's names (the tuning file's and AMX_GEMM_BLOCKS's words) */
#define tune_backend_names(be) amx_gemm_backend_name((enum amx_gemm_backend)(be))
#define tune_op_names(op) amx_gemm_op_name((enum amx_gemm_op)(op))

static double tune_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct tune_problem {
	int op;
	size_t s, k;		/* M = N = s */
	void *a, *b, *c, *cref;
};

static int tune_run(struct tune_problem *p)
{
	size_t s = p->s, k = p->k;

	if (p->op == AMX_GEMM_OP_BF16)
		return amx_gemm_bf16(0, s, s, k, p->a, k, p->b, s, p->c, s);
	if (p->op == AMX_GEMM_OP_S8S8)
		return amx_gemm_s8s8(0, s, s, k, p->a, k, p->b, s, p->c, s);
	if (p->op == AMX_GEMM_OP_F16)
		return amx_gemm_f16(0, s, s, k, p->a, k, p->b, s, p->c, s);
	return amx_gemm_u8s8(0, s, s, k, p->a, k, p->b, s, p->c, s);
}

/* best seconds of @reps runs after a warm one; <0: -errno */
static double tune_time(struct tune_problem *p, int reps)
{
	double best = INFINITY;
	int ret = tune_run(p);

	if (ret)
		return ret;
	for (int r = 0; r < reps; r++) {
		double t = tune_now();

		tune_run(p);
		t = tune_now() - t;
		if (t < best)
			best = t;
	}
	return best;
}

static int tune_force_backend(int be)
{
	setenv("AMX_FORCE_FALLBACK", be == AMX_GEMM_BACKEND_AMX ? "0" :
	       be == AMX_GEMM_BACKEND_AVX512 ? "1" : "c", 1);
	return amx_gemm_backend(AMX_GEMM_BF16) == be &&
	       amx_gemm_backend(AMX_GEMM_S8) == be;
}

/* one candidate: GFLOPS, or 0 when refused; *bad set on a wrong result */
static double tune_try(struct tune_problem *p, int be,
		       const struct amx_gemm_blocking *b, int reps, int *bad)
{
	double t, flops = 2.0 * p->s * p->s * p->k;

	if (amx_gemm_set_blocking(be, p->op, b))
		return 0;
	t = tune_time(p, reps);
	if (t <= 0)
		return 0;
	/* int8 is exact whatever the blocking; fp32 sums round by it */
	if (p->op != AMX_GEMM_OP_BF16 && p->op != AMX_GEMM_OP_F16 &&
	    memcmp(p->c, p->cref, p->s * p->s * 4))
		*bad = 1;
	return flops / t / 1e9;
}

static void tune_fill(struct tune_problem *p)
{
	size_t n = p->s * p->k;
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (p->op == AMX_GEMM_OP_BF16) {
			((amx_bf16 *)p->a)[i] = amx_fp32_to_bf16((float)(x % 200) / 100 - 1);
			((amx_bf16 *)p->b)[i] = amx_fp32_to_bf16((float)(x >> 16 & 255) / 128 - 1);
		} else if (p->op == AMX_GEMM_OP_F16) {
			((amx_fp16 *)p->a)[i] = amx_fp32_to_fp16((float)(x % 200) / 100 - 1);
			((amx_fp16 *)p->b)[i] = amx_fp32_to_fp16((float)(x >> 16 & 255) / 128 - 1);
		} else {
			((int8_t *)p->a)[i] = (int8_t)x;
			((int8_t *)p->b)[i] = (int8_t)(x >> 8);
		}
	}
}

/*
 * Two blockings that differ in one tunable, @cur[0] (the one in force)
 * and @cur[1], timed alternately on @p, best of three turns of @reps
 * runs each: @cur[1] when clearly (3 %) faster, else @cur[0]; its
 * G/s in *@gwin (if not NULL).  int8 results must match @p->cref.
 * With @verbose, both timings go to stderr under @what and @names.
 */
static struct amx_gemm_blocking tune_pair(struct tune_problem *p, int be,
					  int reps,
					  const struct amx_gemm_blocking cur[2],
					  int *bad, double *gwin, int verbose,
					  const char *what,
					  const char *const names[2])
{
	double g[2] = { 0, 0 };
	int win;

	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 2; i++) {
			double x = tune_try(p, be, &cur[i], reps, bad);

			g[i] = x > g[i] ? x : g[i];
		}
	win = g[1] > 1.03 * g[0];
	if (verbose)
		fprintf(stderr, "\ramx-tune: %-6s %-4s %s: %s %.1f, %s %.1f G/s "
			"(%+.1f %%): %s\n", tune_backend_names(be),
			tune_op_names(p->op), what, names[0], g[0], names[1],
			g[1], g[0] > 0 ? 100 * (g[1] / g[0] - 1) : 0.0,
			names[win]);
	if (gwin)
		*gwin = g[win];
	return cur[win];
}

/*
 * Edge blocks (AMX): the blocking @best with edges copied and on partial
 * tiles on M = N = s / 2 + 13 and K = k / 2 (ragged against the 32 x 32
 * micro-kernel in both).  0, or -errno.
 */
static int tune_edge(const struct tune_problem *sq, int be, int reps,
		     struct amx_gemm_blocking *best, int *bad, int verbose)
{
	static const char *const names[2] = { "copy", "tiles" };
	struct tune_problem e = *sq;
	struct amx_gemm_blocking cur[2] = { *best, *best };
	int ret;

	e.s = sq->s / 2 + 13;
	e.k = sq->k / 2;
	cur[0].edge = AMX_GEMM_EDGE_COPY;
	cur[1].edge = AMX_GEMM_EDGE_TILES;
	if (amx_gemm_set_blocking(be, e.op, &cur[0]))
		return -EINVAL;
	ret = tune_run(&e);
	if (ret)
		return ret;
	memcpy(e.cref, e.c, e.s * e.s * 4);
	*best = tune_pair(&e, be, 8 * reps, cur, bad, NULL, verbose,
			  "edge (ragged problem)", names);
	return 0;
}

/*
 * Tune one backend and operation; leaves the winner set in the library.
 * 0, or -errno.
 */
static int tune_one(const struct tune_opts *o, int be, int op)
{
	static const unsigned int kc_bytes_full[] = { 128, 256, 384, 512, 768, 1024, 1536,
						     2048, 3072, 4096 };
	static const unsigned int kc_bytes_quick[] = { 256, 768 };
	static const unsigned int mc_full[] = { 32, 64, 128, 256, 512, 1024 };
	static const unsigned int mc_quick[] = { 64, 256 };
	static const unsigned int nc_full[] = { 256, 512, 1024, 2048, 4096 };
	static const unsigned int nc_quick[] = { 512 };
	static const unsigned int pf_list[] = { 0, 1, 2, 4 };
	const unsigned int *kcs = o->quick ? kc_bytes_quick : kc_bytes_full;
	const unsigned int *mcs = o->quick ? mc_quick : mc_full;
	const unsigned int *ncs = o->quick ? nc_quick : nc_full;
	size_t nkc = o->quick ? 2 : 10, nmc = o->quick ? 2 : 6;
	size_t nnc = o->quick ? 1 : 5, npf = be == AMX_GEMM_BACKEND_AMX ? (o->quick ? 2 : 4) : 1;
	size_t nedge = be == AMX_GEMM_BACKEND_AMX;
	size_t ncio = be == AMX_GEMM_BACKEND_AMX;
	size_t total = nkc * nmc + ncio + nnc + npf + nedge, done = 0;
	size_t esz = op == AMX_GEMM_OP_BF16 || op == AMX_GEMM_OP_F16 ? 2 : 1;
	int reps = o->quick ? 1 : 4, bad = 0, ret = 0;
	/* the portable C path is ~10x slower: an 8x smaller problem */
	size_t sz = be == AMX_GEMM_BACKEND_C && o->size >= 64 ? o->size / 2 : o->size;
	struct tune_problem p = { .op = op, .s = sz, .k = 2 * sz };
	struct amx_gemm_blocking def, best, cur;
	double gbest, g, gdef;

	p.a = malloc(p.s * p.k * esz);
	p.b = malloc(p.k * p.s * esz);
	p.c = malloc(p.s * p.s * 4);
	p.cref = malloc(p.s * p.s * 4);
	if (!p.a || !p.b || !p.c || !p.cref) {
		ret = -ENOMEM;
		goto out;
	}
	tune_fill(&p);
	amx_gemm_set_blocking(be, op, NULL);
	amx_gemm_get_blocking(be, op, &def);
	ret = tune_run(&p);
	if (ret)
		goto out;
	memcpy(p.cref, p.c, p.s * p.s * 4);
	gdef = tune_try(&p, be, &def, reps, &bad);
	best = def;
	gbest = gdef;
	for (size_t i = 0; i < nkc; i++)
		for (size_t j = 0; j < nmc; j++) {
			cur = def;
			cur.kc = kcs[i] / esz;
			cur.mc = mcs[j];
			g = tune_try(&p, be, &cur, reps, &bad);
			if (g > gbest) {
				gbest = g;
				best = cur;
			}
			if (++done % 8 == 0 || done == nkc * nmc || o->verbose)
				fprintf(stderr, "\ramx-tune: %-6s %-4s [%3zu/%3zu] best kc %u mc %u: %.1f G/s   ",
					tune_backend_names(be), tune_op_names(op),
					done, total, best.kc, best.mc, gbest);
		}
	/*
	 * The C tiles' moves (AMX) weigh most where a block has few K steps,
	 * so they are settled before nc and prefetch are tuned around them.
	 */
	if (ncio) {
		static const char *const cio_names[2] = { "block", "interleave" };
		struct amx_gemm_blocking pair[2] = { best, best };
		const char *names[2];

		/* the one in force first: the other must be clearly faster */
		pair[1].cio = best.cio == AMX_GEMM_CIO_BLOCK ?
			      AMX_GEMM_CIO_INTERLEAVE : AMX_GEMM_CIO_BLOCK;
		names[0] = cio_names[pair[0].cio];
		names[1] = cio_names[pair[1].cio];
		best = tune_pair(&p, be, reps, pair, &bad, &gbest, o->verbose,
				 "cio", names);
		done++;
	}
	for (size_t i = 0; i < nnc; i++) {
		cur = best;
		cur.nc = ncs[i];
		g = tune_try(&p, be, &cur, reps, &bad);
		if (g > gbest) {
			gbest = g;
			best = cur;
		}
		done++;
	}
	for (size_t i = 0; i < npf; i++) {
		cur = best;
		cur.prefetch = pf_list[i];
		g = tune_try(&p, be, &cur, reps, &bad);
		if (g > gbest) {
			gbest = g;
			best = cur;
		}
		done++;
	}
	/*
	 * A busy machine makes single timings lie: time the default and the
	 * winner again, alternately, and keep the winner only when it is
	 * clearly (3 %) faster.
	 */
	if (memcmp(&best, &def, sizeof(best))) {
		double gd = 0, gb = 0;

		for (int r = 0; r < 3; r++) {
			g = tune_try(&p, be, &def, reps, &bad);
			gd = g > gd ? g : gd;
			g = tune_try(&p, be, &best, reps, &bad);
			gb = g > gb ? g : gb;
		}
		gdef = gd;
		gbest = gb;
		if (gb < 1.03 * gd) {
			best = def;
			gbest = gd;
		}
	}
	if (nedge && !bad) {
		ret = tune_edge(&p, be, reps, &best, &bad, o->verbose);
		if (ret)
			goto out;
		done++;
	}
	fprintf(stderr, "\ramx-tune: %-6s %-4s [%3zu/%3zu] done%40s\n",
		tune_backend_names(be), tune_op_names(op), done, total, "");
	if (bad) {
		fprintf(stderr, "amx-tune: %s %s: results differ between blockings\n",
			tune_backend_names(be), tune_op_names(op));
		ret = -EIO;
		goto out;
	}
	amx_gemm_set_blocking(be, op, &best);
	amx_gemm_get_blocking(be, op, &best);
	printf("%-6s %-4s kc %5u mc %5u nc %5u prefetch %2u edge %-5s cio %-10s  %8.1f G/s (default %8.1f, %+.0f %%)\n",
	       tune_backend_names(be), tune_op_names(op), best.kc, best.mc,
	       best.nc, best.prefetch,
	       best.edge == AMX_GEMM_EDGE_TILES ? "tiles" : "copy",
	       best.cio == AMX_GEMM_CIO_INTERLEAVE ? "interleave" : "block",
	       gbest, gdef,
	       gdef > 0 ? 100 * (gbest / gdef - 1) : 0.0);
out:
	free(p.a);
	free(p.b);
	free(p.c);
	free(p.cref);
	return ret;
}

static int tune_all(const struct tune_opts *o)
{
	const char *old = getenv("AMX_FORCE_FALLBACK");
	char *saved = old ? strdup(old) : NULL;
	int ret = 0, tuned = 0;
	double t0 = tune_now();

	amx_request();
	amx_set_num_threads(1);
	for (int be = AMX_GEMM_BACKEND_AMX; !ret && be <= AMX_GEMM_BACKEND_C; be++) {
		if (!(o->backends & (1u << be)))
			continue;
		if (!tune_force_backend(be)) {
			fprintf(stderr, "amx-tune: %s: not usable here, skipped\n",
				tune_backend_names(be));
			continue;
		}
		for (int op = AMX_GEMM_OP_BF16; !ret && op <= AMX_GEMM_OP_F16; op++) {
			/* fp16 on AMX needs AMX-FP16, not only AMX */
			if (op == AMX_GEMM_OP_F16 &&
			    amx_gemm_backend(AMX_GEMM_F16) != be) {
				fprintf(stderr, "amx-tune: %s f16: not usable here, skipped\n",
					tune_backend_names(be));
				continue;
			}
			ret = tune_one(o, be, op);
		}
		tuned++;
	}
	if (saved)
		setenv("AMX_FORCE_FALLBACK", saved, 1);
	else
		unsetenv("AMX_FORCE_FALLBACK");
	free(saved);
	amx_set_num_threads(0);
	if (ret)
		return ret;
	if (!tuned) {
		fprintf(stderr, "amx-tune: no backend to tune\n");
		return -ENODEV;
	}
	fprintf(stderr, "amx-tune: %.1f s\n", tune_now() - t0);
	if (o->dry_run)
		return 0;
	ret = amx_gemm_blocking_save(o->output);
	if (ret)
		/* a file error: strerror's words, not AMX hints */
		fprintf(stderr, "amx-tune: cannot save %s: %s\n",
			o->output ? o->output : "the tuning file", strerror(-ret));
	else
		fprintf(stderr, "amx-tune: saved %s\n", o->output ? o->output :
			"$XDG_CACHE_HOME/libamx/gemm-blocking");
	return ret;
}

#ifndef AMX_TUNE_NO_MAIN
static void usage(FILE *f)
{
	fprintf(f, "usage: amx-tune [--quick] [--backend amx|avx512|c|all] [--size N]\n"
		   "                [--output FILE | --system] [--dry-run] [--verbose]\n"
		   "  --quick     a few candidates on a small problem (seconds; a smoke test)\n"
		   "  --backend   tune only this backend (default: AMX and AVX-512 where usable)\n"
		   "  --size N    M = N of the timed problem, K = 2N (default 768, quick 128)\n"
		   "  --output F  write F instead of $XDG_CACHE_HOME/libamx/gemm-blocking\n"
		   "  --system    write /etc/libamx/gemm-blocking (all users of this machine)\n"
		   "  --dry-run   measure and print, save nothing\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "backend", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "system", no_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct tune_opts o = { .backends = 1u << AMX_GEMM_BACKEND_AMX |
					   1u << AMX_GEMM_BACKEND_AVX512 };
	int c;

	while ((c = getopt_long(argc, argv, "qb:s:o:Snvh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': o.quick = 1; break;
		case 'n': o.dry_run = 1; break;
		case 'v': o.verbose = 1; break;
		case 'o': o.output = optarg; break;
		case 'S': o.output = "/etc/libamx/gemm-blocking"; break;
		case 's': o.size = strtoul(optarg, NULL, 0); break;
		case 'b':
			o.backends = !strcmp(optarg, "all") ? 0xe : 0;
			for (int be = AMX_GEMM_BACKEND_AMX;
			     be <= AMX_GEMM_BACKEND_C; be++)
				if (!strcmp(optarg, tune_backend_names(be)))
					o.backends = 1u << be;
			if (!o.backends) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || (o.size && (o.size < 16 || o.size > 8192))) {
		usage(stderr);
		return 2;
	}
	if (!o.size)
		o.size = o.quick ? 128 : 768;
	if (o.output && !strcmp(o.output, "/etc/libamx/gemm-blocking"))
		mkdir("/etc/libamx", 0755);
	return tune_all(&o) ? 1 : 0;
}
#endif
