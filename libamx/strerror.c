// SPDX-License-Identifier: MIT
/*
 * Error sentences: what the errno value means, as strerror(3) says it,
 * then where libamx returns it and what to do.  The same value also comes
 * from file and memory functions (amx_gemm_blocking_save(), packing), so
 * the hint names the libamx function it is about instead of claiming to
 * be the cause.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "internal.h"

const char *amx_strerror(int err)
{
	const char *desc;

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
		return "Operation not supported (AMX detection: the CPU or kernel lacks AMX support; it needs a CPU with AMX-TILE and Linux >= 5.16 with XTILEDATA enabled)";
	case EINVAL:
		return "Invalid argument (from amx_request(): a kernel without the AMX arch_prctl options, Linux >= 5.16 needed)";
	case ENOSPC:
		return "No space left on device (from amx_request(): a thread's sigaltstack is too small for AMX signal frames; install one of amx_sigaltstack_size() bytes, e.g. with amx_sigaltstack_install(), in every thread that has one)";
	case EPERM:
		return "Operation not permitted (from amx_request(): the kernel refused AMX permission; a seccomp filter or security policy forbids arch_prctl ARCH_REQ_XCOMP_PERM)";
	case EACCES:
		return "Permission denied (from amx_status(): AMX permission not requested yet; call amx_request() at init)";
	case EIO:
		return "Input/output error (from amx_request(): the kernel granted AMX permission but does not report it, a kernel bug)";
	case ENOMEM:
		return "Cannot allocate memory (from amx_request(): the kernel could not allocate this thread's tile register buffer; retry or fall back)";
	case EOVERFLOW:
		return "Value too large for defined data type (from a GEMM, packing or quantization call: matrix dimensions whose byte counts overflow)";
	case EDOM:
		return "Numerical argument out of domain (from amx_quantize_*(): an input value is a NaN or an infinity, which no scale can represent; nothing was written)";
	case EBUSY:
		return "Device or resource busy (from amx_sigaltstack_install() or _uninstall(): running on the alternate signal stack being changed)";
	case ENOENT:
		return "No such file or directory (from amx_sigaltstack_uninstall(): the alternate signal stack was not installed by libamx)";
	case ENOSYS:
		return "Function not implemented (the kernel lacks a system call libamx needs)";
	}
	/* glibc's own constant description, NULL for a value it does not know */
	desc = strerrordesc_np(-err);
	return desc ? desc : "unknown error";
}
