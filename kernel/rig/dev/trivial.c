// SPDX-License-Identifier: MIT
/*
 * Trivial guest test program for developing the rig: exit with argv[1],
 * or hang forever with "hang".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rc = argc > 1 ? atoi(argv[1]) : 0;

	if (argc > 1 && !strcmp(argv[1], "hang")) {
		printf("hanging\n");
		fflush(stdout);
		for (;;)
			pause();
	}

	if (rc == 4)
		printf("1..0 # SKIP trivial skip\n");
	else
		printf("trivial test, args:%s%s, exit %d\n", argc > 2 ? " " : "",
		       argc > 2 ? argv[2] : "", rc);
	return rc;
}
