// SPDX-License-Identifier: MIT
/* bf16 <-> fp32: all 65 536 bf16 values and the fp32 edge cases. */
#include <math.h>
#include <string.h>

#include "amx_test.h"

/*
 * Oracle for finite inputs, written differently from the library:
 * choose between the two neighbouring bf16 values by comparing the
 * exact distances in double precision, ties to the even one.
 */
static uint16_t ref_round(float f)
{
	uint32_t u = amx_test_bits(f);
	uint32_t lo = u & 0xffff0000u, hi = lo + 0x10000u;
	double dlo = fabs((double)f - (double)amx_test_from_bits(lo));
	double dhi;

	if ((hi & 0x7f800000u) == 0x7f800000u) {
		/* Rounding up would overflow: compare against 2^128. */
		dhi = fabs(ldexp(signbit(f) ? -1.0 : 1.0, 128) - (double)f);
	} else {
		dhi = fabs((double)amx_test_from_bits(hi) - (double)f);
	}
	if (dlo < dhi)
		return lo >> 16;
	if (dhi < dlo)
		return hi >> 16;
	return ((lo >> 16) & 1) ? hi >> 16 : lo >> 16;
}

int main(void)
{
	uint64_t seed = 0x1234567;
	uint32_t h, i, bad;
	float f32[4];
	amx_bf16 b16[4];
	int nan_ok = 1, exact = 1, random_ok = 1;

	tap_plan(13);

	/* Every bf16 converts to fp32 exactly and back unchanged. */
	bad = 0;
	for (h = 0; h < 65536; h++) {
		float f = amx_bf16_to_fp32((amx_bf16)h);
		amx_bf16 back = amx_fp32_to_bf16(f);

		if (amx_test_bits(f) != h << 16)
			exact = 0;
		if ((h & 0x7fff) > 0x7f80) {
			/* NaN: stays NaN, sign kept, signalling ones made quiet. */
			if (!isnan(f) || back != (h | 0x40))
				nan_ok = 0;
		} else if (back != h) {
			bad++;
		}
	}
	tap_ok(exact, "bf16 -> fp32 is exact for all 65536 values");
	tap_ok(bad == 0, "bf16 -> fp32 -> bf16 round-trips all non-NaN values (%u bad)", bad);
	tap_ok(nan_ok, "every bf16 NaN stays a NaN with its sign");

	tap_ok(amx_fp32_to_bf16(0.0f) == 0x0000 && amx_fp32_to_bf16(-0.0f) == 0x8000,
	       "+0 and -0 keep their sign");
	tap_ok(amx_fp32_to_bf16(INFINITY) == 0x7f80 && amx_fp32_to_bf16(-INFINITY) == 0xff80,
	       "infinities");
	tap_ok(amx_fp32_to_bf16(amx_test_from_bits(0x7f800001u)) == 0x7fc0 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0xffc00000u)) == 0xffc0,
	       "a NaN with payload only in the low bits stays NaN");
	tap_ok(amx_fp32_to_bf16(amx_test_from_bits(0x3f808000u)) == 0x3f80 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0x3f818000u)) == 0x3f82 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0x3f808001u)) == 0x3f81,
	       "ties go to even, above-tie rounds up");
	tap_ok(amx_fp32_to_bf16(amx_test_from_bits(0x00008000u)) == 0x0000 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0x00018000u)) == 0x0002 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0x00000001u)) == 0x0000 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0x007fffffu)) == 0x0080,
	       "subnormals round to nearest even (no flush to zero)");
	tap_ok(amx_fp32_to_bf16(amx_test_from_bits(0x7f7fffffu)) == 0x7f80 &&
	       amx_fp32_to_bf16(amx_test_from_bits(0x7f7f7fffu)) == 0x7f7f,
	       "FLT_MAX rounds to infinity, just below stays finite");

	for (i = 0; i < 2000000; i++) {
		uint32_t u = (uint32_t)amx_test_rand(&seed);
		float f = amx_test_from_bits(u);

		if (isnan(f) || isinf(f))
			continue;
		if (amx_fp32_to_bf16(f) != ref_round(f)) {
			random_ok = 0;
			tap_diag("0x%08x -> 0x%04x, oracle 0x%04x", u, amx_fp32_to_bf16(f),
				 ref_round(f));
			break;
		}
	}
	tap_ok(random_ok, "2e6 random fp32 values match the distance oracle");

	f32[0] = 1.0f; f32[1] = -2.5f; f32[2] = 3.14159f; f32[3] = 1e-40f;
	tap_ok(amx_fp32_to_bf16_array(b16, f32, 4) == 0 && b16[0] == 0x3f80 &&
	       b16[1] == 0xc020 && b16[2] == amx_fp32_to_bf16(3.14159f) &&
	       b16[3] == amx_fp32_to_bf16(1e-40f), "array fp32 -> bf16");
	tap_ok(amx_bf16_to_fp32_array(f32, b16, 4) == 0 && f32[0] == 1.0f &&
	       f32[1] == -2.5f, "array bf16 -> fp32");
	tap_ok(amx_fp32_to_bf16_array(NULL, f32, 1) == -EINVAL &&
	       amx_bf16_to_fp32_array(f32, NULL, 1) == -EINVAL &&
	       amx_fp32_to_bf16_array(NULL, NULL, 0) == 0,
	       "NULL with n > 0 is -EINVAL, n == 0 is a no-op");
	tap_done();
}
