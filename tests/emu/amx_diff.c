// SPDX-License-Identifier: MIT
/*
 * amx_diff - differential test of AMX execution against a software model.
 *
 * Runs seeded random sequences of AMX operations (LDTILECFG/STTILECFG,
 * TILELOADD(T1)/TILESTORED with odd strides, TILEZERO, TILERELEASE, all
 * TDPB*D variants, TDPBF16PS, and TDPFP16PS, TCMMIMFP16PS and TCMMRLFP16PS
 * where CPUID has AMX-FP16 and AMX-COMPLEX, XSAVE/XSAVEC/XRSTOR of the
 * tile state and a signal round trip through the kernel) and compares
 * every architectural
 * result byte for byte with an independent C model of the SDM semantics
 * in this file.  The model follows the rules recorded on AMX silicon
 * (tests/emu/silicon_vectors.c holds the recorded cases): #UD for
 * TILEZERO of an unconfigured tile and for TILELOADD/TILESTORED with colsb
 * not a multiple of 4 (so the random sequences never issue those), and
 * TDPBF16PS rounding each step once, with FTZ decided after rounding.  On
 * AMX silicon it checks the silicon against the model; under an emulator
 * it checks the emulator.
 *
 * Expected faults are provoked in forked children (Linux resets the AMX
 * state to init when it delivers a signal, so a check that jumped out of
 * a handler would test "no configuration" whatever it meant to test);
 * any other signal bails out, and an alarm bounds the run.
 *
 * Build: gcc -O2 -static -o amx_diff amx_diff.c   (no -mamx flags needed)
 * Usage: amx_diff [seed [epochs]] | amx_diff bench
 * Output: TAP.  Exit 0 pass, 1 fail, 4 skip (no AMX).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "../amx_test.h"
#include "emu.h"
#include "../amx_model.h"

#define XTILE_MASK ((1ULL << 17) | (1ULL << 18))

/* ---- PRNG: the tests' one generator (amx_test.h), seeded ----------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return amx_test_rand(&rng_state);
}

static unsigned rndn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* ---- Model state: the tests' one C model (tests/amx_model.h) ---- */

static struct tmodel model;

/* ---- Hardware access: one asm stub per tile register --------------------- */

#define TMM_CASES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

static void hw_ldtilecfg(const void *p)
{
	asm volatile("ldtilecfg (%0)" ::"r"(p) : "memory");
}

static void hw_sttilecfg(void *p)
{
	asm volatile("sttilecfg (%0)" ::"r"(p) : "memory");
}

static void hw_tilerelease(void)
{
	asm volatile("tilerelease" ::: "memory");
}

static void hw_tileloadd(int t, const void *base, long stride, int t1)
{
#define L(n)							\
	case n:								\
		if (t1)							\
			asm volatile("tileloaddt1 (%0,%1,1), %%tmm" #n	\
				     :: "r"(base), "r"(stride) : "memory"); \
		else							\
			asm volatile("tileloadd (%0,%1,1), %%tmm" #n	\
				     :: "r"(base), "r"(stride) : "memory"); \
		break;
	switch (t) {
		TMM_CASES(L)
	}
#undef L
}

static void hw_tilestored(int t, void *base, long stride)
{
#define S(n)							\
	case n:								\
		asm volatile("tilestored %%tmm" #n ", (%0,%1,1)"	\
			     :: "r"(base), "r"(stride) : "memory");	\
		break;
	switch (t) {
		TMM_CASES(S)
	}
#undef S
}

