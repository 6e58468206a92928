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

#endif
