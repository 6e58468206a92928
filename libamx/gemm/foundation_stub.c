// SPDX-License-Identifier: MIT
/*
 * Temporary stand-in for the foundation (status, permission, tile config,
 * bf16 conversion) so the GEMM helpers build and test before main lands.
 * Delete after merging main.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <cpuid.h>
#include <sys/syscall.h>

#include "foundation_stub.h"

#define ARCH_GET_XCOMP_PERM	0x1022
#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_XTILEDATA	18

/* CPUID is a VM exit under a hypervisor: ask once */
static int cpu_has_amx(void)
{
	static int cached = -1;
	unsigned int a, b, c, d;

	if (cached >= 0)
		return cached;
	/* AMX-BF16 (22), AMX-TILE (24), AMX-INT8 (25) */
	cached = __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
		 (d & (1u << 22)) && (d & (1u << 24)) && (d & (1u << 25));
	return cached;
}

static int status_cached = -EPERM;

AMX_EXPORT int amx_status(void)
{
	unsigned long mask = 0;

	if (status_cached == 0)
		return 0;
	if (!cpu_has_amx())
		return -EOPNOTSUPP;
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &mask))
		return -EOPNOTSUPP;
	if (mask & (1ul << XFEATURE_XTILEDATA))
		__atomic_store_n(&status_cached, 0, __ATOMIC_RELEASE);
	return (mask & (1ul << XFEATURE_XTILEDATA)) ? 0 : -EPERM;
}

AMX_EXPORT int amx_request(void)
{
	int saved = errno, ret = 0;

	if (!cpu_has_amx())
		return -EOPNOTSUPP;
	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA))
		ret = -errno;
	errno = saved;
	return ret ? ret : amx_status();
}

AMX_EXPORT int amx_tilecfg_init(struct amx_tilecfg *cfg, unsigned int palette)
{
	if (!cfg || palette != 1)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->palette_id = palette;
	return 0;
}

AMX_EXPORT int amx_tilecfg_set(struct amx_tilecfg *cfg, unsigned int tile,
			       unsigned int rows, unsigned int colsb)
{
	if (!cfg || tile >= 8 || rows > 16 || colsb > 64)
		return -EINVAL;
	cfg->rows[tile] = rows;
	cfg->colsb[tile] = colsb;
	return 0;
}

AMX_EXPORT int amx_tile_configure(const struct amx_tilecfg *cfg)
{
	if (!cfg)
		return -EINVAL;
	asm volatile("ldtilecfg %0" : : "m"(*cfg));
	return 0;
}

AMX_EXPORT void amx_tile_release(void)
{
	asm volatile(".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0" ::: "memory");
}

AMX_EXPORT uint16_t amx_fp32_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fffu + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

AMX_EXPORT float amx_bf16_to_fp32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

AMX_EXPORT void amx_fp32_to_bf16_array(uint16_t *dst, const float *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = amx_fp32_to_bf16(src[i]);
}

AMX_EXPORT void amx_bf16_to_fp32_array(float *dst, const uint16_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = amx_bf16_to_fp32(src[i]);
}
