/* SPDX-License-Identifier: MIT */
/*
 * Shape grid driver shared by the GEMM tests: random A, B, C over
 * M, N, K in {1, 15, 16, 17, 31, 33, 64, 100} (full cube) plus 255 and 1000
 * in each dimension against small others and K over several K blocks;
 * strides wider than rows, accumulate and overwrite, plain and pre-packed B.
 */
#ifndef GEMM_TEST_GRID_H
#define GEMM_TEST_GRID_H

#include "gemm_common.h"

enum { T_BF16, T_S8S8, T_U8S8, T_F16 };

static const char *const t_type_name[] = { "bf16", "s8s8", "u8s8", "f16" };

/* 2-byte floating-point inputs, fp32 C */
static int t_is_fp(int type)
{
	return type == T_BF16 || type == T_F16;
}

/*
 * One case; with @lda_a nonzero A has that leading dimension and starts on
 * a 64-byte boundary (what lets the AMX kernels read it in place); with
 * @exact (bf16) inputs whose product is exact in fp32, checked for
 * equality (t_fill_bf16_exact()).
 */
static int t_run_case_x(int type, size_t m, size_t n, size_t k, int acc,
			int packed, int pad, size_t lda_a, int exact,
			double *worst)
{
	size_t esz = t_is_fp(type) ? 2 : 1;
	size_t lda = lda_a ? lda_a : k + pad * 3, ldb = n + pad * 5;
	size_t ldc = n + pad * 2;
	void *a = lda_a ? aligned_alloc(64, (m * lda * esz + 64) / 64 * 64) :
		  malloc(m * lda * esz + 1);
	void *b = malloc(k * ldb * esz + 1);
	uint32_t *c, *cbase = t_c_alloc(m, ldc, &c);
	uint32_t *c0 = malloc(m * ldc * 4 + 4);
	struct amx_packed_b *pb = NULL;
	unsigned int fl = acc ? AMX_GEMM_ACCUMULATE : 0;
	int ret, ok;

	if (type == T_BF16 && exact) {
		t_fill_bf16_exact(a, m * lda);
		t_fill_bf16_exact(b, k * ldb);
	} else if (type == T_F16 && exact) {
		t_fill_f16_exact(a, m * lda);
		t_fill_f16_exact(b, k * ldb);
	} else if (type == T_F16) {
		t_fill_f16(a, m * lda);
		t_fill_f16(b, k * ldb);
	} else if (type == T_BF16) {
		t_fill_bf16(a, m * lda);
		t_fill_bf16(b, k * ldb);
	} else {
		t_fill_i8(a, m * lda, 0);
		t_fill_i8(b, k * ldb, 0);
	}
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			/* exact: quarters below 2^8, sums stay exact */
			float f = exact ? (int32_t)t_rand() % 1000 / 4.0f :
				  (int32_t)t_rand() % 1000 / 100.0f;
			uint32_t v = t_is_fp(type) ?
				((uint32_t)t_f2bf(f) << 16) : t_rand();
			c[i * ldc + j] = v;
		}
	memcpy(c0, c, m * ldc * 4);

	if (packed) {
		ret = amx_packed_b_create(&pb, type == T_BF16 ? AMX_GEMM_BF16 :
					  type == T_F16 ? AMX_GEMM_F16 :
					  AMX_GEMM_S8, k, n, b, ldb);
		if (ret) {
			printf("# amx_packed_b_create: %d\n", ret);
			goto out;
		}
		if (type == T_BF16)
			ret = amx_gemm_bf16_packed(fl, m, a, lda, pb, (float *)c, ldc);
		else if (type == T_F16)
			ret = amx_gemm_f16_packed(fl, m, a, lda, pb, (float *)c, ldc);
		else if (type == T_S8S8)
			ret = amx_gemm_s8s8_packed(fl, m, a, lda, pb, (int32_t *)c, ldc);
		else
			ret = amx_gemm_u8s8_packed(fl, m, a, lda, pb, (int32_t *)c, ldc);
	} else {
		if (type == T_BF16)
			ret = amx_gemm_bf16(fl, m, n, k, a, lda, b, ldb, (float *)c, ldc);
		else if (type == T_F16)
			ret = amx_gemm_f16(fl, m, n, k, a, lda, b, ldb, (float *)c, ldc);
		else if (type == T_S8S8)
			ret = amx_gemm_s8s8(fl, m, n, k, a, lda, b, ldb, (int32_t *)c, ldc);
		else
			ret = amx_gemm_u8s8(fl, m, n, k, a, lda, b, ldb, (int32_t *)c, ldc);
	}