static void hw_tilezero(int t)
{
#define Z(n) \
	case n: asm volatile("tilezero %%tmm" #n ::: "memory"); break;
	switch (t) {
		TMM_CASES(Z)
	}
#undef Z
}

/* TDP triples (dst, src1, src2) that have an asm stub.  */
static const int triples[][3] = {
	{ 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 0 }, { 1, 2, 3 },
	{ 5, 6, 7 }, { 2, 0, 1 }, { 4, 3, 6 }, { 7, 5, 4 },
};
#define NTRIPLES (int)(sizeof(triples) / sizeof(triples[0]))

enum {
	OP_SSD = TMODEL_SSD,
	OP_SUD = TMODEL_SUD,
	OP_USD = TMODEL_USD,
	OP_UUD = TMODEL_UUD,
	OP_BF16 = TMODEL_BF16,
	OP_FP16 = TMODEL_FP16,
	OP_CMMIM = TMODEL_CMMIM,
	OP_CMMRL = TMODEL_CMMRL,
	NOPS = TMODEL_NOPS
};
static const char *const opname[NOPS] = { "tdpbssd", "tdpbsud", "tdpbusd",
					  "tdpbuud", "tdpbf16ps", "tdpfp16ps",
					  "tcmmimfp16ps", "tcmmrlfp16ps" };

/* CPUID.(7,1):EAX[21] AMX-FP16 and EDX[8] AMX-COMPLEX (main()) */
static int has_fp16, has_complex;

#define TDP1(op, d, a, b) \
	asm volatile(op " %%tmm" #b ", %%tmm" #a ", %%tmm" #d ::: "memory")
#define TDPALL(d, a, b)                               \
	switch (op) {                                 \
	case OP_SSD: TDP1("tdpbssd", d, a, b); break; \
	case OP_SUD: TDP1("tdpbsud", d, a, b); break; \
	case OP_USD: TDP1("tdpbusd", d, a, b); break; \
	case OP_UUD: TDP1("tdpbuud", d, a, b); break; \
	case OP_FP16: amx_tdpfp16ps(d, a, b); break;  \
	case OP_CMMIM: amx_tcmmimfp16ps(d, a, b); break; \
	case OP_CMMRL: amx_tcmmrlfp16ps(d, a, b); break; \
	default: TDP1("tdpbf16ps", d, a, b); break;   \
	}

static void hw_tdp(int op, int tr)
{
	switch (tr) {
	case 0: TDPALL(0, 1, 2); break;
	case 1: TDPALL(3, 4, 5); break;
	case 2: TDPALL(6, 7, 0); break;
	case 3: TDPALL(1, 2, 3); break;
	case 4: TDPALL(5, 6, 7); break;
	case 5: TDPALL(2, 0, 1); break;
	case 6: TDPALL(4, 3, 6); break;
	case 7: TDPALL(7, 5, 4); break;
	}
}

/* ---- XSAVE helpers ------------------------------------------------------- */

static uint32_t xsave_size, tiledata_off, tilecfg_off;
static uint8_t *xbuf; /* 64-byte aligned XSAVE area */

static void hw_xsave(void *p, uint64_t rfbm)
{
	asm volatile("xsave (%0)" ::"r"(p), "a"((uint32_t)rfbm),
		     "d"((uint32_t)(rfbm >> 32))
		     : "memory");
}

static void hw_xsavec(void *p, uint64_t rfbm)
{
	asm volatile("xsavec (%0)" ::"r"(p), "a"((uint32_t)rfbm),
		     "d"((uint32_t)(rfbm >> 32))
		     : "memory");
}

static void hw_xrstor(const void *p, uint64_t rfbm)
{
	asm volatile("xrstor (%0)" ::"r"(p), "a"((uint32_t)rfbm),
		     "d"((uint32_t)(rfbm >> 32))
		     : "memory");
}

static uint64_t xgetbv1(void)
{
	uint32_t a, d;

	asm volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1));
	return ((uint64_t)d << 32) | a;
}

/* ---- The model ----------------------------------------------------------- */

/* ---- Random data --------------------------------------------------------- */

/* BF16 values that keep sums finite; some zeros, denormals and tiny ones. */
static uint16_t rnd_bf16(void)
{
	unsigned sel = rndn(64);
	uint16_t sign = (rnd() & 1) << 15;
	uint16_t mant = rnd() & 0x7f;

	if (sel == 0) {
		return sign; /* +-0 */
	}
	if (sel == 1) {
		return sign | (mant ? mant : 1); /* denormal: DAZ */
	}
	if (sel == 2) {
		return sign | (uint16_t)((1 + rndn(40)) << 7) | mant; /* tiny */
	}
	return sign | (uint16_t)((127 - 10 + rndn(21)) << 7) | mant;
}

static void fill_random(uint8_t *p, size_t n, int bf)
{
	size_t i;

	if (bf) {
		for (i = 0; i + 1 < n; i += 2) {
			uint16_t v = rnd_bf16();
			p[i] = v & 0xff;
			p[i + 1] = v >> 8;
		}
		for (; i < n; i++) {
			p[i] = rnd();
		}
	} else {
		for (i = 0; i < n; i++) {
			p[i] = rnd();
		}
	}
}

/* ---- Comparison ---------------------------------------------------------- */

static char why[256];

