// SPDX-License-Identifier: MIT
/*
 * bf16 GEMM on the fallback paths (AVX-512 BF16 when the CPU has it, then
 * portable C), 1 thread and the default pool, plain and pre-packed B:
 * every element within the documented bound of the exact product.
 */
#include "gemm_grid.h"

int main(void)
{
	static const char *const paths[] = { "1", "c" };
	size_t npaths;

	/* without AVX-512 (e.g. a QEMU guest) "1" is the C path already */
	setenv("AMX_FORCE_FALLBACK", paths[0], 1);
	npaths = amx_gemm_backend(AMX_GEMM_BF16) == AMX_GEMM_BACKEND_C ? 1 : 2;
	for (size_t p = 0; p < npaths; p++) {
		setenv("AMX_FORCE_FALLBACK", paths[p], 1);
		for (unsigned int th = 0; th < 2; th++) {
			char what[64];

			amx_set_num_threads(th ? 0 : 1);
			snprintf(what, sizeof(what), "%s %d thr",
				 t_backend_name(amx_gemm_backend(AMX_GEMM_BF16)),
				 amx_get_num_threads());
			t_grid(T_BF16, 0, what);
			if (th)
				t_grid(T_BF16, 1, what);
		}
	}
	return t_finish();
}