out:
	ok = ret == 0;
	if (ok && t_is_fp(type))
		ok = t_check_16_x(m, n, k, a, lda, b, ldb, (float *)c0,
				  (float *)c, ldc, acc, worst, exact,
				  type == T_F16 ? t_h2d : t_bf2d);
	else if (ok)
		ok = t_check_i8(m, n, k, a, type == T_U8S8, lda, b, ldb,
				(int32_t *)c0, (int32_t *)c, ldc, acc);
	if (ok && !t_c_guard_ok(cbase, m, n, ldc)) {
		printf("# write outside C\n");
		ok = 0;
	}
	if (!ok)
		printf("# FAILED %s%s m=%zu n=%zu k=%zu acc=%d packed=%d pad=%d ret=%d\n",
		       t_type_name[type], exact ? " exact" : "", m, n, k, acc,
		       packed, pad, ret);
	amx_packed_b_free(pb);
	free(a);
	free(b);
	free(cbase);
	free(c0);
	return ok;
}

static int t_run_case_a(int type, size_t m, size_t n, size_t k, int acc,
			int packed, int pad, size_t lda_a, double *worst)
{
	return t_run_case_x(type, m, n, k, acc, packed, pad, lda_a, 0, worst);
}

static int t_run_case(int type, size_t m, size_t n, size_t k, int acc,
		      int packed, int pad, double *worst)
{
	return t_run_case_a(type, m, n, k, acc, packed, pad, 0, worst);
}

/*
 * A aligned, K whole tile rows (32 bf16 / 64 int8), lda a multiple of
 * 64 bytes: the AMX kernels read A in place, and pack only a ragged last
 * micro-panel (M = 33, 100, 300: 1, 4 and 12 rows; 48: a half one read in
 * place); lda = 4096 bytes puts all rows in one L1 set, so A is packed.
 * One TAP line.
 */
static void t_direct_a(int type, int packed, const char *what)
{
	static const size_t shapes[][3] = {
		{ 16, 32, 1 }, { 32, 64, 2 }, { 33, 40, 4 }, { 48, 100, 8 },
		{ 100, 70, 16 }, { 300, 33, 3 },
	};
	size_t g = t_is_fp(type) ? 32 : 64;	/* K granule, elements */
	unsigned int bad = 0, cases = 0;
	double worst = 0;

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (int v = 0; v < 3; v++, cases++) {
			size_t k = shapes[s][2] * g;
			size_t lda = v == 2 ? 4096 / (t_is_fp(type) ? 2 : 1) :
				     k + v * g;

			if (lda < k)
				lda = k;
			bad += !t_run_case_a(type, shapes[s][0], shapes[s][1],
					     k, v & 1, packed, 0, lda, &worst);
		}
	tap_ok(!bad, "%s %s%s A in place: %u shapes, %u wrong", what,
		 t_type_name[type], packed ? " packed" : "", cases, bad);
}

static const size_t t_dims[] = { 1, 15, 16, 17, 31, 33, 64, 100 };
static const size_t t_big[] = { 255, 1000 };
static const size_t t_small[] = { 1, 17, 64 };

#define T_N(x) (sizeof(x) / sizeof((x)[0]))

