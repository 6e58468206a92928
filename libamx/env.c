// SPDX-License-Identifier: MIT
/*
 * AMX_FORCE_FALLBACK, read by the GEMM helpers at each call and reported by
 * amx_get_info() so that amx-info can say when a value was ignored.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int amx__force_fallback(bool *ignored)
{
	const char *env = getenv("AMX_FORCE_FALLBACK");

	*ignored = false;
	if (!env || !env[0] || !strcmp(env, "0"))
		return AMX_FORCE_NONE;
	if (!strcmp(env, "1"))
		return AMX_FORCE_NO_AMX;
	if (!strcmp(env, "c"))
		return AMX_FORCE_C;
	*ignored = true;	/* not one of the documented values */
	return AMX_FORCE_NONE;
}
