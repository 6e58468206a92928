// SPDX-License-Identifier: MIT
/*
 * The blocking in force per backend and operation.
 */
#include <pthread.h>

#include "gemm.h"

struct blocks_slot {
	struct gemm_blocks bs;
	enum gemm_blocks_src src;
};

static struct blocks_slot slots[GEMM_NBACKENDS][GEMM_NOPS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static int slots_ready;

/* with slots_lock held */
static void slots_init(void)
{
	for (int b = 0; b < GEMM_NBACKENDS; b++) {
		const struct gemm_backend *be = gemm_backend_by_id(b + 1);

		for (int op = 0; op < GEMM_NOPS; op++) {
			struct blocks_slot *s = &slots[b][op];

			be->default_blocks(op, &s->bs);
			gemm_blocks_fix(be, op, &s->bs);
			s->src = GEMM_SRC_DEFAULT;
		}
	}
	slots_ready = 1;
}

void gemm_blocks_get(const struct gemm_backend *be, enum gemm_op op,
		     struct gemm_blocks *bs, enum gemm_blocks_src *src)
{
	pthread_mutex_lock(&slots_lock);
	if (!slots_ready)
		slots_init();
	*bs = slots[be->id - 1][op].bs;
	if (src)
		*src = slots[be->id - 1][op].src;
	pthread_mutex_unlock(&slots_lock);
}
