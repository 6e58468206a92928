// SPDX-License-Identifier: MIT
/*
 * A too-small sigaltstack blocks the request with -ENOSPC and changes
 * nothing; after amx_sigaltstack_install() the request succeeds.
 */
#include <pthread.h>
#include <signal.h>

#include "amx_child.h"

static int install_small(void)
{
	static __thread char small[2048];	/* classic MINSIGSTKSZ */
	stack_t ss = { .ss_sp = small, .ss_size = sizeof(small) };

	return sigaltstack(&ss, NULL);
}

static int own_thread(void)
{
	int ret;

	if (install_small())
		return 2;
	ret = amx_request();
	if (ret != -ENOSPC || (amx_test_perm() & AMX_TEST_TILEDATA))
		return 3;
	if (amx_sigaltstack_install() != 0)
		return 4;
	ret = amx_request();
	return ret == 0 && (amx_test_perm() & AMX_TEST_TILEDATA) ? 0 : 5;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int state;	/* 1: other thread has its small stack; 2: may fix it */

static void *other(void *arg)
{
	(void)arg;
	install_small();
	pthread_mutex_lock(&lock);
	state = 1;
	pthread_cond_broadcast(&cond);
	while (state != 2)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	amx_sigaltstack_install();
	return NULL;
}

static int other_thread(void)
{
	pthread_t t;
	int ret;

	pthread_create(&t, NULL, other, NULL);
	pthread_mutex_lock(&lock);
	while (state != 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* The kernel checks every thread, not only the caller. */
	ret = amx_request();
	if (ret != -ENOSPC || (amx_test_perm() & AMX_TEST_TILEDATA))
		return 2;
	pthread_mutex_lock(&lock);
	state = 2;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	return amx_request() == 0 ? 0 : 3;
}

int main(void)
{
	int ret;

	amx_test_need_amx();
	tap_plan(2);
	ret = amx_run_child(own_thread);
	tap_ok(ret == 0, "own small stack: -ENOSPC before asking, fixed by install (%d)", ret);
	ret = amx_run_child(other_thread);
	tap_ok(ret == 0, "another thread's small stack: kernel's -ENOSPC passed on (%d)", ret);
	tap_done();
}
