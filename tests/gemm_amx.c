// SPDX-License-Identifier: MIT
/*
 * The AMX path: after amx_request(), bf16 within the bound, int8 exact,
 * plain B on 1 thread and pre-packed B on all threads, with the C tiles
 * moved inside the first and last K step (cio = interleave, the
 * default); then once more with edge blocks on partial tile
 * configurations (edge = tiles), and once more with C moved around the K
 * loop (cio = block).
 * Skips (exit 4) only where AMX is absent; a refused permission on a
 * machine with AMX fails (amx_test_request()).
 */
#include <errno.h>

#include <amx.h>

#include "gemm_grid.h"

int main(void)
{
	unsetenv("AMX_FORCE_FALLBACK");
	/* the grids' small shapes stay on AMX (see amx_gemm_get_blocking(3)) */
	setenv("AMX_GEMM_BLOCKS", "amx:*:small=0", 1);
	amx_test_request();
	if (amx_gemm_backend(AMX_GEMM_BF16) != AMX_GEMM_BACKEND_AMX ||
	    amx_gemm_backend(AMX_GEMM_S8) != AMX_GEMM_BACKEND_AMX) {
		printf("not ok 1 - backend is not AMX after amx_request()\n1..1\n");
		return TAP_FAIL;
	}
	/* plain B on 1 thread, packed B on all: kept short for TCG guests */
	for (unsigned int th = 0; th < 2; th++) {
		char what[32];

		amx_set_num_threads(th ? 0 : 1);
		snprintf(what, sizeof(what), "amx %d thr", amx_get_num_threads());
		t_grid(T_BF16, th, what);
		t_grid(T_S8S8, th, what);
		t_grid(T_U8S8, th, what);
		for (int type = T_BF16; type <= T_U8S8; type++)
			t_direct_a(type, th, what);
		/* TDPFP16PS where the CPU has AMX-FP16 (the guest's does) */
		if (amx_gemm_backend(AMX_GEMM_F16) == AMX_GEMM_BACKEND_AMX) {
			t_grid(T_F16, th, what);
			t_direct_a(T_F16, th, what);
		} else if (!th) {
			tap_diag("no AMX-FP16 here: f16 runs on backend %d",
				 amx_gemm_backend(AMX_GEMM_F16));
		}
	}
	/* the tuner's other options: partial tile edges, C around the K loop */
	amx_set_num_threads(1);
	t_grids_blocking("amx edge tiles", AMX_GEMM_EDGE_TILES,
			 AMX_GEMM_CIO_INTERLEAVE);
	t_grids_blocking("amx cio block", AMX_GEMM_EDGE_COPY,
			 AMX_GEMM_CIO_BLOCK);
	return tap_finish();
}
