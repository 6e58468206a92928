// SPDX-License-Identifier: MIT
/*
 * The thread lists of amx-bench and amx-decode (--threads 1,2,4,all) and
 * what a run's pool spans: its threads and the NUMA nodes they are on.
 */
#define _GNU_SOURCE
#include <amx.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

unsigned int bench_all_threads(void)
{
	struct amx_topology t;

	if (amx_get_topology(&t, NULL, 0) > 0 && t.ncores)
		return t.ncores;
	return 1;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int bench_parse_threads(const char *s, unsigned int *out, int max)
{
	unsigned int all = bench_all_threads();
	int n = 0, k = 0;

	while (*s) {
		unsigned long v;
		char *end;

		if (!strncmp(s, "all", 3)) {
			v = all;
			end = (char *)s + 3;
		} else {
			v = strtoul(s, &end, 10);
			if (end == s)
				return -1;
		}
		if (!v || v > 256 || n == max || (*end && *end != ','))
			return -1;
		out[n++] = (unsigned int)v;
		s = *end ? end + 1 : end;
	}
	if (!n)
		return -1;
	qsort(out, (size_t)n, sizeof(*out), cmp_uint);
	for (int i = 0; i < n; i++)
		if (!k || out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
}

int bench_pool_nodes(void)
{
	struct amx_pool_thread t[256];
	int n = amx_get_pool_threads(t, 256), nodes = 0;
	int32_t seen[256];

	for (int i = 0; i < n; i++) {
		int x = 0;

		while (x < nodes && seen[x] != t[i].node)
			x++;
		if (x == nodes)
			seen[nodes++] = t[i].node;
	}
	return nodes ? nodes : 1;
}
