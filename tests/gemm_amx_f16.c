// SPDX-License-Identifier: MIT
/*
 * The AMX-FP16 path (TDPFP16PS) after amx_request(): the fp16 shape grid
 * within the documented bound and exact where the inputs make it so,
 * plain B on 1 thread, pre-packed B on all threads, A read in place, and
 * once more with edge blocks on partial tile configurations; with
 * AMX-COMPLEX, amx_gemm_cf16() against the f16 GEMM of its B2 form, bit
 * for bit (gemm_cf16_b2.h).  A program
 * of its own so that gemm_amx stays within its time bound in a TCG
 * guest.  Skips (exit 4) where AMX or AMX-FP16 is absent (Sapphire and
 * Emerald Rapids have AMX without it); a refused permission on a machine
 * with AMX fails (amx_test_request()).
 */
#include <errno.h>

#include <amx.h>

#include "gemm_grid.h"
#include "gemm_cf16_b2.h"

int main(void)
{
	struct amx_gemm_blocking b;
	int ok;

	unsetenv("AMX_FORCE_FALLBACK");
	setenv("AMX_GEMM_BLOCKS", "amx:*:small=0", 1);
	amx_test_request();
	if (amx_gemm_backend(AMX_GEMM_F16) != AMX_GEMM_BACKEND_AMX)
		tap_skip_all("AMX without AMX-FP16: f16 runs on AVX-512F or C here");
	for (unsigned int th = 0; th < 2; th++) {
		char what[32];

		amx_set_num_threads(th ? 0 : 1);
		snprintf(what, sizeof(what), "amx %d thr", amx_get_num_threads());
		t_grid(T_F16, th, what);
		t_direct_a(T_F16, th, what);
	}
	/* AMX-COMPLEX: cf16 on TCMM*FP16PS, bit for bit TDPFP16PS on B2 */
	{
		struct amx_info in;

		if (!amx_get_info(&in) && (in.cpu & AMX_CPU_AMX_COMPLEX)) {
			amx_set_num_threads(1);
			cf16_b2_grid("amx-complex 1 thr", 0);
			amx_set_num_threads(0);
			cf16_b2_grid("amx-complex all thr", 0);
		} else {
			tap_skip("no AMX-COMPLEX here",
				 "cf16 on TCMM*FP16PS (it runs as the f16 GEMM on B2)");
		}
	}
	amx_set_num_threads(1);
	ok = !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_F16, &b);
	b.edge = AMX_GEMM_EDGE_TILES;
	ok &= !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_F16, &b);
	tap_ok(ok, "f16 edge tiles set");
	t_grid(T_F16, 0, "amx edge tiles");
	return tap_finish();
}
