// SPDX-License-Identifier: MIT
/*
 * The library's persistent thread pool.
 *
 * Size: amx_set_num_threads(), else AMX_NUM_THREADS, else one thread per
 * physical core of the affinity mask (SMT siblings share one AMX unit, so a
 * second thread per core only competes for it).  The caller of a job is
 * thread 0; workers 1..n-1 spin briefly, then sleep on a condition variable
 * between jobs.  A worker joins a job only while the caller has not closed
 * it yet, and the job function shares its work out dynamically, so a worker
 * the OS starts late (its core busy) does not hold the call up.
 * One job runs at a time: a call that finds the pool busy (another user
 * thread, or a GEMM issued from inside a job) runs alone on its own thread,
 * which gives the same results since work is split over C only.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

#define POOL_MAX_THREADS AMX_MAX_THREADS

struct pool {
	pthread_mutex_t busy;		/* held by the thread running a job */
	pthread_mutex_t lock;		/* protects the fields below */
	pthread_cond_t start, done;
	unsigned int nthreads;		/* including the caller */
	unsigned int started;		/* workers running */
	unsigned int requested;		/* 0: default */
	unsigned long gen;		/* bumped per job; read unlocked */
	unsigned long start_gen;	/* gen when the workers were started */
	unsigned int job_nthr;
	unsigned long long ticket;	/* gen << 17 | OPEN | workers joined */
	unsigned int finished;		/* workers done with the job */
	amx_pool_fn fn;
	void *arg;
	int stop;
	pthread_t tid[POOL_MAX_THREADS];
};

static amx_pool_thread_start_fn thread_start;

void amx_pool_set_thread_start(amx_pool_thread_start_fn fn)
{
	__atomic_store_n(&thread_start, fn, __ATOMIC_RELEASE);
}

static void run_thread_start(void)
{
	amx_pool_thread_start_fn fn = __atomic_load_n(&thread_start,
						      __ATOMIC_ACQUIRE);

	if (fn)
		fn();
}

static struct pool pool = {
	.busy = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.start = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/* physical cores in the affinity mask, from sysfs thread_siblings_list */
static unsigned int count_cores(void)
{
	cpu_set_t set, seen;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	CPU_ZERO(&seen);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char path[96];
		FILE *f;
		int first = cpu;

		if (!CPU_ISSET(cpu, &set))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 cpu);
		f = fopen(path, "re");
		if (f) {
			if (fscanf(f, "%d", &first) != 1 || first < 0 ||
			    first >= CPU_SETSIZE)
				first = cpu;
			fclose(f);
		}
		if (!CPU_ISSET(first, &seen)) {
			CPU_SET(first, &seen);
			n++;
		}
	}
	return n ? n : 1;
}

/* AMX_NUM_THREADS when it holds 1..256, else one per core */
static unsigned int default_threads(void)
{
	unsigned int n = 0;

	if (amx__env_num_threads(&n, true) > 0 && n > 0)
		return n;
	return count_cores();
}

/*
 * Spin briefly before sleeping: waking a thread blocked in the kernel
 * costs tens of microseconds (an IPI, more under a hypervisor), which
 * back-to-back GEMMs would pay every call.  About 0.1-0.3 ms of PAUSE.
 */
#define POOL_SPIN 8192

#define TICKET_OPEN	(1ull << 16)
#define TICKET_GEN_SHIFT 17
#define TICKET_GEN_MASK	((1ull << 47) - 1)

static int spin_until_changed(const unsigned long *p, unsigned long old)
{
	for (int i = 0; i < POOL_SPIN; i++) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) != old)
			return 1;
		__builtin_ia32_pause();
	}
	return 0;
}

/*
 * A worker joins the job of generation @gen only while the caller keeps
 * it open; once the caller has closed it (it ran out of work itself), a
 * late worker leaves the job alone, since the job lives on the caller's
 * stack and the caller is not waiting for it.
 */
