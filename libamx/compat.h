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
#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ		51
#endif

#endif /* AMX_COMPAT_H */
