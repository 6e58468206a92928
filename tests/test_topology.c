// SPDX-License-Identifier: MIT
/*
 * The topology reader (libamx/topology.c) against sysfs trees written
 * here: two sockets of two SMT cores on two nodes, the same without NUMA,
 * an affinity mask that leaves one node out, an offline CPU, malformed
 * lists.  Then the settings' contract: amx_set_pinning(),
 * amx_set_placement(), AMX_PIN and AMX_PLACEMENT values that are not
 * understood.  Links the static library for the internal reader.
 */
#include <amx.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "internal.h"

static char root[256];

static void put(const char *path, const char *text)
{
	char full[512], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(full, 0755);
		*slash = '/';
	}
	f = fopen(full, "w");
	if (!f)
		tap_bail_out("cannot write the fake sysfs");
	fputs(text, f);
	fclose(f);
}

/* cpu<N>/cache/index<I>/{level,type,shared_cpu_list} */
static void put_cache(int cpu, int index, int level, const char *type,
		      const char *list)
{
	static const char *const file[] = { "level", "type",
					    "shared_cpu_list" };
	char path[128], text[3][64];

	snprintf(text[0], sizeof(text[0]), "%d\n", level);
	snprintf(text[1], sizeof(text[1]), "%s\n", type);
	snprintf(text[2], sizeof(text[2]), "%s", list);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "cpu/cpu%d/cache/index%d/%s", cpu,
			 index, file[i]);
		put(path, text[i]);
	}
}

/*
 * 8 CPUs numbered as Intel servers number them, siblings apart: cores
 * 0-3 are CPUs {0,4}, {1,5}, {2,6}, {3,7}; package = core / 2, node =
 * package; L2 per core, L3 per package.  Without @numa no node directory;
 * @offline_cpu (-1: none) has no directory, as an offline CPU has none
 * of its topology files.
 */
static void make_tree(int numa, int offline_cpu)
{
	char path[128], text[64];

	snprintf(root, sizeof(root), "/tmp/amx-topo.%d.%d.%d", getpid(), numa,
		 offline_cpu);
	mkdir(root, 0755);
	for (int cpu = 0; cpu < 8; cpu++) {
		int core = cpu % 4, pkg = core / 2;

		if (cpu == offline_cpu)
			continue;
		snprintf(path, sizeof(path),
			 "cpu/cpu%d/topology/physical_package_id", cpu);
		snprintf(text, sizeof(text), "%d\n", pkg);
		put(path, text);
		snprintf(path, sizeof(path),
			 "cpu/cpu%d/topology/thread_siblings_list", cpu);
		snprintf(text, sizeof(text), "%d,%d\n", core, core + 4);
		put(path, text);
		/* an I-cache, its list wrong on purpose: it must not count */
		put_cache(cpu, 0, 1, "Instruction", "0-7\n");
		snprintf(text, sizeof(text), "%d,%d\n", core, core + 4);
		put_cache(cpu, 1, 2, "Unified", text);
		put_cache(cpu, 2, 3, "Unified", pkg ? "2-3,6-7\n" : "0-1,4-5\n");
	}
	if (numa) {
		put("node/node0/cpulist", "0-1,4-5\n");
		put("node/node1/cpulist", "2-3,6-7\n");
		put("node/possible", "0-1\n");	/* not a node directory */
	}
}

static cpu_set_t mask_of(const char *list)
{
	cpu_set_t set;

	if (amx__parse_cpulist(list, &set))
		tap_bail_out("bad mask in the test");
	return set;
}

