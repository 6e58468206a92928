/* SPDX-License-Identifier: MIT */
/*
 * The library's persistent thread pool (internal).  Users of the pool
 * (the GEMM) give it a job function; the pool knows nothing about them.
 */
#ifndef AMX_POOL_H
#define AMX_POOL_H

#include "../internal.h"

/* a job: run by tid 0 (the caller) .. nthr - 1 */
typedef void (*amx_pool_fn)(void *arg, unsigned int tid, unsigned int nthr);

/*
 * Run fn on up to @want threads (caller is tid 0); returns the count used.
 * A busy pool (another job running) runs fn on the caller alone.  The
 * workers join when they can and the caller waits only for those that
 * did: fn must share its work by claiming it (an atomic counter, as the
 * GEMMs do), never by tid alone, or a late worker's share is left undone.
 */
AMX_HIDDEN unsigned int amx_pool_run(amx_pool_fn fn, void *arg,
				     unsigned int want);
/* threads of the pool (started on first use) */
AMX_HIDDEN unsigned int amx_pool_size(void);

/*
 * Called once by every thread of the pool before its first job, the
 * caller's thread included, when the pool starts (the GEMM pays AMX's
 * first-use cost there).  Set it before the pool starts; NULL for none.
 */
typedef void (*amx_pool_thread_start_fn)(void);
AMX_HIDDEN void amx_pool_set_thread_start(amx_pool_thread_start_fn fn);

/* nodes the pool tells apart; more are folded into the last */
#define AMX_POOL_MAX_NODES 16

/* The nodes of the whole pool's threads, in the order they meet them. */
struct amx_pool_layout {
	unsigned int nnodes;			/* 1 unpinned or without NUMA */
	int node_id[AMX_POOL_MAX_NODES];	/* the kernel's node numbers */
	unsigned int nthr[AMX_POOL_MAX_NODES];	/* threads on each */
};

/* the pool's layout (starts the pool) */
AMX_HIDDEN void amx_pool_layout(struct amx_pool_layout *l);

/*
 * Units of work 0..units-1 (columns, panels) cut into one contiguous range
 * (part) per node of a job, each thread claiming tasks from its own node's
 * part first, then from the others: so the threads of a node read the
 * weights placed there (amx_packed_b_create()), and a thread that comes
 * late or never leaves nothing undone.  Built the same by every thread of
 * a job (a function of nthr); the claim counters live in the job.
 */
struct amx_split {
	unsigned int nparts;
	size_t lo[AMX_POOL_MAX_NODES + 1];	/* part p: [lo[p], lo[p + 1]) */
	unsigned int nthr[AMX_POOL_MAX_NODES];	/* job threads on its node */
	int node[AMX_POOL_MAX_NODES];		/* kernel node, -1 none */
	unsigned int ntasks[AMX_POOL_MAX_NODES];	/* set by the user */
	int part_of[AMX_POOL_MAX_NODES];	/* pool node index -> part */
};

/*
 * The split of a job of @nthr threads: with @lo (@nparts + 1 bounds, the
 * nodes @node of a placed weight) those parts, else parts proportional to
 * the job's threads on each node.  One part when nthr is 1 or the pool
 * has one node.
 */
AMX_HIDDEN void amx_split_init(struct amx_split *s, size_t units,
			       unsigned int nthr, unsigned int nparts,
			       const size_t *lo, const int *node);
/* the part of thread @tid's node, -1 when the job has none there */
AMX_HIDDEN int amx_split_home(const struct amx_split *s, unsigned int tid,
			      unsigned int nthr);
/* claim the next task: 1 with *part, *task set, 0 when all are taken */
AMX_HIDDEN int amx_split_claim(const struct amx_split *s, unsigned int *next,
			       int home, unsigned int *part,
			       unsigned int *task);

#endif
