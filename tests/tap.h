/* SPDX-License-Identifier: MIT */
/*
 * Minimal TAP output for libamx's test programs.  Exit codes follow
 * kselftest: 0 all passed, 1 something failed, 4 skipped as a whole
 * (the feature is missing on this machine).
 */
#ifndef AMX_TAP_H
#define AMX_TAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TAP_PASS 0
#define TAP_FAIL 1
#define TAP_SKIP 4

static int tap_count, tap_failed, tap_skipped;

static inline void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
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
	size_t n = 0;

	while (reason[n])
		n++;
	if (write(STDOUT_FILENO, head, sizeof(head) - 1) < 0 ||
	    write(STDOUT_FILENO, reason, n) < 0 ||
	    write(STDOUT_FILENO, "\n", 1) < 0)
		_exit(TAP_FAIL);
	_exit(TAP_FAIL);
}

static inline void tap__on_alarm(int sig)
{
	(void)sig;
	tap_bail_out("time limit reached (alarm)");
}

/*
 * Bound the whole program: after @seconds it bails out and exits 1, well
 * before CTest's own timeout would kill it without a word.
 */
static inline void tap_time_limit(unsigned int seconds)
{
	signal(SIGALRM, tap__on_alarm);
	alarm(seconds);
}

static inline int __attribute__((noreturn)) tap_done(void)
{
	printf("# totals: pass %d, fail %d, skip %d\n",
	       tap_count - tap_failed - tap_skipped, tap_failed, tap_skipped);
	fflush(stdout);
	exit(tap_failed ? TAP_FAIL : TAP_PASS);
}

#endif /* AMX_TAP_H */
