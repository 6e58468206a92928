/* SPDX-License-Identifier: MIT */
/*
 * AMX as recorded on silicon (an AMX Xeon, Linux 6.18): the dot products on
 * special values (NaN selection, infinities, signed zeros, DAZ/FTZ, the
 * FTZ-after-rounding boundary, rounding ties, MXCSR independence, int8
 * wrap-around), which colsb values TILELOADD/TILESTORED/TILEZERO accept,
 * the #UD rules of unconfigured tiles, the order of #UD and XFD's #NM, the
 * validity rules of LDTILECFG and XRSTOR, the TDP shape checks, start_row,
 * partial tiles and TILERELEASE.  The inputs and the outputs silicon gave
 * are data in this file; the program runs each case and compares.
 *
 * On an AMX host it checks the processor (and so every assumption built
 * on these facts); in the QEMU guest it checks the emulator.  Without AMX
 * it skips (exit 4).
 *
 * Faulting instructions are probed in place: the handler records the
 * signal and resumes after the instruction, and the kernel's sigreturn
 * restores the tile state (a siglongjmp would leave it in its init state).
 * A signal outside a probe bails out.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "../tap.h"
#include "emu.h"

#define XTILE_BITS		0x60000ull

struct bf16_vec {
	const char *name;
	uint32_t c;
	int k;
	uint16_t a[4], b[4];
	uint32_t out;
};

struct mxcsr_vec {
	uint32_t mxcsr;
	int vec;		/* index into bf16_vecs */
	uint32_t out, after;
};

enum { SSD, SUD, USD, UUD };

struct int8_vec {
	const char *name;
	int op;
	uint32_t c;
	int k;
	uint8_t a, b;		/* every byte, unless mixed */
	int mixed;		/* A bytes 7f,80,ff,01 repeated; B 80,7f,ff,01 */
	uint32_t out;
};

struct colsb_vec {
	int rows, colsb;
	int ld_ud, st_ud, tz_ud;
};

