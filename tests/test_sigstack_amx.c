// SPDX-License-Identifier: MIT
/*
 * Once AMX is permitted the kernel refuses sigaltstacks too small for a
 * frame with tile data and accepts amx_sigaltstack_size(), also when
 * booted with strict_sas_size=1.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "amx_test.h"

int main(void)
{
	unsigned long frame = getauxval(AT_MINSIGSTKSZ);
	size_t size = amx_sigaltstack_size();
	stack_t ss = { 0 };
	int ret;

	amx_test_need_amx();
	tap_plan(4);
	ret = amx_request();
	tap_ok(ret == 0, "amx_request() = %d", ret);
	if (!frame)
		frame = 8192 + 2048;	/* tile data alone no longer fits */

	/*
	 * 4 KiB less than the AMX frame cannot hold the 8 KiB of tile data:
	 * fine before the request (the kernel only checks the frame the
	 * process may produce), refused after it.
	 */
	ss.ss_size = frame - 4096;
	ss.ss_sp = malloc(ss.ss_size);
	ret = sigaltstack(&ss, NULL);
	tap_ok(ret == -1 && errno == ENOMEM,
	       "a %zu-byte stack (AT_MINSIGSTKSZ - 4096) is refused with ENOMEM", ss.ss_size);
	free(ss.ss_sp);

	ss.ss_size = size;
	ss.ss_sp = malloc(ss.ss_size);
	ret = sigaltstack(&ss, NULL);
	tap_ok(ret == 0, "a %zu-byte (amx_sigaltstack_size) stack is accepted", size);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(ss.ss_sp);

	/* 1: a big enough stack (e.g. ASan's own) was already there, kept */
	ret = amx_sigaltstack_install();
	tap_ok(ret == 0 || ret == 1, "amx_sigaltstack_install() after the request = %d", ret);
	tap_done();
}
