// SPDX-License-Identifier: MIT
/*
 * Thread pool: results are bit-identical for 1..4 threads (work is split
 * over M and N, never K), and GEMMs issued from several user threads at
 * once all come out right.  Uses AMX where amx_request() succeeds (each
 * thread configures and releases its tiles), the fallback elsewhere.
 */
#include <pthread.h>

#include <amx.h>

#include "gemm_common.h"

#define M 300
#define N 520
#define K 700

static uint16_t a[M * K], b[K * N];
static int8_t a8[M * K], b8[K * N];
static float ref[M * N];
static int32_t ref8[M * N];

static void *user_thread(void *arg)
{
	float *c = malloc(sizeof(ref));
	int32_t *c8 = malloc(sizeof(ref8));
	uintptr_t ok = 1;

	(void)arg;
	for (int it = 0; it < 4; it++) {
		ok &= !amx_gemm_bf16(0, M, N, K, a, K, b, N, c, N) &&
		      !memcmp(c, ref, sizeof(ref));
		ok &= !amx_gemm_s8s8(0, M, N, K, a8, K, b8, N, c8, N) &&
		      !memcmp(c8, ref8, sizeof(ref8));
	}
	free(c);
	free(c8);
	return (void *)ok;
}

int main(void)
{
	static float c[M * N];
	static int32_t c8[M * N];
	pthread_t th[4];
	int ok, req;

	req = amx_request();
	printf("# amx_request: %d; backend %s\n", req,
	       t_backend_name(amx_gemm_backend(AMX_GEMM_BF16)));
	t_fill_bf16(a, M * K);
	t_fill_bf16(b, K * N);
	t_fill_i8(a8, M * K, 0);
	t_fill_i8(b8, K * N, 0);
	amx_set_num_threads(1);
	amx_gemm_bf16(0, M, N, K, a, K, b, N, ref, N);
	amx_gemm_s8s8(0, M, N, K, a8, K, b8, N, ref8, N);
	tap_ok(t_check_bf16(M, N, K, a, K, b, N, NULL, ref, N, 0, NULL),
		 "1-thread bf16 reference within bound");
	/* the threads are compared with it: it must be right itself */
	tap_ok(t_check_i8(M, N, K, a8, 0, K, b8, N, NULL, ref8, N, 0),
		 "1-thread s8s8 reference exact");
	for (unsigned int n = 2; n <= 4; n++) {
		amx_set_num_threads(n);
		memset(c, 0, sizeof(c));
		ok = !amx_gemm_bf16(0, M, N, K, a, K, b, N, c, N) &&
		     !memcmp(c, ref, sizeof(c));
		ok &= !amx_gemm_s8s8(0, M, N, K, a8, K, b8, N, c8, N) &&
		      !memcmp(c8, ref8, sizeof(c8));
		tap_ok(ok && amx_get_num_threads() == (int)n,
			 "%u threads: bit-identical to 1 thread", n);
	}
	setenv("AMX_NUM_THREADS", "3", 1);
	amx_set_num_threads(0);
	tap_ok(amx_get_num_threads() == 3, "AMX_NUM_THREADS=3 honoured");
	unsetenv("AMX_NUM_THREADS");
	amx_set_num_threads(0);
	printf("# default pool: %d threads\n", amx_get_num_threads());
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, user_thread, NULL);
	ok = 1;
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(th[i], &r);
		ok &= r != NULL;
	}
	tap_ok(ok, "4 user threads calling concurrently");
	return tap_finish();
}