/* one TAP line per (type, packed): the whole grid */
static void t_grid(int type, int packed, const char *what)
{
	unsigned int cases = 0, bad = 0, idx = 0;
	double worst = 0;

	for (size_t x = 0; x < T_N(t_dims); x++)
		for (size_t y = 0; y < T_N(t_dims); y++)
			for (size_t z = 0; z < T_N(t_dims); z++, idx++) {
				cases++;
				bad += !t_run_case(type, t_dims[x], t_dims[y],
						   t_dims[z], idx & 1, packed,
						   (idx >> 1) & 1, &worst);
			}
	for (size_t g = 0; g < T_N(t_big); g++)
		for (size_t s = 0; s < T_N(t_small); s++)
			for (size_t t = 0; t < T_N(t_small); t++, idx++) {
				size_t B = t_big[g], p = t_small[s], q = t_small[t];

				bad += !t_run_case(type, B, p, q, idx & 1, packed, 1, &worst);
				bad += !t_run_case(type, p, B, q, !(idx & 1), packed, 0, &worst);
				bad += !t_run_case(type, p, q, B, idx & 1, packed, 1, &worst);
				cases += 3;
			}
	bad += !t_run_case(type, 255, 255, 255, 1, packed, 1, &worst);
	bad += !t_run_case(type, 100, 255, 1000, 0, packed, 0, &worst);
	bad += !t_run_case(type, 1000, 100, 255, 1, packed, 1, &worst);
	/*
	 * several K blocks: few rows (the small-M K block, 768 bf16 / 1536
	 * int8 on a 48 KiB L1) and more rows than one M block (AVX-512 kc
	 * 2048 bf16 / 4096 int8 there), A read in place (lda odd) and, with
	 * lda = 4096, packed because the rows would share L1 sets
	 */
	bad += !t_run_case(type, 33, 47, 2500, 0, packed, 1, &worst);
	bad += !t_run_case(type, 17, 100, 4097, 1, packed, 0, &worst);
	bad += !t_run_case(type, 300, 70, 4500, 1, packed, 1, &worst);
	bad += !t_run_case(type, 300, 40, 4096, 0, packed, 0, &worst);
	cases += 7;
	/*
	 * bf16 whose products are exact in fp32, checked for equality: the
	 * bound above grows with K, and at K = 4096 it let through partial
	 * sums rounded to bf16 at every K block boundary
	 */
	for (int x = 0; t_is_fp(type) && x < 4; x++, cases++) {
		/* few rows and columns: large K is the point (and the C
		 * path in the emulated guest must stay within its bound) */
		static const size_t ex[4][3] = {
			{ 17, 20, 1000 }, { 3, 33, 4097 }, { 20, 9, 4500 },
			{ 33, 5, 8192 },
		};

		bad += !t_run_case_x(type, ex[x][0], ex[x][1], ex[x][2],
				     x & 1, packed, x & 1, 0, 1, &worst);
	}
	if (t_is_fp(type))
		printf("# %s %s worst |err| / sum|ab| = %.3g (bound 2(K+2)2^-24)\n",
		       what, t_type_name[type], worst);
	tap_ok(!bad, "%s %s%s: %u shapes, %u wrong", what, t_type_name[type],
		 packed ? " packed" : "", cases, bad);
}

/*
 * The AMX grids (plain B; packed for s8s8) and the in-place A cases once
 * more with the AMX tunables that are not the default: @edge (enum
 * amx_gemm_edge) and @cio (enum amx_gemm_cio) over the blocking in force,
 * on the pool as it is set; the blocking goes back to what file and
 * environment say after.
 */
static inline void t_grids_blocking(const char *what, unsigned int edge,
				    unsigned int cio)
{
	int ok = 1;

	for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_U8S8; op++) {
		struct amx_gemm_blocking b;

		ok &= !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, op, &b);
		b.edge = edge;
		b.cio = cio;
		ok &= !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, op, &b);
		ok &= !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, op, &b) &&
		      b.edge == edge && b.cio == cio;
	}
	tap_ok(ok, "%s: edge %u cio %u set for every op", what, edge, cio);
	t_grid(T_BF16, 0, what);
	t_grid(T_S8S8, 1, what);
	t_grid(T_U8S8, 0, what);
	for (int type = T_BF16; type <= T_U8S8; type++)
		t_direct_a(type, 0, what);
	for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_U8S8; op++)
		amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, op, NULL);
}

/*
 * The grid of each of @types on one fallback path, @path: "avx512" or "c"
 * (AMX_FORCE_FALLBACK=1 or =c), with 1 thread and with the default pool,
 * B pre-packed with the pool only; @per_path (if any) after it.  One path
 * per program keeps each within its time bound under the sanitizers.
 * Exits 4 for "avx512" on a CPU without AVX-512 (the "c" run covers it).
 */
static inline void t_fallback_path(const char *path, enum amx_gemm_type gt,
				   const int *types, size_t ntypes,
				   void (*per_path)(void))
{
	int avx512 = path && !strcmp(path, "avx512");

	if (!avx512 && !(path && !strcmp(path, "c"))) {
		printf("Bail out! usage: test avx512|c\n");
		exit(TAP_FAIL);
	}
	setenv("AMX_FORCE_FALLBACK", avx512 ? "1" : "c", 1);
	if (avx512 && amx_gemm_backend(gt) != AMX_GEMM_BACKEND_AVX512)
		tap_skip_all("no AVX-512 kernel for this type here: the c path is the fallback");
	for (unsigned int th = 0; th < 2; th++) {
		char what[64];

		amx_set_num_threads(th ? 0 : 1);
		snprintf(what, sizeof(what), "%s %d thr",
			 t_backend_name(amx_gemm_backend(gt)),
			 amx_get_num_threads());
		for (size_t t = 0; t < ntypes; t++)
			t_grid(types[t], 0, what);
		for (size_t t = 0; th && t < ntypes; t++)
			t_grid(types[t], 1, what);
		for (size_t t = 0; t < ntypes; t++)
			t_direct_a(types[t], th, what);
	}
	if (per_path)
		per_path();
}

#endif
