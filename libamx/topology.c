// SPDX-License-Identifier: MIT
/*
 * The machine's shape, from sysfs: packages, NUMA nodes, physical cores,
 * SMT siblings and the L2/L3 domains of the CPUs in an affinity mask (the
 * mask already holds the cgroup cpuset's restriction: the kernel
 * intersects the two).  The pool reads it when it starts, amx-info shows
 * it.  Nothing here is cached: CPUs come and go (hotplug, a new mask).
 *
 * Every file is optional.  A kernel without NUMA has no node directory:
 * every CPU is on node 0.  A missing thread_siblings_list makes a CPU its
 * own core, a missing cache directory leaves l2/l3 at -1.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "internal.h"

#define SYSFS_ROOT "/sys/devices/system"

/* a "0-3,8,10-11" list into @set; 0, or -EINVAL on a malformed list */
int amx__parse_cpulist(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi;

		if (end == s || lo < 0 || lo >= CPU_SETSIZE)
			return -EINVAL;
		hi = lo;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo || hi >= CPU_SETSIZE)
				return -EINVAL;
			s = end;
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

static int read_line(const char *root, const char *path, char *buf,
		     size_t size)
{
	char full[512];
	FILE *f;
	int ok;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return -errno;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	return ok ? 0 : -EIO;
}

static int read_int(const char *root, const char *path, int def)
{
	char buf[32], *end;
	long v;

	if (read_line(root, path, buf, sizeof(buf)))
		return def;
	v = strtol(buf, &end, 10);
	return end == buf || v < -1 || v > 1 << 30 ? def : (int)v;
}

/* the lowest CPU of a cpulist file, or @def */
static int read_first(const char *root, const char *path, int def)
{
	char buf[4096];
	cpu_set_t set;

	if (read_line(root, path, buf, sizeof(buf)) ||
	    amx__parse_cpulist(buf, &set))
		return def;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return def;
}

struct cpu_key {
	int cpu, node, package, core_key, l2_key, l3_key;
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct cpu_key *a = pa, *b = pb;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->package != b->package)
		return a->package < b->package ? -1 : 1;
	if (a->core_key != b->core_key)
		return a->core_key < b->core_key ? -1 : 1;
	return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

/* the key of @cpu's cache of @level (unified or data), or -1 */
static int cache_key(const char *root, int cpu, int level)
{
	for (int i = 0; i < 8; i++) {
		char path[128], type[32];

		snprintf(path, sizeof(path), "cpu/cpu%d/cache/index%d/level",
			 cpu, i);
		if (read_int(root, path, -1) != level)
			continue;
		snprintf(path, sizeof(path), "cpu/cpu%d/cache/index%d/type",
			 cpu, i);
		if (!read_line(root, path, type, sizeof(type)) &&
		    !strncmp(type, "Instruction", 11))
			continue;
		snprintf(path, sizeof(path),
			 "cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
		return read_first(root, path, cpu);
	}
	return -1;
}

/* node of every CPU from node/node<N>/cpulist; -1 where none says */
static void read_nodes(const char *root, int *node_of)
{
	char path[512];
	struct dirent *d;
	DIR *dir;

	for (int c = 0; c < CPU_SETSIZE; c++)
		node_of[c] = -1;
	snprintf(path, sizeof(path), "%s/node", root);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char file[300], buf[4096], *end;
		long node;
		cpu_set_t set;

		if (strncmp(d->d_name, "node", 4))
			continue;
		node = strtol(d->d_name + 4, &end, 10);
		if (end == d->d_name + 4 || *end || node < 0 || node > 1 << 20)
			continue;
		snprintf(file, sizeof(file), "node/%s/cpulist", d->d_name);
		if (read_line(root, file, buf, sizeof(buf)) ||
		    amx__parse_cpulist(buf, &set))
			continue;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set) && node_of[c] < 0)
				node_of[c] = (int)node;
	}
	closedir(dir);
}

/* index of @key in @keys[0..*n), appended when new */
static int key_index(int *keys, unsigned int *n, int key)
{
	if (key < 0)
		return -1;
	for (unsigned int i = 0; i < *n; i++)
		if (keys[i] == key)
			return (int)i;
	keys[*n] = key;
	return (int)(*n)++;
}

/* whether mbind(2) and friends work here (0), or why not (-errno) */
static int numa_probe(void)
{
	int mode = 0;

	if (syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL))
		return -errno;
	return 0;
}

