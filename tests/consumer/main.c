// SPDX-License-Identifier: MIT
/* Built against an installed libamx: check header and library agree. */
#include <amx.h>
#include <stdio.h>

int main(void)
{
	int ret = amx_request();

	printf("consumer: libamx %s (header %d), amx_request() = %d: %s\n",
	       amx_version_string(), AMX_VERSION, ret, amx_strerror(ret));
	return amx_version() == AMX_VERSION ? 0 : 1;
}