/* Compare the whole tile state (cfg via STTILECFG, data via XSAVE).  */
static int check_state(void)
{
	struct tmodel_cfg hc;
	uint8_t want[64];
	uint64_t bv;
	int t, r, c;

	memset(&hc, 0xa5, sizeof(hc));
	hw_sttilecfg(&hc);
	memset(want, 0, 64);
	if (model.cfg.palette) {
		memcpy(want, &model.cfg, 64);
	}
	if (memcmp(&hc, want, 64)) {
		snprintf(why, sizeof(why), "STTILECFG differs");
		return 0;
	}

	memset(xbuf, 0, xsave_size);
	hw_xsave(xbuf, XTILE_MASK);
	memcpy(&bv, xbuf + 512, 8);
	for (t = 0; t < 8; t++) {
		for (r = 0; r < 16; r++) {
			for (c = 0; c < 64; c++) {
				uint8_t h =
					(bv & (1ULL << 18)) ?
						xbuf[tiledata_off + t * 1024 +
						     r * 64 + c] :
						0;
				if (h != model.t[t][r][c]) {
					uint32_t hd = 0, md;
					int c4 = c & ~3;

					if (bv & (1ULL << 18)) {
						memcpy(&hd,
						       xbuf + tiledata_off +
							       t * 1024 +
							       r * 64 + c4,
						       4);
					}
					memcpy(&md, &model.t[t][r][c4], 4);
					snprintf(why, sizeof(why),
						 "tmm%d row %d byte %d: hw "
						 "%02x model %02x, "
						 "dword hw %08x (%g) model "
						 "%08x (%g) "
						 "(xstate_bv %llx)",
						 t, r, c, h, model.t[t][r][c],
						 hd, tmodel_f32(hd), md,
						 tmodel_f32(md),
						 (unsigned long long)bv);
					return 0;
				}
			}
		}
	}
	if (!!(bv & (1ULL << 17)) != !!model.cfg.palette) {
		snprintf(why, sizeof(why), "XSTATE_BV[17]=%d but palette %d",
			 !!(bv & (1ULL << 17)), model.cfg.palette);
		return 0;
	}
	if (model.cfg.palette && memcmp(xbuf + tilecfg_off, &model.cfg, 64)) {
		snprintf(why, sizeof(why), "XSAVE'd TILECFG differs");
		return 0;
	}
	return 1;
}

/* ---- Signal round trip --------------------------------------------------- */

static volatile int sig_poke;
static volatile int sig_poked;

static void on_usr1(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint8_t *xs = (uint8_t *)uc->uc_mcontext.fpregs;
	uint64_t bv;

	(void)sig;
	(void)si;
	sig_poked = 0;
	if (!sig_poke || !xs) {
		return;
	}
	memcpy(&bv, xs + 512, 8);
	if (bv & (1ULL << 18)) {
		/* Flip byte 5 of tmm1 row 2: the kernel must XRSTOR it back.  */
		xs[tiledata_off + 1 * 1024 + 2 * 64 + 5] ^= 0x5a;
		sig_poked = 1;
	}
}

/* ---- Random epoch -------------------------------------------------------- */

static uint8_t *mem; /* source/destination arena */
#define MEM_SIZE (64 * 1024)

static void random_cfg(struct tmodel_cfg *c, int *main_tr, int *main_bf)
{
	int t, tr = rndn(NTRIPLES), d, a, b, M, N, K;

	memset(c, 0, sizeof(*c));
	c->palette = 1;
	for (t = 0; t < 8; t++) {
		unsigned kind = rndn(8);

		if (kind == 0) {
			continue; /* unconfigured */
		}
		c->rows[t] = 1 + rndn(16);
		c->colsb[t] = kind == 1 ? 1 + rndn(64) : 4 * (1 + rndn(16));
	}
	d = triples[tr][0];
	a = triples[tr][1];
	b = triples[tr][2];
	M = 1 + rndn(16);
	N = 1 + rndn(16);
	K = 1 + rndn(16);
	if (rndn(4) == 0) {
		M = N = K = 16; /* full tiles */
	}
	c->rows[d] = M;
	c->colsb[d] = 4 * N;
	c->rows[a] = M;
	c->colsb[a] = 4 * K;
	c->rows[b] = K;
	c->colsb[b] = 4 * N;
	*main_tr = tr;
	*main_bf = rndn(3) == 0;
}

/*
 * The floating-point dot product of a BF16 epoch: TDPBF16PS, or, where
 * CPUID has them, one of the FP16 ones too (the BF16 data read as FP16 is
 * finite as well).  Without AMX-FP16 no random number is drawn, so such
 * a CPU runs the same sequence as before they existed.
 */
static int float_op(void)
{
	if (!has_fp16)
		return OP_BF16;
	return OP_BF16 + (int)rndn(has_complex ? 4 : 2);
}

