// SPDX-License-Identifier: MIT
/*
 * Whether a caller's matrix can exist: its byte span must be representable
 * and lie in the user half of the x86-64 address space.
 */
#include <errno.h>

#include "internal.h"

#define USER_TOP_4LEVEL	(1ull << 47)	/* 4-level paging: 128 TiB */
#define USER_TOP_5LEVEL	(1ull << 56)	/* 5-level paging (LA57): 64 PiB */

int amx__user_range(const void *p, size_t bytes)
{
	uintptr_t lo = (uintptr_t)p, hi;

	/*
	 * Linux hands out addresses above 2^47 only to a process on a
	 * 5-level-paging kernel that asks for them (mmap hint above 2^47),
	 * so an object that starts below 2^47 ends there too; one that
	 * starts above may reach 2^56.  Nothing user-visible lies beyond.
	 */
	if (__builtin_add_overflow(lo, bytes, &hi))
		return -EOVERFLOW;
	if (lo < USER_TOP_4LEVEL)
		return hi <= USER_TOP_4LEVEL ? 0 : -EOVERFLOW;
	return hi <= USER_TOP_5LEVEL ? 0 : -EOVERFLOW;
}

int amx__matrix_span(size_t rows, size_t cols, size_t ld, size_t esz,
		     const void *p, size_t *bytes)
{
	size_t n;

	*bytes = 0;
	if (!rows || !cols)
		return 0;
	if (!p || ld < cols)
		return -EINVAL;
	if (__builtin_mul_overflow(rows - 1, ld, &n) ||
	    __builtin_add_overflow(n, cols, &n) ||
	    __builtin_mul_overflow(n, esz, &n))
		return -EOVERFLOW;
	*bytes = n;
	return amx__user_range(p, n);
}
