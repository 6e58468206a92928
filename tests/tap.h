/* SPDX-License-Identifier: MIT */
/*
 * The one TAP helper of libamx's test programs.  Exit codes follow
 * kselftest: 0 all passed, 1 something failed, 4 skipped as a whole
 * (the feature is missing on this machine).
 *
 * Every program that includes this header bounds itself: a constructor
 * arms alarm() (AMX_TEST_ALARM seconds, default 50, well under CTest's
 * and the guest's per-test limits), and SIGALRM ends the program with a
 * "Bail out!" line and exit code 1 instead of hanging.  A program may
 * re-arm alarm() for itself.  A plan may come first (tap_plan()) or,
 * when the count is only known at the end, from tap_done()/tap_finish().
 */
#ifndef AMX_TAP_H
#define AMX_TAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAP_PASS 0
#define TAP_FAIL 1
#define TAP_SKIP 4

#define TAP_DEFAULT_TIMEOUT 50

static int tap_count, tap_failed, tap_skipped, tap_planned;

static void tap__timeout(int sig)
{
	static const char msg[] = "Bail out! timed out: the test program "
				  "bounds itself (AMX_TEST_ALARM)\n";
	ssize_t r;

	(void)sig;
	r = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	_exit(TAP_FAIL);
}

/* Seconds a test program may run: AMX_TEST_ALARM, else 50. */
static inline unsigned int tap_timeout(void)
{
	const char *env = getenv("AMX_TEST_ALARM");
	char *end;
	unsigned long v;

	if (env && *env) {
		v = strtoul(env, &end, 10);
		if (!*end && v > 0 && v < 3600)
			return (unsigned int)v;
	}
	return TAP_DEFAULT_TIMEOUT;
}

/* (Re-)arm the bound: SIGALRM after @seconds ends the program. */
static inline void tap_bound(unsigned int seconds)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tap__timeout;
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

static void __attribute__((constructor, used)) tap__arm(void)
{
	tap_bound(tap_timeout());
}

static inline void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	tap_planned = 1;
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Record one result; returns @cond so callers can chain diagnostics. */
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	tap_skipped++;
	printf("ok %d - ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
}

/* Skip the whole program: plan 0 with a reason, exit 4. */
static inline void __attribute__((noreturn)) tap_skip_all(const char *reason)
{
	printf("TAP version 13\n1..0 # SKIP %s\n", reason);
	fflush(stdout);
	exit(TAP_SKIP);
}

/* Abandon the run: "Bail out!" with a reason, exit 1 (async-signal-safe). */
static inline void __attribute__((noreturn)) tap_bail_out(const char *reason)
{
	static const char head[] = "Bail out! ";
	ssize_t r;

	r = write(STDOUT_FILENO, head, sizeof(head) - 1);
	r = write(STDOUT_FILENO, reason, strlen(reason));
	r = write(STDOUT_FILENO, "\n", 1);
	(void)r;
	_exit(TAP_FAIL);
}

/* Print the trailing plan (if none came first) and totals; the exit code. */
static inline int tap_finish(void)
{
	if (!tap_planned)
		printf("1..%d\n", tap_count);
	printf("# totals: pass %d, fail %d, skip %d\n",
	       tap_count - tap_failed - tap_skipped, tap_failed, tap_skipped);
	fflush(stdout);
	return tap_failed ? TAP_FAIL : TAP_PASS;
}

static inline int __attribute__((noreturn)) tap_done(void)
{
	exit(tap_finish());
}

#endif /* AMX_TAP_H */
