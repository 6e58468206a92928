// SPDX-License-Identifier: MIT
/*
 * NUMA placement end to end (amx_get_topology(3)), checked against the
 * kernel, not against the library's own account:
 *
 * - topology: amx_get_topology() agrees with /sys/devices/system/node/
 *   node<N>/cpulist and the affinity mask, read here;
 * - pool: one worker per physical core, each pinned (its affinity as
 *   sched_getaffinity() reads it is that one CPU), on the node the
 *   library says, nodes in contiguous runs;
 * - weights: for every placement, the pages of every range that
 *   amx_packed_b_ranges() / amx_wq_ranges() give are where
 *   move_pages(2) says (split and replicate: the range's node;
 *   interleave: spread over the pool's nodes);
 * - results: bf16 GEMMs with plain, packed and int4 weights are bit for
 *   bit those of one thread, for 1..8 threads and every placement.
 *
 * On one node the page checks are skipped (and said so); the rest runs.
 * "hotplug" (only in the rig's guest, booted with rdinit=/init: never on
 * a host) also takes a CPU offline between calls and back.
 */
#define _GNU_SOURCE
#include <amx.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "amx_test.h"

#define M 20
#define N 520		/* 33 panels: parts do not split evenly */
#define K 256
#define GROUP 64

static uint16_t a[M * K], b[K * N];
static float bf[K * N];
static float ref_plain[M * N], ref_packed[M * N], ref_wq[M * N];
static struct amx_topology topo;
static struct amx_cpu_topology cpus[1024];
static int ncpus;

static const char *const place_name[] = { "split", "interleave", "local",
					  "replicate" };

/* the node of each CPU as sysfs says, read here (-1: none) */
static int sysfs_node_of(int cpu)
{
	for (int node = 0; node < 64; node++) {
		char path[96], buf[4096];
		FILE *f;
		int lo, hi, n;
		char *p;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpulist", node);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		for (p = buf; sscanf(p, "%d%n", &lo, &n) == 1;) {
			hi = lo;
			p += n;
			if (*p == '-' && sscanf(p + 1, "%d%n", &hi, &n) == 1)
				p += n + 1;
			if (cpu >= lo && cpu <= hi)
				return node;
			if (*p != ',')
				break;
			p++;
		}
	}
	return access("/sys/devices/system/node", F_OK) ? 0 : -1;
}

static void check_topology(void)
{
	cpu_set_t mask;
	int agree = 1, in_mask = 0;

	ncpus = amx_get_topology(&topo, cpus, 1024);
	if (ncpus <= 0)
		tap_bail_out("amx_get_topology() failed");
	sched_getaffinity(0, sizeof(mask), &mask);
	for (int c = 0; c < CPU_SETSIZE; c++)
		in_mask += CPU_ISSET(c, &mask) && c < 1024;
	for (int i = 0; i < ncpus; i++)
		agree &= CPU_ISSET(cpus[i].cpu, &mask) &&
			 cpus[i].node == sysfs_node_of(cpus[i].cpu);
	tap_ok(agree && ncpus == in_mask, "topology: %d CPUs, each on the node "
	       "sysfs says, all of the affinity mask (%d)", ncpus, in_mask);
	tap_diag("%u CPUs, %u cores, %u packages, %u nodes, numa_err %d",
		 topo.ncpus, topo.ncores, topo.npackages, topo.nnodes,
		 topo.numa_err);
}

static const struct amx_cpu_topology *cpu_info(int cpu)
{
	for (int i = 0; i < ncpus; i++)
		if (cpus[i].cpu == cpu)
			return &cpus[i];
	return NULL;
}

static void check_pool(void)
{
	struct amx_pool_thread th[256];
	char core_seen[1024] = { 0 };
	int n, pinned = 1, cores = 1, runs = 1;

	amx_set_num_threads(0);
	n = amx_get_pool_threads(th, 256);
	tap_ok(n == (int)topo.ncores, "pool: %d threads, one per core (%u)", n,
	       topo.ncores);
	for (int i = 1; i < n; i++) {
		const struct amx_cpu_topology *c = cpu_info(th[i].cpu);
		cpu_set_t set;

		CPU_ZERO(&set);	/* the system call writes only its mask's bytes */
		if (!c || syscall(SYS_sched_getaffinity, th[i].tid, sizeof(set),
				  &set) < 0 || CPU_COUNT(&set) != 1 ||
		    !CPU_ISSET(th[i].cpu, &set) || c->node != th[i].node) {
			pinned = 0;
			tap_diag("worker %d: cpu %d node %d", i, th[i].cpu,
				 th[i].node);
			continue;
		}
		cores &= !core_seen[c->core];
		core_seen[c->core] = 1;
		if (th[i].node != th[i - 1].node)
			runs++;
	}
	tap_ok(pinned, "pool: every worker's affinity is its one CPU, on the "
	       "node reported");
	tap_ok(cores, "pool: no two workers on one core");
	tap_ok(runs <= (int)topo.nnodes, "pool: nodes in contiguous runs (%d "
	       "runs, %u nodes)", runs, topo.nnodes);
}