/* TDPBF16PS, C[0][0] (1x1) += A (1xK dwords) . B (Kx1 dwords) */
static const struct bf16_vec bf16_vecs[] = {
	{ "basic 1*2+2*1", 0x00000000, 1, { 0x3f80, 0x4000 }, { 0x4000, 0x3f80 }, 0x40800000 },
	{ "qNaN in A even", 0x00000000, 1, { 0x7fc1, 0x0000 }, { 0x3f80, 0x0000 }, 0x7fc10000 },
	{ "qNaN in B even", 0x00000000, 1, { 0x3f80, 0x0000 }, { 0x7fc1, 0x0000 }, 0x7fc10000 },
	{ "sNaN in A even", 0x00000000, 1, { 0x7f81, 0x0000 }, { 0x3f80, 0x0000 }, 0x7fc10000 },
	{ "sNaN in B even", 0x00000000, 1, { 0x3f80, 0x0000 }, { 0x7f81, 0x0000 }, 0x7fc10000 },
	{ "neg qNaN in A", 0x00000000, 1, { 0xffc3, 0x0000 }, { 0x3f80, 0x0000 }, 0xffc30000 },
	{ "neg sNaN in A", 0x00000000, 1, { 0xff82, 0x0000 }, { 0x3f80, 0x0000 }, 0xffc20000 },
	{ "qNaN A=7fc1, B=7fe5", 0x00000000, 1, { 0x7fc1, 0x0000 }, { 0x7fe5, 0x0000 }, 0x7fc10000 },
	{ "qNaN A=7fe5, B=7fc1", 0x00000000, 1, { 0x7fe5, 0x0000 }, { 0x7fc1, 0x0000 }, 0x7fe50000 },
	{ "sNaN A=7f81, qNaN B=7fe5", 0x00000000, 1, { 0x7f81, 0x0000 }, { 0x7fe5, 0x0000 }, 0x7fc10000 },
	{ "qNaN A=7fc1, sNaN B=7fa0", 0x00000000, 1, { 0x7fc1, 0x0000 }, { 0x7fa0, 0x0000 }, 0x7fc10000 },
	{ "qNaN even 7fc1, odd 7fe5", 0x00000000, 1, { 0x7fc1, 0x7fe5 }, { 0x3f80, 0x3f80 }, 0x7fc10000 },
	{ "qNaN even 7fe5, odd 7fc1", 0x00000000, 1, { 0x7fe5, 0x7fc1 }, { 0x3f80, 0x3f80 }, 0x7fe50000 },
	{ "qNaN even ffc3, odd 7fc1", 0x00000000, 1, { 0xffc3, 0x7fc1 }, { 0x3f80, 0x3f80 }, 0xffc30000 },
	{ "C=qNaN 7fc12345, finite", 0x7fc12345, 1, { 0x3f80, 0x3f80 }, { 0x3f80, 0x3f80 }, 0x7fc12345 },
	{ "C=sNaN 7f812345, finite", 0x7f812345, 1, { 0x3f80, 0x3f80 }, { 0x3f80, 0x3f80 }, 0x7fc12345 },
	{ "C=qNaN 7fc12345, A qNaN 7fe5", 0x7fc12345, 1, { 0x7fe5, 0x0000 }, { 0x3f80, 0x0000 }, 0x7fc12345 },
	{ "C=qNaN 7fe12345, A qNaN 7fc1", 0x7fe12345, 1, { 0x7fc1, 0x0000 }, { 0x3f80, 0x0000 }, 0x7fe12345 },
	{ "C=sNaN 7f812345, A qNaN 7fc1", 0x7f812345, 1, { 0x7fc1, 0x0000 }, { 0x3f80, 0x0000 }, 0x7fc12345 },
	{ "C=qNaN 7fc00001, A qNaN 7fc1", 0x7fc00001, 1, { 0x7fc1, 0x0000 }, { 0x3f80, 0x0000 }, 0x7fc00001 },
	{ "C=qNaN ffc00001, A qNaN 7fc1", 0xffc00001, 1, { 0x7fc1, 0x0000 }, { 0x3f80, 0x0000 }, 0xffc00001 },
	{ "C=1, sNaN even 7f81, qNaN odd 7fe5", 0x3f800000, 1, { 0x7f81, 0x7fe5 }, { 0x3f80, 0x3f80 }, 0x7fc10000 },
	{ "NaN k=0 even then finite k=1", 0x00000000, 2, { 0x7fc1, 0x0000, 0x3f80, 0x0000 }, { 0x3f80, 0x0000, 0x3f80, 0x0000 }, 0x7fc10000 },
	{ "finite k=0, NaN A k=1 7fe5, acc 7fc1", 0x00000000, 2, { 0x7fc1, 0x0000, 0x7fe5, 0x0000 }, { 0x3f80, 0x0000, 0x3f80, 0x0000 }, 0x7fe50000 },
	{ "Inf*0", 0x00000000, 1, { 0x7f80, 0x0000 }, { 0x0000, 0x0000 }, 0xffc00000 },
	{ "0*Inf", 0x00000000, 1, { 0x0000, 0x0000 }, { 0x7f80, 0x0000 }, 0xffc00000 },
	{ "-Inf*0", 0x00000000, 1, { 0xff80, 0x0000 }, { 0x0000, 0x0000 }, 0xffc00000 },
	{ "Inf*bf16 denormal (DAZ->NaN)", 0x00000000, 1, { 0x7f80, 0x0000 }, { 0x0001, 0x0000 }, 0xffc00000 },
	{ "Inf even + -Inf odd", 0x00000000, 1, { 0x7f80, 0xff80 }, { 0x3f80, 0x3f80 }, 0xffc00000 },
	{ "-Inf even + Inf odd", 0x00000000, 1, { 0xff80, 0x7f80 }, { 0x3f80, 0x3f80 }, 0xffc00000 },
	{ "Inf product + C=-Inf", 0xff800000, 1, { 0x7f80, 0x0000 }, { 0x3f80, 0x0000 }, 0xffc00000 },
	{ "Inf product + C=1", 0x3f800000, 1, { 0x7f80, 0x0000 }, { 0x3f80, 0x0000 }, 0x7f800000 },
	{ "-Inf product + C=1", 0x3f800000, 1, { 0xff80, 0x0000 }, { 0x3f80, 0x0000 }, 0xff800000 },
	{ "C=+Inf, finite", 0x7f800000, 1, { 0x3f80, 0x0000 }, { 0x3f80, 0x0000 }, 0x7f800000 },
	{ "Inf product k0, -Inf k1 (same lane)", 0x00000000, 2, { 0x7f80, 0x0000, 0xff80, 0x0000 }, { 0x3f80, 0x0000, 0x3f80, 0x0000 }, 0xffc00000 },
	{ "C=-0, all zero", 0x80000000, 1, { 0x0000, 0x0000 }, { 0x0000, 0x0000 }, 0x00000000 },
	{ "C=-0, products -0", 0x80000000, 1, { 0x8000, 0x8000 }, { 0x0000, 0x0000 }, 0x00000000 },
	{ "C=+0, products -0", 0x00000000, 1, { 0x8000, 0x8000 }, { 0x0000, 0x0000 }, 0x00000000 },
	{ "C=-0, products -1+1", 0x80000000, 1, { 0xbf80, 0x3f80 }, { 0x3f80, 0x3f80 }, 0x00000000 },
	{ "C=-0, both lanes -2^-127 (FTZ->-0)", 0x80000000, 1, { 0xa000, 0xa000 }, { 0x1f80, 0x1f80 }, 0x80000000 },
	{ "C=+0, both lanes -2^-127", 0x00000000, 1, { 0xa000, 0xa000 }, { 0x1f80, 0x1f80 }, 0x00000000 },
	{ "bf16 denormal A 0x0001 * 2^127", 0x00000000, 1, { 0x0001, 0x0000 }, { 0x7f00, 0x0000 }, 0x00000000 },
	{ "bf16 denormal A 0x007f * 2^127", 0x00000000, 1, { 0x007f, 0x0000 }, { 0x7f00, 0x0000 }, 0x00000000 },
	{ "bf16 denormal B 0x8040 * 2^127", 0x00000000, 1, { 0x7f00, 0x0000 }, { 0x8040, 0x0000 }, 0x00000000 },
	{ "bf16 denormal * 2^127 + C=1", 0x3f800000, 1, { 0x007f, 0x0000 }, { 0x7f00, 0x0000 }, 0x3f800000 },
	{ "C denormal 0x00400000 + FLT_MIN", 0x00400000, 1, { 0x2000, 0x0000 }, { 0x2000, 0x0000 }, 0x00800000 },
	{ "C denormal 0x80400000 + 0", 0x80400000, 1, { 0x0000, 0x0000 }, { 0x0000, 0x0000 }, 0x00000000 },
	{ "C denormal 0x00000001 + 0", 0x00000001, 1, { 0x0000, 0x0000 }, { 0x0000, 0x0000 }, 0x00000000 },
	{ "C denormal 0x007fffff + 1", 0x007fffff, 1, { 0x3f80, 0x0000 }, { 0x3f80, 0x0000 }, 0x3f800000 },
	{ "product 2^-127 (FTZ)", 0x00000000, 1, { 0x2000, 0x0000 }, { 0x1f80, 0x0000 }, 0x00000000 },
	{ "product -2^-127 (FTZ)", 0x00000000, 1, { 0xa000, 0x0000 }, { 0x1f80, 0x0000 }, 0x00000000 },
	{ "2^-127 k0 + 2^-127 k1 (per-step FTZ)", 0x00000000, 2, { 0x2000, 0x0000, 0x2000, 0x0000 }, { 0x1f80, 0x0000, 0x1f80, 0x0000 }, 0x00000000 },
	{ "2^-127 even + 2^-127 odd", 0x00000000, 1, { 0x2000, 0x2000 }, { 0x1f80, 0x1f80 }, 0x00000000 },
	{ "2^-127 even+odd, C=FLT_MIN", 0x00800000, 1, { 0x2000, 0x2000 }, { 0x1f80, 0x1f80 }, 0x00800000 },
	{ "FLT_MIN k0 + 2^-127 k1 (fma)", 0x00000000, 2, { 0x2000, 0x0000, 0x2000, 0x0000 }, { 0x2000, 0x0000, 0x1f80, 0x0000 }, 0x00c00000 },
	{ "FLT_MIN k0 - 2^-160 k1 (tininess)", 0x00000000, 2, { 0x2000, 0x0000, 0x9780, 0x0000 }, { 0x2000, 0x0000, 0x1780, 0x0000 }, 0x00800000 },
	{ "-FLT_MIN k0 + 2^-160 k1", 0x00000000, 2, { 0xa000, 0x0000, 0x1780, 0x0000 }, { 0x2000, 0x0000, 0x1780, 0x0000 }, 0x80800000 },
	{ "C=FLT_MIN + (2^-127 - 2^-127)", 0x00800000, 1, { 0x2000, 0xa000 }, { 0x1f80, 0x1f80 }, 0x00800000 },
	{ "C=2*FLT_MIN - FLT_MIN*1", 0x01000000, 1, { 0xa000, 0x0000 }, { 0x2000, 0x0000 }, 0x00800000 },
	{ "C=1.5*FLT_MIN - FLT_MIN", 0x00c00000, 1, { 0xa000, 0x0000 }, { 0x2000, 0x0000 }, 0x00000000 },
	{ "overflow maxbf*2", 0x00000000, 1, { 0x7f7f, 0x0000 }, { 0x4000, 0x0000 }, 0x7f800000 },
	{ "overflow -maxbf*2", 0x00000000, 1, { 0x7f7f, 0x0000 }, { 0xc000, 0x0000 }, 0xff800000 },
	{ "2^64*2^64 = 2^128 (k0)", 0x00000000, 1, { 0x5f80, 0x0000 }, { 0x5f80, 0x0000 }, 0x7f800000 },
	{ "fma no intermediate overflow", 0x00000000, 2, { 0xff00, 0x0000, 0x5f80, 0x0000 }, { 0x3fc0, 0x0000, 0x5f80, 0x0000 }, 0x7e800000 },
	{ "C=FLT_MAX + maxbf", 0x7f7fffff, 1, { 0x7f7f, 0x0000 }, { 0x3f80, 0x0000 }, 0x7f800000 },
	{ "even maxbf + odd maxbf", 0x00000000, 1, { 0x7f7f, 0x7f7f }, { 0x3f80, 0x3f80 }, 0x7f800000 },
	{ "C=-FLT_MAX + 2^127*2 lanes", 0xff7fffff, 1, { 0x7f00, 0x7f00 }, { 0x3f80, 0x3f80 }, 0x7f800000 },
	{ "cancel 2^127 - 2^127, C=1", 0x3f800000, 1, { 0x7f00, 0x7f00 }, { 0x3f80, 0xbf80 }, 0x3f800000 },
	{ "RNE tie C=1 + 2^-24", 0x3f800000, 1, { 0x3380, 0x0000 }, { 0x3f80, 0x0000 }, 0x3f800000 },
	{ "RNE tie C=1+ulp + 2^-24", 0x3f800001, 1, { 0x3380, 0x0000 }, { 0x3f80, 0x0000 }, 0x3f800002 },
	{ "C=1 + 1.5*2^-24", 0x3f800000, 1, { 0x33c0, 0x0000 }, { 0x3f80, 0x0000 }, 0x3f800001 },
	{ "C=1 - 1.5*2^-24", 0x3f800000, 1, { 0x33c0, 0x0000 }, { 0xbf80, 0x0000 }, 0x3f7ffffe },
	{ "C=-1 - 1.5*2^-24", 0xbf800000, 1, { 0x33c0, 0x0000 }, { 0xbf80, 0x0000 }, 0xbf800001 },
	{ "even/odd separate: 2^24+1, -2^24+1", 0x00000000, 2, { 0x4b80, 0xcb80, 0x3f80, 0x3f80 }, { 0x3f80, 0x3f80, 0x3f80, 0x3f80 }, 0x3f800000 },
	{ "C=2^24 + (1 + 1)", 0x4b800000, 1, { 0x3f80, 0x3f80 }, { 0x3f80, 0x3f80 }, 0x4b800001 },
	{ "C=2^24+2 + (1 + 1)", 0x4b800001, 1, { 0x3f80, 0x3f80 }, { 0x3f80, 0x3f80 }, 0x4b800002 },
	{ "k order: 2^24 k0, 1 k1 (even)", 0x00000000, 2, { 0x4b80, 0x0000, 0x3f80, 0x0000 }, { 0x3f80, 0x0000, 0x3f80, 0x0000 }, 0x4b800000 },
	{ "k order: 1 k0, 2^24 k1 (even)", 0x00000000, 2, { 0x3f80, 0x0000, 0x4b80, 0x0000 }, { 0x3f80, 0x0000, 0x3f80, 0x0000 }, 0x4b800000 },
	{ "3 terms: 2^24 e, 1 o, C=1", 0x3f800000, 1, { 0x4b80, 0x3f80 }, { 0x3f80, 0x3f80 }, 0x4b800000 },
};