static int run_epoch(int ep, int nops, char *desc, size_t dlen)
{
	struct tmodel_cfg c;
	int tr, bf, i, t;
	int counts[16] = { 0 };
	char fp[48] = "";

	random_cfg(&c, &tr, &bf);
	hw_ldtilecfg(&c);
	tmodel_ldtilecfg(&model, &c);
	if (!check_state()) {
		snprintf(desc, dlen, "epoch %d: after LDTILECFG: %s", ep, why);
		return 0;
	}

	for (i = 0; i < nops; i++) {
		unsigned k = rndn(100);
		const char *what;

		if (k < 35) {
			/* TILELOADD(T1) with an odd or padded stride.  */
			long stride;
			size_t off;

			do {
				t = rndn(8);
			} while (!tmodel_ldst_ok(&model, t));
			stride = model.cfg.colsb[t] + rndn(80);
			if (rndn(4) == 0) {
				stride |= 1;
			}
			off = rndn(MEM_SIZE - 16 * stride - 64);
			if (bf) {
				/* Keep BF16 elements aligned so that inputs stay finite. */
				stride &= ~1L;
				off &= ~(size_t)1;
				stride = stride < model.cfg.colsb[t] ?
						 model.cfg.colsb[t] + 1 :
						 stride;
				stride &= ~1L;
			}
			fill_random(mem + off, 16 * stride, bf);
			hw_tileloadd(t, mem + off, stride, rndn(2));
			tmodel_loadd(&model, t, mem + off, stride);
			what = "tileloadd";
			counts[0]++;
		} else if (k < 45) {
			/* TILESTORED: compare the whole window, gaps included.  */
			static uint8_t shadow[MEM_SIZE];
			long stride;
			size_t off, len;

			do {
				t = rndn(8);
			} while (!tmodel_ldst_ok(&model, t));
			stride = model.cfg.colsb[t] + rndn(40);
			if (rndn(3) == 0) {
				stride |= 1;
			}
			len = 16 * stride + 64;
			off = rndn(MEM_SIZE - len);
			fill_random(mem + off, len, 0);
			memcpy(shadow, mem + off, len);
			hw_tilestored(t, mem + off, stride);
			tmodel_stored(&model, t, shadow, stride);
			if (memcmp(shadow, mem + off, len)) {
				snprintf(desc, dlen,
					 "epoch %d op %d: tilestored tmm%d "
					 "stride %ld: memory differs",
					 ep, i, t, stride);
				return 0;
			}
			what = "tilestored";
			counts[1]++;
		} else if (k < 75) {
			int op = bf ? float_op() : (int)rndn(4);
			int trx = tr;

			/*
             * Occasionally try another triple that happens to fit.  Not in
             * BF16 epochs: a previous FP32 result used as a BF16 source
             * yields NaN/Inf inputs, whose propagation is not modelled.
             */
			if (!bf && rndn(4) == 0) {
				int cand = rndn(NTRIPLES);
				if (tmodel_tdp_ok(&model, triples[cand][0],
						  triples[cand][1],
						  triples[cand][2])) {
					trx = cand;
				}
			}
			/* BF16 epochs keep all data finite BF16/FP32: no int ops.  */
			if (!tmodel_tdp_ok(&model, triples[trx][0],
					   triples[trx][1], triples[trx][2])) {
				continue;
			}
			hw_tdp(op, trx);
			tmodel_tdp(&model, op, triples[trx][0], triples[trx][1],
				   triples[trx][2]);
			what = opname[op];
			counts[op > OP_BF16 ? 13 + op - OP_FP16 : 2 + op]++;
		} else if (k < 80) {
			/* TILEZERO of an unconfigured tile is #UD on silicon.  */
			do {
				t = rndn(8);
			} while (!tmodel_tile_ok(&model, t));
			hw_tilezero(t);
			memset(model.t[t], 0, sizeof(model.t[t]));
			model.cfg.start_row = 0;
			what = "tilezero";
			counts[8]++;
		} else if (k < 88) {
			/* XRSTOR random tile data, then XSAVEC and check the layout. */
			uint64_t bv, xcomp;

			memset(xbuf, 0, xsave_size);
			bv = 1ULL << 18;
			memcpy(xbuf + 512, &bv, 8);
			fill_random(xbuf + tiledata_off, 8192, bf);
			hw_xrstor(xbuf, 1ULL << 18);
			memcpy(model.t, xbuf + tiledata_off, 8192);
			what = "xrstor";
			counts[9]++;
			if (!check_state()) {
				snprintf(desc, dlen,
					 "epoch %d op %d (xrstor): %s", ep, i,
					 why);
				return 0;
			}
			memset(xbuf, 0xcc, xsave_size);
			hw_xsavec(xbuf, XTILE_MASK | 3);
			memcpy(&bv, xbuf + 512, 8);
			memcpy(&xcomp, xbuf + 520, 8);
			if (xcomp != (0x8000000000000000ULL | XTILE_MASK | 3) ||
			    (bv & XTILE_MASK) != XTILE_MASK ||
			    memcmp(xbuf + 576, &model.cfg, 64) ||
			    memcmp(xbuf + 640, model.t, 8192)) {
				snprintf(
					desc, dlen,
					"epoch %d op %d: XSAVEC layout/content "
					"wrong (xstate_bv %llx xcomp_bv %llx)",
					ep, i, (unsigned long long)bv,
					(unsigned long long)xcomp);
				return 0;
			}
			what = "xsavec";
		} else if (k < 94) {
			/* Signal round trip; sometimes edit tile data in the frame.  */
			sig_poke = rndn(2);
			raise(SIGUSR1);
			if (sig_poked) {
				model.t[1][2][5] ^= 0x5a;
			}
			what = "signal";
			counts[10]++;
		} else if (k < 97) {
			/* XGETBV(1): tile config must be in use now.  */
			uint64_t inuse = xgetbv1();
			if (!(inuse & (1ULL << 17))) {
				snprintf(
					desc, dlen,
					"epoch %d op %d: XINUSE[17] clear with "
					"tiles configured (%llx)",
					ep, i, (unsigned long long)inuse);
				return 0;
			}
			what = "xgetbv1";
			counts[11]++;
		} else {
			/* Reload a fresh config mid-epoch (zeroes all tiles).  */
			random_cfg(&c, &tr, &bf);
			hw_ldtilecfg(&c);
			tmodel_ldtilecfg(&model, &c);
			what = "ldtilecfg";
			counts[12]++;
		}
		if (!check_state()) {
			snprintf(desc, dlen, "epoch %d op %d (%s): %s", ep, i,
				 what, why);
			return 0;
		}
	}
	if (has_complex)
		snprintf(fp, sizeof(fp), " fp16 %d cmmim %d cmmrl %d",
			 counts[13], counts[14], counts[15]);
	else if (has_fp16)
		snprintf(fp, sizeof(fp), " fp16 %d", counts[13]);
	snprintf(desc, dlen,
		 "epoch %d: %d ops (ld %d st %d ssd %d sud %d usd %d "
		 "uud %d bf16 %d zero %d xrstor %d sig %d%s)",
		 ep, nops, counts[0], counts[1], counts[2], counts[3],
		 counts[4], counts[5], counts[6], counts[8], counts[9],
		 counts[10], fp);
	return 1;
}

