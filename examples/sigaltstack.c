// SPDX-License-Identifier: MIT
/*
 * The sigaltstack example: install the recommended alternate stack,
 * deliver a signal on it while the tile registers hold data, and check
 * the data survived.  The handler uses the tiles itself, as a profiler
 * or a language runtime might.
 *
 * Exit status: 0 data intact, 1 corrupted, 4 AMX unavailable here.
 */
#include <amx.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static uint8_t data[16 * 64], back[16 * 64], scratch[16 * 64];
static volatile sig_atomic_t ran_on_altstack;

static void handler(int sig)
{
	struct amx_tilecfg cfg;
	stack_t ss;

	(void)sig;
	if (!sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK))
		ran_on_altstack = 1;
	/* Handlers start with tiles in their initial state: configure. */
	amx_tilecfg_init(&cfg, 1);
	amx_tilecfg_set(&cfg, 3, 16, 64);
	amx_tile_configure(&cfg);
	amx_tile_load(3, scratch, 64);
}

int main(void)
{
	struct amx_tilecfg cfg;
	struct sigaction sa;
	int ret, i;

	ret = amx_sigaltstack_install();
	if (ret < 0) {
		printf("sigaltstack: cannot install the stack: %s\n", amx_strerror(ret));
		return 1;
	}
	printf("sigaltstack: installed a %zu-byte alternate stack\n", amx_sigaltstack_size());
	ret = amx_request();
	if (ret) {
		printf("sigaltstack: AMX unavailable: %s\n", amx_strerror(ret));
		return ret == -EOPNOTSUPP || ret == -EINVAL ? 4 : 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);

	for (i = 0; i < (int)sizeof(data); i++) {
		data[i] = (uint8_t)(i * 13 + 1);
		scratch[i] = 0xff;
	}
	amx_tilecfg_init(&cfg, 1);
	amx_tilecfg_set(&cfg, 3, 16, 64);
	amx_tile_configure(&cfg);
	amx_tile_load(3, data, 64);
	raise(SIGUSR1);
	amx_tile_store(3, back, 64);
	amx_tile_release();

	ret = memcmp(data, back, sizeof(data)) != 0;
	printf("sigaltstack: handler ran %s the alternate stack; tile data %s\n",
	       ran_on_altstack ? "on" : "NOT on", ret ? "CORRUPTED" : "intact");
	amx_sigaltstack_uninstall();
	return ret || !ran_on_altstack;
}
