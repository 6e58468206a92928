// SPDX-License-Identifier: MIT
/*
 * fp16_vectors - TDPFP16PS (AMX-FP16), TCMMIMFP16PS and TCMMRLFP16PS
 * (AMX-COMPLEX) against the SDM's pseudo-code.
 *
 * No AMX-FP16 silicon has been available to record, so the expected
 * outputs are derived by hand from the pseudo-code; every case says how.
 * Its rules, in short (tests/amx_model.h has them in full): FP16 inputs
 * become FP32 exactly, denormals included; per result two FP32 lanes start
 * at +0 and take, k ascending, one fused multiply-add each (RNE, one
 * rounding, DAZ/FTZ); then dst = dst + (even + odd) with the incoming dst
 * read with DAZ.  Lanes: TDPFP16PS even a.re*b.re, odd a.im*b.im;
 * TCMMIMFP16PS even a.im*b.re, odd a.re*b.im; TCMMRLFP16PS even a.re*b.re,
 * odd (-a.im)*b.im.  NaN rules are those recorded on silicon for
 * TDPBF16PS: in a multiply-add src1's NaN beats src2's, which beats the
 * lane's; in an addition the first operand (even lane, dst) wins; NaNs
 * are quieted keeping sign and payload (FP16 payload << 13); Inf * 0 and
 * Inf - Inf give 0xffc00000.
 *
 * Then a randomized comparison of the instructions with that model on
 * thousands of random tiles, shapes and special values, and the #UD
 * cases (shapes, repeated registers, no configuration) in children.
 *
 * On a CPU with AMX-FP16 it checks the silicon; without, it skips (exit 4)
 * natively and is run under amx-run and in the QEMU guest, where it checks
 * the emulator.  The complex cases skip when only AMX-COMPLEX is missing.
 *
 * Usage: fp16_vectors [seed [tiles_per_op]]   Output: TAP.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <amx.h>

#include "../tap.h"
#include "../amx_test.h"
#include "emu.h"

enum { FP16 = TMODEL_FP16, CMMIM = TMODEL_CMMIM, CMMRL = TMODEL_CMMRL };

static const char *const opname[] = {
	[FP16] = "tdpfp16ps", [CMMIM] = "tcmmimfp16ps", [CMMRL] = "tcmmrlfp16ps",
};

/*
 * C (1x1) = c + A (1 x k dwords) . B (k x 1 dwords): a[2k] and b[2k] are
 * the even (real) FP16 values of step k, a[2k+1] and b[2k+1] the odd
 * (imaginary) ones.
 */
struct vec {
	int op;
	const char *name;
	uint32_t c;
	int k;
	uint16_t a[4], b[4];
	uint32_t out;
};

