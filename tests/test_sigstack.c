// SPDX-License-Identifier: MIT
/* The library's alternate signal stack, on any machine. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "amx_test.h"

static volatile sig_atomic_t on_alt, handled;

static void handler(int sig)
{
	stack_t ss;
	volatile char big[4096];

	(void)sig;
	big[0] = 1;
	big[4095] = big[0];
	if (!sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK))
		on_alt = 1;
	handled = 1;
}

int main(void)
{
	size_t size = amx_sigaltstack_size();
	struct sigaction sa;
	stack_t ss, small, orig, off = { .ss_flags = SS_DISABLE };
	unsigned char vec;
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	tap_plan(10);
	/* Start from no alternate stack (sanitizer runtimes install one). */
	sigaltstack(&off, &orig);
	tap_ok(size % page == 0 && size > AMX_SIGSTACK_HANDLER_BUDGET,
	       "recommended size %zu is page-rounded and includes the handler budget", size);

	ret = amx_sigaltstack_install();
	tap_ok(ret == 0, "install = %d", ret);
	sigaltstack(NULL, &ss);
	tap_ok(!(ss.ss_flags & SS_DISABLE) && ss.ss_size == size,
	       "kernel reports a %zu-byte alternate stack", ss.ss_size);
	/* mincore() on the page below answers for mapped pages only. */
	tap_ok(mincore((char *)ss.ss_sp - page, page, &vec) == 0 &&
	       mprotect((char *)ss.ss_sp - page, page, PROT_NONE) == 0,
	       "a guard page is mapped below the stack");
	tap_ok(amx_sigaltstack_install() == 1, "a second install keeps the stack (1)");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	tap_ok(handled && on_alt, "SA_ONSTACK handler ran on it");

	ret = amx_sigaltstack_uninstall();
	sigaltstack(NULL, &ss);
	tap_ok(ret == 0 && (ss.ss_flags & SS_DISABLE), "uninstall disables it");
	tap_ok(amx_sigaltstack_uninstall() == -ENOENT, "second uninstall = -ENOENT");

	/* A too-small stack of the user's own is replaced. */
	small.ss_sp = malloc(MINSIGSTKSZ);
	small.ss_size = MINSIGSTKSZ;
	small.ss_flags = 0;
	ret = sigaltstack(&small, NULL);
	if (ret == 0) {
		ret = amx_sigaltstack_install();
		sigaltstack(NULL, &ss);
		tap_ok(ret == 0 && ss.ss_size == size, "a %d-byte stack is replaced",
		       MINSIGSTKSZ);
	} else {
		tap_skip("kernel refuses MINSIGSTKSZ stacks here", "replace a small stack");
		amx_sigaltstack_install();
	}
	tap_ok(amx_sigaltstack_uninstall() == 0, "and the replacement uninstalls");
	free(small.ss_sp);
	if (!(orig.ss_flags & SS_DISABLE))
		sigaltstack(&orig, NULL);
	tap_done();
}
