// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim for test_bench_scaling.py: the NUMA nodes of sysfs
 * (/sys/devices/system/node/...) are read from AMX_FAKE_NODE_ROOT/...
 * instead, so that a one-node machine runs the benchmarks' multi-node
 * paths: libamx's topology reader (topology.c) opens that tree with
 * opendir() and fopen().  Only the node list is faked; CPUs and caches
 * stay the machine's, and mbind(2) of a node that is not there fails as
 * it would on a kernel without it.  A test helper, never installed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DIR "/sys/devices/system/node"

/* @path under AMX_FAKE_NODE_ROOT when it is in NODE_DIR, else @path */
static const char *redirect(const char *path, char *buf, size_t size)
{
	const char *root = getenv("AMX_FAKE_NODE_ROOT");
	size_t len = strlen(NODE_DIR);

	if (!root || !path || strncmp(path, NODE_DIR, len) ||
	    (path[len] && path[len] != '/'))
		return path;
	snprintf(buf, size, "%s%s", root, path + len);
	return buf;
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*next)(const char *, const char *);
	char buf[4096];

	if (!next)
		next = (FILE *(*)(const char *, const char *))
		       dlsym(RTLD_NEXT, "fopen");
	return next(redirect(path, buf, sizeof(buf)), mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

DIR *opendir(const char *path)
{
	static DIR *(*next)(const char *);
	char buf[4096];

	if (!next)
		next = (DIR *(*)(const char *))dlsym(RTLD_NEXT, "opendir");
	return next(redirect(path, buf, sizeof(buf)));
}