/* ---- Exceptions and restart ---------------------------------------------- */

static volatile int fault_sig;
static volatile int fault_fix; /* SIGSEGV: fix the page and resume */
static volatile int fault_start_row = -1;
static uint8_t *fault_page;
static uint8_t *fault_row0;

/*
 * The only fault the parent expects is the SIGSEGV of the restart check,
 * which the handler repairs and returns from (sigreturn restores the tile
 * state).  Anything else is a failure: report it and stop, rather than
 * jumping anywhere.
 */
static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint8_t *xs = (uint8_t *)uc->uc_mcontext.fpregs;
	uint64_t bv = 0;

	(void)si;
	if (sig != SIGSEGV || !fault_fix) {
		tap_bail_out(sig == SIGILL  ? "unexpected SIGILL" :
			     sig == SIGSEGV ? "unexpected SIGSEGV" :
					      "unexpected signal");
	}
	fault_sig = sig;
	fault_fix = 0;
	if (xs) {
		memcpy(&bv, xs + 512, 8);
	}
	fault_start_row = (bv & (1ULL << 17)) ? xs[tilecfg_off + 1] : -2;
	/* Rows already loaded must not be read again on restart.  */
	memset(fault_row0, 0xee, 64);
	mprotect(fault_page, 4096, PROT_READ | PROT_WRITE);
}

static int fault_of_resumable(uint8_t *region)
{
	fault_sig = 0;
	hw_tileloadd(3, region + 100, 4096, 0);
	return fault_sig;
}

/*
 * Run fn() in a child: it configures the tiles and executes the
 * instruction under test, with the default action for SIGILL and
 * SIGSEGV.  Returns 0 if fn() returned, else the signal that ended the
 * child (its si_code through a shared page, as *code).
 */
static volatile int *child_code;

static void on_child_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	child_code[0] = sig;
	child_code[1] = si->si_code;
	_exit(100);
}

static int in_child(void (*fn)(void), int *code)
{
	struct sigaction sa;
	int status;
	pid_t pid;

	child_code[0] = child_code[1] = 0;
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_child_fault;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGILL, &sa, NULL);
		sigaction(SIGSEGV, &sa, NULL);
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		tap_bail_out("fork/waitpid failed");
	}
	*code = child_code[1];
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 100) {
		return child_code[0];
	}
	return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

static struct tmodel_cfg fcfg, good;
static int ftile;

static void do_ldtilecfg(void)
{
	hw_ldtilecfg(&fcfg);
}
static void do_tileloadd(void)
{
	static uint8_t b[16 * 64];

	hw_ldtilecfg(&fcfg);
	hw_tileloadd(ftile, b, 64, 0);
}
static void do_tilezero(void)
{
	hw_ldtilecfg(&fcfg);
	hw_tilezero(ftile);
}
/* tmm0 += tmm1 * tmm2 under fcfg, in one process: the config is live. */
static void do_tdp(void)
{
	struct tmodel_cfg out;

	hw_ldtilecfg(&fcfg);
	hw_sttilecfg(&out);
	if (memcmp(&out, &fcfg, sizeof(out))) {
		_exit(3); /* configuration not loaded */
	}
	hw_tdp(OP_SSD, 0);
}

