// SPDX-License-Identifier: MIT
/*
 * Cost of task creation with and without the AMX opt-ins, for the cover
 * letter of kernel/patches (run in the guest, e.g. through a manifest):
 *
 *   fork-cost [N]
 *
 * For "no permission", ARCH_REQ_XCOMP_PERM and ARCH_REQ_XCOMP_PERM_ALLOC
 * (each in its own child process) it prints the mean time of N
 * fork()+_exit()+waitpid() and of N pthread_create()+join(), and the
 * fpstate vmalloc areas (count, bytes) a live thread adds, from
 * /proc/vmallocinfo (root). Also the time of the first tile instruction
 * of a new thread (the #NM trap and, without the opt-in, the allocation)
 * against a second one. Each case runs twice: the first pass also warms
 * up caches (and QEMU's translation cache). Numbers only: no assertions, exit 0; exit 4 where
 * AMX is missing.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int n = 200;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void areas(long *count, long *bytes)
{
	char line[512];
	long size;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	*count = *bytes = 0;
	if (!f) {
		*count = *bytes = -1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if ((strstr(line, " fpstate_") || strstr(line, "xfd_enable_feature")) &&
		    sscanf(line, "%*s %ld", &size) == 1) {
			(*count)++;
			*bytes += size;
		}
	}
	fclose(f);
}

static void tile_use(void)
{
	static uint8_t cfg[64], data[1024];

	cfg[0] = 1;
	cfg[16] = 64;
	cfg[48] = 16;
	asm volatile(".byte 0xc4, 0xe2, 0x78, 0x49, 0x00" : : "a" (cfg) : "memory");
	asm volatile(".byte 0xc4, 0xe2, 0x7b, 0x4b, 0x04, 0x10"
		     : : "a" (data), "d" (64UL) : "memory");
}

static void *nothing(void *arg)
{
	return arg;
}

static int go[2];

static void *parked(void *arg)
{
	char c;

	return read(go[0], &c, 1) == 1 ? arg : NULL;
}

static void *first_use(void *arg)
{
	double *t = arg, t0;

	t0 = now_us();
	tile_use();
	t[0] = now_us() - t0;
	t0 = now_us();
	tile_use();
	t[1] = now_us() - t0;
	return NULL;
}

static void run(const char *name, long option)
{
	double t0, tf, tt, first[2] = { 0, 0 };
	long c0, b0, c1, b1;
	pthread_t t;
	pid_t pid;
	int i;

	if (option && syscall(SYS_arch_prctl, option, 18)) {
		printf("%-28s not available (%s)\n", name, strerror(errno));
		return;
	}
	t0 = now_us();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	tf = (now_us() - t0) / n;
	t0 = now_us();
	for (i = 0; i < n; i++) {
		pthread_create(&t, NULL, nothing, NULL);
		pthread_join(t, NULL);
	}
	tt = (now_us() - t0) / n;
	/* Let the RCU-freed task_structs of the loops go first. */
	usleep(500000);
	if (pipe(go))
		exit(1);
	areas(&c0, &b0);
	pthread_create(&t, NULL, parked, NULL);
	usleep(100000);
	areas(&c1, &b1);
	if (write(go[1], "g", 1) != 1)
		exit(1);
	pthread_join(t, NULL);
	if (option) {
		pthread_create(&t, NULL, first_use, first);
		pthread_join(t, NULL);
	}
	printf("%-28s fork %7.1f us  thread %7.1f us  new thread: +%ld fpstate areas, +%ld bytes  first tile use %6.1f us, second %5.2f us\n",
	       name, tf, tt, c1 - c0, b1 - b0, first[0], first[1]);
}

int main(int argc, char **argv)
{
	unsigned int a, b, c, d;
	const long opts[] = { 0, 0x1023, 0x1026 };
	const char * const names[] = { "no AMX permission", "ARCH_REQ_XCOMP_PERM",
				       "ARCH_REQ_XCOMP_PERM_ALLOC" };
	int i;

	if (argc > 1)
		n = atoi(argv[1]);
	alarm(50);
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1U << 24))) {
		printf("no AMX\n");
		return 4;
	}
	/* Twice: the first pass also pays for warming up (e.g. TCG). */
	for (i = 0; i < 6; i++) {
		pid_t pid = fork();

		if (!pid) {
			run(names[i % 3], opts[i % 3]);
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	return 0;
}
