// SPDX-License-Identifier: MIT
/*
 * The library's environment variables, one rule for all: a value that
 * does not parse or is out of range is ignored, never wrapped or clamped,
 * with one line on stderr naming the variable, the value and the reason
 * (once per variable and process, when the library reads it), and
 * amx_get_info() reports it in env_ignored (amx-info shows it).
 *
 *   AMX_NUM_THREADS     0..AMX_MAX_THREADS (0: the default, as for
 *                       amx_set_num_threads()), read when the pool starts
 *   AMX_FORCE_FALLBACK  "", "0", "1" or "c", read at each GEMM or
 *                       quantization call
 *   AMX_GEMM_BLOCKS     see amx_gemm_get_blocking(3), read once
 *   AMX_PIN             "", "0" or "1", read when the pool starts
 *   AMX_PLACEMENT       split, interleave, local or replicate, read on
 *                       the first weight placement
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static unsigned int warned;	/* AMX_ENV_* bits already reported */

void amx__env_warn(unsigned int var, const char *name, const char *value,
		   const char *why, const char *page)
{
	if (__atomic_fetch_or(&warned, var, __ATOMIC_RELAXED) & var)
		return;
	/* a value of any length: the first 64 bytes say enough */
	fprintf(stderr, "libamx: %s='%.64s%s' ignored: %s (see %s)\n", name,
		value, strlen(value) > 64 ? "..." : "", why, page);
}

int amx__env_num_threads(unsigned int *n, bool warn)
{
	const char *env = getenv("AMX_NUM_THREADS");
	unsigned long v = 0;
	const char *why = NULL;

	if (!env || !*env)
		return 0;
	/* digits only: strtoul() would take a sign (wrapping -1) or spaces */
	if (strspn(env, "0123456789") != strlen(env)) {
		why = "not a decimal number";
	} else {
		for (const char *p = env; *p && !why; p++) {
			v = v * 10 + (unsigned long)(*p - '0');
			if (v > AMX_MAX_THREADS)
				why = "out of range 0..256";
		}
	}
	if (why) {
		if (warn)
			amx__env_warn(AMX_ENV_NUM_THREADS, "AMX_NUM_THREADS", env,
				      why, "amx_set_num_threads(3)");
		return -EINVAL;
	}
	*n = (unsigned int)v;
	return 1;
}

int amx__force_fallback(bool *ignored, bool warn)
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
	if (warn)
		amx__env_warn(AMX_ENV_FORCE_FALLBACK, "AMX_FORCE_FALLBACK", env,
			      "not one of \"\", \"0\", \"1\", \"c\"",
			      "libamx(7)");
	return AMX_FORCE_NONE;
}

int amx__env_pin(bool warn)
{
	const char *env = getenv("AMX_PIN");

	if (!env || !env[0] || !strcmp(env, "1"))
		return 1;
	if (!strcmp(env, "0"))
		return 0;
	if (warn)
		amx__env_warn(AMX_ENV_PIN, "AMX_PIN", env,
			      "not one of \"\", \"0\", \"1\"",
			      "amx_set_pinning(3)");
	return -EINVAL;
}

int amx__env_placement(bool warn)
{
	static const char *const names[] = {
		[AMX_PLACE_SPLIT] = "split",
		[AMX_PLACE_INTERLEAVE] = "interleave",
		[AMX_PLACE_LOCAL] = "local",
		[AMX_PLACE_REPLICATE] = "replicate",
	};
	const char *env = getenv("AMX_PLACEMENT");

	if (!env || !env[0])
		return AMX_PLACE_SPLIT;
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(env, names[i]))
			return i;
	if (warn)
		amx__env_warn(AMX_ENV_PLACEMENT, "AMX_PLACEMENT", env,
			      "not one of split, interleave, local, replicate",
			      "amx_set_placement(3)");
	return -EINVAL;
}