static void exception_checks(void)
{
	uint8_t *region;
	int sig, ok, code;

	memset(&good, 0, sizeof(good));
	good.palette = 1;
	good.rows[0] = 4;
	good.colsb[0] = 16;
	good.rows[1] = 4;
	good.colsb[1] = 8;
	good.rows[2] = 2;
	good.colsb[2] = 16; /* K = 2 rows: shapes match */

	fcfg = good;
	fcfg.palette = 2;
	tap_ok(in_child(do_ldtilecfg, &code) == SIGSEGV,
	       "LDTILECFG palette 2: #GP");
	fcfg = good;
	fcfg.rows[3] = 17;
	fcfg.colsb[3] = 4;
	tap_ok(in_child(do_ldtilecfg, &code) == SIGSEGV,
	       "LDTILECFG 17 rows: #GP");
	fcfg = good;
	fcfg.colsb[3] = 65;
	fcfg.rows[3] = 1;
	tap_ok(in_child(do_ldtilecfg, &code) == SIGSEGV,
	       "LDTILECFG colsb 65: #GP");
	fcfg = good;
	fcfg.colsb[3] = 4;
	tap_ok(in_child(do_ldtilecfg, &code) == SIGSEGV,
	       "LDTILECFG colsb without rows: #GP");
	fcfg = good;
	fcfg.rsvd[3] = 1;
	tap_ok(in_child(do_ldtilecfg, &code) == SIGSEGV,
	       "LDTILECFG reserved byte: #GP");
	fcfg = good;
	fcfg.rows[8] = 1;
	tap_ok(in_child(do_ldtilecfg, &code) == SIGSEGV,
	       "LDTILECFG rows for tile 8: #GP");
	fcfg = good;
	tap_ok(in_child(do_ldtilecfg, &code) == 0,
	       "LDTILECFG of a valid config");

	memset(&fcfg, 0, sizeof(fcfg));
	ftile = 0;
	sig = in_child(do_tileloadd, &code);
	tap_ok(sig == SIGILL && code == ILL_ILLOPN,
	       "TILELOADD with no tiles configured: #UD "
	       "(signal %d code %d)",
	       sig, code);
	fcfg = good;
	ftile = 5;
	sig = in_child(do_tileloadd, &code);
	tap_ok(sig == SIGILL && code == ILL_ILLOPN,
	       "TILELOADD to an unconfigured tile: #UD "
	       "(signal %d code %d)",
	       sig, code);
	sig = in_child(do_tilezero, &code);
	tap_ok(sig == SIGILL && code == ILL_ILLOPN,
	       "TILEZERO of an unconfigured tile: #UD "
	       "(signal %d code %d)",
	       sig, code);
	fcfg = good;
	fcfg.colsb[5] = 6;
	fcfg.rows[5] = 2;
	sig = in_child(do_tileloadd, &code);
	tap_ok(sig == SIGILL && code == ILL_ILLOPN,
	       "TILELOADD with colsb 6: #UD "
	       "(signal %d code %d)",
	       sig, code);
	sig = in_child(do_tilezero, &code);
	tap_ok(sig == 0, "TILEZERO with colsb 6 works (signal %d)", sig);

	/* TDP shape check: the same child configures and runs the TDP.  */
	fcfg = good;
	sig = in_child(do_tdp, &code);
	tap_ok(sig == 0, "TDPBSSD with matching shapes runs (signal %d)", sig);
	fcfg = good;
	fcfg.rows[2] = 3; /* K = 2 != 3 rows of tmm2 */
	sig = in_child(do_tdp, &code);
	tap_ok(sig == SIGILL && code == ILL_ILLOPN,
	       "TDPBSSD with mismatched shapes: #UD "
	       "(signal %d code %d)",
	       sig, code);

	/*
     * Restart: row 5 of a TILELOADD is on a PROT_NONE page.  The SIGSEGV
     * frame must show start_row 5; after the handler fixes the page (and
     * scribbles over row 0 in memory), the load resumes at row 5.
     */
	region = mmap(NULL, 17 * 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		tap_ok(0, "mmap");
		return;
	}
	fill_random(region, 17 * 4096, 0);
	memset(&fcfg, 0, sizeof(fcfg));
	fcfg.palette = 1;
	fcfg.rows[3] = 16;
	fcfg.colsb[3] = 64;
	hw_ldtilecfg(&fcfg);
	tmodel_ldtilecfg(&model, &fcfg);
	tmodel_loadd(&model, 3, region + 100, 4096);
	fault_page = region + 5 * 4096;
	fault_row0 = region + 100;
	mprotect(fault_page, 4096, PROT_NONE);
	fault_fix = 1;
	fault_start_row = -1;
	sig = fault_of_resumable(region);
	ok = check_state();
	tap_ok(sig == SIGSEGV && fault_start_row == 5,
	       "TILELOADD faulting on row 5 "
	       "reports start_row %d in the signal frame",
	       fault_start_row);
	tap_ok(ok, "TILELOADD resumed at start_row, earlier rows kept%s%s",
	       ok ? "" : ": ", ok ? "" : why);
	munmap(region, 17 * 4096);
	hw_tilerelease();
	memset(&model.cfg, 0, sizeof(model.cfg));
	memset(model.t, 0, sizeof(model.t));
}

