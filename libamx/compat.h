/* SPDX-License-Identifier: MIT */
/*
 * Kernel uapi constants libamx relies on, for build hosts whose headers
 * predate them.  Kept in this one place.
 */
#ifndef AMX_COMPAT_H
#define AMX_COMPAT_H

#include <asm/prctl.h>
#include <sys/auxv.h>

#ifndef ARCH_GET_XCOMP_SUPP
#define ARCH_GET_XCOMP_SUPP	0x1021
#endif
#ifndef ARCH_GET_XCOMP_PERM
#define ARCH_GET_XCOMP_PERM	0x1022
#endif
#ifndef ARCH_REQ_XCOMP_PERM
#define ARCH_REQ_XCOMP_PERM	0x1023
#endif
/*
 * libamx's kernel series: like ARCH_REQ_XCOMP_PERM, and allocates the
 * calling thread's enlarged register buffer (and later threads' at
 * clone()) so that failure is -ENOMEM now instead of a signal at first
 * use.  Kernels without it answer -EINVAL.
 */
#ifndef ARCH_REQ_XCOMP_PERM_ALLOC
#define ARCH_REQ_XCOMP_PERM_ALLOC	0x1026
#endif
#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ		51
#endif

#endif /* AMX_COMPAT_H */
