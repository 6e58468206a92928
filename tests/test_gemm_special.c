// SPDX-License-Identifier: MIT
/*
 * NaN, infinity and denormal numbers in amx_gemm_bf16() on each path, as
 * amx_gemm_bf16(3) documents them: AMX and AVX-512 read denormal inputs
 * as zero and flush denormal results to zero; the C path keeps them
 * (IEEE gradual underflow, default MXCSR); NaN and invalid operations
 * give NaN and an overflowing product Inf everywhere.
 */
#include <amx.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amx_test.h"

struct special {
	const char *what;
	uint16_t a, b;		/* bf16 bits: C = a * b, k = 1 */
	float c_path;		/* result on the C path */
	float flushed;		/* result on AMX and AVX-512 */
};

static const struct special cases[] = {
	/* 2^-70 * 2^-70 = 2^-140: an fp32 denormal */
	{ "denormal product", 0x1c80, 0x1c80, 0x1p-140f, 0.0f },
	/* bf16 denormal 2^-133 * 2^127 = 2^-6: a normal result */
	{ "denormal input", 0x0001, 0x7f00, 0x1p-6f, 0.0f },
	{ "ordinary 1.5 * -2", 0x3fc0, 0xc000, -3.0f, -3.0f },
	{ "NaN input", 0x7fc1, 0x3f80, NAN, NAN },
	{ "Inf * 0", 0x7f80, 0x0000, NAN, NAN },
	{ "Inf * 1", 0x7f80, 0x3f80, INFINITY, INFINITY },
	/* 2^127 * 2^127 overflows fp32 */
	{ "overflow", 0x7f00, 0x7f00, INFINITY, INFINITY },
};

static int same(float got, float want)
{
	if (isnan(want))
		return isnan(got);
	return got == want && signbit(got) == signbit(want);
}

static void run_path(const char *env, int backend)
{
	const char *name = backend == AMX_GEMM_BACKEND_AMX ? "AMX" :
			   backend == AMX_GEMM_BACKEND_AVX512 ? "AVX-512" : "C";

	if (env)
		setenv("AMX_FORCE_FALLBACK", env, 1);
	else
		unsetenv("AMX_FORCE_FALLBACK");
	if (amx_gemm_backend(AMX_GEMM_BF16) != backend) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			tap_skip("path not available here", "%s: %s", name,
				 cases[i].what);
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct special *s = &cases[i];
		float want = backend == AMX_GEMM_BACKEND_C ? s->c_path : s->flushed;
		float c = 12345.0f;
		int ret = amx_gemm_bf16(0, 1, 1, 1, &s->a, 1, &s->b, 1, &c, 1);

		tap_ok(!ret && same(c, want), "%s: %s = %a (want %a)", name,
		       s->what, c, want);
	}
}

int main(void)
{
	tap_plan(3 * (int)(sizeof(cases) / sizeof(cases[0])));
	amx_request();		/* the AMX path where the machine has it */
	run_path("c", AMX_GEMM_BACKEND_C);
	run_path("1", AMX_GEMM_BACKEND_AVX512);
	run_path(NULL, AMX_GEMM_BACKEND_AMX);
	tap_done();
}