/* pages of [p, p + bytes) on @want (-2: any of the pool's nodes) */
static int pages_on(const void *p, size_t bytes, int want, int *nodes_hit)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), np = bytes / pg, bad = 0;
	void **pages = malloc(np * sizeof(*pages));
	int *status = malloc(np * sizeof(*status));

	if (!pages || !status)
		tap_bail_out("out of memory");
	for (size_t i = 0; i < np; i++)
		pages[i] = (char *)p + i * pg;
	if (syscall(SYS_move_pages, 0, np, pages, NULL, status, 0)) {
		tap_diag("move_pages: %s", strerror(errno));
		bad = np;
	}
	for (size_t i = 0; !bad && i < np; i++) {
		if (status[i] < 0 || (want >= 0 && status[i] != want))
			bad++;
		else if (status[i] < 64)
			nodes_hit[status[i]] = 1;
	}
	if (bad)
		tap_diag("%zu of %zu pages not on node %d (first: %d)", bad, np,
			 want, np ? status[0] : 0);
	free(pages);
	free(status);
	return !bad;
}

/* what the ranges of one handle say and whether the pages agree */
static void check_ranges(const char *what, enum amx_placement pl,
			 const struct amx_mem_range *r, int nr, size_t ncols)
{
	int multi = topo.nnodes > 1 && !topo.numa_err, ok = 1, hit[64] = { 0 };
	int want_nodes = 0;

	if (!multi) {
		tap_ok(nr == 1 && r[0].node == -1 && !r[0].flags,
		       "%s, %s: one node or no NUMA: one unplaced range", what,
		       place_name[pl]);
		tap_skip("one node, or the kernel places nothing",
			 "%s, %s: pages on their nodes", what, place_name[pl]);
		return;
	}
	for (int i = 0; i < nr; i++) {
		int w = pl == AMX_PLACE_INTERLEAVE || pl == AMX_PLACE_LOCAL ?
			-2 : r[i].node;

		ok &= pl == AMX_PLACE_LOCAL || !!(r[i].flags & AMX_RANGE_PLACED);
		ok &= r[i].col0 < r[i].col1 && r[i].col1 <= ncols;
		ok &= pages_on(r[i].addr, r[i].bytes, w, hit);
	}
	for (int x = 0; x < 64; x++)
		want_nodes += hit[x];
	if (pl == AMX_PLACE_SPLIT || pl == AMX_PLACE_INTERLEAVE ||
	    pl == AMX_PLACE_REPLICATE)
		ok &= want_nodes == (int)topo.nnodes;
	if (pl == AMX_PLACE_REPLICATE)
		ok &= nr == (int)topo.nnodes && (r[0].flags & AMX_RANGE_COPY);
	tap_ok(ok, "%s, %s: %d ranges, pages on %d nodes as asked", what,
	       place_name[pl], nr, want_nodes);
}

static void run_all(float *plain, float *packed, float *wq,
		    enum amx_placement pl, int check)
{
	struct amx_packed_b *pb = NULL;
	struct amx_wq *w = NULL;
	struct amx_mem_range r[256];
	int nr, ret;

	memset(plain, 0x7f, sizeof(ref_plain));
	memset(packed, 0x7f, sizeof(ref_plain));
	memset(wq, 0x7f, sizeof(ref_plain));
	ret = amx_gemm_bf16(0, M, N, K, a, K, b, N, plain, N);
	ret |= amx_packed_b_create(&pb, AMX_GEMM_BF16, K, N, b, N);
	ret |= amx_wq_quantize(&w, AMX_WQ_S4, GROUP, K, N, bf, N);
	if (ret || !pb || !w)
		tap_bail_out("GEMM or weight creation failed");
	ret = amx_gemm_bf16_packed(0, M, a, K, pb, packed, N);
	ret |= amx_gemm_bf16_wq(0, M, a, K, w, wq, N, NULL);
	if (ret)
		tap_bail_out("a GEMM failed");
	if (check) {
		nr = amx_packed_b_ranges(pb, r, 256);
		check_ranges("packed B", pl, r, nr > 256 ? 256 : nr, N);
		nr = amx_wq_ranges(w, r, 256);
		check_ranges("int4 weights", pl, r, nr > 256 ? 256 : nr, N);
	}
	amx_packed_b_free(pb);
	amx_wq_free(w);
}

