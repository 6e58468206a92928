/* SPDX-License-Identifier: MIT */
/* Declarations shared between libamx's source files; not installed. */
#ifndef AMX_INTERNAL_H
#define AMX_INTERNAL_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "amx.h"

#define AMX_HIDDEN __attribute__((visibility("hidden")))

/*
 * What the library needs from CPUID and XCR0 beyond struct amx_info, read
 * once with it: detect.c is the only place that runs CPUID or XGETBV.
 */
struct amx__cpu {
	char vendor[13];		/* CPUID.0 "GenuineIntel", else "unknown" */
	uint32_t family, model, stepping;	/* CPUID.1, extended fields folded */
	uint32_t simd;			/* AMX__SIMD_*: usable (CPUID and XCR0) */
	long cache[3];			/* L1d, L2, L3 bytes from CPUID.4; 0 = none */
};
#define AMX__SIMD_AVX2		(1u << 0)	/* with the AVX state in XCR0 */
#define AMX__SIMD_AVX512	(1u << 1)	/* F, BW and VL, ZMM state in XCR0 */
#define AMX__SIMD_AVX512_VNNI	(1u << 2)	/* and AMX__SIMD_AVX512 */
#define AMX__SIMD_AVX512_BF16	(1u << 3)	/* and AMX__SIMD_AVX512 */

AMX_HIDDEN const struct amx__cpu *amx__cpu(void);

/* convert_avx512.c: the leading multiple of 16 of @n converted */
AMX_HIDDEN size_t amx__fp32_to_fp16_avx512(amx_fp16 *dst, const float *src,
					   size_t n);
AMX_HIDDEN size_t amx__fp16_to_fp32_avx512(float *dst, const amx_fp16 *src,
					   size_t n);

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

/*
 * 0 when the bytes [p, p + bytes) can exist in a Linux x86-64 process:
 * they end at or below 2^47 when @p is below 2^47, at or below 2^56
 * otherwise (5-level paging); -EOVERFLOW when not.
 */
AMX_HIDDEN int amx__user_range(const void *p, size_t bytes);

/*
 * Byte span of a row-major @rows x @cols matrix of @esz-byte elements,
 * @ld elements between rows, at @p: 0 with *bytes = 0 when empty (p and ld
 * are then not looked at), -EINVAL for NULL @p or @ld < @cols, -EOVERFLOW
 * when the span is not representable or cannot exist (amx__user_range()).
 */
AMX_HIDDEN int amx__matrix_span(size_t rows, size_t cols, size_t ld,
				size_t esz, const void *p, size_t *bytes);

/*
 * Environment variables (env.c: one rule for all of them).  With @warn,
 * an ignored value is reported on stderr, once per variable and process.
 *
 * The AMX_FORCE_FALLBACK environment variable now: AMX_FORCE_NONE (unset,
 * empty or "0"), AMX_FORCE_NO_AMX ("1") or AMX_FORCE_C ("c").  Any other
 * value is ignored (AMX_FORCE_NONE) and sets *@ignored.
 */
AMX_HIDDEN int amx__force_fallback(bool *ignored, bool warn);
/* the pool's size limit (amx_set_num_threads() refuses more) */
#define AMX_MAX_THREADS 256
/*
 * AMX_NUM_THREADS: 0 when unset or empty, 1 with *@n set (0 meaning the
 * default), -EINVAL when the value is ignored (not digits, or above
 * AMX_MAX_THREADS).
 */
AMX_HIDDEN int amx__env_num_threads(unsigned int *n, bool warn);
/* topology.c: the CPUs of an affinity mask, sorted node, package, core */
struct amx__topo {
	struct amx_topology sum;
	unsigned int n;
	struct amx_cpu_topology *cpu;	/* [n] */
};
/*
 * Read sysfs under @root (NULL: /sys/devices/system) for the CPUs of
 * @mask (NULL: this thread's affinity).  0, -ENOENT (no CPU of the mask
 * described), -ENOMEM, or sched_getaffinity()'s -errno.
 */
AMX_HIDDEN int amx__topo_read(struct amx__topo *t, const char *root,
			      const cpu_set_t *mask);
AMX_HIDDEN void amx__topo_free(struct amx__topo *t);
AMX_HIDDEN int amx__parse_cpulist(const char *s, cpu_set_t *set);

/*
 * AMX_PIN: 1 (unset, empty or "1"), 0 ("0"); -EINVAL for anything else
 * (then pinning stays on).  AMX_PLACEMENT likewise: an enum amx_placement,
 * or -EINVAL (then split).
 */
AMX_HIDDEN int amx__env_pin(bool warn);
AMX_HIDDEN int amx__env_placement(bool warn);
/* 1 when AMX_GEMM_BLOCKS holds a value the library ignores (gemm_blocks.c) */
AMX_HIDDEN int amx__gemm_blocks_env_ignored(void);
/* one line on stderr for an ignored value of variable @var (AMX_ENV_*) */
AMX_HIDDEN void amx__env_warn(unsigned int var, const char *name,
			      const char *value, const char *why,
			      const char *page);

#endif /* AMX_INTERNAL_H */
