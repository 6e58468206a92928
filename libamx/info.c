// SPDX-License-Identifier: MIT
/*
 * amx_get_info(): the one place that gathers from every room below it,
 * so that the rooms themselves depend on each other one way only:
 * detect -> permission -> sigstack -> tile.
 */
#include <errno.h>

#include "compat.h"
#include "internal.h"

int amx_get_info(struct amx_info *info)
{
	unsigned long mask = 0;
	unsigned int n;
	bool ignored;
	long ret;

	if (!info)
		return -EINVAL;
	*info = *amx__static_info();
	ret = amx__arch_prctl(ARCH_GET_XCOMP_PERM, (unsigned long)&mask);
	info->kernel_permitted_err = (int)ret;
	info->kernel_permitted = ret ? 0 : mask;
	info->sigaltstack_size = amx_sigaltstack_size();
	info->status = amx_status();
	info->alloc_sync = amx__alloc_sync();
	info->force_fallback = amx__force_fallback(&ignored, false);
	info->force_fallback_ignored = ignored;
	info->env_ignored = ignored ? AMX_ENV_FORCE_FALLBACK : 0;
	if (amx__env_num_threads(&n, false) < 0)
		info->env_ignored |= AMX_ENV_NUM_THREADS;
	if (amx__env_pin(false) < 0)
		info->env_ignored |= AMX_ENV_PIN;
	if (amx__env_placement(false) < 0)
		info->env_ignored |= AMX_ENV_PLACEMENT;
	if (amx__gemm_blocks_env_ignored())
		info->env_ignored |= AMX_ENV_GEMM_BLOCKS;
	return 0;
}
