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
 *
 * Placement (topology.c): the cores are ordered by NUMA node, the starting
 * thread's node and core first; worker i is pinned to core i from its
 * birth (its first touches and its AMX state land on that node), unless
 * amx_set_pinning(0) or AMX_PIN=0.  With more threads than cores the rest
 * go to the cores' SMT siblings, then unpinned.  The caller is the user's
 * thread and is never pinned; it counts as one of the first core's node.
 * A CPU that goes offline later takes its pinned worker's affinity with
 * it (the kernel widens the mask), which costs locality, not results.
 * Unpinned, the pool has one node: the split below has one range.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

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
	int pin;			/* -1: AMX_PIN decides */
	pthread_t tid[POOL_MAX_THREADS];
	/* written by pool_start() under lock, read-only while running */
	int cpu[POOL_MAX_THREADS];	/* pinned to, -1 not */
	int os_tid[POOL_MAX_THREADS];	/* gettid() of each worker */
	unsigned char node[POOL_MAX_THREADS];	/* index into node_id */
	unsigned int nnodes;
	int node_id[AMX_POOL_MAX_NODES];
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
	.pin = -1,
	.nnodes = 1,
};

/*
 * The CPUs the pool's threads go to, in order: the first CPU of each
 * physical core, by node, the node and core of the calling thread first;
 * then the cores' other siblings.  Returns the number of cores (at least
 * 1); @cpus gets @t->n entries, @nodes their nodes.
 */
static unsigned int order_cpus(const struct amx__topo *t, int *cpus,
			       int *nodes)
{
	int here = sched_getcpu(), home = t->cpu[0].node, hcore = -1;
	unsigned int n = 0, ncores = 0;

	for (unsigned int i = 0; i < t->n; i++)
		if (t->cpu[i].cpu == here) {
			home = t->cpu[i].node;
			hcore = t->cpu[i].core;
		}
	/* pass 0: home core; 1: home node; 2: other nodes; 3: siblings */
	for (int pass = 0; pass < 4; pass++)
		for (unsigned int i = 0; i < t->n; i++) {
			const struct amx_cpu_topology *c = &t->cpu[i];
			int take;

			if (pass == 3) {
				take = c->smt != 0;
			} else if (c->smt) {
				take = 0;
			} else if (pass == 0) {
				take = c->core == hcore;
			} else if (pass == 1) {
				take = c->node == home && c->core != hcore;
			} else {
				take = c->node != home;
			}
			if (!take)
				continue;
			cpus[n] = c->cpu;
			nodes[n++] = c->node;
			ncores += pass < 3;
		}
	return ncores ? ncores : 1;
}

/*
 * Where the n threads go (pool.cpu/node/node_id/nnodes); returns the
 * default thread count, one per core.  Without a topology (no sysfs),
 * one node and no pinning.
 */
static unsigned int pool_place(unsigned int n, int pin)
{
	struct amx__topo t;
	int *cpus, *nodes;
	unsigned int ncores;

	pool.nnodes = 1;
	pool.node_id[0] = 0;
	for (unsigned int i = 0; i < POOL_MAX_THREADS; i++) {
		pool.cpu[i] = -1;
		pool.node[i] = 0;
	}
	if (amx__topo_read(&t, NULL, NULL))
		return 1;
	cpus = calloc(t.n, sizeof(*cpus));
	nodes = calloc(t.n, sizeof(*nodes));
	if (!cpus || !nodes) {
		free(cpus);
		free(nodes);
		amx__topo_free(&t);
		return 1;
	}
	ncores = order_cpus(&t, cpus, nodes);
	if (!n)
		n = ncores;
	if (pin) {
		/* the node list in the order the threads meet them */
		pool.node_id[0] = nodes[0];
		for (unsigned int i = 0; i < n && i < t.n &&
		     i < POOL_MAX_THREADS; i++) {
			unsigned int x = 0;

			while (x < pool.nnodes && pool.node_id[x] != nodes[i])
				x++;
			if (x == pool.nnodes) {
				if (x == AMX_POOL_MAX_NODES)
					x--;	/* beyond: folded into the last */
				else
					pool.node_id[pool.nnodes++] = nodes[i];
			}
			pool.cpu[i] = cpus[i];
			pool.node[i] = (unsigned char)x;
		}
		pool.cpu[0] = -1;	/* the caller */
		/* threads beyond the CPUs: unpinned, with the first node */
	}
	free(cpus);
	free(nodes);
	amx__topo_free(&t);
	return ncores;
}