static int join_job(unsigned long gen)
{
	unsigned long long t = __atomic_load_n(&pool.ticket, __ATOMIC_ACQUIRE);

	for (;;) {
		if (!(t & TICKET_OPEN) || t >> TICKET_GEN_SHIFT !=
		    (gen & TICKET_GEN_MASK))
			return 0;
		if (__atomic_compare_exchange_n(&pool.ticket, &t, t + 1, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return 1;
	}
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	unsigned long seen;

	run_thread_start();
	pthread_mutex_lock(&pool.lock);
	seen = pool.start_gen;
	for (;;) {
		if (!pool.stop && pool.gen == seen) {
			pthread_mutex_unlock(&pool.lock);
			spin_until_changed(&pool.gen, seen);
			pthread_mutex_lock(&pool.lock);
		}
		while (!pool.stop && pool.gen == seen)
			pthread_cond_wait(&pool.start, &pool.lock);
		if (pool.stop)
			break;
		seen = pool.gen;
		if (id < pool.job_nthr) {
			amx_pool_fn fn = pool.fn;
			void *a = pool.arg;
			unsigned int n = pool.job_nthr;

			pthread_mutex_unlock(&pool.lock);
			if (join_job(seen)) {
				fn(a, id, n);
				__atomic_add_fetch(&pool.finished, 1,
						   __ATOMIC_RELEASE);
				pthread_mutex_lock(&pool.lock);
				pthread_cond_signal(&pool.done);
			} else {
				pthread_mutex_lock(&pool.lock);
			}
		}
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* with pool.busy held */
static void pool_stop(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.stop = 1;
	pthread_cond_broadcast(&pool.start);
	pthread_mutex_unlock(&pool.lock);
	for (unsigned int i = 1; i < pool.started; i++)
		pthread_join(pool.tid[i], NULL);
	pool.stop = 0;
	pool.started = 0;
	__atomic_store_n(&pool.nthreads, 0, __ATOMIC_RELAXED);
}

/* a forked child has no workers: start afresh on its first job */
static void pool_atfork_child(void)
{
	pthread_mutex_init(&pool.busy, NULL);
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.start, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.started = 0;
	pool.nthreads = 0;
	pool.stop = 0;
}

/* with pool.busy held */
static void pool_start(void)
{
	unsigned int n = pool.requested ? pool.requested : default_threads();
	sigset_t all, old;

	static int atfork_done;

	if (n > POOL_MAX_THREADS)
		n = POOL_MAX_THREADS;
	if (!atfork_done && !pthread_atfork(NULL, NULL, pool_atfork_child))
		atfork_done = 1;
	run_thread_start();
	pool.start_gen = pool.gen;
	/* workers never take signals meant for the application */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pool.started = 1;
	for (unsigned int i = 1; i < n; i++) {
		if (pthread_create(&pool.tid[i], NULL, worker,
				   (void *)(uintptr_t)i))
			break;
		pool.started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_store_n(&pool.nthreads, pool.started, __ATOMIC_RELAXED);
}

unsigned int amx_pool_size(void)
{
	unsigned int n = __atomic_load_n(&pool.nthreads, __ATOMIC_RELAXED);

	if (n)
		return n;
	pthread_mutex_lock(&pool.busy);
	if (!pool.nthreads)
		pool_start();
	n = pool.nthreads;
	pthread_mutex_unlock(&pool.busy);
	return n;
}

unsigned int amx_pool_run(amx_pool_fn fn, void *arg, unsigned int want)
{
	unsigned int n;

	if (want <= 1 || pthread_mutex_trylock(&pool.busy)) {
		fn(arg, 0, 1);
		return 1;
	}
	if (!pool.nthreads)
		pool_start();
	n = want < pool.nthreads ? want : pool.nthreads;
	if (n > 1) {
		pthread_mutex_lock(&pool.lock);
		pool.fn = fn;
		pool.arg = arg;
		pool.job_nthr = n;
		__atomic_store_n(&pool.finished, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pool.ticket, ((pool.gen + 1) & TICKET_GEN_MASK) <<
				 TICKET_GEN_SHIFT | TICKET_OPEN, __ATOMIC_RELEASE);
		__atomic_store_n(&pool.gen, pool.gen + 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&pool.start);
		pthread_mutex_unlock(&pool.lock);
	}
	fn(arg, 0, n);
	if (n > 1) {
		/* close the job: only the workers that joined are waited for */
		unsigned int joined = __atomic_fetch_and(&pool.ticket, ~TICKET_OPEN,
							 __ATOMIC_ACQ_REL) &
				      (TICKET_OPEN - 1);

		for (int i = 0; i < POOL_SPIN && __atomic_load_n(&pool.finished,
					__ATOMIC_ACQUIRE) < joined; i++)
			__builtin_ia32_pause();
		pthread_mutex_lock(&pool.lock);
		while (__atomic_load_n(&pool.finished, __ATOMIC_ACQUIRE) < joined)
			pthread_cond_wait(&pool.done, &pool.lock);
		pthread_mutex_unlock(&pool.lock);
	}
	pthread_mutex_unlock(&pool.busy);
	return n;
}

int amx_set_num_threads(unsigned int n)
{
	if (n > POOL_MAX_THREADS)
		return -EINVAL;
	pthread_mutex_lock(&pool.busy);
	if (pool.nthreads)
		pool_stop();
	pool.requested = n;
	pthread_mutex_unlock(&pool.busy);
	return 0;
}

int amx_get_num_threads(void)
{
	return (int)amx_pool_size();
}
