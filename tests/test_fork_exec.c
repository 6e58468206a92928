// SPDX-License-Identifier: MIT
/* Permission is per process: inherited by fork(), cleared by execve(). */
#include <string.h>

#include "amx_child.h"

static int forked(void)
{
	if (!(amx_test_perm() & AMX_TEST_TILEDATA))
		return 2;
	return amx_status() == 0 ? 0 : 3;
}

static char *self;

static int execed(void)
{
	char *argv[] = { self, "--after-exec", NULL };

	execv("/proc/self/exe", argv);
	return 9;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--after-exec")) {
		/* The new image starts without permission and knows it. */
		if (amx_test_perm() & AMX_TEST_TILEDATA)
			return 2;
		return amx_status() == -EACCES ? 0 : 3;
	}
	self = argv[0];
	amx_test_need_amx();
	tap_plan(3);
	ret = amx_request();
	tap_ok(ret == 0, "amx_request() = %d", ret);
	ret = amx_run_child(forked);
	tap_ok(ret == 0, "a forked child holds the permission (%d)", ret);
	ret = amx_run_child(execed);
	tap_ok(ret == 0, "an exec'd child does not (%d)", ret);
	tap_done();
}