/* The same dot products under other MXCSR values: MXCSR is ignored and kept. */
static const struct mxcsr_vec mxcsr_vecs[] = {
	{ 0x1f80, 69, 0x3f800002, 0x1f80 },
	{ 0x1f80, 70, 0x3f800001, 0x1f80 },
	{ 0x1f80, 71, 0x3f7ffffe, 0x1f80 },
	{ 0x1f80, 49, 0x00000000, 0x1f80 },
	{ 0x1f80, 42, 0x00000000, 0x1f80 },
	{ 0x1f80, 45, 0x00800000, 0x1f80 },
	{ 0x1f80, 55, 0x00800000, 0x1f80 },
	{ 0x1f80, 24, 0xffc00000, 0x1f80 },
	{ 0x1f80, 3, 0x7fc10000, 0x1f80 },
	{ 0x1f80, 60, 0x7f800000, 0x1f80 },
	{ 0x1f80, 0, 0x40800000, 0x1f80 },
	{ 0x7f80, 69, 0x3f800002, 0x7f80 },
	{ 0x7f80, 70, 0x3f800001, 0x7f80 },
	{ 0x7f80, 71, 0x3f7ffffe, 0x7f80 },
	{ 0x7f80, 49, 0x00000000, 0x7f80 },
	{ 0x7f80, 42, 0x00000000, 0x7f80 },
	{ 0x7f80, 45, 0x00800000, 0x7f80 },
	{ 0x7f80, 55, 0x00800000, 0x7f80 },
	{ 0x7f80, 24, 0xffc00000, 0x7f80 },
	{ 0x7f80, 3, 0x7fc10000, 0x7f80 },
	{ 0x7f80, 60, 0x7f800000, 0x7f80 },
	{ 0x7f80, 0, 0x40800000, 0x7f80 },
	{ 0x5f80, 69, 0x3f800002, 0x5f80 },
	{ 0x5f80, 70, 0x3f800001, 0x5f80 },
	{ 0x5f80, 71, 0x3f7ffffe, 0x5f80 },
	{ 0x5f80, 49, 0x00000000, 0x5f80 },
	{ 0x5f80, 42, 0x00000000, 0x5f80 },
	{ 0x5f80, 45, 0x00800000, 0x5f80 },
	{ 0x5f80, 55, 0x00800000, 0x5f80 },
	{ 0x5f80, 24, 0xffc00000, 0x5f80 },
	{ 0x5f80, 3, 0x7fc10000, 0x5f80 },
	{ 0x5f80, 60, 0x7f800000, 0x5f80 },
	{ 0x5f80, 0, 0x40800000, 0x5f80 },
	{ 0x3f80, 69, 0x3f800002, 0x3f80 },
	{ 0x3f80, 70, 0x3f800001, 0x3f80 },
	{ 0x3f80, 71, 0x3f7ffffe, 0x3f80 },
	{ 0x3f80, 49, 0x00000000, 0x3f80 },
	{ 0x3f80, 42, 0x00000000, 0x3f80 },
	{ 0x3f80, 45, 0x00800000, 0x3f80 },
	{ 0x3f80, 55, 0x00800000, 0x3f80 },
	{ 0x3f80, 24, 0xffc00000, 0x3f80 },
	{ 0x3f80, 3, 0x7fc10000, 0x3f80 },
	{ 0x3f80, 60, 0x7f800000, 0x3f80 },
	{ 0x3f80, 0, 0x40800000, 0x3f80 },
	{ 0x9fc0, 69, 0x3f800002, 0x9fc0 },
	{ 0x9fc0, 70, 0x3f800001, 0x9fc0 },
	{ 0x9fc0, 71, 0x3f7ffffe, 0x9fc0 },
	{ 0x9fc0, 49, 0x00000000, 0x9fc0 },
	{ 0x9fc0, 42, 0x00000000, 0x9fc0 },
	{ 0x9fc0, 45, 0x00800000, 0x9fc0 },
	{ 0x9fc0, 55, 0x00800000, 0x9fc0 },
	{ 0x9fc0, 24, 0xffc00000, 0x9fc0 },
	{ 0x9fc0, 3, 0x7fc10000, 0x9fc0 },
	{ 0x9fc0, 60, 0x7f800000, 0x9fc0 },
	{ 0x9fc0, 0, 0x40800000, 0x9fc0 },
	{ 0x1f00, 69, 0x3f800002, 0x1f00 },
	{ 0x1f00, 70, 0x3f800001, 0x1f00 },
	{ 0x1f00, 71, 0x3f7ffffe, 0x1f00 },
	{ 0x1f00, 49, 0x00000000, 0x1f00 },
	{ 0x1f00, 42, 0x00000000, 0x1f00 },
	{ 0x1f00, 45, 0x00800000, 0x1f00 },
	{ 0x1f00, 55, 0x00800000, 0x1f00 },
	{ 0x1f00, 24, 0xffc00000, 0x1f00 },
	{ 0x1f00, 3, 0x7fc10000, 0x1f00 },
	{ 0x1f00, 60, 0x7f800000, 0x1f00 },
	{ 0x1f00, 0, 0x40800000, 0x1f00 },
	{ 0x1d80, 69, 0x3f800002, 0x1d80 },
	{ 0x1d80, 70, 0x3f800001, 0x1d80 },
	{ 0x1d80, 71, 0x3f7ffffe, 0x1d80 },
	{ 0x1d80, 49, 0x00000000, 0x1d80 },
	{ 0x1d80, 42, 0x00000000, 0x1d80 },
	{ 0x1d80, 45, 0x00800000, 0x1d80 },
	{ 0x1d80, 55, 0x00800000, 0x1d80 },
	{ 0x1d80, 24, 0xffc00000, 0x1d80 },
	{ 0x1d80, 3, 0x7fc10000, 0x1d80 },
	{ 0x1d80, 60, 0x7f800000, 0x1d80 },
	{ 0x1d80, 0, 0x40800000, 0x1d80 },
};

/* TDPB[SU][SU]D, C[0][0] += A (1xK dwords) . B (Kx1 dwords); pattern 0: every byte the same */
static const struct int8_vec int8_vecs[] = {
	{ "all 0x80 * 0x80, C=0", 0, 0x00000000, 16, 0x80, 0x80, 0, 0x00100000 },
	{ "all 0x80 * 0x80, C=0", 1, 0x00000000, 16, 0x80, 0x80, 0, 0xfff00000 },
	{ "all 0x80 * 0x80, C=0", 2, 0x00000000, 16, 0x80, 0x80, 0, 0xfff00000 },
	{ "all 0x80 * 0x80, C=0", 3, 0x00000000, 16, 0x80, 0x80, 0, 0x00100000 },
	{ "all 0x80 * 0x80, C=INT_MAX", 0, 0x7fffffff, 16, 0x80, 0x80, 0, 0x800fffff },
	{ "all 0x80 * 0x80, C=INT_MAX", 1, 0x7fffffff, 16, 0x80, 0x80, 0, 0x7fefffff },
	{ "all 0x80 * 0x80, C=INT_MAX", 2, 0x7fffffff, 16, 0x80, 0x80, 0, 0x7fefffff },
	{ "all 0x80 * 0x80, C=INT_MAX", 3, 0x7fffffff, 16, 0x80, 0x80, 0, 0x800fffff },
	{ "all 0x80 * 0x7f, C=INT_MIN", 0, 0x80000000, 16, 0x80, 0x7f, 0, 0x7ff02000 },
	{ "all 0x80 * 0x7f, C=INT_MIN", 1, 0x80000000, 16, 0x80, 0x7f, 0, 0x7ff02000 },
	{ "all 0x80 * 0x7f, C=INT_MIN", 2, 0x80000000, 16, 0x80, 0x7f, 0, 0x800fe000 },
	{ "all 0x80 * 0x7f, C=INT_MIN", 3, 0x80000000, 16, 0x80, 0x7f, 0, 0x800fe000 },
	{ "all 0xff * 0xff, C=0", 0, 0x00000000, 16, 0xff, 0xff, 0, 0x00000040 },
	{ "all 0xff * 0xff, C=0", 1, 0x00000000, 16, 0xff, 0xff, 0, 0xffffc040 },
	{ "all 0xff * 0xff, C=0", 2, 0x00000000, 16, 0xff, 0xff, 0, 0xffffc040 },
	{ "all 0xff * 0xff, C=0", 3, 0x00000000, 16, 0xff, 0xff, 0, 0x003f8040 },
	{ "all 0xff * 0xff, C=0xffffffff", 0, 0xffffffff, 16, 0xff, 0xff, 0, 0x0000003f },
	{ "all 0xff * 0xff, C=0xffffffff", 1, 0xffffffff, 16, 0xff, 0xff, 0, 0xffffc03f },
	{ "all 0xff * 0xff, C=0xffffffff", 2, 0xffffffff, 16, 0xff, 0xff, 0, 0xffffc03f },
	{ "all 0xff * 0xff, C=0xffffffff", 3, 0xffffffff, 16, 0xff, 0xff, 0, 0x003f803f },
	{ "all 0xff * 0x80, C=INT_MIN", 0, 0x80000000, 16, 0xff, 0x80, 0, 0x80002000 },
	{ "all 0xff * 0x80, C=INT_MIN", 1, 0x80000000, 16, 0xff, 0x80, 0, 0x7fffe000 },
	{ "all 0xff * 0x80, C=INT_MIN", 2, 0x80000000, 16, 0xff, 0x80, 0, 0x7fe02000 },
	{ "all 0xff * 0x80, C=INT_MIN", 3, 0x80000000, 16, 0xff, 0x80, 0, 0x801fe000 },
	{ "all 0x80 * 0xff, C=INT_MIN", 0, 0x80000000, 16, 0x80, 0xff, 0, 0x80002000 },
	{ "all 0x80 * 0xff, C=INT_MIN", 1, 0x80000000, 16, 0x80, 0xff, 0, 0x7fe02000 },
	{ "all 0x80 * 0xff, C=INT_MIN", 2, 0x80000000, 16, 0x80, 0xff, 0, 0x7fffe000 },
	{ "all 0x80 * 0xff, C=INT_MIN", 3, 0x80000000, 16, 0x80, 0xff, 0, 0x801fe000 },
	{ "all 0x7f * 0x7f, C=INT_MAX", 0, 0x7fffffff, 16, 0x7f, 0x7f, 0, 0x800fc03f },
	{ "all 0x7f * 0x7f, C=INT_MAX", 1, 0x7fffffff, 16, 0x7f, 0x7f, 0, 0x800fc03f },
	{ "all 0x7f * 0x7f, C=INT_MAX", 2, 0x7fffffff, 16, 0x7f, 0x7f, 0, 0x800fc03f },
	{ "all 0x7f * 0x7f, C=INT_MAX", 3, 0x7fffffff, 16, 0x7f, 0x7f, 0, 0x800fc03f },
	{ "all 0x80 * 0x80, K=1, C=INT_MAX", 0, 0x7fffffff, 1, 0x80, 0x80, 0, 0x8000ffff },
	{ "all 0x80 * 0x80, K=1, C=INT_MAX", 1, 0x7fffffff, 1, 0x80, 0x80, 0, 0x7ffeffff },
	{ "all 0x80 * 0x80, K=1, C=INT_MAX", 2, 0x7fffffff, 1, 0x80, 0x80, 0, 0x7ffeffff },
	{ "all 0x80 * 0x80, K=1, C=INT_MAX", 3, 0x7fffffff, 1, 0x80, 0x80, 0, 0x8000ffff },
	{ "mixed {7f,80,ff,01}x{80,7f,ff,01} C=7ffffff0", 0, 0x7ffffff0, 16, 0, 0, 1, 0x7ff81010 },
	{ "mixed {7f,80,ff,01}x{80,7f,ff,01} C=7ffffff0", 1, 0x7ffffff0, 16, 0, 0, 1, 0x7ffff010 },
	{ "mixed {7f,80,ff,01}x{80,7f,ff,01} C=7ffffff0", 2, 0x7ffffff0, 16, 0, 0, 1, 0x7ffff010 },
	{ "mixed {7f,80,ff,01}x{80,7f,ff,01} C=7ffffff0", 3, 0x7ffffff0, 16, 0, 0, 1, 0x8017d010 },
};

