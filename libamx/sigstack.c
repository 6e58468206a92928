// SPDX-License-Identifier: MIT
/*
 * Alternate signal stacks large enough for AMX signal frames.
 *
 * With AMX permitted, a signal frame carries the 8 KiB of tile data on
 * top of the other XSAVE state, which no longer fits the classic
 * MINSIGSTKSZ/SIGSTKSZ.  The kernel then refuses too-small stacks in
 * sigaltstack() and refuses the permission request while any thread
 * has one.
 */
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compat.h"
#include "internal.h"

size_t amx_sigaltstack_size(void)
{
	const struct amx_info *si = amx__static_info();
	size_t frame = (size_t)si->xsave_size_max + AMX_SIGFRAME_OVERHEAD;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	long sys = sysconf(_SC_SIGSTKSZ);
	size_t size;

	/* The kernel wants strictly more than the frame. */
	if (si->minsigstksz > frame)
		frame = si->minsigstksz;
	size = frame + 1;
	if (sys > 0 && (size_t)sys > size)
		size = (size_t)sys;
	size += AMX_SIGSTACK_HANDLER_BUDGET;
	return (size + page - 1) & ~(page - 1);
}

/* The stack this library installed in the calling thread, if any. */
static __thread void *own_map;
static __thread size_t own_map_size;

/* sigaltstack(2) returning 0 or -errno, leaving errno alone. */
static int altstack(const stack_t *ss, stack_t *old)
{
	int saved = errno;

	if (sigaltstack(ss, old)) {
		int ret = -errno;

		errno = saved;
		return ret;
	}
	return 0;
}

static bool is_own(const stack_t *ss)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return own_map && !(ss->ss_flags & SS_DISABLE) &&
	       ss->ss_sp == (char *)own_map + page;
}

int amx_sigaltstack_install(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = amx_sigaltstack_size();
	void *old_map = own_map;
	size_t old_size = own_map_size;
	stack_t ss, cur;
	void *map;
	int ret;

	ret = altstack(NULL, &cur);
	if (ret)
		return ret;
	if (cur.ss_flags & SS_ONSTACK)
		return -EBUSY;
	if (!(cur.ss_flags & SS_DISABLE) && cur.ss_size >= size)
		return 1;

	map = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (map == MAP_FAILED)
		return -ENOMEM;
	/* Guard page below the stack: an overflow faults instead of
	 * silently corrupting the neighbouring mapping. */
	if (mprotect(map, page, PROT_NONE)) {
		munmap(map, size + page);
		return -ENOMEM;
	}
	ss.ss_sp = (char *)map + page;
	ss.ss_size = size;
	ss.ss_flags = 0;
	ret = altstack(&ss, NULL);
	if (ret) {
		munmap(map, size + page);
		return ret;
	}
	own_map = map;
	own_map_size = size + page;
	if (old_map)
		munmap(old_map, old_size);
	return 0;
}

int amx_sigaltstack_uninstall(void)
{
	stack_t ss;
	int ret;

	ret = altstack(NULL, &ss);
	if (ret)
		return ret;
	if (!is_own(&ss))
		return -ENOENT;
	if (ss.ss_flags & SS_ONSTACK)
		return -EBUSY;
	ss.ss_flags = SS_DISABLE;
	ss.ss_sp = NULL;
	ss.ss_size = 0;
	ret = altstack(&ss, NULL);
	if (ret)
		return ret;
	munmap(own_map, own_map_size);
	own_map = NULL;
	own_map_size = 0;
	return 0;
}