/* FP16: 1 3c00, 2 4000, 3 4200, 4 4400, 2^12 6c00, 65504 7bff, Inf 7c00 */
static const struct vec vecs[] = {
	/* ---- TDPFP16PS ---- */
	/* even 1*2, odd 2*1: (+0 + 2) + (+0 + 2) = 4; +0 + 4 */
	{ FP16, "1*2 + 2*1", 0x00000000, 1, { 0x3c00, 0x4000 }, { 0x4000, 0x3c00 }, 0x40800000 },
	/* the same accumulated into dst 1.0: 5 */
	{ FP16, "dst 1 + 1*2 + 2*1", 0x3f800000, 1, { 0x3c00, 0x4000 }, { 0x4000, 0x3c00 }, 0x40a00000 },
	/* 2^-24 * 2^-24 = 2^-48, a normal FP32 (0x27800000): denormals are
	 * converted, not read as zero (DAZ on FP16 would give +0) */
	{ FP16, "fp16 min denormal squared", 0x00000000, 1, { 0x0001, 0x0000 }, { 0x0001, 0x0000 }, 0x27800000 },
	/* 0x03ff = 1023 * 2^-24 = 1.998046875 * 2^-15, times 1: exact */
	{ FP16, "fp16 max denormal * 1", 0x00000000, 1, { 0x03ff, 0x0000 }, { 0x3c00, 0x0000 }, 0x387fc000 },
	/* -2^-24 * 2^-24 = -2^-48 in the even lane; odd +0; sum -2^-48 */
	{ FP16, "-denormal * denormal", 0x00000000, 1, { 0x8001, 0x0000 }, { 0x0001, 0x0000 }, 0xa7800000 },
	/* 65504^2 = 2^32 - 2^22 + 2^10: 22 significant bits, exact; FP16
	 * products never overflow FP32 */
	{ FP16, "65504 * 65504 exact", 0x00000000, 1, { 0x7bff, 0x0000 }, { 0x7bff, 0x0000 }, 0x4f7fc004 },
	/* FLT_MAX + 2^32: far below half an ulp (2^103): FLT_MAX, no Inf */
	{ FP16, "dst FLT_MAX + 65504^2: no overflow", 0x7f7fffff, 1, { 0x7bff, 0x0000 }, { 0x7bff, 0x0000 }, 0x7f7fffff },
	/* lanes are +0 + (-0 * +0) = +0 (RNE), sum +0, dst -0 + +0 = +0 */
	{ FP16, "dst -0, products -0: +0", 0x80000000, 1, { 0x8000, 0x8000 }, { 0x0000, 0x0000 }, 0x00000000 },
	/* even -1, odd +1: -1 + 1 = +0 (exact cancellation is +0 in RNE) */
	{ FP16, "cancellation across lanes, dst -0", 0x80000000, 1, { 0xbc00, 0x3c00 }, { 0x3c00, 0x3c00 }, 0x00000000 },
	/* dst 1 + (-1 + +0) = +0 */
	{ FP16, "cancellation against dst", 0x3f800000, 1, { 0xbc00, 0x0000 }, { 0x3c00, 0x0000 }, 0x00000000 },
	/* even: +0 + 65504^2 = B, then B + 2^-24 = B (ulp of B is 2^8);
	 * odd: -B, then + 0 = -B; B + -B = +0.  Pairing the products by k
	 * instead (B - B, then + 2^-24) would give 2^-24 (0x33800000). */
	{ FP16, "per-lane accumulation order", 0x00000000, 2,
	  { 0x7bff, 0x7bff, 0x0001, 0x0000 }, { 0x7bff, 0xfbff, 0x3c00, 0x0000 }, 0x00000000 },
	/* even: 2^24 (2^12 * 2^12), then 2^24 + 1 ties to even: 2^24; odd
	 * +0 + 0 then 1; 2^24 + 1 ties to 2^24 again.  Exact: 2^24 + 2. */
	{ FP16, "RNE ties to even, per step", 0x00000000, 2,
	  { 0x6c00, 0x0000, 0x3c00, 0x3c00 }, { 0x6c00, 0x0000, 0x3c00, 0x3c00 }, 0x4b800000 },
	/* dst 2^24 + 2 (0x4b800001) + 1 = 2^24 + 3: ties up to 2^24 + 4 */
	{ FP16, "RNE tie rounds up to even", 0x4b800001, 1, { 0x3c00, 0x0000 }, { 0x3c00, 0x0000 }, 0x4b800002 },
	/* Inf * 1 = +Inf; 1 + Inf = Inf */
	{ FP16, "Inf * 1", 0x3f800000, 1, { 0x7c00, 0x0000 }, { 0x3c00, 0x0000 }, 0x7f800000 },
	/* -Inf * -2 = +Inf */
	{ FP16, "-Inf * -2", 0x00000000, 1, { 0xfc00, 0x0000 }, { 0xc000, 0x0000 }, 0x7f800000 },
	/* Inf * 0: invalid, the default NaN */
	{ FP16, "Inf * 0", 0x00000000, 1, { 0x7c00, 0x0000 }, { 0x0000, 0x0000 }, 0xffc00000 },
	/* Inf * 2^-24 = Inf: the denormal is not zero (DAZ would give NaN) */
	{ FP16, "Inf * fp16 denormal", 0x00000000, 1, { 0x7c00, 0x0000 }, { 0x0001, 0x0000 }, 0x7f800000 },
	/* even +Inf, odd -Inf: Inf - Inf in even + odd: default NaN */
	{ FP16, "Inf - Inf across lanes", 0x00000000, 1, { 0x7c00, 0x7c00 }, { 0x3c00, 0xbc00 }, 0xffc00000 },
	/* sum -Inf, dst +Inf: Inf - Inf in dst + sum: default NaN */
	{ FP16, "dst Inf + -Inf", 0x7f800000, 1, { 0xfc00, 0x0000 }, { 0x3c00, 0x0000 }, 0xffc00000 },
	/* dst +Inf + 1 = +Inf */
	{ FP16, "dst Inf + finite", 0x7f800000, 1, { 0x3c00, 0x0000 }, { 0x3c00, 0x0000 }, 0x7f800000 },
	/* qNaN 7e01: payload 0x201 << 13 = 0x402000 */
	{ FP16, "qNaN in A", 0x00000000, 1, { 0x7e01, 0x0000 }, { 0x3c00, 0x0000 }, 0x7fc02000 },
	/* sNaN 7c01: 0x7f802000, quieted: 0x7fc02000 */
	{ FP16, "sNaN in A quieted", 0x00000000, 1, { 0x7c01, 0x0000 }, { 0x3c00, 0x0000 }, 0x7fc02000 },
	/* -sNaN fd00 in B: 0xffa00000 | quiet bit */
	{ FP16, "-sNaN in B quieted", 0x00000000, 1, { 0x3c00, 0x0000 }, { 0xfd00, 0x0000 }, 0xffe00000 },
	/* both NaN: src1's wins */
	{ FP16, "NaN A beats NaN B", 0x00000000, 1, { 0x7e01, 0x0000 }, { 0xfe02, 0x0000 }, 0x7fc02000 },
	/* even lane: NaN 7e03 from B at k 0, then NaN 7e05 from A at k 1:
	 * the multiplicand's NaN beats the lane's */
	{ FP16, "NaN A beats the lane's NaN", 0x00000000, 2,
	  { 0x3c00, 0x0000, 0x7e05, 0x0000 }, { 0x7e03, 0x0000, 0x3c00, 0x0000 }, 0x7fc0a000 },
	/* even NaN 7e01, odd NaN 7e02: even + odd keeps the even lane's */
	{ FP16, "even lane NaN beats odd", 0x00000000, 1, { 0x7e01, 0x7e02 }, { 0x3c00, 0x3c00 }, 0x7fc02000 },
	/* only the odd lane NaN (negative): 1 + NaN */
	{ FP16, "odd lane NaN", 0x00000000, 1, { 0x3c00, 0xfe02 }, { 0x3c00, 0x3c00 }, 0xffc04000 },
	/* dst's NaN beats the sum's in dst + sum */
	{ FP16, "dst NaN beats product NaN", 0x7fc12345, 1, { 0x7e01, 0x0000 }, { 0x3c00, 0x0000 }, 0x7fc12345 },
	/* dst sNaN quieted */
	{ FP16, "dst sNaN quieted", 0x7f812345, 1, { 0x3c00, 0x0000 }, { 0x3c00, 0x0000 }, 0x7fc12345 },
	/* dst denormal read as zero: +0 + +0 = +0 */
	{ FP16, "dst denormal is zero (DAZ)", 0x00000001, 1, { 0x0000, 0x0000 }, { 0x0000, 0x0000 }, 0x00000000 },
	/* -denormal read as -0; -0 + +0 = +0.  (Computed and then flushed
	 * (FTZ) it would be -0.)  FP16 products are multiples of 2^-48 and
	 * the lanes start at +0, so no sum is ever a nonzero FP32 denormal:
	 * this is the only way a denormal can reach the output. */
	{ FP16, "dst -denormal is -0 (DAZ)", 0x80000001, 1, { 0x0000, 0x0000 }, { 0x0000, 0x0000 }, 0x00000000 },
	/* FLT_MIN is normal: kept */
	{ FP16, "dst FLT_MIN kept", 0x00800000, 1, { 0x0000, 0x0000 }, { 0x0000, 0x0000 }, 0x00800000 },

	/* ---- TCMMIMFP16PS: im(a b) = im(a) re(b) + re(a) im(b) ---- */
	/* (1+2i)(3+4i) = -5+10i: even 2*3, odd 1*4 */
	{ CMMIM, "im (1+2i)(3+4i) = 10", 0x00000000, 1, { 0x3c00, 0x4000 }, { 0x4200, 0x4400 }, 0x41200000 },
	/* k 0: (1+i)(1+i) im 2; k 1: (2+0i)(0+3i) im 6: even 1 + 0, odd 1 + 6 */
	{ CMMIM, "im over k = 8", 0x00000000, 2,
	  { 0x3c00, 0x3c00, 0x4000, 0x0000 }, { 0x3c00, 0x3c00, 0x0000, 0x4200 }, 0x41000000 },
	/* even lane is a.im * b.re: a.im's NaN 7e01 comes first, a.re's
	 * 7e02 is in the odd lane (TDPFP16PS would give 7fc04000) */
	{ CMMIM, "even lane pairs a.im with b.re", 0x00000000, 1, { 0x7e02, 0x7e01 }, { 0x3c00, 0x3c00 }, 0x7fc02000 },
	/* even: 1 * NaN(b.re 7e05) -> 7fc0a000; odd: NaN(a.re 7e02) * 1 */
	{ CMMIM, "b.re NaN in the even lane", 0x00000000, 1, { 0x7e02, 0x3c00 }, { 0x7e05, 0x3c00 }, 0x7fc0a000 },
	/* 2^-24 * 2^-24 in the even lane (a.im, b.re) */
	{ CMMIM, "denormals a.im * b.re", 0x00000000, 1, { 0x0000, 0x0001 }, { 0x0001, 0x0000 }, 0x27800000 },
	/* odd a.re Inf * b.im 0: default NaN; even 1; 1 + NaN */
	{ CMMIM, "Inf * 0 in the odd lane", 0x00000000, 1, { 0x7c00, 0x3c00 }, { 0x3c00, 0x0000 }, 0xffc00000 },
	/* (1-i)(1+i) = 2 + 0i: even -1, odd +1, +0; dst -0 + +0 = +0 */
	{ CMMIM, "im (1-i)(1+i) = +0", 0x80000000, 1, { 0x3c00, 0xbc00 }, { 0x3c00, 0x3c00 }, 0x00000000 },

	/* ---- TCMMRLFP16PS: re(a b) = re(a) re(b) + (-im(a)) im(b) ---- */
	/* (1+2i)(3+4i): even 1*3, odd -2*4: 3 - 8 = -5 */
	{ CMMRL, "re (1+2i)(3+4i) = -5", 0x00000000, 1, { 0x3c00, 0x4000 }, { 0x4200, 0x4400 }, 0xc0a00000 },
	/* i * i = -1: even 0*0, odd (-1)*1 */
	{ CMMRL, "re i*i = -1", 0x00000000, 1, { 0x0000, 0x3c00 }, { 0x0000, 0x3c00 }, 0xbf800000 },
	/* (1+i)(1-i) = 2: odd (-1)*(-1) = +1 */
	{ CMMRL, "re (1+i)(1-i) = 2", 0x00000000, 1, { 0x3c00, 0x3c00 }, { 0x3c00, 0xbc00 }, 0x40000000 },
	/* (1+i)(1+i) = 2i: even 1, odd -1: +0; dst -0 + +0 = +0 */
	{ CMMRL, "re (1+i)^2 = +0", 0x80000000, 1, { 0x3c00, 0x3c00 }, { 0x3c00, 0x3c00 }, 0x00000000 },
	/* a.im is negated as FP16, before conversion: NaN 7e01 becomes
	 * fe01, which wins the odd lane: 0xffc02000 */
	{ CMMRL, "negated a.im NaN flips sign", 0x00000000, 1, { 0x3c00, 0x7e01 }, { 0x3c00, 0x3c00 }, 0xffc02000 },
	/* a.re's NaN is not negated */
	{ CMMRL, "a.re NaN keeps sign", 0x00000000, 1, { 0x7e01, 0x3c00 }, { 0x3c00, 0x3c00 }, 0x7fc02000 },
	/* b.im's NaN is not negated: (-1) * NaN(fe03) -> ffc06000 */
	{ CMMRL, "b.im NaN keeps sign", 0x00000000, 1, { 0x3c00, 0x3c00 }, { 0x3c00, 0xfe03 }, 0xffc06000 },
	/* (Inf i)(Inf i) = -Inf: odd (-Inf) * Inf */
	{ CMMRL, "re (Inf i)^2 = -Inf", 0x00000000, 1, { 0x0000, 0x7c00 }, { 0x0000, 0x7c00 }, 0xff800000 },
	/* (Inf + Inf i)(1 + i): even +Inf, odd -Inf: default NaN */
	{ CMMRL, "re Inf - Inf", 0x00000000, 1, { 0x7c00, 0x7c00 }, { 0x3c00, 0x3c00 }, 0xffc00000 },
	/* odd (-2^-24) * 2^-24 = -2^-48; +0 + -2^-48 */
	{ CMMRL, "re of denormal imaginary parts", 0x00000000, 1, { 0x0000, 0x0001 }, { 0x0000, 0x0001 }, 0xa7800000 },
};
#define NVECS (int)(sizeof(vecs) / sizeof(vecs[0]))

