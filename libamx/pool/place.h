/* SPDX-License-Identifier: MIT */
/*
 * Where packed weights live (internal): one node per part of the pool's
 * column split, interleaved, local, or one copy per node.  No libnuma:
 * three system calls (mbind, get_mempolicy, and move_pages in the tests)
 * are all the library needs, and every consumer of libamx would carry
 * libnuma for them.
 */
#ifndef AMX_PLACE_H
#define AMX_PLACE_H

#include "pool.h"

struct amx_place {
	enum amx_placement how;		/* after the fallbacks */
	/* split: parts of the units (panels), as the pool's split cuts them */
	unsigned int nparts;
	size_t lo[AMX_POOL_MAX_NODES + 1];
	int node[AMX_POOL_MAX_NODES];
	/* replicate: copies, each on copy_node[]; else 1 */
	unsigned int ncopies;
	/* interleave and replicate: the pool's nodes */
	unsigned int nmask;
	int copy_node[AMX_POOL_MAX_NODES];
	size_t copy_bytes;		/* page multiple when ncopies > 1 */
	uint8_t *data;			/* copy 0 */
	size_t map_bytes;		/* mmap()ed; 0: aligned_alloc()ed */
	struct amx_mem_range *ranges;
	unsigned int nranges;
};

/*
 * Plan the placement of @units units (panels) by the process's placement
 * and the pool's layout: on one node (or AMX_PLACE_LOCAL) nothing is
 * placed and the memory is allocated as before.
 */
AMX_HIDDEN void amx_place_plan(struct amx_place *pl, size_t units);

/*
 * Allocate @bytes (64-byte aligned) per copy and ask the kernel to put
 * them where planned, before anything touches them.  Segment i, bytes
 * [seg[i], seg[i + 1]) (seg[nseg] is the end of the placed bytes, which
 * may be less than @bytes), holds columns of part seg_part[i]; a unit is
 * @unit_cols of the @ncols columns.  0 or -ENOMEM.
 */
AMX_HIDDEN int amx_place_alloc(struct amx_place *pl, size_t bytes,
			       const size_t *seg, const unsigned int *seg_part,
			       unsigned int nseg, size_t unit_cols,
			       size_t ncols);
/* fill the other copies from copy 0 (replicate) */
AMX_HIDDEN void amx_place_copy(struct amx_place *pl, size_t bytes);
AMX_HIDDEN void amx_place_free(struct amx_place *pl);
/* the copy that threads on kernel node @node read */
AMX_HIDDEN const uint8_t *amx_place_data(const struct amx_place *pl,
					 int node);
/* the pool's split of @units for a job that reads weights placed by @pl */
static inline void amx_place_split(struct amx_split *s, size_t units,
				   unsigned int nthr,
				   const struct amx_place *pl)
{
	if (pl && pl->nparts > 1)
		amx_split_init(s, units, nthr, pl->nparts, pl->lo, pl->node);
	else
		amx_split_init(s, units, nthr, 0, NULL, NULL);
}

/* the public amx_*_ranges() */
AMX_HIDDEN int amx_place_ranges(const struct amx_place *pl,
				struct amx_mem_range *r, size_t n);

#endif
