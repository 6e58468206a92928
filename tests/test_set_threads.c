// SPDX-License-Identifier: MIT
/*
 * amx_set_num_threads() may be called from any thread while others run
 * GEMMs (amx_set_num_threads(3)): it waits for the running GEMM, and every
 * result stays bit-identical to a one-thread reference.  Small enough for
 * valgrind (the memcheck stage runs it on the C path and the pool).
 */
#include <amx.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "amx_test.h"

#define M 96
#define N 160
#define K 160		/* 2 M N K is above the one-thread threshold */
#define ROUNDS 4

static int8_t a[M * K], b[K * N];
static int32_t ref[M * N];

static void *computer(void *arg)
{
	static int32_t c[2][M * N];
	int32_t *mine = c[(uintptr_t)arg];
	uintptr_t bad = 0;

	for (int i = 0; i < ROUNDS; i++) {
		memset(mine, 0x5a, sizeof(c[0]));
		bad += amx_gemm_s8s8(0, M, N, K, a, K, b, N, mine, N) != 0 ||
		       memcmp(mine, ref, sizeof(ref)) != 0;
	}
	return (void *)bad;
}

int main(void)
{
	uint64_t seed = 7;
	pthread_t th[2];
	void *bad[2];
	int sets = 0, ok = 1;

	tap_plan(4);
	for (size_t i = 0; i < M * K; i++)
		a[i] = (int8_t)amx_test_rand(&seed);
	for (size_t i = 0; i < K * N; i++)
		b[i] = (int8_t)amx_test_rand(&seed);
	amx_set_num_threads(1);
	tap_ok(!amx_gemm_s8s8(0, M, N, K, a, K, b, N, ref, N), "one-thread reference");
	/* the GEMMs below are compared with it: it must be right itself */
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < N; j++) {
			int32_t s = 0;

			for (size_t p = 0; p < K; p++)
				s += a[i * K + p] * b[p * N + j];
			ok &= ref[i * N + j] == s;
		}
	tap_ok(ok, "one-thread reference: the sums in plain C, exactly");
	ok = 1;
	for (uintptr_t t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, computer, (void *)t);
	/* resize the pool under their feet: 1..4 and back to the default */
	for (int i = 0; i < 4 * ROUNDS; i++, sets++)
		ok &= amx_set_num_threads((unsigned int)(i % 5)) == 0;
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], &bad[t]);
	tap_ok(ok, "%d amx_set_num_threads() calls while GEMMs run: all 0", sets);
	tap_ok(!bad[0] && !bad[1], "every concurrent GEMM bit-identical (%lu, %lu bad)",
	       (unsigned long)(uintptr_t)bad[0], (unsigned long)(uintptr_t)bad[1]);
	tap_done();
}