/* ---- The instructions: tmm0 += tmm1 . tmm2 ------------------------------- */

static void hw_op(int op)
{
	switch (op) {
	case FP16: amx_tdpfp16ps(0, 1, 2); break;
	case CMMIM: amx_tcmmimfp16ps(0, 1, 2); break;
	default: amx_tcmmrlfp16ps(0, 1, 2); break;
	}
}

static void hw_ldtilecfg(const struct tmodel_cfg *c)
{
	asm volatile("ldtilecfg (%0)" :: "r"(c) : "memory");
}

static void hw_release(void)
{
	asm volatile("tilerelease" ::: "memory");
}

/* tmm0: M x 4N, tmm1: M x 4K, tmm2: K x 4N */
static struct tmodel_cfg shape(int m, int n, int k)
{
	struct tmodel_cfg c = { .palette = 1 };

	c.rows[0] = m;
	c.colsb[0] = 4 * n;
	c.rows[1] = m;
	c.colsb[1] = 4 * k;
	c.rows[2] = k;
	c.colsb[2] = 4 * n;
	return c;
}

/* ---- Hand-checked cases -------------------------------------------------- */

static void check_vecs(int has[])
{
	for (int i = 0; i < NVECS; i++) {
		const struct vec *v = &vecs[i];
		struct tmodel_cfg c = shape(1, 1, v->k);
		struct tmodel m = { 0 };
		uint32_t out = 0xdeadbeef, want;

		if (!has[v->op]) {
			tap_skip("no AMX-COMPLEX in CPUID", "%s %s", opname[v->op], v->name);
			continue;
		}
		hw_ldtilecfg(&c);
		amx_tile_load(0, &v->c, 4);
		amx_tile_load(1, v->a, 4 * v->k);
		amx_tile_load(2, v->b, 4);
		hw_op(v->op);
		amx_tile_store(0, &out, 4);
		hw_release();

		tmodel_ldtilecfg(&m, &c);
		tmodel_loadd(&m, 0, &v->c, 4);
		tmodel_loadd(&m, 1, v->a, 4 * v->k);
		tmodel_loadd(&m, 2, v->b, 4);
		tmodel_tdp(&m, (enum tmodel_op)v->op, 0, 1, 2);
		memcpy(&want, m.t[0][0], 4);

		tap_ok(out == v->out && want == v->out,
		       "%s %s: %08x (model %08x, expected %08x)",
		       opname[v->op], v->name, out, want, v->out);
	}
}

