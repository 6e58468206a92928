// SPDX-License-Identifier: MIT
/*
 * bf16 GEMM on one fallback path, given as the argument (AVX-512 BF16 when the CPU has it, then
 * portable C), 1 thread and the default pool, plain and pre-packed B:
 * every element within the documented bound of the exact product.
 */
#include "gemm_grid.h"

int main(int argc, char **argv)
{
	static const int types[] = { T_BF16 };

	t_fallback_path(argc > 1 ? argv[1] : NULL, AMX_GEMM_BF16, types, 1, NULL);
	return tap_finish();
}
