/* SPDX-License-Identifier: MIT */
/*
 * Run a check in a forked child, so process-wide state (AMX permission,
 * seccomp filters, signal stacks) never leaks into the next check.
 */
#ifndef AMX_CHILD_H
#define AMX_CHILD_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "amx_test.h"

/* A child's exit code for "this kernel cannot do what the check needs". */
#define AMX_CHILD_UNSUPPORTED 77

/* Returns the child's exit code, or 128 + signal. */
static inline int amx_run_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fflush(stdout);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 255;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Make arch_prctl(code, ...) fail with EPERM for codes in [lo, hi], as a
 * seccomp policy would.  Returns 0, or -1 (errno EINVAL: the kernel was
 * built without CONFIG_SECCOMP_FILTER).
 */
static inline int amx_deny_arch_prctl(unsigned int lo, unsigned int hi)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_arch_prctl, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, lo, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, hi, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#endif /* AMX_CHILD_H */