/* ---- Random tiles against tests/amx_model.h ------------------------------ */

static uint64_t rng;

static unsigned rndn(unsigned n)
{
	return (unsigned)(amx_test_rand(&rng) % n);
}

/* An FP16 value; @special: 0 none, else one in about 2^special */
static uint16_t rnd_fp16(int special)
{
	uint16_t sign = rndn(2) << 15, mant = rndn(1024);

	if (special && !rndn(1u << special)) {
		switch (rndn(4)) {
		case 0: return sign | 0x7c00;				/* Inf */
		case 1: return sign | 0x7e00 | (mant & 0x1ff);		/* qNaN */
		case 2: return sign | 0x7c00 | (mant & 0x1ff ? mant & 0x1ff : 1); /* sNaN */
		default: return sign | 0x7bff;				/* max */
		}
	}
	switch (rndn(16)) {
	case 0: return sign;						/* +-0 */
	case 1: return sign | mant;					/* denormal */
	case 2: return sign | 0x0400 | mant;				/* tiny normal */
	default: return sign | (uint16_t)((8 + rndn(15)) << 10) | mant;	/* 2^-7..2^7 */
	}
}

/* An FP32 destination value */
static uint32_t rnd_fp32(int special)
{
	uint32_t sign = (uint32_t)rndn(2) << 31;
	uint32_t mant = (uint32_t)amx_test_rand(&rng) & 0x7fffff;

	switch (rndn(special ? 16 : 64)) {
	case 0: return sign;						/* +-0 */
	case 1: return sign | (mant ? mant : 1);			/* denormal */
	case 2: return sign | 0x7f7fffff;				/* FLT_MAX */
	case 3: return sign | 0x00800000;				/* FLT_MIN */
	case 4: return special ? sign | 0x7f800000 : sign;		/* Inf */
	case 5: return special ? sign | 0x7fc00000 | mant : sign;	/* qNaN */
	case 6: return special ? sign | 0x7f800000 | (mant >> 1 ? mant >> 1 : 1) : sign;
	default: return sign | (uint32_t)(117 + rndn(20)) << 23 | mant;	/* 2^-10..2^9 */
	}
}

