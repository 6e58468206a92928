// SPDX-License-Identifier: MIT
/* Error sentences in AMX terms: the cause, then the fix. */
#include <errno.h>
#include <limits.h>

#include "internal.h"

const char *amx_strerror(int err)
{
	/*
	 * Errors are negative.  A positive value is a successful result (a
	 * count, or "done, nothing had to change" such as
	 * amx_tile_configure()'s 1), never a cause to describe.
	 */
	if (err > 0)
		return "not an error: a positive result means success (a count, or nothing had to change)";
	if (err == INT_MIN)
		return "unknown error";
	switch (-err) {
	case 0:
		return "success";
	case EOPNOTSUPP:
		return "CPU or kernel lacks AMX support (needs a CPU with AMX-TILE and Linux >= 5.16 with XTILEDATA enabled)";
	case EINVAL:
		return "invalid argument, or a kernel without the AMX arch_prctl options (Linux >= 5.16 needed)";
	case ENOSPC:
		return "a thread's sigaltstack is too small for AMX signal frames (install one of amx_sigaltstack_size() bytes, e.g. with amx_sigaltstack_install(), in every thread that has one)";
	case EPERM:
		return "the kernel refused AMX permission (seccomp filter or security policy forbids arch_prctl ARCH_REQ_XCOMP_PERM)";
	case EACCES:
		return "AMX permission not requested yet (call amx_request() at init)";
	case EIO:
		return "the kernel granted AMX permission but does not report it (kernel bug?)";
	case ENOMEM:
		return "out of memory (for amx_request(): the kernel could not allocate this thread's tile register buffer; retry or fall back)";
	case EOVERFLOW:
		return "matrix dimensions too large: byte counts overflow";
	case EBUSY:
		return "running on the alternate signal stack being changed";
	case ENOENT:
		return "the alternate signal stack was not installed by libamx";
	case ENOSYS:
		return "the kernel lacks a needed system call";
	default:
		return "unknown error";
	}
}
