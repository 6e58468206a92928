// SPDX-License-Identifier: MIT
/*
 * Signals handled on the library's altstack in the middle of a tile
 * computation leave the tile data intact, even when the handler itself
 * reconfigures and overwrites the tiles.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "amx_test.h"

#define MIN_ROUNDS	20
#define MAX_ROUNDS	100000
#define STEPS		200
#define WANT_SIGNALS	200

static int8_t a[16 * 64], b[16 * 64];
static int32_t c[16 * 16], want[16 * 16];
static uint8_t junk[16 * 64];
static atomic_int handled, on_alt, stop;

static void handler(int sig)
{
	struct amx_tilecfg cfg;
	stack_t ss;

	(void)sig;
	if (!sigaltstack(NULL, &ss) && (ss.ss_flags & SS_ONSTACK))
		atomic_fetch_add(&on_alt, 1);
	amx_tilecfg_init(&cfg, 1);
	amx_tilecfg_set(&cfg, 0, 16, 64);
	amx_tilecfg_set(&cfg, 1, 16, 64);
	amx_tilecfg_set(&cfg, 2, 16, 64);
	amx_tile_configure(&cfg);
	amx_tile_load(0, junk, 64);
	amx_tile_load(1, junk, 64);
	amx_tile_load(2, junk, 64);
	atomic_fetch_add(&handled, 1);
}

static void *pester(void *arg)
{
	pthread_t target = *(pthread_t *)arg;

	while (!atomic_load(&stop)) {
		pthread_kill(target, SIGUSR1);
		usleep(50);
	}
	return NULL;
}

int main(void)
{
	struct amx_tilecfg cfg;
	struct sigaction sa;
	pthread_t self = pthread_self(), t;
	int i, j, kk, r, bad = 0, ret, rounds;
	uint64_t seed = 7;

	amx_test_need_amx();
	tap_plan(4);
	/*
	 * 0: installed; 1: the thread already had one big enough (ASan
	 * installs its own per thread) and keeps it.  Both are success.
	 */
	ret = amx_sigaltstack_install();
	tap_ok(ret == 0 || ret == 1, "altstack %s (%d)",
	       ret == 1 ? "already big enough, kept" : "installed", ret);
	ret = amx_request();
	if (!tap_ok(ret == 0, "amx_request() = %d", ret))
		tap_done();

	for (i = 0; i < 16 * 64; i++) {
		a[i] = (int8_t)amx_test_rand(&seed);
		b[i] = (int8_t)amx_test_rand(&seed);
		junk[i] = 0xee;
	}
	/* b is already in VNNI form: row r holds quads for k = 4r..4r+3. */
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++) {
			int32_t s = 0;

			for (kk = 0; kk < 64; kk++)
				s += a[i * 64 + kk] * b[(kk / 4) * 64 + j * 4 + kk % 4];
			want[i * 16 + j] = s * STEPS;
		}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, pester, &self);

	amx_tilecfg_init(&cfg, 1);
	amx_tilecfg_set(&cfg, 0, 16, 64);	/* C: 16 x 16 int32 */
	amx_tilecfg_set(&cfg, 1, 16, 64);	/* A: 16 x 64 int8 */
	amx_tilecfg_set(&cfg, 2, 16, 64);	/* B: 16 x 16 quads */
	/* Until enough signals landed mid-computation (slow under emulation). */
	for (r = 0; r < MAX_ROUNDS; r++) {
		if (r >= MIN_ROUNDS && atomic_load(&handled) >= WANT_SIGNALS)
			break;
		amx_tile_configure(&cfg);
		amx_tile_zero(0);
		amx_tile_load(1, a, 64);
		amx_tile_load(2, b, 64);
		for (i = 0; i < STEPS; i++)
			amx_tdpbssd(0, 1, 2);
		amx_tile_store(0, c, 64);
		if (memcmp(c, want, sizeof(c)))
			bad++;
	}
	rounds = r;
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	amx_tile_release();

	tap_ok(atomic_load(&handled) > 0 && atomic_load(&on_alt) == atomic_load(&handled),
	       "%d signals handled, all on the altstack", atomic_load(&handled));
	tap_ok(bad == 0, "%d of %d rounds of %d TDPBSSD correct despite the handler's tiles",
	       rounds - bad, rounds, STEPS);
	tap_done();
}