/* Which colsb TILELOADD/TILESTORED/TILEZERO accept: 1 = #UD */
static const struct colsb_vec colsb_vecs[] = {
	{ 1, 1, 1, 1, 0 },
	{ 1, 2, 1, 1, 0 },
	{ 1, 3, 1, 1, 0 },
	{ 1, 4, 0, 0, 0 },
	{ 1, 5, 1, 1, 0 },
	{ 1, 6, 1, 1, 0 },
	{ 1, 7, 1, 1, 0 },
	{ 1, 8, 0, 0, 0 },
	{ 1, 12, 0, 0, 0 },
	{ 1, 15, 1, 1, 0 },
	{ 1, 16, 0, 0, 0 },
	{ 1, 17, 1, 1, 0 },
	{ 1, 32, 0, 0, 0 },
	{ 1, 44, 0, 0, 0 },
	{ 1, 60, 0, 0, 0 },
	{ 1, 61, 1, 1, 0 },
	{ 1, 62, 1, 1, 0 },
	{ 1, 63, 1, 1, 0 },
	{ 1, 64, 0, 0, 0 },
	{ 11, 1, 1, 1, 0 },
	{ 11, 2, 1, 1, 0 },
	{ 11, 3, 1, 1, 0 },
	{ 11, 4, 0, 0, 0 },
	{ 11, 5, 1, 1, 0 },
	{ 11, 6, 1, 1, 0 },
	{ 11, 7, 1, 1, 0 },
	{ 11, 8, 0, 0, 0 },
	{ 11, 12, 0, 0, 0 },
	{ 11, 15, 1, 1, 0 },
	{ 11, 16, 0, 0, 0 },
	{ 11, 17, 1, 1, 0 },
	{ 11, 32, 0, 0, 0 },
	{ 11, 44, 0, 0, 0 },
	{ 11, 60, 0, 0, 0 },
	{ 11, 61, 1, 1, 0 },
	{ 11, 62, 1, 1, 0 },
	{ 11, 63, 1, 1, 0 },
	{ 11, 64, 0, 0, 0 },
	{ 16, 1, 1, 1, 0 },
	{ 16, 2, 1, 1, 0 },
	{ 16, 3, 1, 1, 0 },
	{ 16, 4, 0, 0, 0 },
	{ 16, 5, 1, 1, 0 },
	{ 16, 6, 1, 1, 0 },
	{ 16, 7, 1, 1, 0 },
	{ 16, 8, 0, 0, 0 },
	{ 16, 12, 0, 0, 0 },
	{ 16, 15, 1, 1, 0 },
	{ 16, 16, 0, 0, 0 },
	{ 16, 17, 1, 1, 0 },
	{ 16, 32, 0, 0, 0 },
	{ 16, 44, 0, 0, 0 },
	{ 16, 60, 0, 0, 0 },
	{ 16, 61, 1, 1, 0 },
	{ 16, 62, 1, 1, 0 },
	{ 16, 63, 1, 1, 0 },
	{ 16, 64, 0, 0, 0 },
};

/* ---- Probing instructions ------------------------------------------------ */


static volatile uintptr_t resume_ip;
static volatile int fault_sig, fault_code;

static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	if (!resume_ip)
		tap_bail_out("unexpected signal outside a probed instruction");
	fault_sig = sig;
	fault_code = si->si_code;
	uc->uc_mcontext.gregs[REG_RIP] = resume_ip;
	resume_ip = 0;
}

/*
 * Run one instruction; a fault resumes right after it.  Evaluates to the
 * outcome: 0, or signal << 8 | si_code.
 */
#define PROBE(insn, ...)						\
	({								\
		fault_sig = 0;						\
		fault_code = 0;						\
		asm volatile("leaq 1f(%%rip), %%r11\n\t"		\
			     "movq %%r11, %[rip]\n\t"			\
			     insn "\n"					\
			     "1:\n\t"					\
			     "movq $0, %[rip]"				\
			     : [rip] "=m"(resume_ip)			\
			     : __VA_ARGS__ : "r11", "memory");		\
		fault_sig ? fault_sig << 8 | (fault_code & 0xff) : 0;	\
	})

#define OK		0
#define UD		(SIGILL << 8 | ILL_ILLOPN)	/* #UD */
#define NM_XFD		(SIGILL << 8 | ILL_ILLOPC)	/* XFD #NM, no permission */
#define GP		(SIGSEGV << 8 | 0x80)		/* #GP: SI_KERNEL */

static int ldtilecfg(const void *p) { return PROBE("ldtilecfg (%[p])", [p] "r"(p)); }
static int sttilecfg(void *p) { return PROBE("sttilecfg (%[p])", [p] "r"(p)); }
static int tilerelease(void) { return PROBE("tilerelease", "i"(0)); }
static int tilezero0(void) { return PROBE("tilezero %%tmm0", "i"(0)); }
static int tilezero3(void) { return PROBE("tilezero %%tmm3", "i"(0)); }
static int tilezero7(void) { return PROBE("tilezero %%tmm7", "i"(0)); }

#define LOAD(t, base, stride) \
	PROBE("tileloadd (%[p],%[s],1), %%tmm" #t, [p] "r"(base), [s] "r"((long)(stride)))
#define STORE(t, base, stride) \
	PROBE("tilestored %%tmm" #t ", (%[p],%[s],1)", [p] "r"(base), [s] "r"((long)(stride)))

/* AT&T order: src2, src1, dst.  tmm0 += tmm1 . tmm2 */
static int tdpbf16ps_012(void) { return PROBE("tdpbf16ps %%tmm2, %%tmm1, %%tmm0", "i"(0)); }
static int tdpbssd_012(void) { return PROBE("tdpbssd %%tmm2, %%tmm1, %%tmm0", "i"(0)); }
static int tdp_012(int op)
{
	switch (op) {
	case SSD: return PROBE("tdpbssd %%tmm2, %%tmm1, %%tmm0", "i"(0));
	case SUD: return PROBE("tdpbsud %%tmm2, %%tmm1, %%tmm0", "i"(0));
	case USD: return PROBE("tdpbusd %%tmm2, %%tmm1, %%tmm0", "i"(0));
	default:  return PROBE("tdpbuud %%tmm2, %%tmm1, %%tmm0", "i"(0));
	}
}
/* VEX.128.F2.0F38.W0 5E /r with repeated registers (assemblers refuse them). */
static int tdpbssd_001(void) { return PROBE(".byte 0xc4,0xe2,0x73,0x5e,0xc0", "i"(0)); } /* dst==src1 */
static int tdpbssd_011(void) { return PROBE(".byte 0xc4,0xe2,0x73,0x5e,0xc1", "i"(0)); } /* src1==src2 */
static int tdpbssd_010(void) { return PROBE(".byte 0xc4,0xe2,0x7b,0x5e,0xc1", "i"(0)); } /* dst==src2 */

static int xsave_(void *p, uint64_t rfbm)
{
	return PROBE("xsave (%[p])", [p] "r"(p), "a"((uint32_t)rfbm),
		     "d"((uint32_t)(rfbm >> 32)));
}

static int xrstor_(const void *p, uint64_t rfbm)
{
	return PROBE("xrstor (%[p])", [p] "r"(p), "a"((uint32_t)rfbm),
		     "d"((uint32_t)(rfbm >> 32)));
}

static uint64_t xgetbv1(void)
{
	uint32_t a, d;

	asm volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1));
	return ((uint64_t)d << 32 | a) & XTILE_BITS;
}

