// SPDX-License-Identifier: MIT
/*
 * Detection: what CPUID, XCR0, the auxiliary vector and the kernel's
 * arch_prctl interface say about AMX.
 */
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat.h"
#include "internal.h"

struct amx_cpuid {
	uint32_t eax, ebx, ecx, edx;
};

/* CPUID with sub-leaf; all zero when @leaf is above the maximum. */
static void amx__cpuid(uint32_t leaf, uint32_t sub, struct amx_cpuid *r)
{
	uint32_t max = __get_cpuid_max(leaf & 0x80000000u, NULL);

	memset(r, 0, sizeof(*r));
	if (leaf > max)
		return;
	__cpuid_count(leaf, sub, r->eax, r->ebx, r->ecx, r->edx);
}

long amx__arch_prctl(int code, unsigned long arg)
{
	int saved = errno;
	long ret = syscall(SYS_arch_prctl, code, arg);

	if (ret < 0) {
		ret = -errno;
		errno = saved;
	}
	return ret;
}

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static void read_cpu(struct amx_info *si)
{
	struct amx_cpuid r;

	amx__cpuid(1, 0, &r);
	if (r.ecx & (1u << 27))
		si->cpu |= AMX_CPU_OSXSAVE;

	amx__cpuid(7, 0, &r);
	if (r.edx & (1u << 24))
		si->cpu |= AMX_CPU_AMX_TILE;
	if (r.edx & (1u << 25))
		si->cpu |= AMX_CPU_AMX_INT8;
	if (r.edx & (1u << 22))
		si->cpu |= AMX_CPU_AMX_BF16;
	if (r.ebx & (1u << 16))
		si->cpu |= AMX_CPU_AVX512F;
	if (r.ecx & (1u << 11))
		si->cpu |= AMX_CPU_AVX512_VNNI;
	if (r.eax >= 1) {
		amx__cpuid(7, 1, &r);
		if (r.eax & (1u << 21))
			si->cpu |= AMX_CPU_AMX_FP16;
		if (r.eax & (1u << 5))
			si->cpu |= AMX_CPU_AVX512_BF16;
		if (r.edx & (1u << 8))
			si->cpu |= AMX_CPU_AMX_COMPLEX;
	}

	amx__cpuid(0xd, 0, &r);
	si->xsave_size_enabled = r.ebx;
	si->xsave_size_max = r.ecx;
	amx__cpuid(0xd, 1, &r);
	if (r.eax & (1u << 4))
		si->cpu |= AMX_CPU_XFD;
	amx__cpuid(0xd, AMX_XFEATURE_XTILECFG, &r);
	si->xtilecfg_size = r.eax;
	si->xtilecfg_offset = r.ebx;
	amx__cpuid(0xd, AMX_XFEATURE_XTILEDATA, &r);
	si->xtiledata_size = r.eax;
	si->xtiledata_offset = r.ebx;

	if (si->cpu & AMX_CPU_OSXSAVE)
		si->xcr0 = read_xcr0();

	if (!(si->cpu & AMX_CPU_AMX_TILE))
		return;
	/*
	 * Leaf 0x1D: sub-leaf 0 EAX is the highest palette.  Virtual
	 * machines exist that advertise AMX-TILE with no palette at all;
	 * they report max_palette 0 and are treated as having no AMX.
	 */
	amx__cpuid(0x1d, 0, &r);
	si->max_palette = r.eax;
	if (si->max_palette >= 1) {
		amx__cpuid(0x1d, 1, &r);
		si->palette1.total_bytes = r.eax & 0xffff;
		si->palette1.bytes_per_tile = r.eax >> 16;
		si->palette1.bytes_per_row = r.ebx & 0xffff;
		si->palette1.max_names = r.ebx >> 16;
		si->palette1.max_rows = r.ecx & 0xffff;
	}
	amx__cpuid(0x1e, 0, &r);
	si->tmul_max_k = r.ebx & 0xff;
	si->tmul_max_n = (r.ebx >> 8) & 0xffff;
}

/* XCR0 bits of the SSE and AVX state, and of AVX-512's opmask and ZMM */
#define XCR0_AVX_STATE		0x06u
#define XCR0_AVX512_STATE	0xe6u

