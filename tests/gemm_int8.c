// SPDX-License-Identifier: MIT
/*
 * s8 x s8 and u8 x s8 GEMM on one fallback path, given as the argument (AVX-512 VNNI when the CPU
 * has it, or portable C), 1 thread and the default pool, plain and
 * pre-packed B, extreme values: bit-exact (modulo 2^32) against int64 sums.
 */
#include "gemm_grid.h"

static void extremes(int type)
{
	size_t m = 33, n = 47, k = 1000;
	int8_t *a = malloc(m * k), *b = malloc(k * n);
	int32_t *c = malloc(m * n * 4);
	int ret;

	t_fill_i8(a, m * k, 1);
	t_fill_i8(b, k * n, 1);
	if (type == T_U8S8)
		for (size_t i = 0; i < m * k; i++)
			a[i] = (int8_t)((t_rand() & 1) ? 255 : 0);
	ret = type == T_S8S8 ?
	      amx_gemm_s8s8(0, m, n, k, a, k, b, n, c, n) :
	      amx_gemm_u8s8(0, m, n, k, (uint8_t *)a, k, b, n, c, n);
	tap_ok(!ret && t_check_i8(m, n, k, a, type == T_U8S8, k, b, n, NULL,
				    c, n, 0),
		 "%s extreme values -128/127/255", t_type_name[type]);
	free(a);
	free(b);
	free(c);
}

static void extremes_both(void)
{
	extremes(T_S8S8);
	extremes(T_U8S8);
}

int main(int argc, char **argv)
{
	static const int types[] = { T_S8S8, T_U8S8 };

	t_fallback_path(argc > 1 ? argv[1] : NULL, AMX_GEMM_S8, types, 2, extremes_both);
	return tap_finish();
}
