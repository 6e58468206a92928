/*
 * amx_sigill - the kernel's XFD path for AMX, end to end.
 *
 * A process that has not asked for XTILEDATA permission may configure
 * tiles (LDTILECFG) but gets SIGILL on the first instruction that touches
 * tile data: the kernel arms IA32_XFD[18], the CPU raises #NM with
 * IA32_XFD_ERR[18] set, and the kernel turns that into SIGILL.  After
 * arch_prctl(ARCH_REQ_XCOMP_PERM, 18) the same code runs and computes.
 *
 * Build: gcc -O2 -static -o amx_sigill amx_sigill.c
 * Output: TAP.  Exit 0 pass, 1 fail, 4 skip (no AMX).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARCH_GET_XCOMP_SUPP 0x1021
#define ARCH_GET_XCOMP_PERM 0x1022
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA  18

static int tap_n, tap_fail;

static void tap(int ok, const char *what, long detail)
{
    printf("%sok %d - %s (%ld)\n", ok ? "" : "not ", ++tap_n, what, detail);
    fflush(stdout);
    if (!ok) {
        tap_fail++;
    }
}

struct cfg {
    uint8_t palette, start_row;
    uint8_t rsvd[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed));

static sigjmp_buf jb;
static volatile int stage;      /* which instruction was about to run */
static volatile int ill_stage = -1;

static void on_sigill(int sig)
{
    (void)sig;
    ill_stage = stage;
    siglongjmp(jb, 1);
}

/* Returns the stage that raised SIGILL, or -1 if all ran.  */
static int run_amx(int32_t *out)
{
    static struct cfg c;
    static int8_t a[4][16], b[4][16];
    int i, j;

    memset(&c, 0, sizeof(c));
    c.palette = 1;
    c.rows[0] = 4; c.colsb[0] = 16;
    c.rows[1] = 4; c.colsb[1] = 16;
    c.rows[2] = 4; c.colsb[2] = 16;
    for (i = 0; i < 4; i++) {
        for (j = 0; j < 16; j++) {
            a[i][j] = (int8_t)(i + j - 7);
            b[i][j] = (int8_t)(3 * i - j);
        }
    }
    ill_stage = -1;
    if (sigsetjmp(jb, 1)) {
        return ill_stage;
    }
    stage = 0;
    asm volatile("ldtilecfg (%0)" :: "r"(&c) : "memory");
    stage = 1;
    asm volatile("tileloadd (%0,%1,1), %%tmm1" :: "r"(a), "r"(16L) : "memory");
    stage = 2;
    asm volatile("tileloadd (%0,%1,1), %%tmm2" :: "r"(b), "r"(16L) : "memory");
    stage = 3;
    asm volatile("tilezero %%tmm0" ::: "memory");
    stage = 4;
    asm volatile("tdpbssd %%tmm2, %%tmm1, %%tmm0" ::: "memory");
    stage = 5;
    asm volatile("tilestored %%tmm0, (%0,%1,1)" :: "r"(out), "r"(16L) : "memory");
    stage = 6;
    asm volatile("tilerelease" ::: "memory");
    return -1;
}

static int check_result(const int32_t *out)
{
    int m, n, k, i;

    for (m = 0; m < 4; m++) {
        for (n = 0; n < 4; n++) {
            int32_t s = 0;
            for (k = 0; k < 4; k++) {
                for (i = 0; i < 4; i++) {
                    s += (int8_t)(m + 4 * k + i - 7) *
                         (int8_t)(3 * k - (4 * n + i));
                }
            }
            if (out[m * 4 + n] != s) {
                return 0;
            }
        }
    }
    return 1;
}

int main(void)
{
    unsigned a, b, c, d;
    unsigned long supp = 0, perm = 0;
    int32_t out[16];
    int st, status;
    pid_t pid;

    setvbuf(stdout, NULL, _IOLBF, 0);
    __cpuid_count(7, 0, a, b, c, d);
    if (!(d & (1u << 24)) || !(d & (1u << 25))) {
        printf("1..0 # SKIP AMX-TILE/INT8 not enumerated by CPUID\n");
        return 4;
    }
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supp) ||
        !(supp & (1UL << XFEATURE_XTILEDATA))) {
        printf("1..0 # SKIP kernel does not support AMX state (%lx)\n", supp);
        return 4;
    }
    printf("1..6\n");
    signal(SIGILL, on_sigill);

    syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm);
    tap(!(perm & (1UL << XFEATURE_XTILEDATA)),
        "XTILEDATA not permitted by default", (long)perm);

    /* In a child, so that the parent's state stays pristine.  */
    pid = fork();
    if (pid == 0) {
        st = run_amx(out);
        _exit(st < 0 ? 100 : st);
    }
    waitpid(pid, &status, 0);
    st = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    tap(st == 1, "without permission: LDTILECFG runs, first TILELOADD "
        "gets SIGILL (stage that faulted)", st == 100 ? -1 : st);

    st = run_amx(out);
    tap(st == 1, "parent without permission also gets SIGILL at TILELOADD",
        st);

    tap(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0,
        "ARCH_REQ_XCOMP_PERM(XTILEDATA) succeeds", 0);

    memset(out, 0, sizeof(out));
    st = run_amx(out);
    tap(st == -1, "with permission: all AMX instructions run (faulting stage)",
        st);
    tap(st == -1 && check_result(out), "with permission: TDPBSSD result "
        "correct", out[0]);
    return tap_fail ? 1 : 0;
}
