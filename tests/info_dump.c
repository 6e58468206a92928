// SPDX-License-Identifier: MIT
/* Print amx_get_info() as key=value lines, for test_info_json.py. */
#include <stdio.h>

#include <amx.h>

int main(void)
{
	struct amx_info in;

	amx_get_info(&in);
	printf("cpu=%u\nxcr0=%llu\nmax_palette=%u\n", in.cpu, (unsigned long long)in.xcr0,
	       in.max_palette);
	printf("bytes_per_row=%u\nmax_names=%u\nmax_rows=%u\n", in.palette1.bytes_per_row,
	       in.palette1.max_names, in.palette1.max_rows);
	printf("tmul_max_k=%u\ntmul_max_n=%u\n", in.tmul_max_k, in.tmul_max_n);
	printf("xsave_size_enabled=%u\nxsave_size_max=%u\nxtiledata_size=%u\n",
	       in.xsave_size_enabled, in.xsave_size_max, in.xtiledata_size);
	printf("kernel_supported=%llu\nminsigstksz=%lu\nsigaltstack_size=%zu\n",
	       (unsigned long long)in.kernel_supported, in.minsigstksz, in.sigaltstack_size);
	printf("status=%d\nalloc_sync=%u\n", in.status, in.alloc_sync);
	printf("force_fallback=%u\nforce_fallback_ignored=%u\n", in.force_fallback,
	       in.force_fallback_ignored);
	printf("env_ignored=%u\n", in.env_ignored);
	/* the pool as the environment sizes it (starts it) */
	printf("threads=%d\n", amx_get_num_threads());
	return 0;
}
