// SPDX-License-Identifier: MIT
/*
 * amx-tune's sweep, bounded (--quick, a small problem), on every backend
 * this machine runs (AMX in the guest, AVX-512 and C natively): it must
 * finish, find int8 results identical for every candidate blocking, and
 * write a tuning file that a fresh process then reads and uses.
 */
#define AMX_TUNE_NO_MAIN
#include "../tools/amx-tune.c"

#include "gemm_common.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	char dir[] = "/tmp/amx-tune-XXXXXX", out[256], sub[200];
	struct tune_opts o = { .quick = 1, .size = 48,
			       .backends = 1u << AMX_GEMM_BACKEND_AMX |
					   1u << AMX_GEMM_BACKEND_AVX512 |
					   1u << AMX_GEMM_BACKEND_C };
	int ret, st = 0, be;

	alarm(50);
	if (!mkdtemp(dir))
		return TAP_FAIL;
	snprintf(sub, sizeof(sub), "%s/libamx", dir);
	snprintf(out, sizeof(out), "%s/gemm-blocking", sub);
	mkdir(sub, 0755);
	setenv("XDG_CACHE_HOME", dir, 1);
	unsetenv("AMX_GEMM_BLOCKS");
	amx_request();
	be = amx_gemm_backend(AMX_GEMM_BF16);
	/* the tuner runs in a child: this process must read the file fresh */
	fflush(stdout);
	if (fork() == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);	/* its table is not TAP */
		o.output = out;
		_exit(tune_all(&o) ? 1 : 0);
	}
	wait(&st);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		 "amx-tune --quick on every usable backend (in use: %s)",
		 t_backend_name(be));
	{
		const char *file = amx_gemm_blocking_file(&ret);
		struct amx_gemm_blocking b;
		int ok = 1;

		tap_ok(file && !strcmp(file, out) && ret == 0,
			 "the library reads the tuner's file (%s, status %d)",
			 file ? file : "none", ret);
		for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_U8S8; op++)
			ok &= !amx_gemm_get_blocking(be, op, &b) &&
			      b.source == AMX_GEMM_BLOCKING_FILE;
		tap_ok(ok, "%s: every op's blocking comes from the file",
			 t_backend_name(be));
	}
	unlink(out);
	rmdir(sub);
	rmdir(dir);
	return tap_finish();
}