/* vendor, signature, usable SIMD and CPUID.4 cache sizes of @c */
static void read_cpu_more(struct amx__cpu *c, const struct amx_info *si)
{
	struct amx_cpuid r, r7;

	amx__cpuid(0, 0, &r);
	strcpy(c->vendor, "unknown");
	if (r.eax) {
		memcpy(c->vendor, &r.ebx, 4);
		memcpy(c->vendor + 4, &r.edx, 4);
		memcpy(c->vendor + 8, &r.ecx, 4);
		c->vendor[12] = 0;
	}
	amx__cpuid(1, 0, &r);
	c->family = (r.eax >> 8) & 0xf;
	c->model = (r.eax >> 4) & 0xf;
	c->stepping = r.eax & 0xf;
	if (c->family == 0xf)
		c->family += (r.eax >> 20) & 0xff;
	if (c->family == 0x6 || c->family >= 0xf)
		c->model |= ((r.eax >> 16) & 0xf) << 4;

	amx__cpuid(7, 0, &r7);
	if ((si->xcr0 & XCR0_AVX_STATE) == XCR0_AVX_STATE &&
	    (r7.ebx & (1u << 5)))
		c->simd |= AMX__SIMD_AVX2;
	/* AVX512F, AVX512BW, AVX512VL */
	if ((si->xcr0 & XCR0_AVX512_STATE) == XCR0_AVX512_STATE &&
	    (r7.ebx & (1u << 16)) && (r7.ebx & (1u << 30)) &&
	    (r7.ebx & (1u << 31))) {
		c->simd |= AMX__SIMD_AVX512;
		if (r7.ecx & (1u << 11))
			c->simd |= AMX__SIMD_AVX512_VNNI;
		if (si->cpu & AMX_CPU_AVX512_BF16)
			c->simd |= AMX__SIMD_AVX512_BF16;
	}
	/* deterministic cache parameters: ways x partitions x line x sets */
	for (uint32_t i = 0; i < 16; i++) {
		uint32_t level;

		amx__cpuid(4, i, &r);
		if (!(r.eax & 0x1f))
			break;
		level = (r.eax >> 5) & 7;
		if (level < 1 || level > 3 || (r.eax & 0x1f) == 2 ||
		    c->cache[level - 1])
			continue;	/* an instruction cache, or seen */
		c->cache[level - 1] = (long)(((r.ebx >> 22) + 1) *
					     (((r.ebx >> 12) & 0x3ff) + 1) *
					     ((r.ebx & 0xfff) + 1) * (r.ecx + 1));
	}
}

static struct amx_info static_info;
static struct amx__cpu static_cpu;
static pthread_once_t static_once = PTHREAD_ONCE_INIT;

static void read_static(void)
{
	struct amx_info *si = &static_info;
	unsigned long mask = 0;
	int saved = errno;
	long ret;

	read_cpu(si);
	read_cpu_more(&static_cpu, si);
	/* getauxval() sets errno to ENOENT when the kernel (< 5.14, or
	 * valgrind) does not provide the entry */
	si->minsigstksz = getauxval(AT_MINSIGSTKSZ);
	errno = saved;
	ret = amx__arch_prctl(ARCH_GET_XCOMP_SUPP, (unsigned long)&mask);
	si->kernel_supported_err = (int)ret;
	si->kernel_supported = ret ? 0 : mask;
}

const struct amx_info *amx__static_info(void)
{
	pthread_once(&static_once, read_static);
	return &static_info;
}

const struct amx__cpu *amx__cpu(void)
{
	pthread_once(&static_once, read_static);
	return &static_cpu;
}

/*
 * Without AT_MINSIGSTKSZ (kernels before 5.14): the XSAVE area for every
 * feature the CPU has, plus what the kernel puts around it (rt_sigframe
 * with ucontext and siginfo, the FP_XSTATE_MAGIC2 trailer, 64-byte
 * alignment and the 128-byte red zone), rounded up generously.
 */
size_t amx__sigframe_size(const struct amx_info *si)
{
	if (si->minsigstksz)
		return si->minsigstksz;
	return (size_t)si->xsave_size_max + AMX_SIGFRAME_OVERHEAD;
}

bool amx__supported(const struct amx_info *si)
{
	return (si->cpu & AMX_CPU_AMX_TILE) && si->max_palette >= 1 &&
	       (si->cpu & AMX_CPU_OSXSAVE) &&
	       (si->xcr0 & AMX_XFEATURE_MASK_TILE) == AMX_XFEATURE_MASK_TILE &&
	       (si->kernel_supported & (1ull << AMX_XFEATURE_XTILEDATA));
}
