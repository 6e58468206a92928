// SPDX-License-Identifier: MIT
/* amx_request(): grants, idempotent, races, caches, maps refusals. */
#include <pthread.h>
#include <string.h>

#include "amx_child.h"

#define RACERS 64

static pthread_barrier_t barrier;

static void *racer(void *arg)
{
	pthread_barrier_wait(&barrier);
	*(int *)arg = amx_request();
	return NULL;
}

static int fresh_grant(void)
{
	if (amx_status() != -EACCES || (amx_test_perm() & AMX_TEST_TILEDATA))
		return 2;
	if (amx_request() != 0 || !(amx_test_perm() & AMX_TEST_TILEDATA))
		return 3;
	if (amx_status() != 0 || amx_request() != 0)
		return 4;
	return 0;
}

static int race(void)
{
	pthread_t t[RACERS];
	int ret[RACERS], i;

	pthread_barrier_init(&barrier, NULL, RACERS);
	for (i = 0; i < RACERS; i++)
		if (pthread_create(&t[i], NULL, racer, &ret[i]))
			return 2;
	for (i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < RACERS; i++)
		if (ret[i] != 0)
			return 3;
	return (amx_test_perm() & AMX_TEST_TILEDATA) ? 0 : 4;
}

static int cached(void)
{
	unsigned long mask;

	if (amx_request())
		return 2;
	/* From here on every AMX arch_prctl fails: only the cache answers. */
	if (amx_deny_arch_prctl(0x1021, 0x1023))
		return AMX_CHILD_UNSUPPORTED;
	if (syscall(SYS_arch_prctl, 0x1022, &mask) != -1 || errno != EPERM)
		return 4;
	return amx_request() == 0 && amx_status() == 0 ? 0 : 5;
}

static int refused(void)
{
	int ret;

	/* Both ways of asking: ARCH_REQ_XCOMP_PERM and ..._PERM_ALLOC. */
	if (amx_deny_arch_prctl(0x1023, 0x1026))
		return AMX_CHILD_UNSUPPORTED;
	ret = amx_request();
	if (ret != -EPERM || amx_status() != -EPERM)
		return 3;
	if (!strstr(amx_strerror(ret), "seccomp"))
		return 4;
	return (amx_test_perm() & AMX_TEST_TILEDATA) ? 5 : 0;
}

/* 0 when the kernel knows ARCH_REQ_XCOMP_PERM_ALLOC, 1 when not. */
static int probe_alloc_option(void)
{
	return syscall(SYS_arch_prctl, 0x1026, 18) && errno == EINVAL;
}

/* amx_request() used the synchronous-allocation option. */
static int uses_alloc(void)
{
	struct amx_info info;

	if (amx_request())
		return 2;
	amx_get_info(&info);
	return info.alloc_sync == 1 ? 0 : 3;
}

int main(void)
{
	int ret;

	amx_test_need_amx();
	tap_plan(5);
	ret = amx_run_child(fresh_grant);
	tap_ok(ret == 0, "fresh process: -EACCES, then granted and idempotent (%d)", ret);
	ret = amx_run_child(race);
	tap_ok(ret == 0, "%d threads racing amx_request() all get 0 (%d)", RACERS, ret);
	ret = amx_run_child(cached);
	if (ret == AMX_CHILD_UNSUPPORTED)
		tap_skip("kernel without seccomp filters", "after success no syscall is made");
	else
		tap_ok(ret == 0, "after success no syscall is made (seccomp-denied) (%d)", ret);
	ret = amx_run_child(refused);
	if (ret == AMX_CHILD_UNSUPPORTED)
		tap_skip("kernel without seccomp filters", "policy refusal maps to -EPERM");
	else
		tap_ok(ret == 0, "policy refusal maps to -EPERM, nothing granted (%d)", ret);
	if (amx_run_child(probe_alloc_option) == 0) {
		ret = amx_run_child(uses_alloc);
		tap_ok(ret == 0, "kernel has ARCH_REQ_XCOMP_PERM_ALLOC: amx_request() uses it (%d)",
		       ret);
	} else {
		tap_skip("kernel without ARCH_REQ_XCOMP_PERM_ALLOC",
			 "amx_request() uses synchronous allocation");
	}
	tap_done();
}
