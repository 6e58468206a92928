// SPDX-License-Identifier: MIT
/* Version, error strings, and errno left alone by failing calls. */
#define _GNU_SOURCE	/* strerrordesc_np() */
#include <limits.h>
#include <string.h>

#include "amx_test.h"

int main(void)
{
	static const int codes[] = { EOPNOTSUPP, EINVAL, ENOSPC, EPERM, EACCES,
				     EIO, ENOMEM, EOVERFLOW, EBUSY, ENOENT,
				     EDOM };
	char buf[32];
	size_t i, j;
	int distinct = 1, ret;

	tap_plan(16);
	snprintf(buf, sizeof(buf), "%d.%d.%d", AMX_VERSION_MAJOR, AMX_VERSION_MINOR,
		 AMX_VERSION_PATCH);
	tap_ok(amx_version() == AMX_VERSION, "amx_version() = %d", amx_version());
	tap_ok(!strcmp(amx_version_string(), buf), "version string %s",
	       amx_version_string());

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		for (j = 0; j < i; j++)
			if (!strcmp(amx_strerror(-codes[i]), amx_strerror(-codes[j])))
				distinct = 0;
	tap_ok(distinct, "every error code has its own sentence");
	/* errors are negative; positive results (counts, "nothing changed") are not */
	tap_ok(strcmp(amx_strerror(-ENOSPC), amx_strerror(ENOSPC)) &&
	       strstr(amx_strerror(EPERM), "not an error") &&
	       !strstr(amx_strerror(EPERM), "kernel"),
	       "a positive value is not described as an error: %s", amx_strerror(EPERM));
	tap_ok(strstr(amx_strerror(1), "not an error") != NULL,
	       "amx_strerror(1) (amx_tile_configure's 'already live') says success");
	tap_ok(!strcmp(amx_strerror(INT_MIN), "unknown error"),
	       "INT_MIN is an unknown code (no overflowing negation)");
	tap_ok(strstr(amx_strerror(-EOPNOTSUPP), "5.16") != NULL,
	       "EOPNOTSUPP names the kernel version: %s", amx_strerror(-EOPNOTSUPP));
	tap_ok(!strcmp(amx_strerror(-12345), "unknown error"), "unknown code");
	/* what the value means comes first, as strerror(3) says it */
	distinct = 1;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *d = strerrordesc_np(codes[i]);

		if (!d || strncmp(amx_strerror(-codes[i]), d, strlen(d))) {
			printf("# %d: '%s' does not start with '%s'\n", codes[i],
			       amx_strerror(-codes[i]), d ? d : "(null)");
			distinct = 0;
		}
	}
	tap_ok(distinct, "every sentence starts with the errno's meaning");
	tap_ok(!strcmp(amx_strerror(-EROFS), strerrordesc_np(EROFS)) &&
	       !strcmp(amx_strerror(-EISDIR), strerrordesc_np(EISDIR)),
	       "errors of files libamx writes read as such: %s / %s",
	       amx_strerror(-EROFS), amx_strerror(-EISDIR));

	/* the words of the tuning file, AMX_GEMM_BLOCKS and the tools */
	tap_ok(!strcmp(amx_gemm_backend_name(AMX_GEMM_BACKEND_AMX), "amx") &&
	       !strcmp(amx_gemm_backend_name(AMX_GEMM_BACKEND_AVX512), "avx512") &&
	       !strcmp(amx_gemm_backend_name(AMX_GEMM_BACKEND_C), "c") &&
	       !amx_gemm_backend_name(0) && !amx_gemm_backend_name(4) &&
	       !amx_gemm_backend_name((enum amx_gemm_backend)-1),
	       "backend names amx, avx512, c; NULL for 0, 4, -1");
	tap_ok(!strcmp(amx_gemm_op_name(AMX_GEMM_OP_BF16), "bf16") &&
	       !strcmp(amx_gemm_op_name(AMX_GEMM_OP_S8S8), "s8s8") &&
	       !strcmp(amx_gemm_op_name(AMX_GEMM_OP_U8S8), "u8s8") &&
	       !strcmp(amx_gemm_op_name(AMX_GEMM_OP_F16), "f16") &&
	       !amx_gemm_op_name(0) && !amx_gemm_op_name(5),
	       "operation names bf16, s8s8, u8s8, f16; NULL for 0, 5");

	errno = 4242;
	ret = amx_tilecfg_init(NULL, 1);
	tap_ok(ret == -EINVAL && errno == 4242, "failing call returns -EINVAL, errno untouched");
	errno = 4242;
	ret = amx_status();
	tap_ok(errno == 4242, "amx_status() (= %d) leaves errno alone", ret);
	/*
	 * The first GEMM of a process reads its blocking (tuning file, sysfs):
	 * a missing file must not show as ENOENT in the caller's errno.
	 */
	{
		amx_bf16 a[4] = { 0 }, b[4] = { 0 };
		float c[4];

		setenv("XDG_CACHE_HOME", "/nonexistent/libamx-test", 1);
		errno = 4242;
		ret = amx_gemm_bf16(0, 2, 2, 2, a, 2, b, 2, c, 2);
		tap_ok(ret == 0 && errno == 4242,
		       "first GEMM (= %d) leaves errno alone (%d)", ret, errno);
	}
	errno = 4242;
	ret = amx_sigaltstack_uninstall();
	tap_ok(ret == -ENOENT && errno == 4242,
	       "uninstall without install = -ENOENT, errno untouched");
	tap_done();
}