static uint32_t mxcsr_get(void)
{
	uint32_t m;

	asm volatile("stmxcsr %0" : "=m"(m));
	return m;
}

static void mxcsr_set(uint32_t m)
{
	asm volatile("ldmxcsr %0" :: "m"(m));
}

static const char *outcome(int o)
{
	static char buf[4][32];
	static int i;

	if (!o)
		return "ok";
	i = (i + 1) & 3;
	snprintf(buf[i], sizeof(buf[i]), "%s(si_code %d)",
		 o >> 8 == SIGILL ? "SIGILL" : o >> 8 == SIGSEGV ? "SIGSEGV" :
		 "signal", o & 0xff);
	return buf[i];
}

/* One test point: an instruction's outcome against silicon's. */
static void expect(int got, int want, const char *what)
{
	tap_ok(got == want, "%s: %s (silicon: %s)", what, outcome(got), outcome(want));
}

static struct tmodel_cfg mkcfg(int rows0, int colsb0)
{
	struct tmodel_cfg c;

	memset(&c, 0, sizeof(c));
	c.palette = 1;
	c.rows[0] = rows0;
	c.colsb[0] = colsb0;
	return c;
}

/* XSAVE area (standard form) and the AMX components' offsets in it. */
static uint8_t xa[16384] __attribute__((aligned(64)));
static unsigned int cfg_off, data_off;

/* XRSTOR a configuration and tile data with every byte @fill. */
static int xrstor_state(const struct tmodel_cfg *c, uint8_t fill)
{
	uint64_t bv = XTILE_BITS;

	memset(xa, 0, sizeof(xa));
	memcpy(xa + 512, &bv, 8);
	memcpy(xa + cfg_off, c, 64);
	memset(xa + data_off, fill, 8192);
	return xrstor_(xa, bv);
}

/* XSAVE the AMX components over 0x5a bytes; returns XSTATE_BV & AMX. */
static uint64_t xsave_state(void)
{
	uint64_t bv;

	memset(xa, 0x5a, sizeof(xa));
	memset(xa + 512, 0, 64);
	if (xsave_(xa, XTILE_BITS))
		return ~0ull;
	memcpy(&bv, xa + 512, 8);
	return bv & XTILE_BITS;
}

static int count_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	int k = 0;

	while (n--)
		k += *p++ == v;
	return k;
}

static uint8_t mem[64 * 17];	/* row r (stride 64) holds 0x11 + r */

/* ---- Dot products on special values ------------------------------------ */

static int run_bf16(const struct bf16_vec *v, uint32_t *out)
{
	struct tmodel_cfg c = mkcfg(1, 4);
	uint32_t cin = v->c;
	int o = 0;

	c.rows[1] = 1;
	c.colsb[1] = 4 * v->k;
	c.rows[2] = v->k;
	c.colsb[2] = 4;
	*out = 0xdeadbeef;
	o |= ldtilecfg(&c);
	o |= LOAD(0, &cin, 4);
	o |= LOAD(1, v->a, 4 * v->k);
	o |= LOAD(2, v->b, 4);
	o |= tdpbf16ps_012();
	o |= STORE(0, out, 4);
	o |= tilerelease();
	return o;
}

static void check_bf16(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(bf16_vecs) / sizeof(bf16_vecs[0]); i++) {
		const struct bf16_vec *v = &bf16_vecs[i];
		uint32_t out;
		int o = run_bf16(v, &out);

		tap_ok(!o && out == v->out, "tdpbf16ps %s: %08x (silicon %08x)%s%s",
		       v->name, out, v->out, o ? " " : "", o ? outcome(o) : "");
	}
	for (i = 0; i < sizeof(mxcsr_vecs) / sizeof(mxcsr_vecs[0]); i++) {
		const struct mxcsr_vec *m = &mxcsr_vecs[i];
		uint32_t out, after;
		int o;

		mxcsr_set(m->mxcsr);
		o = run_bf16(&bf16_vecs[m->vec], &out);
		after = mxcsr_get();
		mxcsr_set(0x1f80);
		tap_ok(!o && out == m->out && after == m->after,
		       "tdpbf16ps under mxcsr %04x, %s: %08x mxcsr %04x (silicon %08x %04x)",
		       m->mxcsr, bf16_vecs[m->vec].name, out, after, m->out, m->after);
	}
}

static void check_int8(void)
{
	static const uint8_t ma[4] = { 0x7f, 0x80, 0xff, 0x01 };
	static const uint8_t mb[4] = { 0x80, 0x7f, 0xff, 0x01 };
	static const char *const name[] = { "tdpbssd", "tdpbsud", "tdpbusd", "tdpbuud" };
	unsigned int i, j;

	for (i = 0; i < sizeof(int8_vecs) / sizeof(int8_vecs[0]); i++) {
		const struct int8_vec *v = &int8_vecs[i];
		uint8_t a[64], b[64];
		uint32_t cin = v->c, out = 0xdeadbeef;
		struct tmodel_cfg c = mkcfg(1, 4);
		int o = 0;

		for (j = 0; j < 64; j++) {
			a[j] = v->mixed ? ma[j & 3] : v->a;
			b[j] = v->mixed ? mb[j & 3] : v->b;
		}
		c.rows[1] = 1;
		c.colsb[1] = 4 * v->k;
		c.rows[2] = v->k;
		c.colsb[2] = 4;
		o |= ldtilecfg(&c);
		o |= LOAD(0, &cin, 4);
		o |= LOAD(1, a, 4 * v->k);
		o |= LOAD(2, b, 4);
		o |= tdp_012(v->op);
		o |= STORE(0, &out, 4);
		o |= tilerelease();
		tap_ok(!o && out == v->out, "%s %s: %08x (silicon %08x)%s%s",
		       name[v->op], v->name, out, v->out, o ? " " : "",
		       o ? outcome(o) : "");
	}
}

/* ---- #UD rules ------------------------------------------------------------ */

static void check_colsb(void)
{
	static uint8_t buf[64 * 16];
	unsigned int i;

	for (i = 0; i < sizeof(colsb_vecs) / sizeof(colsb_vecs[0]); i++) {
		const struct colsb_vec *v = &colsb_vecs[i];
		struct tmodel_cfg c = mkcfg(v->rows, v->colsb);
		int ld, st, tz;

		ldtilecfg(&c);
		ld = LOAD(0, buf, 64);
		st = STORE(0, buf, 64);
		tz = tilezero0();
		tilerelease();
		tap_ok(ld == (v->ld_ud ? UD : OK) && st == (v->st_ud ? UD : OK) &&
		       tz == (v->tz_ud ? UD : OK),
		       "rows %d colsb %d: tileloadd %s, tilestored %s, tilezero %s (silicon %s %s %s)",
		       v->rows, v->colsb, outcome(ld), outcome(st), outcome(tz),
		       v->ld_ud ? "#UD" : "ok", v->st_ud ? "#UD" : "ok",
		       v->tz_ud ? "#UD" : "ok");
	}
}

static void check_unconfigured(void)
{
	static uint8_t buf[64 * 16];
	struct tmodel_cfg c = mkcfg(4, 16);

	tilerelease();
	tap_ok(tilezero0() == UD, "tilezero with no configuration: #UD");
	ldtilecfg(&c);
	tap_ok(tilezero0() == OK, "tilezero of a configured tile (4x16): ok");
	tap_ok(tilezero3() == UD, "tilezero tmm3 (rows 0, colsb 0): #UD");
	tap_ok(tilezero7() == UD, "tilezero tmm7 (rows 0, colsb 0): #UD");
	tap_ok(LOAD(3, buf, 64) == UD, "tileloadd tmm3 (rows 0, colsb 0): #UD");
	tap_ok(STORE(3, buf, 64) == UD, "tilestored tmm3 (rows 0, colsb 0): #UD");
	tilerelease();
}

