/* SPDX-License-Identifier: MIT */
/* Declarations shared between libamx's source files; not installed. */
#ifndef AMX_INTERNAL_H
#define AMX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "amx.h"

#define AMX_HIDDEN __attribute__((visibility("hidden")))

struct amx_cpuid {
	uint32_t eax, ebx, ecx, edx;
};

/* CPUID with sub-leaf; all zero when @leaf is above the maximum. */
AMX_HIDDEN void amx__cpuid(uint32_t leaf, uint32_t sub, struct amx_cpuid *r);

/*
 * The part of struct amx_info that does not change during the life of
 * the process (CPUID, XCR0, auxv, ARCH_GET_XCOMP_SUPP), read once.
 */
AMX_HIDDEN const struct amx_info *amx__static_info(void);

/* CPU, OS (XCR0) and kernel all support AMX tile data. */
AMX_HIDDEN bool amx__supported(const struct amx_info *si);

/* amx_request() got ARCH_REQ_XCOMP_PERM_ALLOC's synchronous allocation. */
AMX_HIDDEN bool amx__alloc_sync(void);

/* arch_prctl(2) returning 0 or -errno, leaving errno alone. */
AMX_HIDDEN long amx__arch_prctl(int code, unsigned long arg);

/*
 * What the kernel puts around the XSAVE area in a signal frame, for
 * kernels without AT_MINSIGSTKSZ (see detect.c).
 */
#define AMX_SIGFRAME_OVERHEAD 1024u

/* Signal frame size the kernel requires once AMX is permitted (detect.c). */
AMX_HIDDEN size_t amx__sigframe_size(const struct amx_info *si);

#endif /* AMX_INTERNAL_H */