/* AMX_NUM_THREADS when it holds 1..256, else 0 (one per core) */
static unsigned int env_threads(void)
{
	unsigned int n = 0;

	if (amx__env_num_threads(&n, true) > 0 && n > 0)
		return n;
	return 0;
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

	__atomic_store_n(&pool.os_tid[id], (int)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
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

/* a worker pinned to @cpu from its birth; unpinned if that fails */
static int start_worker(unsigned int i)
{
	pthread_attr_t attr;
	int ret = -1;

	if (pool.cpu[i] >= 0 && !pthread_attr_init(&attr)) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(pool.cpu[i], &set);
		if (!pthread_attr_setaffinity_np(&attr, sizeof(set), &set))
			ret = pthread_create(&pool.tid[i], &attr, worker,
					     (void *)(uintptr_t)i);
		pthread_attr_destroy(&attr);
		/* e.g. EINVAL: the CPU went offline since the topology read */
		if (!ret)
			return 0;
		pool.cpu[i] = -1;
	}
	return pthread_create(&pool.tid[i], NULL, worker, (void *)(uintptr_t)i);
}

/* with pool.busy held; errno is kept (sysfs reads, refused affinity) */
static void pool_start(void)
{
	unsigned int n = pool.requested ? pool.requested : env_threads();
	int pin = pool.pin >= 0 ? pool.pin : amx__env_pin(true) != 0;
	unsigned int cores;
	sigset_t all, old;
	int e = errno;

	static int atfork_done;

	if (n > POOL_MAX_THREADS)
		n = POOL_MAX_THREADS;
	pthread_mutex_lock(&pool.lock);
	cores = pool_place(n, pin);
	pthread_mutex_unlock(&pool.lock);
	if (!n)
		n = cores;
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
		pool.os_tid[i] = 0;
		if (start_worker(i))
			break;
		pool.started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_store_n(&pool.nthreads, pool.started, __ATOMIC_RELAXED);
	errno = e;
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

int amx_set_pinning(int on)
{
	if (on != 0 && on != 1)
		return -EINVAL;
	pthread_mutex_lock(&pool.busy);
	if (pool.nthreads)
		pool_stop();
	pool.pin = on;
	pthread_mutex_unlock(&pool.busy);
	return 0;
}

int amx_get_pool_threads(struct amx_pool_thread *t, size_t n)
{
	unsigned int nthr;

	if (!t && n)
		return -EINVAL;
	pthread_mutex_lock(&pool.busy);
	if (!pool.nthreads)
		pool_start();
	nthr = pool.nthreads;
	for (size_t i = 0; i < n && i < nthr; i++) {
		/* a worker writes its tid first thing: wait for it */
		int tid = 0;

		while (i && !(tid = __atomic_load_n(&pool.os_tid[i],
						    __ATOMIC_ACQUIRE)))
			sched_yield();
		t[i] = (struct amx_pool_thread){
			.tid = i ? tid : (int)syscall(SYS_gettid),
			.cpu = pool.cpu[i],
			.node = pool.node_id[pool.node[i]],
		};
	}
	pthread_mutex_unlock(&pool.busy);
	return (int)nthr;
}

void amx_pool_layout(struct amx_pool_layout *l)
{
	unsigned int nthr = amx_pool_size();

	pthread_mutex_lock(&pool.lock);
	memset(l, 0, sizeof(*l));
	l->nnodes = pool.nnodes;
	memcpy(l->node_id, pool.node_id, sizeof(l->node_id));
	for (unsigned int i = 0; i < nthr; i++)
		l->nthr[pool.node[i]]++;
	pthread_mutex_unlock(&pool.lock);
}

/*
 * Read while a job runs: pool.node[] and node_id[] change only in
 * pool_start(), with pool.busy held, which a job of more than one
 * thread holds too; a job of one thread does not look.
 */
void amx_split_init(struct amx_split *s, size_t units, unsigned int nthr,
		    unsigned int nparts, const size_t *lo, const int *node)
{
	unsigned int cnt[AMX_POOL_MAX_NODES] = { 0 }, nn = 1;

	memset(s, 0, sizeof(*s));
	for (unsigned int x = 0; x < AMX_POOL_MAX_NODES; x++)
		s->part_of[x] = -1;
	if (nthr > 1) {
		nn = pool.nnodes;
		for (unsigned int i = 0; i < nthr; i++)
			cnt[pool.node[i]]++;
	}
	if (nthr <= 1 || nn <= 1 || (nparts > AMX_POOL_MAX_NODES) ||
	    (nparts <= 1 && lo)) {
		s->nparts = 1;
		s->lo[1] = units;
		s->nthr[0] = nthr ? nthr : 1;
		s->node[0] = -1;
		s->part_of[0] = 0;
		return;
	}
	if (lo) {		/* the weight's parts */
		s->nparts = nparts;
		for (unsigned int p = 0; p < nparts; p++) {
			s->lo[p] = lo[p];
			s->node[p] = node[p];
			for (unsigned int x = 0; x < nn; x++)
				if (pool.node_id[x] == node[p] &&
				    s->part_of[x] < 0 && cnt[x]) {
					s->part_of[x] = (int)p;
					s->nthr[p] = cnt[x];
				}
		}
		s->lo[nparts] = units;
		return;
	}
	/* proportional to the job's threads on each node */
	for (unsigned int x = 0, before = 0; x < nn; x++) {
		unsigned int p = s->nparts;

		if (!cnt[x])
			continue;
		s->lo[p] = units * before / nthr;
		s->nthr[p] = cnt[x];
		s->node[p] = pool.node_id[x];
		s->part_of[x] = (int)p;
		s->nparts++;
		before += cnt[x];
	}
	s->lo[s->nparts] = units;
}

int amx_split_home(const struct amx_split *s, unsigned int tid,
		   unsigned int nthr)
{
	if (s->nparts <= 1 || nthr <= 1)
		return 0;
	return s->part_of[pool.node[tid]];
}

int amx_split_claim(const struct amx_split *s, unsigned int *next, int home,
		    unsigned int *part, unsigned int *task)
{
	unsigned int np = s->nparts;

	for (unsigned int i = 0; i < np; i++) {
		unsigned int p = home >= 0 ? ((unsigned int)home + i) % np : i;
		unsigned int t;

		if (__atomic_load_n(&next[p], __ATOMIC_RELAXED) >= s->ntasks[p])
			continue;
		t = __atomic_fetch_add(&next[p], 1, __ATOMIC_RELAXED);
		if (t < s->ntasks[p]) {
			*part = p;
			*task = t;
			return 1;
		}
	}
	return 0;
}