/*
 * Without XTILEDATA permission (IA32_XFD[18] armed): LDTILECFG/STTILECFG
 * work, tile data instructions raise #NM (SIGILL, ILL_ILLOPC), but every
 * #UD condition is checked first (SIGILL, ILL_ILLOPN).  Standard XSAVE
 * writes the 8 KiB of tile data as zeros.
 */
static void check_xfd(void)
{
	struct tmodel_cfg c = mkcfg(2, 8), c3, out;
	uint64_t bv;
	int o;

	o = ldtilecfg(&c);
	memset(&out, 0xff, sizeof(out));
	o |= sttilecfg(&out);
	tap_ok(!o && !memcmp(&out, &c, 64), "XFD armed: ldtilecfg and sttilecfg work (%s)",
	       outcome(o));
	tap_ok(xgetbv1() == 0x20000, "XFD armed: XINUSE[18:17] after ldtilecfg %llx (silicon 20000)",
	       (unsigned long long)xgetbv1());
	expect(LOAD(0, mem, 64), NM_XFD, "XFD armed: tileloadd");
	expect(STORE(0, mem, 64), NM_XFD, "XFD armed: tilestored");
	expect(tilezero0(), NM_XFD, "XFD armed: tilezero");
	expect(tdpbssd_012(), UD, "XFD armed: tdpbssd, tmm1/tmm2 unconfigured");
	expect(tilezero3(), UD, "XFD armed: tilezero tmm3 unconfigured");
	c3 = mkcfg(2, 8);
	c3.rows[1] = 2; c3.colsb[1] = 8;
	c3.rows[2] = 2; c3.colsb[2] = 8;
	ldtilecfg(&c3);
	expect(tdpbssd_012(), NM_XFD, "XFD armed: tdpbssd, valid shapes");
	expect(tdpbssd_001(), UD, "XFD armed: tdpbssd dst==src1");
	c3 = mkcfg(2, 6);
	ldtilecfg(&c3);
	expect(LOAD(0, mem, 64), UD, "XFD armed: tileloadd with colsb 6");
	c3 = mkcfg(2, 8);
	ldtilecfg(&c3);
	tilerelease();
	expect(LOAD(0, mem, 64), UD, "XFD armed: tileloadd with no configuration");
	ldtilecfg(&c);
	bv = xsave_state();
	tap_ok(bv == 0x20000 && count_bytes(xa + data_off, 8192, 0) == 8192,
	       "XFD armed: xsave rfbm=0x60000: xstate_bv %llx, %d zero tile data bytes (silicon 20000, 8192)",
	       (unsigned long long)bv, count_bytes(xa + data_off, 8192, 0));
	bv = 1ull << 18;
	memset(xa, 0, sizeof(xa));
	memcpy(xa + 512, &bv, 8);
	expect(xrstor_(xa, bv), NM_XFD, "XFD armed: xrstor of tile data");
	bv = 0;
	memcpy(xa + 512, &bv, 8);
	expect(xrstor_(xa, 1ull << 18), OK, "XFD armed: xrstor initialising tile data");
	expect(tilerelease(), OK, "XFD armed: tilerelease");
}

/* ---- Configuration ------------------------------------------------------ */

static void check_ldtilecfg(void)
{
	static const struct {
		const char *name;
		int off, val, width;	/* -1: as is; -2: tmm0 unconfigured */
		int fault;
		int pal, start_row, rows0, colsb0;
		uint64_t inuse;
	} v[] = {
		{ "valid tmm0 2x8", -1, 0, 0,			OK, 1, 0, 2, 8, 0x20000 },
		{ "palette 2", 0, 2, 1,				GP, 0, 0, 0, 0, 0 },
		{ "palette 0xff", 0, 0xff, 1,			GP, 0, 0, 0, 0, 0 },
		{ "palette 0 with rows/colsb set", 0, 0, 1,	OK, 0, 0, 0, 0, 0 },
		{ "start_row 1", 1, 1, 1,			OK, 1, 1, 2, 8, 0x20000 },
		{ "start_row 5", 1, 5, 1,			OK, 1, 5, 2, 8, 0x20000 },
		{ "start_row 2 (== rows)", 1, 2, 1,		OK, 1, 2, 2, 8, 0x20000 },
		{ "start_row 0xff", 1, 0xff, 1,			OK, 1, 255, 2, 8, 0x20000 },
		{ "reserved byte 2", 2, 1, 1,			GP, 0, 0, 0, 0, 0 },
		{ "reserved byte 15", 15, 0x80, 1,		GP, 0, 0, 0, 0, 0 },
		{ "rows[0] 17", 48, 17, 1,			GP, 0, 0, 0, 0, 0 },
		{ "rows[0] 16", 48, 16, 1,			OK, 1, 0, 16, 8, 0x20000 },
		{ "colsb[0] 65", 16, 65, 2,			GP, 0, 0, 0, 0, 0 },
		{ "colsb[0] 64", 16, 64, 2,			OK, 1, 0, 2, 64, 0x20000 },
		{ "colsb[0] 0x100", 16, 0x100, 2,		GP, 0, 0, 0, 0, 0 },
		{ "colsb[0] 3", 16, 3, 2,			OK, 1, 0, 2, 3, 0x20000 },
		{ "rows[1] 1, colsb[1] 0", 49, 1, 1,		GP, 0, 0, 0, 0, 0 },
		{ "colsb[1] 4, rows[1] 0", 18, 4, 2,		GP, 0, 0, 0, 0, 0 },
		{ "colsb[8] 4", 32, 4, 2,			GP, 0, 0, 0, 0, 0 },
		{ "colsb[15] 4", 46, 4, 2,			GP, 0, 0, 0, 0, 0 },
		{ "rows[8] 1", 56, 1, 1,			GP, 0, 0, 0, 0, 0 },
		{ "rows[15] 1", 63, 1, 1,			GP, 0, 0, 0, 0, 0 },
		{ "palette 1, every tile unconfigured", -2, 0, 0, OK, 1, 0, 0, 0, 0x20000 },
	};
	static uint8_t buf[128] __attribute__((aligned(64)));
	unsigned int k;
	struct tmodel_cfg c, out;
	int o, o2;

	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		uint8_t *p = (uint8_t *)&c;
		uint64_t inuse;

		c = mkcfg(2, 8);
		if (v[k].off == -2) {
			c.rows[0] = 0;
			c.colsb[0] = 0;
		} else if (v[k].off >= 0) {
			p[v[k].off] = v[k].val & 0xff;
			if (v[k].width == 2)
				p[v[k].off + 1] = v[k].val >> 8;
		}
		tilerelease();
		o = ldtilecfg(&c);
		memset(&out, 0xee, sizeof(out));
		o2 = sttilecfg(&out);
		inuse = xgetbv1();
		tap_ok(o == v[k].fault && !o2 && out.palette == v[k].pal &&
		       out.start_row == v[k].start_row && out.rows[0] == v[k].rows0 &&
		       out.colsb[0] == v[k].colsb0 && inuse == v[k].inuse,
		       "ldtilecfg %s: %s; sttilecfg %s: palette %d start_row %d rows0 %d colsb0 %d xinuse %llx",
		       v[k].name, outcome(o), outcome(o2), out.palette, out.start_row, out.rows[0],
		       out.colsb[0], (unsigned long long)inuse);
	}
	c = mkcfg(2, 8);
	memcpy(buf + 3, &c, 64);
	tilerelease();
	expect(ldtilecfg(buf + 3), OK, "ldtilecfg from a misaligned address");
	tilerelease();
}

/*
 * XRSTOR never faults on a bad TILECFG image: the configuration becomes
 * the init state (and palette 0 reads back as zeros whatever else is set);
 * start_row is restored as it is.
 */
static void check_xrstor_tilecfg(void)
{
	/* What silicon was recorded doing; -1: not recorded, not checked. */
	static const struct {
		const char *name;
		int off, val;
		int valid;	/* STTILECFG reads back the image, else zeros */
		int start_row;
		long long inuse;
		int ld;		/* a TILELOADD of tmm0 afterwards */
	} v[] = {
		{ "palette 2", 0, 2,			0, 0, 0x40000, UD },
		{ "reserved byte 5 set", 5, 1,		0, 0, -1, -1 },
		{ "palette 0 with rows/colsb set", 0, 0,	0, 0, 0x40000, -1 },
		{ "rows 17", 48, 17,			0, 0, 0x40000, UD },
		{ "rows 2 colsb 0", 16, 0,		0, 0, -1, -1 },
		{ "start_row 1", 1, 1,			1, 1, -1, -1 },
		{ "start_row 0x80", 1, 0x80,		1, 0x80, -1, -1 },
	};
	unsigned int k;
	struct tmodel_cfg c, out;
	int o, ld;

	for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		uint64_t inuse;

		c = mkcfg(2, 8);
		((uint8_t *)&c)[v[k].off] = v[k].val;
		tilerelease();
		o = xrstor_state(&c, 0xaa);
		memset(&out, 0xee, sizeof(out));
		sttilecfg(&out);
		inuse = xgetbv1();
		ld = v[k].ld >= 0 ? LOAD(0, mem, 64) : -1;
		tap_ok(!o && (v[k].valid ? !memcmp(&out, &c, 64) :
			      count_bytes((uint8_t *)&out, 64, 0) == 64) &&
		       out.start_row == v[k].start_row &&
		       (v[k].inuse < 0 || inuse == (uint64_t)v[k].inuse) && ld == v[k].ld,
		       "xrstor of tilecfg, %s: %s; palette %d start_row %d xinuse %llx; tileloadd %s",
		       v[k].name, outcome(o), out.palette, out.start_row,
		       (unsigned long long)inuse, ld < 0 ? "-" : outcome(ld));
	}
	tilerelease();
}