/* ---- Fixed checks -------------------------------------------------------- */

static void fixed_checks(void)
{
	struct tmodel_cfg c, out;
	uint64_t inuse;
	int ok;

	/* TILERELEASE / palette 0: init state, STTILECFG stores zeros.  */
	hw_tilerelease();
	memset(&model.cfg, 0, sizeof(model.cfg));
	memset(model.t, 0, sizeof(model.t));
	memset(&out, 0xff, sizeof(out));
	hw_sttilecfg(&out);
	ok = 1;
	for (size_t i = 0; i < sizeof(out); i++) {
		ok &= ((uint8_t *)&out)[i] == 0;
	}
	tap_ok(ok, "STTILECFG after TILERELEASE stores 64 zero bytes");
	inuse = xgetbv1();
	tap_ok(!(inuse & XTILE_MASK),
	       "XGETBV(1) reports AMX state init after "
	       "TILERELEASE (%llx)",
	       (unsigned long long)inuse);

	/* Known-answer TDPBSSD and TDPBF16PS.  */
	memset(&c, 0, sizeof(c));
	c.palette = 1;
	c.rows[0] = 2;
	c.colsb[0] = 8; /* C: 2x2 dwords */
	c.rows[1] = 2;
	c.colsb[1] = 8; /* A: 2x2 dwords (K=2) */
	c.rows[2] = 2;
	c.colsb[2] = 8; /* B: 2x2 dwords */
	hw_ldtilecfg(&c);
	tmodel_ldtilecfg(&model, &c);
	{
		int8_t a[2][8] = { { 1, 2, 3, 4, -1, -2, -3, -4 },
				   { 127, -128, 0, 1, 5, 6, 7, 8 } };
		int8_t b[2][8] = { { 1, 1, 1, 1, 2, 2, 2, 2 },
				   { -1, 0, 1, -128, 3, 0, 0, 1 } };
		int32_t cres[2][2];

		memset(cres, 0x55, sizeof(cres)); /* rows not stored show */
		hw_tileloadd(1, a, 8, 0);
		hw_tileloadd(2, b, 8, 0);
		hw_tdp(OP_SSD, 0);
		hw_tilestored(0, cres, 8);
		/* row0: k0: (1+2+3+4)*1=10, (1+2+3+4)*2=20; k1: -1*-1+0+-3*1+-4*-128
         * = 1-3+512 = 510, -1*3+0+0+-4*1 = -7  -> 520, 13
         * row1: k0: 127-128+0+1 = 0, (127-128+0+1)*2 = 0; k1: -5+0+7-1024
         * = -1022, 15+0+0+8 = 23  -> -1022, 23 */
		tap_ok(cres[0][0] == 520 && cres[0][1] == 13 &&
			       cres[1][0] == -1022 && cres[1][1] == 23,
		       "TDPBSSD known answer (%d %d / %d %d)", cres[0][0],
		       cres[0][1], cres[1][0], cres[1][1]);
	}
	{
		/* bf16 1.0 = 0x3f80, 2.0 = 0x4000, 0.5 = 0x3f00 */
		uint16_t a[2][4] = { { 0x3f80, 0x4000, 0x3f00, 0x3f80 },
				     { 0x4000, 0x3f00, 0x3f80, 0x4000 } };
		uint16_t b[2][4] = { { 0x4000, 0x3f80, 0x3f80, 0x3f00 },
				     { 0x3f80, 0x3f80, 0x4000, 0x4000 } };
		float cres[2][2];

		memset(cres, 0x55, sizeof(cres));
		hw_tilezero(0);
		hw_tileloadd(1, a, 8, 0);
		hw_tileloadd(2, b, 8, 0);
		hw_tdp(OP_BF16, 0);
		hw_tilestored(0, cres, 8);
		/* C[0][0] = 1*2 + 2*1 + 0.5*1 + 1*1 = 5.5; C[0][1] = 1*1 + 2*0.5
         * + 0.5*2 + 1*2 = 5; C[1][0] = 2*2 + 0.5*1 + 1*1 + 2*1 = 7.5;
         * C[1][1] = 2*1 + 0.5*0.5 + 1*2 + 2*2 = 8.25 (all exact) */
		tap_ok(cres[0][0] == 5.5f && cres[0][1] == 5.0f &&
			       cres[1][0] == 7.5f && cres[1][1] == 8.25f,
		       "TDPBF16PS known answer (%g %g / %g %g)", cres[0][0],
		       cres[0][1], cres[1][0], cres[1][1]);
	}
	inuse = xgetbv1();
	tap_ok((inuse & XTILE_MASK) == XTILE_MASK,
	       "XGETBV(1) reports AMX state in use (%llx)",
	       (unsigned long long)inuse);
	hw_tilerelease();
	memset(&model.cfg, 0, sizeof(model.cfg));
	memset(model.t, 0, sizeof(model.t));
}

