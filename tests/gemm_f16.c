// SPDX-License-Identifier: MIT
/*
 * fp16 and complex fp16 GEMM on one fallback path, given as the argument
 * (AVX-512F when the CPU has it, then portable C), 1 thread and the
 * default pool, plain and pre-packed B: every element within the
 * documented bound of the exact product, and exact where the inputs make
 * every partial sum exact.  Complex: a 2 x 2 example worked by hand, then
 * random shapes against a double oracle.
 */
#include "gemm_grid.h"

/*
 * The man page's example (amx_gemm_cf16(3)), by hand:
 *   A = | 1+2i  3-i |   B = | 2   i  |
 *       | -i    2   |       | 1+i 4-i|
 *   C = A B:
 *   c00 = (1+2i)2 + (3-i)(1+i)   = 2+4i + 4+2i   = 6+6i
 *   c01 = (1+2i)i + (3-i)(4-i)   = -2+i + 11-7i  = 9-6i
 *   c10 = (-i)2 + 2(1+i)         = -2i + 2+2i    = 2
 *   c11 = (-i)i + 2(4-i)         = 1 + 8-2i      = 9-2i
 * every value small integers, so exact in fp16 and fp32.
 */
static void worked_example(void)
{
	static const float af[8] = { 1, 2, 3, -1, 0, -1, 2, 0 };
	static const float bf[8] = { 2, 0, 0, 1, 1, 1, 4, -1 };
	static const float want[8] = { 6, 6, 9, -6, 2, 0, 9, -2 };
	amx_fp16 a[8], b[8];
	float c[8];
	int ret, ok;

	amx_fp32_to_fp16_array(a, af, 8);
	amx_fp32_to_fp16_array(b, bf, 8);
	ret = amx_gemm_cf16(0, 2, 2, 2, a, 2, b, 2, c, 2);
	ok = !ret && !memcmp(c, want, sizeof(c));
	tap_ok(ok, "cf16 2 x 2 worked example: %d (%g%+gi %g%+gi / %g%+gi %g%+gi)",
	       ret, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
	ret = amx_gemm_cf16(AMX_GEMM_ACCUMULATE, 2, 2, 2, a, 2, b, 2, c, 2);
	for (int i = 0; i < 8; i++)
		ok &= c[i] == 2 * want[i];
	tap_ok(!ret && ok, "cf16 worked example accumulated onto itself: %d",
	       ret);
}

/*
 * One complex case: A m x k, B k x n, C m x n (complex elements; leading
 * dimensions with @pad extra), checked element by element against
 * double: |c - exact| <= 2 (2K + 2) 2^-24 (|c0| + sum of |products|), the
 * real bound for the 2K real products of each part; 0 with @exact.
 */
static int cf16_case(size_t m, size_t n, size_t k, int acc, int pad,
		     int exact, double *worst)
{
	size_t lda = k + pad, ldb = n + 2 * pad, ldc = n + 3 * pad;
	uint16_t *a = malloc(m * lda * 4 + 4), *b = malloc(k * ldb * 4 + 4);
	uint32_t *c, *cbase = t_c_alloc(m, 2 * ldc, &c);
	float *c0 = malloc(m * ldc * 8 + 8);
	int ret, ok = 1;

	if (exact) {
		t_fill_f16_exact(a, m * lda * 2);
		t_fill_f16_exact(b, k * ldb * 2);
	} else {
		t_fill_f16(a, m * lda * 2);
		t_fill_f16(b, k * ldb * 2);
	}
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < 2 * n; j++) {
			float f = (int32_t)t_rand() % 1000 / (exact ? 4.0f : 100.0f);

			memcpy(&c[i * 2 * ldc + j], &f, 4);
		}
	memcpy(c0, c, m * ldc * 8);
	ret = amx_gemm_cf16(acc ? AMX_GEMM_ACCUMULATE : 0, m, n, k, a, lda,
			    b, ldb, (float *)c, ldc);
	for (size_t i = 0; !ret && ok && i < m; i++)
		for (size_t j = 0; ok && j < n; j++)
			for (int part = 0; ok && part < 2; part++) {
				double s = acc ? c0[(i * ldc + j) * 2 + part] : 0;
				double mag = fabs(s), err, tol;
				float got;

				for (size_t p = 0; p < k; p++) {
					const uint16_t *x = a + (i * lda + p) * 2;
					const uint16_t *y = b + (p * ldb + j) * 2;
					double t0 = part ?
						t_h2d(x[0]) * t_h2d(y[1]) :
						t_h2d(x[0]) * t_h2d(y[0]);
					double t1 = part ?
						t_h2d(x[1]) * t_h2d(y[0]) :
						-t_h2d(x[1]) * t_h2d(y[1]);

					s += t0 + t1;
					mag += fabs(t0) + fabs(t1);
				}
				memcpy(&got, &c[i * 2 * ldc + 2 * j + part], 4);
				err = fabs(got - s);
				tol = exact ? 0 : 2.0 * (2 * k + 2) * 0x1p-24 * mag;
				if (mag > 0 && err / mag > *worst)
					*worst = err / mag;
				if (!(err <= tol)) {
					printf("# c[%zu][%zu].%s = %.9g, exact %.9g, tol %.3g\n",
					       i, j, part ? "im" : "re", got, s, tol);
					ok = 0;
				}
			}
	ok &= !ret && t_c_guard_ok(cbase, m, 2 * n, 2 * ldc);
	if (!ok)
		printf("# FAILED cf16%s m=%zu n=%zu k=%zu acc=%d pad=%d ret=%d\n",
		       exact ? " exact" : "", m, n, k, acc, pad, ret);
	free(a);
	free(b);
	free(cbase);
	free(c0);
	return ok;
}

static void cf16_grid(void)
{
	static const size_t d[] = { 1, 7, 16, 17, 40 };
	unsigned int bad = 0, cases = 0, idx = 0;
	double worst = 0;
	char what[64];

	snprintf(what, sizeof(what), "%s %d thr",
		 t_backend_name(amx_gemm_backend(AMX_GEMM_F16)),
		 amx_get_num_threads());
	for (size_t x = 0; x < T_N(d); x++)
		for (size_t y = 0; y < T_N(d); y++)
			for (size_t z = 0; z < T_N(d); z++, idx++, cases++)
				bad += !cf16_case(d[x], d[y], d[z], idx & 1,
						  (idx >> 1) & 1, 0, &worst);
	bad += !cf16_case(100, 70, 600, 1, 1, 0, &worst);
	bad += !cf16_case(9, 33, 2100, 0, 0, 1, &worst);
	bad += !cf16_case(40, 3, 4100, 1, 1, 1, &worst);
	cases += 3;
	printf("# %s cf16 worst |err| / sum|ab| = %.3g (bound 2(2K+2)2^-24)\n",
	       what, worst);
	tap_ok(!bad, "%s cf16: %u shapes, %u wrong", what, cases, bad);
}

static void per_path(void)
{
	worked_example();
	amx_set_num_threads(1);
	cf16_grid();
	amx_set_num_threads(0);
	cf16_grid();
}

int main(int argc, char **argv)
{
	static const int types[] = { T_F16 };

	t_fallback_path(argc > 1 ? argv[1] : NULL, AMX_GEMM_F16, types, 1,
			per_path);
	return tap_finish();
}
