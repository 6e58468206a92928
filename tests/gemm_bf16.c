// SPDX-License-Identifier: MIT
/*
 * bf16 GEMM on the fallback paths (AVX-512 BF16 when the CPU has it, then
 * portable C), 1 thread and the default pool, plain and pre-packed B:
 * every element within the documented bound of the exact product.
 */
#include "gemm_grid.h"

int main(void)
{
	static const int types[] = { T_BF16 };

	t_fallback_paths(AMX_GEMM_BF16, types, 1, NULL);
	return t_finish();
}