static int random_tiles(int op, int count, char *why, size_t len)
{
	static uint8_t a[16][64], b[16][64], c[16][64], out[16][64];

	for (int i = 0; i < count; i++) {
		int full = !rndn(4), M = full ? 16 : 1 + rndn(16);
		int N = full ? 16 : 1 + rndn(16), K = full ? 16 : 1 + rndn(16);
		int special = rndn(3) ? 0 : 4 + rndn(5);	/* 1/16..1/256 */
		struct tmodel_cfg cfg = shape(M, N, K);
		static struct tmodel m;

		for (int r = 0; r < 16; r++) {
			for (int j = 0; j < 32; j++) {
				uint16_t x = rnd_fp16(special), y = rnd_fp16(special);

				memcpy(&a[r][2 * j], &x, 2);
				memcpy(&b[r][2 * j], &y, 2);
			}
			for (int j = 0; j < 16; j++) {
				uint32_t z = rnd_fp32(special);

				memcpy(&c[r][4 * j], &z, 4);
			}
		}
		hw_ldtilecfg(&cfg);
		amx_tile_load(0, c, 64);
		amx_tile_load(1, a, 64);
		amx_tile_load(2, b, 64);
		hw_op(op);
		memset(out, 0xa5, sizeof(out));
		amx_tile_store(0, out, 64);
		hw_release();

		tmodel_ldtilecfg(&m, &cfg);
		tmodel_loadd(&m, 0, c, 64);
		tmodel_loadd(&m, 1, a, 64);
		tmodel_loadd(&m, 2, b, 64);
		tmodel_tdp(&m, (enum tmodel_op)op, 0, 1, 2);
		for (int r = 0; r < M; r++) {
			if (!memcmp(out[r], m.t[0][r], 4 * N))
				continue;
			for (int n = 0; n < N; n++) {
				uint32_t h, w;

				memcpy(&h, &out[r][4 * n], 4);
				memcpy(&w, &m.t[0][r][4 * n], 4);
				if (h != w) {
					snprintf(why, len, "tile %d (%dx%dx%d): "
						 "C[%d][%d] %08x, model %08x",
						 i, M, N, K, r, n, h, w);
					return 0;
				}
			}
		}
	}
	snprintf(why, len, "%d random tiles", count);
	return 1;
}

