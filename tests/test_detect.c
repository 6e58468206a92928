// SPDX-License-Identifier: MIT
/* Detection agrees with /proc/cpuinfo, the auxv and the kernel. */
#include <string.h>
#include <sys/auxv.h>

#include "amx_test.h"

static char flags[8192];

static void read_cpuinfo_flags(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			char *colon = strchr(line, ':');

			snprintf(flags, sizeof(flags), " %s", colon ? colon + 1 : "");
			flags[strcspn(flags, "\n")] = ' ';
			break;
		}
	}
	fclose(f);
}

static int has_flag(const char *name)
{
	char pat[64];

	snprintf(pat, sizeof(pat), " %s ", name);
	return strstr(flags, pat) != NULL;
}

static const struct {
	const char *name;
	unsigned int bit;
} map[] = {
	{ "amx_tile", AMX_CPU_AMX_TILE },
	{ "amx_int8", AMX_CPU_AMX_INT8 },
	{ "amx_bf16", AMX_CPU_AMX_BF16 },
	{ "avx512f", AMX_CPU_AVX512F },
	{ "avx512_bf16", AMX_CPU_AVX512_BF16 },
	{ "avx512_vnni", AMX_CPU_AVX512_VNNI },
};

int main(void)
{
	struct amx_info info;
	unsigned long supp = 0;
	size_t i;
	int ret;

	tap_plan(15);
	read_cpuinfo_flags();
	if (!tap_ok(flags[0] != 0, "/proc/cpuinfo has a flags line"))
		tap_done();

	ret = amx_get_info(&info);
	tap_ok(ret == 0, "amx_get_info() = %d", ret);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		tap_ok(!!(info.cpu & map[i].bit) == has_flag(map[i].name),
		       "%s: library %d, /proc/cpuinfo %d", map[i].name,
		       !!(info.cpu & map[i].bit), has_flag(map[i].name));

	tap_ok(info.minsigstksz == getauxval(AT_MINSIGSTKSZ),
	       "minsigstksz %lu matches AT_MINSIGSTKSZ", info.minsigstksz);
	ret = syscall(SYS_arch_prctl, 0x1021, &supp);
	tap_ok(ret == 0 ? info.kernel_supported == supp : info.kernel_supported_err < 0,
	       "kernel_supported 0x%llx matches ARCH_GET_XCOMP_SUPP",
	       (unsigned long long)info.kernel_supported);
	tap_ok(info.kernel_permitted == amx_test_perm(),
	       "kernel_permitted 0x%llx matches ARCH_GET_XCOMP_PERM",
	       (unsigned long long)info.kernel_permitted);

	if (info.cpu & AMX_CPU_AMX_TILE && info.max_palette >= 1) {
		const struct amx_palette *p = &info.palette1;

		tap_ok(p->max_names >= 8 && p->max_rows >= 16 && p->bytes_per_row >= 64 &&
		       p->bytes_per_tile == p->max_rows * p->bytes_per_row &&
		       p->total_bytes == p->max_names * p->bytes_per_tile,
		       "palette 1 geometry consistent: %u names, %u rows, %u bytes/row",
		       p->max_names, p->max_rows, p->bytes_per_row);
		tap_ok(info.xtiledata_size == p->total_bytes && info.xtilecfg_size == 64,
		       "XSAVE sizes: tilecfg %u, tiledata %u", info.xtilecfg_size,
		       info.xtiledata_size);
	} else {
		tap_skip("no AMX-TILE with a palette", "palette 1 geometry");
		tap_skip("no AMX-TILE with a palette", "XSAVE tile sizes");
	}
	tap_ok((info.status == 0) == !!(info.kernel_permitted & AMX_TEST_TILEDATA),
	       "status %d agrees with the permission mask", info.status);
	tap_ok(info.sigaltstack_size > info.minsigstksz &&
	       info.sigaltstack_size % sysconf(_SC_PAGESIZE) == 0 &&
	       info.sigaltstack_size >= (size_t)sysconf(_SC_SIGSTKSZ),
	       "sigaltstack size %zu > frame, page-rounded, >= _SC_SIGSTKSZ",
	       info.sigaltstack_size);
	tap_ok(amx_get_info(NULL) == -EINVAL, "amx_get_info(NULL) = -EINVAL");
	tap_done();
}