static int topo_read(struct amx__topo *t, const char *root,
		     const cpu_set_t *mask)
{
	cpu_set_t own;
	struct cpu_key *k;
	int *node_of, *keys;
	unsigned int n = 0, nk;

	memset(t, 0, sizeof(*t));
	if (!root)
		root = SYSFS_ROOT;
	if (!mask) {
		if (sched_getaffinity(0, sizeof(own), &own))
			return -errno;
		mask = &own;
	}
	k = calloc(CPU_SETSIZE, sizeof(*k));
	node_of = calloc(CPU_SETSIZE, sizeof(*node_of));
	keys = calloc(CPU_SETSIZE, sizeof(*keys));
	if (!k || !node_of || !keys) {
		free(k);
		free(node_of);
		free(keys);
		return -ENOMEM;
	}
	read_nodes(root, node_of);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		char path[128];

		if (!CPU_ISSET(c, mask))
			continue;
		/* an offline CPU has no topology directory: leave it out */
		snprintf(path, sizeof(path), "%s/cpu/cpu%d", root, c);
		if (access(path, F_OK))
			continue;
		k[n].cpu = c;
		k[n].node = node_of[c] < 0 ? 0 : node_of[c];
		snprintf(path, sizeof(path),
			 "cpu/cpu%d/topology/physical_package_id", c);
		k[n].package = read_int(root, path, 0);
		snprintf(path, sizeof(path),
			 "cpu/cpu%d/topology/thread_siblings_list", c);
		k[n].core_key = read_first(root, path, c);
		k[n].l2_key = cache_key(root, c, 2);
		k[n].l3_key = cache_key(root, c, 3);
		n++;
	}
	if (!n) {
		free(k);
		free(node_of);
		free(keys);
		return -ENOENT;
	}
	qsort(k, n, sizeof(*k), key_cmp);
	t->cpu = calloc(n, sizeof(*t->cpu));
	if (!t->cpu) {
		free(k);
		free(node_of);
		free(keys);
		return -ENOMEM;
	}
	t->n = n;
	for (unsigned int i = 0; i < n; i++) {
		struct amx_cpu_topology *c = &t->cpu[i];
		bool new_core = !i || k[i].core_key != k[i - 1].core_key ||
				k[i].package != k[i - 1].package ||
				k[i].node != k[i - 1].node;

		c->cpu = k[i].cpu;
		c->package = k[i].package;
		c->node = k[i].node;
		c->core = new_core ? (int32_t)t->sum.ncores++ :
				     t->cpu[i - 1].core;
		c->smt = new_core ? 0 : t->cpu[i - 1].smt + 1;
		if (!i || c->node != t->cpu[i - 1].node)
			t->sum.nnodes++;
	}
	nk = 0;
	for (unsigned int i = 0; i < n; i++)
		key_index(keys, &nk, k[i].package);
	t->sum.npackages = nk;
	nk = 0;
	for (unsigned int i = 0; i < n; i++)
		t->cpu[i].l2 = key_index(keys, &nk, k[i].l2_key);
	t->sum.nl2 = nk;
	nk = 0;
	for (unsigned int i = 0; i < n; i++)
		t->cpu[i].l3 = key_index(keys, &nk, k[i].l3_key);
	t->sum.nl3 = nk;
	t->sum.ncpus = n;
	t->sum.numa_err = numa_probe();
	free(k);
	free(node_of);
	free(keys);
	return 0;
}

/* errno is kept: sysfs files that are missing are normal, not news */
int amx__topo_read(struct amx__topo *t, const char *root,
		   const cpu_set_t *mask)
{
	int e = errno, ret = topo_read(t, root, mask);

	errno = e;
	return ret;
}

void amx__topo_free(struct amx__topo *t)
{
	free(t->cpu);
	t->cpu = NULL;
	t->n = 0;
}

int amx_get_topology(struct amx_topology *topo, struct amx_cpu_topology *cpus,
		     size_t n)
{
	struct amx__topo t;
	int ret;

	if (!topo || (!cpus && n))
		return -EINVAL;
	ret = amx__topo_read(&t, NULL, NULL);
	if (ret)
		return ret;
	*topo = t.sum;
	if (n > t.n)
		n = t.n;
	if (n)
		memcpy(cpus, t.cpu, n * sizeof(*cpus));
	ret = (int)t.n;
	amx__topo_free(&t);
	return ret;
}
