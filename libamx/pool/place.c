// SPDX-License-Identifier: MIT
/*
 * Placement of packed weights on NUMA nodes (place.h).
 *
 * Decode reads every byte of the weights once per token: on two sockets a
 * thread that reads the other node's memory gets the interconnect's
 * bandwidth, not its node's.  So by default (split) the pages of the
 * columns that node x's threads compute are asked for on node x, with
 * mbind(MPOL_PREFERRED) on fresh pages before the packing touches them:
 * the packing thread may run anywhere, the pages still land where asked.
 * Preferred, not bound: a full node spills to another instead of failing.
 *
 * Where the kernel refuses (no NUMA: ENOSYS; a seccomp profile: EPERM)
 * the weights stay where the first touch puts them, as on one node, and
 * the ranges say so (no AMX_RANGE_PLACED); amx-info shows numa_err.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mempolicy.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "place.h"

#define HUGE_BYTES ((size_t)2 << 20)
/* node numbers the masks hold */
#define MASK_NODES 1024

static int placement = -1;	/* -1: AMX_PLACEMENT not read yet */

int amx_set_placement(enum amx_placement p)
{
	if ((unsigned int)p > AMX_PLACE_REPLICATE)
		return -EINVAL;
	__atomic_store_n(&placement, (int)p, __ATOMIC_RELAXED);
	return 0;
}

enum amx_placement amx_get_placement(void)
{
	int p = __atomic_load_n(&placement, __ATOMIC_RELAXED);

	if (p < 0) {
		p = amx__env_placement(true);
		if (p < 0)
			p = AMX_PLACE_SPLIT;
		__atomic_store_n(&placement, p, __ATOMIC_RELAXED);
	}
	return (enum amx_placement)p;
}

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

void amx_place_plan(struct amx_place *pl, size_t units)
{
	struct amx_pool_layout l;
	unsigned int total = 0;

	memset(pl, 0, sizeof(*pl));
	pl->how = amx_get_placement();
	pl->nparts = 1;
	pl->lo[1] = units;
	pl->node[0] = -1;
	pl->ncopies = 1;
	pl->copy_node[0] = -1;
	if (pl->how == AMX_PLACE_LOCAL)
		return;
	amx_pool_layout(&l);
	if (l.nnodes <= 1) {
		pl->how = AMX_PLACE_LOCAL;	/* all the same on one node */
		return;
	}
	switch (pl->how) {
	case AMX_PLACE_SPLIT:	/* as amx_split_init() cuts a full job */
		for (unsigned int x = 0; x < l.nnodes; x++)
			total += l.nthr[x];
		pl->nparts = 0;
		for (unsigned int x = 0, before = 0; x < l.nnodes; x++) {
			if (!l.nthr[x])
				continue;
			pl->lo[pl->nparts] = units * before / total;
			pl->node[pl->nparts++] = l.node_id[x];
			before += l.nthr[x];
		}
		pl->lo[pl->nparts] = units;
		break;
	case AMX_PLACE_INTERLEAVE:
	case AMX_PLACE_REPLICATE:
		pl->ncopies = pl->how == AMX_PLACE_REPLICATE ? l.nnodes : 1;
		pl->nmask = l.nnodes;
		for (unsigned int x = 0; x < l.nnodes; x++)
			pl->copy_node[x] = l.node_id[x];
		break;
	default:
		break;
	}
}

static long mbind_nodes(void *addr, size_t len, int mode, const int *nodes,
			unsigned int n)
{
	unsigned long mask[MASK_NODES / (8 * sizeof(unsigned long))];

	memset(mask, 0, sizeof(mask));
	for (unsigned int i = 0; i < n; i++) {
		if (nodes[i] < 0 || nodes[i] >= MASK_NODES)
			return -EINVAL;
		mask[nodes[i] / (8 * sizeof(long))] |=
			1ul << (nodes[i] % (8 * sizeof(long)));
	}
	if (syscall(SYS_mbind, addr, len, mode, mask,
		    (unsigned long)MASK_NODES + 1, MPOL_MF_MOVE))
		return -errno;
	return 0;
}

/*
 * Unplaced: 64-byte aligned; from 2 MiB on, 2 MiB aligned and advised to
 * be backed by huge pages (Linux's THP "madvise" mode, Debian's default):
 * the kernels stream it, and its first touch then takes one fault per
 * 2 MiB instead of per 4 KiB (amx_packed_b_create() of 4096 x 4096 bf16
 * on Zen 5: 14.6 -> 3.2 ms).  The advice is only advice; where it is
 * refused nothing changes (errno included).
 */
static uint8_t *plain_alloc(size_t bytes)
{
	size_t align = bytes >= HUGE_BYTES ? HUGE_BYTES : 64;
	uint8_t *p = aligned_alloc(align, round_up(bytes ? bytes : 1, align));

	if (p && align == HUGE_BYTES) {
		int e = errno;

		madvise(p, round_up(bytes, align), MADV_HUGEPAGE);
		errno = e;
	}
	return p;
}

