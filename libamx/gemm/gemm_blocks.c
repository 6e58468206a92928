// SPDX-License-Identifier: MIT
/*
 * The blocking in force per backend and operation, and where it came from:
 *
 *   1. the backend's built-in defaults (gemm_backends.c);
 *   2. the tuning file written by amx-tune, if it was made on a CPU with
 *      the same signature (vendor, family/model/stepping, cache sizes) and
 *      has this format's version; searched at
 *      $XDG_CACHE_HOME/libamx/gemm-blocking (or ~/.cache/libamx/...), then
 *      /etc/libamx/gemm-blocking; a malformed, foreign or other-version
 *      file is ignored as a whole;
 *   3. AMX_GEMM_BLOCKS (syntax in amx_gemm_get_blocking(3)); an invalid
 *      value is ignored as a whole, with one line on stderr;
 *   4. amx_gemm_set_blocking().
 * 2 and 3 are read once, at the first GEMM (or blocking query).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

static struct gemm_blocks_slot slots[GEMM_NBACKENDS][GEMM_NOPS];
static struct gemm_blocks_slot base[GEMM_NBACKENDS][GEMM_NOPS]; /* without API */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static int slots_ready;
static char file_used[PATH_MAX];	/* the file read, or the last rejected */
static int file_status = -ENOENT;

const char *amx_gemm_backend_name(enum amx_gemm_backend backend)
{
	const struct gemm_backend *be = gemm_backend_by_id(backend);

	return be ? be->name : NULL;
}

const char *amx_gemm_op_name(enum amx_gemm_op op)
{
	if (op < AMX_GEMM_OP_BF16 || op > AMX_GEMM_OP_F16)
		return NULL;
	return gemm_op_names[op - AMX_GEMM_OP_BF16];
}

/*
 * With slots_lock held.  Reading the tuning file and sysfs sets errno on
 * the way (ENOENT for a file that is not there); the library's functions
 * never change errno, so it is put back.
 */
static void slots_init(void)
{
	const char *env = getenv("AMX_GEMM_BLOCKS");
	int saved_errno = errno;

	for (int b = 0; b < GEMM_NBACKENDS; b++) {
		const struct gemm_backend *be = gemm_backend_by_id(b + 1);

		for (int op = 0; op < GEMM_NOPS; op++) {
			struct gemm_blocks_slot *s = &base[b][op];

			be->default_blocks(op, &s->bs);
			gemm_blocks_fix(be, op, &s->bs);
			s->src = GEMM_SRC_DEFAULT;
		}
	}
	file_status = gemm_tuning_load(base, file_used, sizeof(file_used));
	if (env && *env) {
		const char *why = "";

		if (gemm_tuning_parse_env(env, base, &why))
			amx__env_warn(AMX_ENV_GEMM_BLOCKS, "AMX_GEMM_BLOCKS",
				      env, why, "amx_gemm_get_blocking(3)");
	}
	memcpy(slots, base, sizeof(slots));
	slots_ready = 1;
	errno = saved_errno;
}

/* whether AMX_GEMM_BLOCKS, as the environment is now, would be ignored */
int amx__gemm_blocks_env_ignored(void)
{
	struct gemm_blocks_slot tmp[GEMM_NBACKENDS][GEMM_NOPS];
	const char *env = getenv("AMX_GEMM_BLOCKS"), *why = "";

	if (!env || !*env)
		return 0;
	pthread_mutex_lock(&slots_lock);
	if (!slots_ready)
		slots_init();
	memcpy(tmp, base, sizeof(tmp));
	pthread_mutex_unlock(&slots_lock);
	return gemm_tuning_parse_env(env, tmp, &why) != 0;
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

static int api_args(enum amx_gemm_backend backend, enum amx_gemm_op op,
		    const struct gemm_backend **be, enum gemm_op *o)
{
	*be = gemm_backend_by_id(backend);
	if (!*be || op < AMX_GEMM_OP_BF16 || op > AMX_GEMM_OP_F16)
		return -EINVAL;
	*o = (enum gemm_op)(op - AMX_GEMM_OP_BF16);
	return 0;
}

int amx_gemm_get_blocking(enum amx_gemm_backend backend, enum amx_gemm_op op,
			  struct amx_gemm_blocking *out)
{
	const struct gemm_backend *be;
	struct gemm_blocks bs;
	enum gemm_blocks_src src;
	enum gemm_op o;

	if (!out || api_args(backend, op, &be, &o))
		return -EINVAL;
	gemm_blocks_get(be, o, &bs, &src);
	memset(out, 0, sizeof(*out));
	out->kc = (uint32_t)bs.kc;
	out->mc = (uint32_t)bs.mc;
	out->nc = (uint32_t)bs.nc;
	out->prefetch = (uint32_t)bs.pf;
	out->source = (uint32_t)src;
	out->edge = (uint32_t)bs.edge;
	out->cio = (uint32_t)bs.cio;
	out->small = (uint32_t)bs.small;
	return 0;
}

int amx_gemm_set_blocking(enum amx_gemm_backend backend, enum amx_gemm_op op,
			  const struct amx_gemm_blocking *in)
{
	const struct gemm_backend *be;
	struct gemm_blocks bs;
	enum gemm_op o;
	size_t i;

	if (api_args(backend, op, &be, &o))
		return -EINVAL;
	if (in) {
		for (i = 0; i < sizeof(in->reserved) / sizeof(*in->reserved); i++)
			if (in->reserved[i])
				return -EINVAL;
		bs = (struct gemm_blocks){ .kc = in->kc, .mc = in->mc,
					   .nc = in->nc, .pf = in->prefetch,
					   .edge = in->edge, .cio = in->cio,
					   .small = in->small };
		if (gemm_blocks_fix(be, o, &bs))
			return -EINVAL;
	}
	pthread_mutex_lock(&slots_lock);
	if (!slots_ready)
		slots_init();
	if (in) {
		slots[backend - 1][o].bs = bs;
		slots[backend - 1][o].src = GEMM_SRC_API;
	} else {
		slots[backend - 1][o] = base[backend - 1][o];
	}
	pthread_mutex_unlock(&slots_lock);
	return 0;
}

const char *amx_gemm_blocking_file(int *status)
{
	const char *ret;

	pthread_mutex_lock(&slots_lock);
	if (!slots_ready)
		slots_init();
	if (status)
		*status = file_status;
	ret = file_used[0] ? file_used : NULL;
	pthread_mutex_unlock(&slots_lock);
	return ret;
}

int amx_gemm_blocking_save(const char *path)
{
	struct gemm_blocks_slot tab[GEMM_NBACKENDS][GEMM_NOPS];
	int saved_errno = errno, ret;

	pthread_mutex_lock(&slots_lock);
	if (!slots_ready)
		slots_init();
	memcpy(tab, slots, sizeof(tab));
	pthread_mutex_unlock(&slots_lock);
	ret = gemm_tuning_save(path, tab);
	errno = saved_errno;
	return ret;
}