#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * "amx_diff bench": time full-size (16x64) tile operations.  Each figure
 * is the fastest of 9 rounds of 300, so that a busy host (an emulator
 * shares it with everything else) disturbs it less.
 */
static double bench_op(int what)
{
	static uint8_t buf[16 * 64];
	double best = 1e9, t0, t;
	int round, i, n = 300;

	fill_random(buf, sizeof(buf), 1);
	for (round = 0; round < 9; round++) {
		t0 = now();
		for (i = 0; i < n; i++) {
			if (what == 0) {
				hw_tileloadd(1, buf, 64, 0);
			} else {
				hw_tdp(what == 1 ? OP_SSD :
				       what == 2 ? OP_BF16 : OP_FP16, 1);
			}
		}
		t = (now() - t0) / n;
		best = t < best ? t : best;
	}
	return best * 1e9;
}

static int bench(void)
{
	static uint8_t buf[16 * 64];
	struct tmodel_cfg c;
	int t;

	emu_cfg_all(&c, 16, 64);
	hw_ldtilecfg(&c);
	fill_random(buf, sizeof(buf), 1);
	for (t = 0; t < 8; t++) {
		hw_tileloadd(t, buf, 64, 0);
	}
	printf("# bench tileloadd 16x64: %.0f ns/op\n", bench_op(0));
	printf("# bench tdpbssd 16x16x64: %.0f ns/op\n", bench_op(1));
	/* tmm3 += tmm4 . tmm5 with finite BF16 data: stays finite.  */
	printf("# bench tdpbf16ps 16x16x32: %.0f ns/op\n", bench_op(2));
	if (has_fp16)
		printf("# bench tdpfp16ps 16x16x32: %.0f ns/op\n", bench_op(3));
	hw_tilerelease();
	return 0;
}

int main(int argc, char **argv)
{
	unsigned a, b, c, d;
	unsigned long supp = 0;
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20261203;
	int epochs = argc > 2 ? atoi(argv[2]) : 150;
	int nops = 20, ep;
	struct sigaction sa;

	setvbuf(stdout, NULL, _IOLBF, 0);
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1u << 24)) || !(d & (1u << 25)) || !(d & (1u << 22))) {
		tap_skip_all("AMX-TILE/INT8/BF16 not enumerated by CPUID");
	}
	if (a >= 1) {
		__cpuid_count(7, 1, a, b, c, d);
		has_fp16 = !!(a & (1u << 21));
		has_complex = has_fp16 && (d & (1u << 8));
	}
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supp) ||
	    !(supp & (1UL << XFEATURE_XTILEDATA))) {
		tap_skip_all("the kernel does not support AMX state");
	}
	if (argc > 1 && !strcmp(argv[1], "bench")) {
		if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM,
			    XFEATURE_XTILEDATA)) {
			return 1;
		}
		return bench();
	}
	tap_plan(24 + epochs);
	printf("# seed %llu, %d epochs x %d ops; AMX-FP16 %s, AMX-COMPLEX %s\n",
	       (unsigned long long)seed, epochs, nops, has_fp16 ? "yes" : "no",
	       has_complex ? "yes" : "no");
	tap_ok(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM,
		       XFEATURE_XTILEDATA) == 0,
	       "ARCH_REQ_XCOMP_PERM(XTILEDATA)");

	__cpuid_count(0xd, 0, a, b, c, d);
	xsave_size = b;
	__cpuid_count(0xd, 17, a, b, c, d);
	tilecfg_off = b;
	tap_ok(a == 64 && b == 2752, "CPUID.(0xD,17): size %u offset %u", a, b);
	__cpuid_count(0xd, 18, a, b, c, d);
	tiledata_off = b;
	tap_ok(a == 8192 && b == 2816 && (c & 2),
	       "CPUID.(0xD,18): size %u offset "
	       "%u ecx %#x",
	       a, b, c);
	if (posix_memalign((void **)&xbuf, 64, xsave_size + 4096) ||
	    !(mem = malloc(MEM_SIZE))) {
		tap_bail_out("out of memory");
	}
	child_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_code == MAP_FAILED) {
		tap_bail_out("mmap failed");
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);

	sa.sa_sigaction = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);

	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	fixed_checks();
	exception_checks();

	for (ep = 0; ep < epochs; ep++) {
		char desc[512];
		int ok = run_epoch(ep, nops, desc, sizeof(desc));

		tap_ok(ok, "%s", desc);
		hw_tilerelease();
		memset(&model.cfg, 0, sizeof(model.cfg));
		memset(model.t, 0, sizeof(model.t));
	}
	tap_done();
}