/* ---- #UD: the TDP* rules (shapes, distinct registers, configuration) ----- */

static struct tmodel_cfg ud_cfg;
static int ud_insn;

static void ud_child(void)
{
	static const uint8_t zeros[16 * 64];

	hw_ldtilecfg(&ud_cfg);
	if (ud_cfg.palette) {
		amx_tile_load(1, zeros, 64);
		amx_tile_load(2, zeros, 64);
	}
	switch (ud_insn) {
	case 0: hw_op(FP16); break;
	case 1: hw_op(CMMIM); break;
	case 2: hw_op(CMMRL); break;
	/* repeated registers: assemblers refuse them, so bytes */
	case 3: asm volatile(".byte 0xc4,0xe2,0x73,0x5c,0xc0"); break;	/* tdpfp16ps dst = src1 */
	case 4: asm volatile(".byte 0xc4,0xe2,0x69,0x6c,0xc2"); break;	/* tcmmim src1 = src2 */
	case 5: asm volatile(".byte 0xc4,0xe2,0x78,0x6c,0xc1"); break;	/* tcmmrl dst = src2 */
	}
	_exit(0);
}

/* A fault in the child: its exit code says which (no core dump) */
static void ud_signal(int sig)
{
	_exit(100 + sig);
}

/* The signal that ended a child running instruction @insn under @cfg */
static int run_ud(int insn, const struct tmodel_cfg *cfg)
{
	int status;
	pid_t pid;

	ud_insn = insn;
	ud_cfg = *cfg;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		signal(SIGILL, ud_signal);
		signal(SIGSEGV, ud_signal);
		ud_child();
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		tap_bail_out("fork/waitpid failed");
	if (WIFEXITED(status) && WEXITSTATUS(status) > 100)
		return WEXITSTATUS(status) - 100;
	return WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status) ? -1 : 0;
}

