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
 * after the same scrub, every byte, on as many threads as the GEMM uses,
 * each pinned to one of the GEMM's cores and reading its share, placed on
 * that core's node, the best of three ways of reading (read_ways()).
 * --threads 1,2,4,all runs each count on the first node's cores alone
 * and, with two nodes or more, on cores taken from every node in turn
 * (set_config()).
 * The probe and the calls of every kind take turns, rep after rep, so
 * that the drift of a shared machine's bandwidth hits them alike.
 *
 * Reported per call: the bytes it must read (amx_wq_size() or
 * amx_packed_b_size(), plus A) over its time, as a fraction of the
 * probe's rate ("of bw"), and of the roofline ("of roof"): the time the
 * larger of that read and of the call's 2 m n k flops at the register
 * peak of vdpbf16ps (vpdpbusd for the int8-activation kinds "/i8a"
 * and "s8s8", their baseline: unquantized int8 weights through
 * amx_gemm_s8s8_packed(), which bench/targets.py times them against;
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
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

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

/*
 * A read of [p, p + bytes) by @nthr threads, 64 bytes a load, one of
 * three ways (read_ways()): RD_ONE front to back; RD_FOUR its four
 * quarters side by side, 256 bytes of each in turn (as the kernels read
 * 2 to 4 panels at once); RD_AHEAD front to back with a prefetch into L2
 * 32 KiB ahead each 256 bytes (as the kernels prefetch the next chunk).
 * The probe is the best of them: on Zen 4, 23, 28 and 31 GB/s, and with
 * RD_ONE alone the bf16 GEMM read 10-40 % faster than "the memory".
 */
enum { RD_AHEAD, RD_FOUR, RD_ONE, RD_NWAYS };
#define RD_AHEAD_BYTES	(32u << 10)

struct rd {
	const uint8_t *p;
	size_t bytes;
	int ways;
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

/*
 * RD_FOUR (@ahead 0): the same in four quarters side by side, or
 * RD_AHEAD (@ahead): front to back with the prefetch; the rest front to
 * back
 */
__attribute__((target("avx512f")))
static uint64_t rd4_avx512(const uint8_t *p, size_t bytes, int ahead)
{
	size_t part = ahead ? bytes / 256 * 256 : bytes / 4 / 256 * 256;
	int ways = ahead ? 1 : 4;
	__m512i s[4];

	for (int j = 0; j < 4; j++)
		s[j] = _mm512_setzero_si512();
	for (size_t o = 0; o < part; o += 256)
		for (int j = 0; j < ways; j++) {
			const __m512i *q = (const __m512i *)(p + j * part + o);

			if (ahead)
				_mm_prefetch((const char *)q + RD_AHEAD_BYTES,
					     _MM_HINT_T1);
			s[j] = _mm512_xor_si512(s[j], _mm512_load_si512(q));
			s[j] = _mm512_xor_si512(s[j], _mm512_load_si512(q + 1));
			s[j] = _mm512_xor_si512(s[j], _mm512_load_si512(q + 2));
			s[j] = _mm512_xor_si512(s[j], _mm512_load_si512(q + 3));
		}
	s[0] = _mm512_xor_si512(_mm512_xor_si512(s[0], s[1]),
				_mm512_xor_si512(s[2], s[3]));
	return (uint64_t)_mm512_reduce_add_epi64(s[0]) +
	       rd_avx512(p + ways * part, bytes - ways * part);
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

	if (!__builtin_cpu_supports("avx512f"))
		r->sink = rd_sse2(r->p, r->bytes);
	else if (r->ways != RD_ONE)
		r->sink = rd4_avx512(r->p, r->bytes, r->ways == RD_AHEAD);
	else
		r->sink = rd_avx512(r->p, r->bytes);
	return NULL;
}

/* the probe's way of reading on its rep @r: each in turn */
static int read_ways(int r)
{
	return r % RD_NWAYS;
}

/*
 * A read of [p, p + bytes) split in @nthr parts of whole pages, part t by a
 * thread pinned to @cpus[t]; by the caller alone when @cpus is NULL or
 * @nthr is 1 (set_config() pinned it there).
 */
static uint64_t read_all(const uint8_t *p, size_t bytes, int nthr,
			 const int *cpus, int ways)
{
	pthread_t *th = calloc((size_t)nthr, sizeof(*th));
	struct rd *parts = calloc((size_t)nthr, sizeof(*parts));
	size_t per = bytes / nthr / 4096 * 4096;
	uint64_t s = 0;

	if (!th || !parts) {
		fprintf(stderr, "amx-decode: out of memory\n");
		exit(1);
	}
	for (int t = 0; t < nthr; t++) {
		pthread_attr_t attr;
		cpu_set_t set;

		parts[t] = (struct rd){ p + t * per,
					t == nthr - 1 ? bytes - t * per : per,
					ways, 0 };
		if (!cpus || nthr == 1) {
			rd_part(&parts[t]);
			continue;
		}
		pthread_attr_init(&attr);
		CPU_ZERO(&set);
		CPU_SET(cpus[t], &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (pthread_create(&th[t], &attr, rd_part, &parts[t])) {
			fprintf(stderr, "amx-decode: pthread_create failed\n");
			exit(1);
		}
		pthread_attr_destroy(&attr);
	}
	for (int t = 0; cpus && nthr > 1 && t < nthr; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < nthr; t++)
		s += parts[t].sink;
	free(th);
	free(parts);
	return s;
}

/* the CPUs of the affinity mask at start, by node (amx_get_topology()) */
static struct amx_cpu_topology topo[CPU_SETSIZE];
static int ntopo, nnodes, node_id[CPU_SETSIZE];

static int node_of(int cpu)
{
	for (int i = 0; i < ntopo; i++)
		if (topo[i].cpu == cpu)
			return topo[i].node;
	return 0;
}

/*
 * Restrict the caller, and with it the pool (which takes the affinity
 * mask when it starts; amx_set_num_threads() restarts it), to @nthr
 * physical cores: of node @node, or (@node < 0) one of each node in turn.
 * @cpus gets them, for the probe's threads.  Returns 0, or -1 when there
 * are not that many.
 */
static int set_config(int node, unsigned int nthr, int *cpus)
{
	unsigned int n = 0;
	cpu_set_t set;

	for (int pass = 0; n < nthr && (node < 0 || !pass); pass++) {
		int took = 0;

		for (int x = 0; x < nnodes && n < nthr; x++) {
			int seen = 0;

			if (node >= 0 && node_id[x] != node)
				continue;
			for (int i = 0; i < ntopo; i++) {
				if (topo[i].smt || topo[i].node != node_id[x])
					continue;
				/* one node: all its cores at once */
				if (node >= 0 ? seen >= pass : seen == pass) {
					cpus[n++] = topo[i].cpu;
					took = 1;
					if (node < 0 || n == nthr)
						break;
				}
				seen++;
			}
		}
		if (!took)
			break;
	}
	if (n < nthr)
		return -1;
	CPU_ZERO(&set);
	for (unsigned int i = 0; i < n; i++)
		CPU_SET(cpus[i], &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    amx_set_num_threads(nthr))
		return -1;
	return 0;
}

/*
 * Part t of the probe's buffer (read_all()'s split) on the node of
 * @cpus[t], before its first touch; returns 0 or the first -errno of
 * mbind(2) (no NUMA in the kernel, a node that is not there).
 */
static int place_probe(uint8_t *p, size_t bytes, int nthr, const int *cpus)
{
	size_t per = bytes / nthr / 4096 * 4096;
	int ret = 0;

	for (int t = 0; t < nthr; t++) {
		size_t len = t == nthr - 1 ? bytes - t * per : per;
		unsigned long mask[CPU_SETSIZE / 64] = { 0 };
		int node = node_of(cpus[t]);

		len = (len + 4095) / 4096 * 4096;
		if (node < 0 || node >= CPU_SETSIZE || !len)
			continue;
		mask[node / 64] = 1ul << (node % 64);
		if (syscall(SYS_mbind, p + t * per, len, 2 /* MPOL_BIND */,
			    mask, (unsigned long)CPU_SETSIZE + 1, 0ul) && !ret)
			ret = -errno;
	}
	return ret;
}

static uint8_t *scrub_buf;
static volatile uint64_t sink;
static int hot;		/* --hot: no scrub (what the kernels do from cache) */

static void scrub(void)
{
	if (!hot)
		sink += read_all(scrub_buf, SCRUB_BYTES, 1, NULL, RD_ONE);
}

enum kind { K_BF16, K_S8, K_Q8_0, K_S4_G128, K_Q4_0, K_Q4_1, K_U4ZP_G32,
	    K_Q8_0_I8, K_S4_G128_I8, K_Q4_0_I8, K_S8S8, K_NKIND };
/*
 * the kinds with int8 activations (amx_gemm_s8_wq(), and for K_S8S8 the
 * plain int8 GEMM amx_gemm_s8s8_packed() they are measured against) and
 * their weights
 */
#define K_I8(kd)	((kd) >= K_Q8_0_I8)
#define K_WEIGHTS(kd)	((kd) == K_Q8_0_I8 ? K_Q8_0 : (kd) == K_S4_G128_I8 ? \
			 K_S4_G128 : (kd) == K_Q4_0_I8 ? K_Q4_0 : (kd))
static const char *const kname[K_NKIND] = {
	"bf16", "s8-g32-f32", "q8_0", "s4-g128", "q4_0", "q4_1", "u4zp-g32",
	"q8_0/i8a", "s4-g128/i8a", "q4_0/i8a", "s8s8",
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
	if (kd == K_S8S8) {
		int8_t *b = xalloc(k * n);

		for (size_t x = 0; x < k * n; x++)
			b[x] = (int8_t)((int)(rnd() % 255) - 127);
		ret = amx_packed_b_create(&w->pb, AMX_GEMM_S8, k, n, b, n);
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
		ret = w->pb && i8 ? amx_gemm_s8s8_packed(0, m, a8, k, w->pb,
							 (int32_t *)c, n) :
		      w->pb ? amx_gemm_bf16_packed(0, m, a, k, w->pb, c, n) :
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

/* what main() read from the command line and measured, for run_config() */
static size_t ms[16] = { 1, 2, 4, 8 }, shapes[16][2] = {
	{ 4096, 4096 }, { 11008, 4096 }, { 4096, 11008 },
	{ 14336, 4096 }, { 4096, 14336 },
};
static int nm = 4, nshape = 5, reps = 5;
static size_t mmax = 1;
static FILE *f;
static double peak1, peak81;	/* per thread */
/* the 1-thread times on one node, for the speedup column */
static double t1[16][16][K_NKIND];
static int cpus[CPU_SETSIZE];

/*
 * The read rate of @thrs cores of each node alone, on a buffer bound to
 * that node, and (two nodes or more) of as many cores taken from every
 * node in turn, each reading its share bound to its own node: 256 MiB,
 * larger than any cache, best of @nrep reads.  "-" where there are not
 * that many cores, "*" where mbind(2) was refused (the pages are then
 * where the first touch put them).
 */
static void probe_table(const unsigned int *thrs, int nthrs, int nrep)
{
	size_t bytes = SCRUB_BYTES;
	int refused = 0, cols = nnodes + (nnodes >= 2);

	printf("# read rate, GB/s, of %zu MiB on the readers' node(s), "
	       "best of %d\n%7s", bytes >> 20, nrep, "threads");
	for (int x = 0; x < cols; x++) {
		char h[16];

		if (x < nnodes)
			snprintf(h, sizeof(h), "node%d", node_id[x]);
		else
			snprintf(h, sizeof(h), "all");
		printf(" %8s", h);
	}
	printf("\n");
	for (int ti = 0; ti < nthrs; ti++) {
		unsigned int nthr = thrs[ti];

		printf("%7u", nthr);
		for (int x = 0; x < cols; x++) {
			uint8_t *p;
			double bw = 0.0;
			int pret;

			if ((x == nnodes && nthr < (unsigned int)nnodes) ||
			    set_config(x < nnodes ? node_id[x] : -1, nthr,
				       cpus)) {
				printf(" %8s", "-");
				continue;
			}
			p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				perror("amx-decode: mmap");
				exit(1);
			}
			pret = place_probe(p, bytes, (int)nthr, cpus);
			memset(p, 1, bytes);
			for (int r = 0; r < nrep; r++) {
				double t = now();

				sink += read_all(p, bytes, (int)nthr, cpus,
						 read_ways(r));
				t = bytes / (now() - t) / 1e9;
				if (t > bw)
					bw = t;
			}
			munmap(p, bytes);
			printf(" %7.1f%s", bw, pret ? "*" : " ");
			refused |= pret != 0;
		}
		printf("\n");
	}
	if (refused)
		printf("# *: mbind(2) refused, the pages are where the first "
		       "touch put them\n");
}

/*
 * The rows of @nthr threads on the first node, or (@all) on cores taken
 * from every node in turn; the weights are made anew, so that they are
 * placed for the pool that reads them.  Returns 0, or 1 on an error.
 */
static int run_config(unsigned int nthr, int all)
{
	double peak = peak1 * nthr, peak8 = peak81 * nthr;
	int nodes, bw_nodes = 0, bw_seen[CPU_SETSIZE], pret = 0;
	char cfg[32];

	if (all && (nnodes < 2 || nthr < 2))
		return 0;
	if (set_config(all ? -1 : node_id[0], nthr, cpus)) {
		if (all)
			printf("# %u threads: not that many cores\n", nthr);
		else
			printf("# %u threads: node %d has fewer cores, its row "
			       "is not measured\n", nthr, node_id[0]);
		return 0;
	}
	nodes = bench_pool_nodes();
	for (unsigned int i = 0; i < nthr; i++) {
		int x = 0, nd = node_of(cpus[i]);

		while (x < bw_nodes && bw_seen[x] != nd)
			x++;
		if (x == bw_nodes)
			bw_seen[bw_nodes++] = nd;
	}
	if (all)
		snprintf(cfg, sizeof(cfg), "all");
	else
		snprintf(cfg, sizeof(cfg), "node%d", node_id[0]);
	for (int s = 0; s < nshape; s++) {
		size_t n = shapes[s][0], k = shapes[s][1];
		size_t rdb = (n * k * 2 + 4095) / 4096 * 4096;
		amx_bf16 *a = xalloc(mmax * k * 2);
		float *c = xalloc(mmax * n * 4);
		uint8_t *rd = mmap(NULL, rdb, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct weights w[K_NKIND];

		if (rd == MAP_FAILED) {
			perror("amx-decode: mmap");
			return 1;
		}
		for (size_t x = 0; x < mmax * k; x++)
			a[x] = rbf16();
		a8 = xalloc(mmax * k);
		a8s = xalloc(mmax * 4);
		if (amx_quantize_bf16_s8(mmax, k, a, k, a8, k, a8s)) {
			fprintf(stderr, "amx-decode: amx_quantize_bf16_s8 failed\n");
			return 1;
		}
		pret = place_probe(rd, n * k * 2, (int)nthr, cpus);
		memset(rd, 1, n * k * 2);
		if (!s)
			printf("# %s, %u thread(s) on %d node(s); read probe: "
			       "%u thread(s) on node(s) of their cores, buffer "
			       "%s\n", cfg, nthr, nodes, nthr,
			       pret ? "not placed (mbind refused), first touch"
				    : "placed on each reader's node");
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
				sink += read_all(rd, n * k * 2, (int)nthr,
						 cpus, read_ways(r));
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
				double roof = bytes / bw / 1e9, tc, sp;
				double pk = K_I8(kd) ? peak8 : peak;

				if (nthr == 1 && !all)
					t1[s][x][kd] = t[kd];
				sp = t1[s][x][kd] > 0 ? t1[s][x][kd] / t[kd] :
				     NAN;
				tc = pk > 0 ? 2.0 * m * n * k / pk / 1e9 : 0;
				roof = (roof > tc ? roof : tc) / t[kd];
				printf("%-6s %3u %5d %-11s %5zu %5zu %2zu %10.0f %8.1f %7.1f %5.1f %5.0f%% %6.0f%% %7.2fx %6.2fx\n",
				       cfg, nthr, nodes, kname[kd], n, k, m,
				       bytes, t[kd] * 1e6, gbps, bw,
				       100 * gbps / bw, 100 * roof,
				       t[K_BF16] / t[kd], sp);
				if (f)
					fprintf(f, "%s,%u,%zu,%zu,%zu,%.0f,%.9f,%.3f,%.3f,%.4f,%.1f,%.4f,%.4f,%s,%d,%d,%.4f\n",
						kname[kd], nthr, m, n, k, bytes, t[kd],
						gbps, bw, gbps / bw, pk, roof,
						t[K_BF16] / t[kd], cfg, nodes,
						bw_nodes, sp);
			}
		}
		for (int kd = 0; kd < K_NKIND; kd++)
			free_weights(&w[kd]);
		munmap(rd, rdb);
		free(a8);
		free(a8s);
		free(a);
		free(c);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: amx-decode [--quick] [--hot] [--reps R]\n"
		"                  [--threads N|all|LIST] [--m 1,2,4,8]\n"
		"                  [--shapes NxK,...] [--csv FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int nthrs = 1;
	unsigned int thrs[64] = { 1 };
	const char *csv = NULL;
	struct amx_topology tp;

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
			nthrs = bench_parse_threads(v, thrs, 64);
			if (nthrs < 0)
				usage();
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
	if (nm <= 0 || reps <= 0)
		usage();
	for (int x = 0; x < nm; x++) {
		if (!ms[x] || ms[x] > 4096)
			usage();
		if (ms[x] > mmax)
			mmax = ms[x];
	}
	ntopo = amx_get_topology(&tp, topo, CPU_SETSIZE);
	if (ntopo <= 0) {
		/* no sysfs: one node of the CPU this runs on */
		ntopo = 1;
		topo[0] = (struct amx_cpu_topology){ .cpu = sched_getcpu() };
	}
	if (ntopo > CPU_SETSIZE)
		ntopo = CPU_SETSIZE;
	for (int i = 0; i < ntopo; i++) {
		int x = 0;

		while (x < nnodes && node_id[x] != topo[i].node)
			x++;
		if (x == nnodes)
			node_id[nnodes++] = topo[i].node;
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
				if (fl / t / 1e9 > peak1)
					peak1 = fl / t / 1e9;
			}
		if (!amx_get_info(&info) && (info.cpu & AMX_CPU_AVX512_VNNI))
			for (int r = 0; r < 20; r++) {
				double t = now(), fl = bench_peak_avx512_int8(200000);

				t = now() - t;
				if (fl / t / 1e9 > peak81)
					peak81 = fl / t / 1e9;
			}
	}
	printf("# amx-decode: threads");
	for (int i = 0; i < nthrs; i++)
		printf("%s%u", i ? "," : " ", thrs[i]);
	printf(", %d node(s), %s weights, best of %d; per thread vdpbf16ps "
	       "peak %.0f GFLOPS, vpdpbusd %.0f GOPS\n", nnodes,
	       hot ? "HOT" : "cold", reps, peak1, peak81);
	probe_table(thrs, nthrs, reps);
	if (nnodes < 2)
		printf("# one node: the all-nodes rows are not measured; "
		       "\"of bw\" is of node %d's read rate\n", node_id[0]);
	printf("%-6s %3s %5s %-11s %5s %5s %2s %10s %8s %7s %5s %6s %7s %8s "
	       "%7s\n", "config", "thr", "nodes", "weights", "n", "k", "m",
	       "bytes", "us", "GB/s", "read", "of bw", "of roof", "vs bf16",
	       "speedup");
	if (csv && !(f = fopen(csv, "w"))) {
		perror(csv);
		return 1;
	}
	if (f)
		fprintf(f, "weights,threads,m,n,k,bytes,seconds,gbps,bw_gbps,"
			"bw_frac,peak_gflops,roof_frac,vs_bf16,config,nodes,"
			"bw_nodes,speedup\n");
	/*
	 * Per thread count: on the first node alone, then (two nodes or
	 * more) on as many cores taken from every node in turn.  The
	 * weights are made anew for each, so that they are placed for the
	 * pool that reads them.
	 */
	for (int ti = 0; ti < nthrs; ti++)
		for (int all = 0; all < 2; all++) {
			if (run_config(thrs[ti], all))
				return 1;
		}
	if (f && fclose(f)) {
		perror(csv);
		return 1;
	}
	return 0;
}
