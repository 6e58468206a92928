// SPDX-License-Identifier: MIT
/*
 * The AVX-512 epilogue (epilogue_avx512.c) against the portable C one
 * (epilogue.c), bit for bit, on the values where their ways of computing
 * could part: exp()'s clamps and its denormal results (GELU and SiLU of
 * values a few units from 0), +-0, +-inf, NaN, denormal and random bit
 * patterns, every activation, both outputs, with and without accumulate,
 * fp32 and int32 (with zero points) accumulators, and every row count of
 * a micro-tile (the AVX-512 rows go several at a time, then one by one),
 * bf16 output with and without VCVTNEPS2BF16 (which takes denormals for
 * 0, so its lanes that hold one are converted as in C).
 * The GEMM tests compare the two only on a few ordinary values.  (A NaN
 * need only be a NaN: see same().)  Links
 * the static library for the internal gemm_epi_tile().
 */
#include <amx.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "gemm/gemm.h"

#define COLS	32
#define ROWS	16
#define LD	40	/* elements from one row of C to the next */
#define TILES	100000

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)(state >> 16);
}

/* ints in [-r, r) scaled by @unit */
static float spread(int32_t r, float unit)
{
	return (float)((int32_t)(next() % (uint32_t)(2 * r)) - r) * unit;
}

static float value(void)
{
	static const float special[] = {
		0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f,
		89.0f, -104.0f, 88.9f, -103.9f, 2.0f, 3.5f, 5.0f, -5.0f,
		3.4e38f, -3.4e38f,
	};
	uint32_t b;
	float f;

	switch (next() % 6) {
	case 0:		/* exp()'s whole range, and past its clamps */
		return spread(200000, 1e-3f);
	case 1:		/* GELU's and SiLU's denormal results */
		return spread(100000, 1e-4f) + (next() & 1 ? 5.0f : -60.0f);
	case 2:
		b = next() << 16 ^ next();
		memcpy(&f, &b, sizeof(f));
		return f;
	case 3:
		return spread(1000, 1e-4f);
	case 4:
		return special[next() % (sizeof(special) / sizeof(special[0]))];
	default:
		return spread(1000000, 1e-5f);
	}
}

/*
 * C's bytes the same, but for which NaN: where both the new value and
 * C's old one are NaNs (accumulate), x86 returns the payload of the
 * first operand of the add, and the compiler may put either first (an
 * add commutes for it); so a NaN is only required to be a NaN.
 */
static int same(const uint8_t *x, const uint8_t *y, size_t osz)
{
	for (size_t i = 0; i < ROWS * LD * 4; i += osz) {
		uint32_t a = 0, b = 0;

		memcpy(&a, x + i, osz);
		memcpy(&b, y + i, osz);
		if (a == b)
			continue;
		if (osz == 2 ? (a & 0x7fff) > 0x7f80 && (b & 0x7fff) > 0x7f80 :
			       (a & 0x7fffffff) > 0x7f800000 &&
			       (b & 0x7fffffff) > 0x7f800000)
			continue;
		return 0;
	}
	return 1;
}

int main(void)
{
	static float src[ROWS * COLS];
	static int32_t isrc[ROWS * COLS], colsum[COLS + 8], zp[ROWS];
	static float w[COLS + 8], bias[COLS + 8], rs[ROWS];
	static uint8_t c0[ROWS * LD * 4], c1[ROWS * LD * 4];
	static uint8_t start[ROWS * LD * 4];
	int differ[2][5] = { { 0 } }, tiles[2][5] = { { 0 } }, bf16;

	if (!__builtin_cpu_supports("avx512f") ||
	    !__builtin_cpu_supports("avx512bw") ||
	    !__builtin_cpu_supports("avx512vl"))
		tap_skip_all("no AVX-512 F/BW/VL: the C epilogue is the only one");
	bf16 = gemm_cpu_avx512bf16();
	if (!bf16)
		tap_diag("no AVX512-BF16: bf16 output only without VCVTNEPS2BF16");
	tap_plan(10);
	for (int t = 0; t < TILES; t++) {
		struct amx_epilogue ep = {
			.act = (uint32_t)(t % 5), .out = (uint32_t)(t / 5 % 2),
			.n = COLS + 8, .w = w, .bias = t / 10 % 3 ? bias : NULL,
		};
		int isint = t / 30 % 2;
		struct gemm_epi e = {
			.ep = &ep, .isint = isint, .acc = t / 60 % 2,
			.rs = isint ? rs : NULL, .zp = isint ? zp : NULL,
			.colsum = colsum, .ldc = LD,
		};
		size_t rows = 1 + (size_t)t % ROWS, cols = COLS - (size_t)t % 3;
		size_t j = (size_t)t % 9;

		for (int i = 0; i < ROWS * COLS; i++) {
			src[i] = value();
			/* of every magnitude, so that GELU is not all 0 or v */
			isrc[i] = (int32_t)(next() << 16 ^ next()) >>
				  (next() % 31);
		}
		for (int i = 0; i < COLS + 8; i++) {
			/* w and bias ordinary: the values above do the rest */
			w[i] = spread(1000, 1e-3f);
			bias[i] = spread(1000, 1e-2f);
			colsum[i] = (int32_t)(next() % 100000) - 50000;
		}
		for (int i = 0; i < ROWS; i++) {
			rs[i] = spread(1000, 1e-5f);
			zp[i] = (int32_t)(next() % 256);
		}
		for (size_t i = 0; i < sizeof(c0); i++)
			start[i] = (uint8_t)next();
		memcpy(c1, start, sizeof(c0));
		e.avx512 = 0;
		e.c = c1;
		gemm_epi_tile(&e, 0, rows, j, cols, isint ? (void *)isrc : src,
			      COLS);
		/* AVX-512 without VCVTNEPS2BF16, and with it where there */
		for (int cvt = 0; cvt <= bf16; cvt++) {
			memcpy(c0, start, sizeof(c0));
			e.avx512 = 1;
			e.c = c0;
			gemm_epi_tile_avx512_as(&e, 0, rows, j, cols,
						isint ? (void *)isrc : src,
						COLS, cvt);
			tiles[isint][ep.act]++;
			if (!same(c0, c1, ep.out ? 2 : 4) &&
			    differ[isint][ep.act]++ == 0)
				tap_diag("tile %d (act %u, out %u, acc %d, %zu rows, VCVTNEPS2BF16 %d) differs",
					 t, ep.act, ep.out, e.acc, rows, cvt);
		}
	}
	for (int isint = 0; isint < 2; isint++)
		for (int act = 0; act < 5; act++)
			tap_ok(!differ[isint][act],
			       "%s accumulators, act %d: AVX-512 and C give the same bits (%d of %d runs differ)",
			       isint ? "int32" : "fp32", act,
			       differ[isint][act], tiles[isint][act]);
	return tap_finish();
}