static void check_two_nodes(void)
{
	struct amx__topo t;
	cpu_set_t all = mask_of("0-7"), one = mask_of("0,1,4,5"),
		  odd = mask_of("2,6,7");
	static const int order[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	int ok = 1;

	make_tree(1, -1);
	tap_ok(!amx__topo_read(&t, root, &all), "two nodes: read");
	tap_ok(t.sum.ncpus == 8 && t.sum.ncores == 4 && t.sum.npackages == 2 &&
	       t.sum.nnodes == 2 && t.sum.nl2 == 4 && t.sum.nl3 == 2,
	       "two nodes: 8 CPUs, 4 cores, 2 packages, 2 nodes, 4 L2, 2 L3 "
	       "(got %u %u %u %u %u %u)", t.sum.ncpus, t.sum.ncores,
	       t.sum.npackages, t.sum.nnodes, t.sum.nl2, t.sum.nl3);
	for (unsigned int i = 0; i < t.n && i < 8; i++) {
		const struct amx_cpu_topology *c = &t.cpu[i];

		ok &= c->cpu == order[i] && c->core == (int)i / 2 &&
		      c->smt == (int)i % 2 && c->node == (int)i / 4 &&
		      c->package == (int)i / 4 && c->l2 == (int)i / 2 &&
		      c->l3 == (int)i / 4;
	}
	tap_ok(ok && t.n == 8, "two nodes: sorted node, package, core, sibling; "
	       "core, smt, l2, l3 indices");
	amx__topo_free(&t);

	tap_ok(!amx__topo_read(&t, root, &one) && t.sum.nnodes == 1 &&
	       t.sum.ncores == 2 && t.n == 4 && t.cpu[0].node == 0 &&
	       t.cpu[3].node == 0, "a mask that excludes node 1: one node, "
	       "two cores");
	amx__topo_free(&t);

	tap_ok(!amx__topo_read(&t, root, &odd) && t.sum.nnodes == 1 &&
	       t.sum.ncores == 2 && t.n == 3 && t.cpu[0].cpu == 2 &&
	       t.cpu[0].smt == 0 && t.cpu[1].cpu == 6 && t.cpu[1].smt == 1 &&
	       t.cpu[2].cpu == 7 && t.cpu[2].smt == 0 && t.cpu[0].node == 1,
	       "mask 2,6,7: cores {2,6} and {7}: 7 is its core's first CPU "
	       "in the mask");
	amx__topo_free(&t);
}

static void check_without_numa(void)
{
	struct amx__topo t;
	cpu_set_t all = mask_of("0-7"), none = mask_of("9");

	make_tree(0, 5);
	tap_ok(!amx__topo_read(&t, root, &all) && t.sum.nnodes == 1 &&
	       t.n == 7 && t.sum.ncores == 4 && t.sum.npackages == 2,
	       "no node directory: one node 0; offline cpu5 left out "
	       "(got %u CPUs)", t.n);
	for (unsigned int i = 0; i < t.n; i++)
		if (t.cpu[i].node != 0 || t.cpu[i].cpu == 5)
			tap_ok(0, "cpu%d on node %d", t.cpu[i].cpu, t.cpu[i].node);
	amx__topo_free(&t);
	tap_ok(amx__topo_read(&t, root, &none) == -ENOENT,
	       "a mask of CPUs sysfs does not describe: -ENOENT");
	tap_ok(amx__topo_read(&t, "/nonexistent-sysfs", &all) == -ENOENT,
	       "no sysfs at all: -ENOENT");
}

static void check_cpulists(void)
{
	static const char *const bad[] = { "x", "1-", "3-1", "1,,2", "-1",
					   "1 2", "99999" };
	cpu_set_t set;

	tap_ok(!amx__parse_cpulist("0-2,5,7-8\n", &set) && CPU_COUNT(&set) == 6 &&
	       CPU_ISSET(5, &set) && !CPU_ISSET(3, &set) && CPU_ISSET(8, &set),
	       "cpulist 0-2,5,7-8");
	tap_ok(!amx__parse_cpulist("\n", &set) && CPU_COUNT(&set) == 0,
	       "empty cpulist (a memory-only node)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(amx__parse_cpulist(bad[i], &set) == -EINVAL,
		       "cpulist '%s': -EINVAL", bad[i]);
}

static void check_settings(void)
{
	struct amx_info info;
	struct amx_pool_thread th[256];
	struct amx_topology topo;
	int n;

	tap_ok(amx_set_pinning(2) == -EINVAL && amx_set_pinning(-1) == -EINVAL,
	       "amx_set_pinning(2 / -1): -EINVAL");
	tap_ok(amx_set_placement((enum amx_placement)4) == -EINVAL &&
	       amx_set_placement((enum amx_placement)-1) == -EINVAL,
	       "amx_set_placement(4 / -1): -EINVAL");
	tap_ok(amx_get_topology(NULL, NULL, 0) == -EINVAL &&
	       amx_get_topology(&topo, NULL, 1) == -EINVAL &&
	       amx_get_pool_threads(NULL, 1) == -EINVAL &&
	       amx_packed_b_ranges(NULL, NULL, 0) == -EINVAL &&
	       amx_wq_ranges(NULL, NULL, 0) == -EINVAL,
	       "NULL arguments: -EINVAL");

	setenv("AMX_PIN", "yes", 1);
	setenv("AMX_PLACEMENT", "everywhere", 1);
	amx_get_info(&info);
	tap_ok((info.env_ignored & (AMX_ENV_PIN | AMX_ENV_PLACEMENT)) ==
	       (AMX_ENV_PIN | AMX_ENV_PLACEMENT),
	       "AMX_PIN=yes and AMX_PLACEMENT=everywhere are reported ignored");
	tap_ok(amx_get_placement() == AMX_PLACE_SPLIT,
	       "an ignored AMX_PLACEMENT leaves the default, split");
	amx_set_num_threads(2);
	n = amx_get_pool_threads(th, 256);
	tap_ok(n == 2 && th[0].cpu == -1 &&
	       (th[1].cpu >= 0 || amx_get_topology(&topo, NULL, 0) < 0),
	       "an ignored AMX_PIN leaves pinning on (worker on cpu %d)",
	       n == 2 ? th[1].cpu : -2);
	setenv("AMX_PIN", "0", 1);
	amx_set_num_threads(2);	/* restart: AMX_PIN is read at start */
	n = amx_get_pool_threads(th, 256);
	tap_ok(n == 2 && th[1].cpu == -1, "AMX_PIN=0: the worker is not pinned");
	unsetenv("AMX_PIN");
	tap_ok(!amx_set_pinning(0) && amx_get_pool_threads(th, 2) == 2 &&
	       th[1].cpu == -1 && !amx_set_pinning(1) &&
	       amx_get_pool_threads(th, 2) == 2 &&
	       (th[1].cpu >= 0 || amx_get_topology(&topo, NULL, 0) < 0),
	       "amx_set_pinning(0) then (1) restarts the pool unpinned, "
	       "then pinned");
	tap_ok(!amx_set_placement(AMX_PLACE_REPLICATE) &&
	       amx_get_placement() == AMX_PLACE_REPLICATE &&
	       !amx_set_placement(AMX_PLACE_SPLIT),
	       "amx_set_placement() sets what amx_get_placement() says");
	unsetenv("AMX_PLACEMENT");
}

int main(void)
{
	char cmd[300];

	check_cpulists();
	check_two_nodes();
	check_without_numa();
	check_settings();
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/amx-topo.%d.*", getpid());
	if (system(cmd))
		tap_diag("could not remove %s", root);
	return tap_finish();
}