/* ---- Partial tiles, start_row, shapes, TILERELEASE ----------------------- */

static int tile_rows_are(int t, int rows, int colsb, int (*byte)(int r), int rest)
{
	int r, i;

	for (r = 0; r < 16; r++) {
		const uint8_t *p = xa + data_off + t * 1024 + r * 64;

		for (i = 0; i < 64; i++) {
			int want = r < rows && i < colsb ? byte(r) : rest;

			if (want >= 0 && p[i] != want)
				return 0;
		}
	}
	return 1;
}

static int mem_row(int r) { return 0x11 + r; }
static int byte_aa(int r) { (void)r; return 0xaa; }
static int byte_00(int r) { (void)r; return 0; }

static void check_partial(void)
{
	static uint8_t dst[64 * 17];
	struct tmodel_cfg c, out;
	int o, r, ok;

	/* rows 3, colsb 12 over 0xaa: rows 0-2 get 12 bytes, the rest zero */
	c = mkcfg(3, 12);
	c.rows[1] = 16;
	c.colsb[1] = 64;
	xrstor_state(&c, 0xaa);
	o = LOAD(0, mem, 64);
	ok = xsave_state() == XTILE_BITS && tile_rows_are(0, 3, 12, mem_row, 0) &&
	     tile_rows_are(1, 16, 64, byte_aa, 0);
	tap_ok(!o && ok, "tileloadd of a 3x12 tile zeroes the rest, other tiles untouched (%s)",
	       outcome(o));
	memset(dst, 0xcc, sizeof(dst));
	o = STORE(0, dst, 64);
	ok = 1;
	for (r = 0; r < 5; r++)
		ok &= count_bytes(dst + 64 * r, 64, 0xcc) == (r < 3 ? 52 : 64) &&
		      (r >= 3 || dst[64 * r] == mem_row(r));
	tap_ok(!o && ok, "tilestored of a 3x12 tile writes 12 bytes of rows 0-2 only (%s)", outcome(o));

	xrstor_state(&c, 0xaa);
	o = tilezero0();
	ok = xsave_state() == XTILE_BITS && tile_rows_are(0, 16, 64, byte_00, 0);
	tap_ok(!o && ok, "tilezero of a 3x12 tile zeroes all 16 rows (%s)", outcome(o));
	c.start_row = 2;
	xrstor_state(&c, 0xaa);
	o = tilezero0();
	sttilecfg(&out);
	tap_ok(!o && out.start_row == 0, "tilezero with start_row 2 resets it: %d (%s)",
	       out.start_row, outcome(o));
	tilerelease();

	/* start_row 5 of an 8x16 tile: rows 0-4 kept, 5-7 loaded, 8-15 zero */
	c = mkcfg(8, 16);
	c.start_row = 5;
	xrstor_state(&c, 0xaa);
	o = LOAD(0, mem, 64);
	sttilecfg(&out);
	ok = xsave_state() == XTILE_BITS && out.start_row == 0;
	for (r = 0; r < 16; r++) {
		const uint8_t *p = xa + data_off + r * 64;

		if (r < 5)
			ok &= count_bytes(p, 64, 0xaa) == 64;
		else if (r < 8)
			ok &= count_bytes(p, 16, mem_row(r)) == 16 && count_bytes(p + 16, 48, 0) == 48;
		else
			ok &= count_bytes(p, 64, 0) == 64;
	}
	tap_ok(!o && ok, "tileloadd from start_row 5 keeps rows 0-4 and resets start_row (%s)",
	       outcome(o));
	tilerelease();
	ldtilecfg(&c);
	sttilecfg(&out);
	o = LOAD(0, mem, 64);
	ok = out.start_row == 5 && xsave_state() == XTILE_BITS;
	for (r = 0; r < 16; r++) {
		const uint8_t *p = xa + data_off + r * 64;

		ok &= r >= 5 && r < 8 ? count_bytes(p, 16, mem_row(r)) == 16 &&
					count_bytes(p + 16, 48, 0) == 48 :
					count_bytes(p, 64, 0) == 64;
	}
	tap_ok(!o && ok, "ldtilecfg keeps start_row 5; tileloadd then loads rows 5-7 (%s)",
	       outcome(o));
	xrstor_state(&c, 0xaa);
	memset(dst, 0xcc, sizeof(dst));
	o = STORE(0, dst, 64);
	sttilecfg(&out);
	ok = out.start_row == 0;
	for (r = 0; r < 9; r++)
		ok &= (dst[64 * r] == 0xaa) == (r >= 5 && r < 8);
	tap_ok(!o && ok, "tilestored from start_row 5 writes rows 5-7 only (%s)", outcome(o));

	/* TDPBSSD ignores start_row: all 8 rows get 4 * 1 * 1 added */
	c = mkcfg(8, 4);
	c.rows[1] = 8; c.colsb[1] = 4;
	c.rows[2] = 1; c.colsb[2] = 4;
	c.start_row = 5;
	xrstor_state(&c, 0x01);
	o = tdpbssd_012();
	sttilecfg(&out);
	ok = out.start_row == 0 && xsave_state() == XTILE_BITS;
	for (r = 0; r < 16; r++) {
		const uint8_t *p = xa + data_off + r * 64;

		ok &= r < 8 ? p[0] == 5 && count_bytes(p + 1, 3, 1) == 3 &&
			      count_bytes(p + 4, 60, 0) == 60 :
			      count_bytes(p, 64, 0) == 64;
	}
	tap_ok(!o && ok, "tdpbssd with start_row 5 computes all 8 rows and resets start_row (%s)",
	       outcome(o));
	tilerelease();
}

static void check_shapes(void)
{
	static const struct {
		const char *name;
		int rd, cd, ra, ca, rb, cb;
		int ok;
	} s[] = {
		{ "M=2 N=2 K=2", 2, 8, 2, 8, 2, 8, 1 },
		{ "M=16 N=16 K=16", 16, 64, 16, 64, 16, 64, 1 },
		{ "colsb[a]/4 != rows[b]", 2, 8, 2, 8, 3, 8, 0 },
		{ "rows[d] != rows[a]", 3, 8, 2, 8, 2, 8, 0 },
		{ "colsb[d] != colsb[b]", 2, 8, 2, 8, 2, 12, 0 },
		{ "colsb[d] = colsb[b] = 6", 2, 6, 2, 8, 2, 6, 0 },
		{ "colsb[a] 6, rows[b] 1", 2, 8, 2, 6, 1, 8, 0 },
	};
	unsigned int k;
	struct tmodel_cfg c;
	int o1, o2;

	for (k = 0; k < sizeof(s) / sizeof(s[0]); k++) {
		memset(&c, 0, sizeof(c));
		c.palette = 1;
		c.rows[0] = s[k].rd; c.colsb[0] = s[k].cd;
		c.rows[1] = s[k].ra; c.colsb[1] = s[k].ca;
		c.rows[2] = s[k].rb; c.colsb[2] = s[k].cb;
		ldtilecfg(&c);
		o1 = tdpbssd_012();
		o2 = tdpbf16ps_012();
		tap_ok(o1 == (s[k].ok ? OK : UD) && o2 == (s[k].ok ? OK : UD),
		       "shape %s: tdpbssd %s, tdpbf16ps %s", s[k].name, outcome(o1), outcome(o2));
	}
	c = mkcfg(2, 8);
	c.rows[1] = 2;
	c.colsb[1] = 8;
	ldtilecfg(&c);
	expect(tdpbssd_012(), UD, "tdpbssd with tmm2 unconfigured");
	expect(tdpbssd_001(), UD, "tdpbssd dst == src1");
	expect(tdpbssd_011(), UD, "tdpbssd src1 == src2");
	expect(tdpbssd_010(), UD, "tdpbssd dst == src2");
	tilerelease();
	expect(tdpbssd_012(), UD, "tdpbssd with no configuration");
}

