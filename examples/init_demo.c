// SPDX-License-Identifier: MIT
/*
 * The amx_request()-at-library-init example: by the time main() runs,
 * libmlkit's constructor has already asked for AMX permission.
 *
 * Exit status: 0 permission granted before main(), 1 inconsistent,
 * 4 AMX unavailable here (the reason is printed).
 */
#include <amx.h>
#include <stdio.h>

#include "mlkit.h"

int main(void)
{
	int at_init = mlkit_amx_status(), now = amx_status();

	printf("init_demo: amx_request() in libmlkit's constructor: %d (%s)\n", at_init,
	       amx_strerror(at_init));
	printf("init_demo: amx_status() in main(): %d (%s)\n", now, amx_strerror(now));
	if (at_init == -EOPNOTSUPP || at_init == -EINVAL)
		return 4;
	return at_init == 0 && now == 0 ? 0 : 1;
}