static int add_range(struct amx_place *pl, uint8_t *addr, size_t len,
		     size_t col0, size_t col1, int node, uint32_t flags)
{
	struct amx_mem_range *r = realloc(pl->ranges,
					  (pl->nranges + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	pl->ranges = r;
	r[pl->nranges++] = (struct amx_mem_range){
		.addr = addr, .bytes = len, .col0 = col0, .col1 = col1,
		.node = node, .flags = flags,
	};
	return 0;
}

static size_t part_col(const struct amx_place *pl, unsigned int p,
		       size_t unit_cols, size_t ncols)
{
	size_t c = pl->lo[p] * unit_cols;

	return c < ncols ? c : ncols;
}

static int place_alloc(struct amx_place *pl, size_t bytes, const size_t *seg,
		       const unsigned int *seg_part, unsigned int nseg,
		       size_t unit_cols, size_t ncols)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), end = seg[nseg];
	size_t cols = ncols;
	uint8_t *base;
	int ret = 0;

	if (pl->how == AMX_PLACE_LOCAL || pl->how == AMX_PLACE_SPLIT) {
		if (pl->nparts <= 1)
			pl->how = AMX_PLACE_LOCAL;
	}
	if (pl->how == AMX_PLACE_LOCAL) {
		uintptr_t a;

		pl->data = plain_alloc(bytes);
		if (!pl->data)
			return -ENOMEM;
		a = (uintptr_t)pl->data / pg * pg;
		ret = add_range(pl, (uint8_t *)a,
				round_up((uintptr_t)pl->data + end - a, pg), 0,
				cols, -1, 0);
		if (ret) {
			free(pl->data);
			pl->data = NULL;
		}
		return ret;
	}
	pl->copy_bytes = round_up(bytes, bytes >= HUGE_BYTES ? HUGE_BYTES : pg);
	pl->map_bytes = pl->copy_bytes * pl->ncopies;
	base = mmap(NULL, pl->map_bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		pl->map_bytes = 0;
		return -ENOMEM;
	}
	madvise(base, pl->map_bytes, MADV_HUGEPAGE);
	pl->data = base;
	if (pl->how == AMX_PLACE_SPLIT) {
		/* a page of two parts belongs to the first: round ends up */
		for (unsigned int i = 0; i < nseg && !ret; i++) {
			size_t a = i ? round_up(seg[i], pg) : 0;
			size_t b = round_up(seg[i + 1], pg);
			int node = pl->node[seg_part[i]];

			if (a >= b)
				continue;
			ret = add_range(pl, base + a, b - a,
					part_col(pl, seg_part[i], unit_cols,
						 ncols),
					part_col(pl, seg_part[i] + 1,
						 unit_cols, ncols), node,
					mbind_nodes(base + a, b - a,
						    MPOL_PREFERRED, &node, 1) ?
					0 : AMX_RANGE_PLACED);
		}
	} else if (pl->how == AMX_PLACE_INTERLEAVE) {
		size_t b = round_up(end, pg);

		ret = add_range(pl, base, b, 0, cols, -1,
				mbind_nodes(base, b, MPOL_INTERLEAVE,
					    pl->copy_node, pl->nmask) ?
				0 : AMX_RANGE_PLACED);
	} else {		/* replicate */
		size_t b = round_up(end, pg);

		for (unsigned int c = 0; c < pl->ncopies && !ret; c++) {
			uint8_t *p = base + c * pl->copy_bytes;

			ret = add_range(pl, p, b, 0, cols, pl->copy_node[c],
					AMX_RANGE_COPY |
					(mbind_nodes(p, b, MPOL_PREFERRED,
						     &pl->copy_node[c], 1) ?
					 0 : AMX_RANGE_PLACED));
		}
	}
	if (ret)
		amx_place_free(pl);
	return ret;
}

/* errno is kept: a refused mbind(2) or madvise(2) is only a lost hint */
int amx_place_alloc(struct amx_place *pl, size_t bytes, const size_t *seg,
		    const unsigned int *seg_part, unsigned int nseg,
		    size_t unit_cols, size_t ncols)
{
	int e = errno;
	int ret = place_alloc(pl, bytes, seg, seg_part, nseg, unit_cols,
			      ncols);

	errno = e;
	return ret;
}

void amx_place_copy(struct amx_place *pl, size_t bytes)
{
	for (unsigned int c = 1; c < pl->ncopies; c++)
		memcpy(pl->data + c * pl->copy_bytes, pl->data, bytes);
}

void amx_place_free(struct amx_place *pl)
{
	if (pl->map_bytes)
		munmap(pl->data, pl->map_bytes);
	else
		free(pl->data);
	free(pl->ranges);
	pl->data = NULL;
	pl->ranges = NULL;
	pl->nranges = 0;
	pl->map_bytes = 0;
}

const uint8_t *amx_place_data(const struct amx_place *pl, int node)
{
	for (unsigned int c = 1; c < pl->ncopies; c++)
		if (pl->copy_node[c] == node)
			return pl->data + c * pl->copy_bytes;
	return pl->data;
}

int amx_place_ranges(const struct amx_place *pl, struct amx_mem_range *r,
		     size_t n)
{
	if (!r && n)
		return -EINVAL;
	for (size_t i = 0; i < n && i < pl->nranges; i++)
		r[i] = pl->ranges[i];
	return (int)pl->nranges;
}