static void check_tilerelease(void)
{
	struct tmodel_cfg c = mkcfg(3, 12), out;
	uint64_t before, after, bv;
	int o;

	xrstor_state(&c, 0xaa);
	before = xgetbv1();
	o = tilerelease();
	memset(&out, 0xee, sizeof(out));
	sttilecfg(&out);
	after = xgetbv1();
	bv = xsave_state();
	tap_ok(!o && before == XTILE_BITS && after == 0 && bv == 0 &&
	       count_bytes((uint8_t *)&out, 64, 0) == 64,
	       "tilerelease: xinuse %llx -> %llx, sttilecfg zeros, xstate_bv %llx",
	       (unsigned long long)before, (unsigned long long)after, (unsigned long long)bv);
	tap_ok(count_bytes(xa + data_off, 8192, 0) == 8192,
	       "standard xsave of init tile data writes 8192 zero bytes (%d)",
	       count_bytes(xa + data_off, 8192, 0));
	expect(LOAD(0, mem, 64), UD, "tileloadd after tilerelease");
	expect(tilerelease(), OK, "tilerelease twice");
}

/*
 * NaN selection of ordinary SSE and FMA scalar arithmetic, on silicon:
 * with two NaN operands SSE returns the first source operand (quieted),
 * whatever their kinds, unlike x87 (the larger significand); FMA returns
 * the first NaN in the order of the instruction's formula (for 213,
 * src2 * src1 + src3: src2 first).  The special-value probe computes its
 * reference with these instructions, so an emulator that chooses
 * otherwise gives a different reference.  Operands in Intel order: op1
 * is the destination.
 */
enum sse_op { ADDSS, SUBSS, MULSS, DIVSS, ADDSD, FMA213, FMA231, FMA132 };

struct sse_nan_vec {
	const char *name;
	enum sse_op op;
	uint64_t x1, x2, x3;
	uint64_t out;
};

static const struct sse_nan_vec sse_nan_vecs[] = {
	{ "addss qNaN 7fc1 + qNaN 7fe5", ADDSS, 0x7fc10000, 0x7fe50000, 0, 0x7fc10000 },
	{ "addss qNaN 7fe5 + qNaN 7fc1", ADDSS, 0x7fe50000, 0x7fc10000, 0, 0x7fe50000 },
	{ "addss sNaN 7f81 + qNaN 7fe5", ADDSS, 0x7f810000, 0x7fe50000, 0, 0x7fc10000 },
	{ "addss qNaN 7fc1 + sNaN 7fa0", ADDSS, 0x7fc10000, 0x7fa00000, 0, 0x7fc10000 },
	{ "addss qNaN 7fc12345 + qNaN 7fe5", ADDSS, 0x7fc12345, 0x7fe50000, 0, 0x7fc12345 },
	{ "subss 1 - qNaN 7fe5", SUBSS, 0x3f800000, 0x7fe50000, 0, 0x7fe50000 },
	{ "mulss -qNaN ffc3 * qNaN 7fc1", MULSS, 0xffc30000, 0x7fc10000, 0, 0xffc30000 },
	{ "divss qNaN 7fc1 / -qNaN ffe5", DIVSS, 0x7fc10000, 0xffe50000, 0, 0x7fc10000 },
	{ "addsd qNaN ...1 + qNaN 7ffc...", ADDSD, 0x7ff8000000000001ull,
	  0x7ffc000000000000ull, 0, 0x7ff8000000000001ull },
	{ "vfmadd213ss src1 qNaN 7fc1, src2 qNaN 7fe5", FMA213, 0x7fc10000, 0x7fe50000, 0,
	  0x7fe50000 },
	{ "vfmadd213ss src1 sNaN 7f81, src2 qNaN 7fe5", FMA213, 0x7f810000, 0x7fe50000, 0,
	  0x7fe50000 },
	{ "vfmadd213ss src1 qNaN 7fc1, src2 sNaN 7fa0", FMA213, 0x7fc10000, 0x7fa00000, 0,
	  0x7fe00000 },
	{ "vfmadd213ss src1 qNaN 7fc1, src3 qNaN 7fe5", FMA213, 0x7fc10000, 0x3f800000,
	  0x7fe50000, 0x7fc10000 },
	{ "vfmadd231ss src1 qNaN 7fc1, src2 qNaN 7fe5", FMA231, 0x7fc10000, 0x7fe50000,
	  0x3f800000, 0x7fe50000 },
	{ "vfmadd231ss src1 qNaN 7fc12345, finite product", FMA231, 0x7fc12345, 0x3f800000,
	  0x3f800000, 0x7fc12345 },
	{ "vfmadd132ss src2 qNaN 7fc1, src3 qNaN 7fe5", FMA132, 0x3f800000, 0x7fc10000,
	  0x7fe50000, 0x7fe50000 },
};

static uint64_t run_sse(const struct sse_nan_vec *v)
{
	double d1, d2;
	float f1, f2, f3;
	uint32_t u1 = v->x1, u2 = v->x2, u3 = v->x3;
	uint64_t r;

	memcpy(&f1, &u1, 4);
	memcpy(&f2, &u2, 4);
	memcpy(&f3, &u3, 4);
	switch (v->op) {
	case ADDSS: asm volatile("addss %1, %0" : "+x"(f1) : "x"(f2)); break;
	case SUBSS: asm volatile("subss %1, %0" : "+x"(f1) : "x"(f2)); break;
	case MULSS: asm volatile("mulss %1, %0" : "+x"(f1) : "x"(f2)); break;
	case DIVSS: asm volatile("divss %1, %0" : "+x"(f1) : "x"(f2)); break;
	case FMA213:
		asm volatile("vfmadd213ss %2, %1, %0" : "+x"(f1) : "x"(f2), "x"(f3));
		break;
	case FMA231:
		asm volatile("vfmadd231ss %2, %1, %0" : "+x"(f1) : "x"(f2), "x"(f3));
		break;
	case FMA132:
		asm volatile("vfmadd132ss %2, %1, %0" : "+x"(f1) : "x"(f2), "x"(f3));
		break;
	case ADDSD:
		memcpy(&d1, &v->x1, 8);
		memcpy(&d2, &v->x2, 8);
		asm volatile("addsd %1, %0" : "+x"(d1) : "x"(d2));
		memcpy(&r, &d1, 8);
		return r;
	}
	memcpy(&u1, &f1, 4);
	return u1;
}

static void check_sse_nan(void)
{
	unsigned int a, b, c, d, i;
	int fma;

	__cpuid(1, a, b, c, d);
	fma = !!(c & (1u << 12));
	for (i = 0; i < sizeof(sse_nan_vecs) / sizeof(sse_nan_vecs[0]); i++) {
		const struct sse_nan_vec *v = &sse_nan_vecs[i];
		uint64_t out;

		if (v->op >= FMA213 && !fma) {
			tap_skip("no FMA in CPUID", "%s", v->name);
			continue;
		}
		out = run_sse(v);
		tap_ok(out == v->out, "%s = 0x%llx (silicon 0x%llx)", v->name,
		       (unsigned long long)out, (unsigned long long)v->out);
	}
}

int main(void)
{
	unsigned int a, b, c, d, i;
	unsigned long supp = 0, perm = 0;
	struct sigaction sa;

	setvbuf(stdout, NULL, _IOLBF, 0);
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1u << 24)) || !(d & (1u << 25)) || !(d & (1u << 22)))
		tap_skip_all("AMX-TILE/INT8/BF16 not enumerated by CPUID");
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supp) ||
	    !(supp & (1ul << XFEATURE_XTILEDATA)))
		tap_skip_all("the kernel does not support AMX state");
	syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm);
	if (perm & (1ul << XFEATURE_XTILEDATA))
		tap_skip_all("XTILEDATA already permitted: the XFD checks need a fresh process");
	__cpuid_count(0xd, 17, a, b, c, d);
	cfg_off = b;
	__cpuid_count(0xd, 18, a, b, c, d);
	data_off = b;
	if (cfg_off + 64 > sizeof(xa) || data_off + 8192 > sizeof(xa))
		tap_bail_out("XSAVE layout does not fit");
	for (i = 0; i < sizeof(mem); i++)
		mem[i] = 0x11 + i / 64;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);

	tap_plan(15 + 1 + 6 + 23 + 1 + 7 + 8 + 7 + 5 + 4 +
		 (int)(sizeof(bf16_vecs) / sizeof(bf16_vecs[0]) +
		       sizeof(mxcsr_vecs) / sizeof(mxcsr_vecs[0]) +
		       sizeof(int8_vecs) / sizeof(int8_vecs[0]) +
		       sizeof(colsb_vecs) / sizeof(colsb_vecs[0]) +
		       sizeof(sse_nan_vecs) / sizeof(sse_nan_vecs[0])));
	check_xfd();
	tap_ok(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0,
	       "ARCH_REQ_XCOMP_PERM(XTILEDATA)");
	check_unconfigured();
	check_ldtilecfg();
	check_xrstor_tilecfg();
	check_partial();
	check_shapes();
	check_tilerelease();
	check_colsb();
	check_int8();
	check_bf16();
	check_sse_nan();
	tap_done();
}
