// SPDX-License-Identifier: MIT
/*
 * fp16 <-> fp32: every one of the 65 536 fp16 values against a decoder
 * written here, every fp16 back unchanged, fp32 -> fp16 rounding against
 * an oracle that compares exact distances in double (all values near the
 * fp16 range's edges, ties, denormals, overflow, and 2^24 random fp32),
 * NaN quieting and payloads, and the array forms (AVX-512F where the CPU
 * has it) bit-identical to the scalar ones at every length and offset.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amx_test.h"

/* the value of a finite fp16, or +-65536 for the infinities */
static double h2d(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e == 31 ? 65536.0 : e ? ldexp(1024 + m, e - 25) :
		   ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

/*
 * Oracle for non-NaN inputs: the fp16 magnitudes in order are the
 * integers 0 .. 0x7c00 (0x7c00 infinity, which rounding treats as 2^16,
 * the next power of two past the largest finite value 65504); find the
 * two neighbours of |f| by bisection and take the nearer, ties to the
 * even encoding.
 */
static uint16_t ref_round(float f)
{
	double x = fabs((double)f);
	uint16_t lo = 0, hi = 0x7c00, sign = signbit(f) ? 0x8000 : 0;

	if (x >= 65536.0)
		return sign | 0x7c00;
	while (hi - lo > 1) {
		uint16_t mid = (uint16_t)((lo + hi) / 2);

		if (h2d(mid) <= x)
			lo = mid;
		else
			hi = mid;
	}
	if (h2d(lo) == x)
		return sign | lo;
	if (x - h2d(lo) < h2d(hi) - x)
		return sign | lo;
	if (x - h2d(lo) > h2d(hi) - x)
		return sign | hi;
	return sign | (lo & 1 ? hi : lo);
}

static int convert_ok(float f, uint16_t *got)
{
	uint32_t u = amx_test_bits(f);
	uint16_t want;

	*got = amx_fp32_to_fp16(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)	/* NaN: quiet, top payload */
		want = (uint16_t)((u >> 16 & 0x8000) | 0x7e00 | (u >> 13 & 0x3ff));
	else
		want = ref_round(f);
	return *got == want;
}

int main(void)
{
	static float f32[1000], g32[1000];
	static amx_fp16 h16[1000], k16[1000];
	uint64_t seed = 0x5eed16;
	uint32_t bad = 0, first = 0;
	uint16_t got;
	int ok;

	tap_plan(8);

	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = amx_fp16_to_fp32((amx_fp16)h);
		uint32_t sign = (h & 0x8000u) << 16;
		int e = h >> 10 & 0x1f, m = h & 0x3ff;

		if (e == 31 && m)	/* NaN: quiet, payload kept */
			bad += amx_test_bits(f) != (sign | 0x7fc00000u | (uint32_t)m << 13);
		else if (e == 31)
			bad += amx_test_bits(f) != (sign | 0x7f800000u);
		else
			bad += (double)f != h2d((uint16_t)h) ||
			       !!signbit(f) != !!sign;
	}
	tap_ok(!bad, "fp16 -> fp32: all 65536 exact, NaNs quieted with their payload (%u wrong)",
	       bad);

	bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		uint16_t back = amx_fp32_to_fp16(amx_fp16_to_fp32((amx_fp16)h));
		int snan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) &&
			   !(h & 0x200);

		if (back != (snan ? (h | 0x200) : h) && !bad++)
			first = h;
	}
	tap_ok(!bad, "fp16 -> fp32 -> fp16: every value back (sNaN quieted), %u wrong (first %#x)",
	       bad, first);

	/* every fp32 whose magnitude is near an fp16 boundary region */
	bad = 0;
	for (uint32_t e = 100; e <= 143; e++)
		for (uint32_t m = 0; m < (1u << 23); m += 97) {
			float f = amx_test_from_bits(e << 23 | m);

			bad += !convert_ok(f, &got) + !convert_ok(-f, &got);
		}
	tap_ok(!bad, "fp32 -> fp16: exponents 2^-27 .. 2^16, every 97th fraction: %u wrong",
	       bad);

	/* ties: the fp32 exactly halfway between two fp16 neighbours */
	bad = 0;
	for (uint16_t h = 0; h < 0x7bff; h++) {
		double mid = (h2d(h) + h2d((uint16_t)(h + 1))) / 2;
		uint16_t want = h & 1 ? (uint16_t)(h + 1) : h;

		bad += amx_fp32_to_fp16((float)mid) != want;
		bad += amx_fp32_to_fp16((float)-mid) != (want | 0x8000);
	}
	bad += amx_fp32_to_fp16(65520.0f) != 0x7c00;	/* tie past 65504 */
	bad += amx_fp32_to_fp16(65519.996f) != 0x7bff;
	bad += amx_fp32_to_fp16(0x1p-25f) != 0;		/* tie: even 0 */
	bad += amx_fp32_to_fp16(0x1.000002p-25f) != 1;
	bad += amx_fp32_to_fp16(0x1.8p-24f) != 2;	/* tie: even 2 */
	bad += amx_fp32_to_fp16(-0.0f) != 0x8000;
	bad += amx_fp32_to_fp16(INFINITY) != 0x7c00;
	bad += amx_fp32_to_fp16(-INFINITY) != 0xfc00;
	bad += amx_fp32_to_fp16(0x1.ffcp-15f) != 0x0400; /* carries to normal */
	bad += amx_fp32_to_fp16(amx_test_from_bits(1)) != 0;	/* fp32 denormal */
	tap_ok(!bad, "fp32 -> fp16: every tie to even, overflow, underflow, carries: %u wrong",
	       bad);

	bad = 0;
	for (int i = 0; i < (1 << 24); i++) {
		float f = amx_test_from_bits((uint32_t)(amx_test_rand(&seed) >> 32));

		bad += !convert_ok(f, &got);
	}
	tap_ok(!bad, "fp32 -> fp16: 2^24 random fp32 (NaNs included): %u wrong",
	       bad);

	ok = amx_fp32_to_fp16(amx_test_from_bits(0x7f800001u)) == 0x7e00 &&
	     amx_fp32_to_fp16(amx_test_from_bits(0xffc00000u)) == 0xfe00 &&
	     amx_fp32_to_fp16(amx_test_from_bits(0x7fbfe000u)) == 0x7fff &&
	     isnan(amx_fp16_to_fp32(0x7c01));
	tap_ok(ok, "NaNs: sNaN with payload below fp16's quieted, sign and top payload kept");

	/* arrays at every length 0..200 and start offset 0..3 */
	for (int i = 0; i < 1000; i++) {
		uint32_t r = (uint32_t)(amx_test_rand(&seed) >> 32);

		f32[i] = i % 7 ? amx_test_from_bits(r) : amx_test_from_bits(r & 0x387fffffu);
		h16[i] = (amx_fp16)r;
	}
	bad = 0;
	for (size_t off = 0; off < 4; off++)
		for (size_t n = 0; n <= 200; n++) {
			memset(k16, 0xa5, sizeof(k16));
			memset(g32, 0xa5, sizeof(g32));
			bad += amx_fp32_to_fp16_array(k16 + off, f32 + off, n) != 0;
			bad += amx_fp16_to_fp32_array(g32 + off, h16 + off, n) != 0;
			for (size_t i = 0; i < 1000; i++) {
				int in = i >= off && i < off + n;
				uint32_t gb = amx_test_bits(g32[i]);

				bad += k16[i] != (in ? amx_fp32_to_fp16(f32[i]) : 0xa5a5);
				bad += gb != (in ? amx_test_bits(amx_fp16_to_fp32(h16[i])) :
					      0xa5a5a5a5u);
			}
		}
	tap_ok(!bad, "array forms = scalar at lengths 0..200, offsets 0..3, nothing past n: %u wrong",
	       bad);

	tap_ok(amx_fp32_to_fp16_array(NULL, f32, 1) == -EINVAL &&
	       amx_fp16_to_fp32_array(g32, NULL, 1) == -EINVAL &&
	       amx_fp32_to_fp16_array(NULL, NULL, 0) == 0 &&
	       amx_fp16_to_fp32_array(NULL, NULL, 0) == 0,
	       "array forms: NULL with n != 0 is -EINVAL, n = 0 is a no-op");
	return tap_finish();
}
