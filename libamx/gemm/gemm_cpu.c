// SPDX-License-Identifier: MIT
/*
 * Runtime choice of the GEMM implementation and of its cache blocksizes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"
#include "tile_model.h"	/* amx_status(): the model's, in that build */

/* what the SIMD kernels and packers may use (detect.c reads it once) */
int gemm_cpu_avx512bf16(void)
{
	return !!(amx__cpu()->simd & AMX__SIMD_AVX512_BF16);
}

int gemm_cpu_avx512vnni(void)
{
	return !!(amx__cpu()->simd & AMX__SIMD_AVX512_VNNI);
}

int gemm_cpu_avx2(void)
{
	return !!(amx__cpu()->simd & AMX__SIMD_AVX2);
}

int gemm_cpu_avx512bw(void)
{
	return !!(amx__cpu()->simd & AMX__SIMD_AVX512);
}

int gemm_cpu_amx_fp16(void)
{
#ifdef AMX_TILE_MODEL
	return 1;	/* the test's model has every dot product */
#else
	return !!(amx__static_info()->cpu & AMX_CPU_AMX_FP16);
#endif
}

int gemm_cpu_amx_complex(void)
{
#ifdef AMX_TILE_MODEL
	return 1;
#else
	return !!(amx__static_info()->cpu & AMX_CPU_AMX_COMPLEX);
#endif
}

/*
 * AMX_FORCE_FALLBACK=1 avoids AMX, =c also avoids AVX-512 and, in the
 * packers, AVX2 (*simd 0); other values are ignored
 * (amx__force_fallback()).  Read at each call so a process can switch
 * (tests do).
 */
/* whether the AVX-512 backend has the instructions for @op here */
static int avx512_runs(enum gemm_op op)
{
	switch (op) {
	case GEMM_OP_BF16:
		return gemm_cpu_avx512bf16();
	case GEMM_OP_F16:	/* VCVTPH2PS and VFMADD: AVX-512F */
		return gemm_cpu_avx512bw();
	default:
		return gemm_cpu_avx512vnni();
	}
}

/* whether the AMX backend has a kernel and the instructions for @op here */
static int amx_runs(enum gemm_op op)
{
	return gemm_backend_amx.ukr[op] &&
	       (op != GEMM_OP_F16 || gemm_cpu_amx_fp16());
}

const struct gemm_backend *gemm_select_backend(enum gemm_op op,
					       unsigned int *simd)
{
	bool ignored;
	int mode = amx__force_fallback(&ignored, true);
	int force = mode != AMX_FORCE_NONE, force_c = mode == AMX_FORCE_C;

	if (simd)
		*simd = force_c ? 0 :
			(gemm_cpu_avx2() ? GEMM_SIMD_AVX2 : 0) |
			(gemm_cpu_avx512bw() ? GEMM_SIMD_AVX512 : 0);
	if (!force && amx_runs(op) && amx_status() == 0)
		return &gemm_backend_amx;
	if (!force_c && avx512_runs(op))
		return &gemm_backend_avx512;
	return &gemm_backend_c;
}

const struct gemm_backend *gemm_small_backend(const struct gemm_backend *be,
					      enum gemm_op op)
{
	return be == &gemm_backend_amx && avx512_runs(op) ?
	       &gemm_backend_avx512 : NULL;
}

int amx_gemm_backend(enum amx_gemm_type type)
{
	if (type == AMX_GEMM_BF16)
		return gemm_select_backend(GEMM_OP_BF16, NULL)->id;
	if (type == AMX_GEMM_S8)
		return gemm_select_backend(GEMM_OP_S8S8, NULL)->id;
	if (type == AMX_GEMM_F16)
		return gemm_select_backend(GEMM_OP_F16, NULL)->id;
	return -EINVAL;
}

/*
 * Cache sizes in bytes: sysconf, else CPUID leaf 4, else a guess.  errno
 * is kept: glibc's sysconf() reads /sys/devices/system/cpu/cpu0/cache,
 * and where a VM has no such directory it answers 0 and leaves ENOENT
 * behind, which would leak out of amx_packed_b_create() and the GEMMs.
 */
static long cache_size_read(int level)
{
	static const int names[] = { _SC_LEVEL1_DCACHE_SIZE,
				     _SC_LEVEL2_CACHE_SIZE,
				     _SC_LEVEL3_CACHE_SIZE };
	static const long guess[] = { 32 << 10, 1 << 20, 8 << 20 };
	int e = errno;
	long v = sysconf(names[level - 1]);

	errno = e;
	if (v > 0)
		return v;
	v = amx__cpu()->cache[level - 1];
	return v > 0 ? v : guess[level - 1];
}

/*
 * Read once per level: glibc's sysconf() runs CPUID for these each time,
 * 3 % of a 16^3 u8s8 call on the AMX Xeon (two lookups a call on the
 * small-M path).  Threads that race here store the same value.
 */
long gemm_cache_size(int level)
{
	static long cached[3];
	long v = __atomic_load_n(&cached[level - 1], __ATOMIC_RELAXED);

	if (!v) {
		v = cache_size_read(level);
		__atomic_store_n(&cached[level - 1], v, __ATOMIC_RELAXED);
	}
	return v;
}

/* CPUs in a sysfs list such as "0-15,32-47"; 0 when it does not parse */
static long cpu_list_count(const char *s)
{
	long n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return 0;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return 0;
			s = end;
		}
		n += b - a + 1;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return 0;
	}
	return n;
}

/* the first line of @path into @buf; 0 or -1 */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok ? 0 : -1;
}

/*
 * L3 bytes per CPU sharing it, as the kernel describes CPU 0's caches in
 * sysfs (size / CPUs in shared_cpu_list); else the whole L3.  glibc's
 * sysconf() can report something else entirely: 384 MiB on a Zen 5 VM
 * whose sysfs says 32 MiB shared by its 2 CPUs.  errno is kept.
 */
long gemm_l3_per_cpu(void)
{
	static long cached;
	long v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	int e = errno;

	if (v)
		return v;
	v = gemm_cache_size(3);
	for (int i = 0; i < 8; i++) {
		char path[96], buf[4096];
		long size, ncpu;
		char *end;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (read_line(path, buf, sizeof(buf)))
			break;
		if (atoi(buf) != 3)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (read_line(path, buf, sizeof(buf)))
			break;
		size = strtol(buf, &end, 10);
		if (*end == 'K')
			size <<= 10;
		else if (*end == 'M')
			size <<= 20;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
		if (read_line(path, buf, sizeof(buf)))
			break;
		ncpu = cpu_list_count(buf);
		if (size > 0 && ncpu > 0)
			v = size / ncpu;
		break;
	}
	errno = e;
	__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	return v;
}