static void check_results(void)
{
	static float plain[M * N], packed[M * N], wq[M * N];
	int maxthr = ncpus < 8 ? ncpus : 8;

	amx_set_placement(AMX_PLACE_LOCAL);
	amx_set_num_threads(1);
	run_all(ref_plain, ref_packed, ref_wq, AMX_PLACE_LOCAL, 0);
	for (int pl = 0; pl < 4; pl++) {
		int same = 1;

		amx_set_placement((enum amx_placement)pl);
		for (int t = 1; t <= maxthr; t++) {
			amx_set_num_threads((unsigned int)t);
			/* the page checks once, with the whole pool */
			run_all(plain, packed, wq, (enum amx_placement)pl,
				t == maxthr && maxthr == (int)topo.ncores);
			same &= !memcmp(plain, ref_plain, sizeof(plain)) &&
				!memcmp(packed, ref_packed, sizeof(packed)) &&
				!memcmp(wq, ref_wq, sizeof(wq));
		}
		tap_ok(same, "%s: plain, packed and int4 GEMMs bit-identical for "
		       "1..%d threads", place_name[pl], maxthr);
	}
	amx_set_placement(AMX_PLACE_SPLIT);
	amx_set_num_threads(0);
}

static int write_online(int cpu, const char *v)
{
	char path[96];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	f = fopen(path, "we");
	if (!f)
		return 0;
	ok = fputs(v, f) >= 0;
	ok &= fclose(f) == 0;
	return ok;
}

/* the rig's guest: its kernel command line names its init */
static int in_guest(void)
{
	char buf[512] = "";
	FILE *f = fopen("/proc/cmdline", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return strstr(buf, "rdinit=/init") != NULL;
}

static void check_hotplug(void)
{
	static float plain[M * N], packed[M * N], wq[M * N];
	int victim = cpus[ncpus - 1].cpu, same;
	struct amx_topology t2;

	if (!in_guest() || ncpus < 2) {
		tap_skip("not in the rig's guest", "hotplug");
		return;
	}
	amx_set_num_threads(0);
	amx_get_pool_threads(NULL, 0);
	if (!write_online(victim, "0")) {
		tap_skip("the CPU cannot go offline here", "hotplug");
		return;
	}
	/* the pool still has a worker pinned to the offline CPU */
	run_all(plain, packed, wq, AMX_PLACE_SPLIT, 0);
	same = !memcmp(plain, ref_plain, sizeof(plain)) &&
	       !memcmp(packed, ref_packed, sizeof(packed)) &&
	       !memcmp(wq, ref_wq, sizeof(wq));
	tap_ok(same, "cpu%d offline under a pinned worker: same results",
	       victim);
	amx_set_num_threads(0);
	tap_ok(amx_get_topology(&t2, NULL, 0) == ncpus - 1 &&
	       amx_get_pool_threads(NULL, 0) == (int)t2.ncores,
	       "a restarted pool leaves the offline CPU out");
	run_all(plain, packed, wq, AMX_PLACE_SPLIT, 0);
	tap_ok(!memcmp(plain, ref_plain, sizeof(plain)) &&
	       !memcmp(wq, ref_wq, sizeof(wq)), "and computes the same");
	tap_ok(write_online(victim, "1"), "cpu%d back online", victim);
	amx_set_num_threads(0);
}

int main(int argc, char **argv)
{
	uint64_t seed = 23;

	for (size_t i = 0; i < M * K; i++)
		a[i] = amx_test_f2bf((float)((int)(amx_test_rand(&seed) % 17) - 8) / 8);
	for (size_t i = 0; i < K * N; i++) {
		bf[i] = (float)((int)(amx_test_rand(&seed) % 31) - 15) / 16;
		b[i] = amx_test_f2bf(bf[i]);
	}
	check_topology();
	check_pool();
	check_results();
	if (argc > 1 && !strcmp(argv[1], "hotplug"))
		check_hotplug();
	return tap_finish();
}