static void check_ud(int has[])
{
	/* square: a register named twice would still fit the shapes */
	struct tmodel_cfg good = shape(2, 3, 4), square = shape(4, 4, 4), bad;
	static const struct tmodel_cfg none;

	for (int op = FP16; op <= CMMRL; op++) {
		int insn = op - FP16;

		if (!has[op]) {
			for (int j = 0; j < 5; j++)
				tap_skip("no AMX-COMPLEX in CPUID", "%s #UD case %d", opname[op], j);
			continue;
		}
		tap_ok(run_ud(insn, &good) == 0, "%s 2x3x4 runs", opname[op]);
		bad = good;
		bad.rows[2] = 3;		/* K 4 != B's 3 rows */
		tap_ok(run_ud(insn, &bad) == SIGILL, "%s src1 colsb/4 != src2 rows: #UD", opname[op]);
		bad = good;
		bad.colsb[2] = 16;		/* B 4 columns, C 3 */
		tap_ok(run_ud(insn, &bad) == SIGILL, "%s dst colsb != src2 colsb: #UD", opname[op]);
		tap_ok(run_ud(insn, &none) == SIGILL, "%s without a configuration: #UD", opname[op]);
		tap_ok(run_ud(3 + insn, &square) == SIGILL, "%s with a register twice: #UD", opname[op]);
	}
}

int main(int argc, char **argv)
{
	unsigned int a, b, c, d, max7, tile;
	unsigned long supp = 0;
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20261205;
	int count = argc > 2 ? atoi(argv[2]) : 1200;
	int has[TMODEL_NOPS] = { 0 };
	char why[160];

	setvbuf(stdout, NULL, _IOLBF, 0);
	__cpuid_count(7, 0, max7, b, c, tile);
	if (max7 >= 1) {
		__cpuid_count(7, 1, a, b, c, d);
		has[FP16] = !!(a & (1u << 21));
		has[CMMIM] = has[CMMRL] = !!(d & (1u << 8));
	}
	if (!(tile & (1u << 24)) || !has[FP16]) {
		snprintf(why, sizeof(why), "AMX-FP16 silicon is absent "
			 "(CPUID AMX-TILE %s, AMX-FP16 %s): run this under "
			 "amx-run or in the QEMU guest",
			 tile & (1u << 24) ? "set" : "clear",
			 has[FP16] ? "set" : "clear");
		tap_skip_all(why);
	}
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supp) ||
	    !(supp & (1ul << XFEATURE_XTILEDATA)))
		tap_skip_all("the kernel does not support AMX state");
	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA))
		tap_bail_out("ARCH_REQ_XCOMP_PERM(XTILEDATA) refused");

	tap_plan(NVECS + 3 + 15);
	printf("# AMX-FP16 %s, AMX-COMPLEX %s; seed %llu, %d tiles per instruction\n",
	       has[FP16] ? "yes" : "no", has[CMMIM] ? "yes" : "no",
	       (unsigned long long)seed, count);
	check_vecs(has);
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	for (int op = FP16; op <= CMMRL; op++) {
		if (!has[op]) {
			tap_skip("no AMX-COMPLEX in CPUID", "%s random tiles", opname[op]);
			continue;
		}
		tap_ok(random_tiles(op, count, why, sizeof(why)),
		       "%s against tests/amx_model.h: %s", opname[op], why);
	}
	check_ud(has);
	tap_done();
}
