// SPDX-License-Identifier: MIT
/*
 * Permission: ARCH_GET_XCOMP_PERM / ARCH_REQ_XCOMP_PERM for XTILEDATA.
 *
 * The result is cached in one atomic flag: once permission is known the
 * fast paths of amx_request() and amx_status() make no syscall.  The
 * flag survives fork() together with the permission itself and is reset
 * by execve() together with it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "compat.h"
#include "internal.h"

static atomic_bool granted;
static atomic_int last_err;
static atomic_bool alloc_sync;
static pthread_mutex_t request_lock = PTHREAD_MUTEX_INITIALIZER;

/* -errno explaining why AMX cannot be used at all, or 0. */
static int support_error(const struct amx_info *si)
{
	if (!(si->cpu & AMX_CPU_AMX_TILE) || si->max_palette < 1)
		return -EOPNOTSUPP;
	if (si->kernel_supported_err == -EINVAL)
		return -EINVAL;
	if (!amx__supported(si))
		return -EOPNOTSUPP;
	return 0;
}

/* 1 when XTILEDATA is permitted, 0 when not, -errno when unknown. */
static int perm_granted(void)
{
	unsigned long mask = 0;
	long ret = amx__arch_prctl(ARCH_GET_XCOMP_PERM, (unsigned long)&mask);

	if (ret)
		return (int)ret;
	return !!(mask & (1ul << AMX_XFEATURE_XTILEDATA));
}

int amx_status(void)
{
	const struct amx_info *si;
	int ret;

	if (atomic_load_explicit(&granted, memory_order_acquire))
		return 0;
	si = amx__static_info();
	ret = support_error(si);
	if (ret)
		return ret;
	ret = perm_granted();
	if (ret < 0)
		return ret;
	if (ret) {
		atomic_store_explicit(&granted, true, memory_order_release);
		return 0;
	}
	ret = atomic_load(&last_err);
	return ret ? ret : -EACCES;
}

/* The calling thread's sigaltstack is too small for AMX signal frames. */
static int check_own_altstack(const struct amx_info *si)
{
	int saved = errno;
	stack_t ss;

	if (sigaltstack(NULL, &ss)) {
		int ret = -errno;

		errno = saved;
		return ret;
	}
	if (ss.ss_flags & SS_DISABLE)
		return 0;
	return ss.ss_size < amx__sigframe_size(si) ? -ENOSPC : 0;
}

static int request_locked(void)
{
	const struct amx_info *si = amx__static_info();
	long ret;

	ret = support_error(si);
	if (ret)
		return (int)ret;
	ret = perm_granted();
	if (ret < 0)
		return (int)ret;
	if (ret)
		return 0;
	ret = check_own_altstack(si);
	if (ret)
		return (int)ret;
	/*
	 * Prefer the synchronous allocation: the first tile instruction of
	 * this thread and of every thread created later then costs nothing
	 * and cannot die of a failed allocation.  Older kernels refuse the
	 * unknown option with -EINVAL.
	 */
	ret = amx__arch_prctl(ARCH_REQ_XCOMP_PERM_ALLOC, AMX_XFEATURE_XTILEDATA);
	if (ret == -EINVAL)
		ret = amx__arch_prctl(ARCH_REQ_XCOMP_PERM, AMX_XFEATURE_XTILEDATA);
	else if (!ret)
		atomic_store(&alloc_sync, true);
	if (ret)
		return (int)ret;
	ret = perm_granted();
	if (ret < 0)
		return (int)ret;
	return ret ? 0 : -EIO;
}

bool amx__alloc_sync(void)
{
	return atomic_load(&alloc_sync);
}

int amx_request(void)
{
	int ret;

	if (atomic_load_explicit(&granted, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&request_lock);
	ret = request_locked();
	if (!ret)
		atomic_store_explicit(&granted, true, memory_order_release);
	atomic_store(&last_err, ret);
	pthread_mutex_unlock(&request_lock);
	return ret;
}
