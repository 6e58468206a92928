// SPDX-License-Identifier: MIT
/*
 * Built against an installed libamx: check header and library agree.
 * With --need-amx (its ctest under amx-run) AMX must also be granted.
 */
#include <amx.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int ret = amx_request();

	printf("consumer: libamx %s (header %d), amx_request() = %d: %s\n",
	       amx_version_string(), AMX_VERSION, ret, amx_strerror(ret));
	if (argc > 1 && !strcmp(argv[1], "--need-amx") && ret)
		return 1;
	return amx_version() == AMX_VERSION ? 0 : 1;
}
