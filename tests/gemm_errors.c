// SPDX-License-Identifier: MIT
/*
 * Bad input: -EINVAL for NULL with a nonzero size, ld shorter than a row,
 * C overlapping A or B, unknown flags, a wrong or NULL packed B; -EOVERFLOW
 * when the byte span overflows.  C must be untouched in every case.  Also
 * the degenerate sizes: 0 is a no-op, K = 0 overwrite zeroes C.
 */
#include <errno.h>

#include "gemm_common.h"

#define M 8
#define N 9
#define K 10

static uint16_t a[M * K], b[K * N];
static int8_t a8[M * K], b8[K * N];
static float c[M * N];
static float cref[M * N];

static void reset(void)
{
	for (size_t i = 0; i < M * N; i++)
		c[i] = cref[i] = 12345.0f + i;
}

static int c_same(void)
{
	return !memcmp(c, cref, sizeof(c));
}

#define EXPECT(call, err, desc) do {					\
	int r_;								\
	reset();							\
	r_ = (call);							\
	tap_ok(r_ == (err) && c_same(), "%s: %d", desc, r_);		\
} while (0)

int main(void)
{
	struct amx_packed_b *pb = NULL, *pb8 = NULL;
	float *big = (float *)(uintptr_t)0x1000;
	int ret;

	t_fill_bf16(a, M * K);
	t_fill_bf16(b, K * N);
	t_fill_i8(a8, M * K, 0);
	t_fill_i8(b8, K * N, 0);

	EXPECT(amx_gemm_bf16(0, M, N, K, NULL, K, b, N, c, N), -EINVAL, "A NULL");
	EXPECT(amx_gemm_bf16(0, M, N, K, a, K, NULL, N, c, N), -EINVAL, "B NULL");
	EXPECT(amx_gemm_bf16(0, M, N, K, a, K - 1, b, N, c, N), -EINVAL, "lda < K");
	EXPECT(amx_gemm_bf16(0, M, N, K, a, K, b, N - 1, c, N), -EINVAL, "ldb < N");
	EXPECT(amx_gemm_bf16(0, M, N, K, a, K, b, N, c, N - 1), -EINVAL, "ldc < N");
	EXPECT(amx_gemm_bf16(4, M, N, K, a, K, b, N, c, N), -EINVAL, "unknown flag");
	EXPECT(amx_gemm_bf16(0, M, N, K, (uint16_t *)c, K, b, N, c, N), -EINVAL,
	       "C overlaps A");
	EXPECT(amx_gemm_bf16(0, 2, 2, 2, a, K, (uint16_t *)(c + 1), N, c, N),
	       -EINVAL, "C overlaps B");
	EXPECT(amx_gemm_s8s8(0, M, N, K, a8, K, b8, N, (int32_t *)c, N - 1),
	       -EINVAL, "s8s8 ldc < N");
	EXPECT(amx_gemm_u8s8(0, M, N, K, (uint8_t *)a8, K, NULL, N,
			     (int32_t *)c, N), -EINVAL, "u8s8 B NULL");
	EXPECT(amx_gemm_bf16(0, M, N, SIZE_MAX / 2, a, SIZE_MAX / 2, b, N, c, N),
	       -EOVERFLOW, "A span overflows");
	EXPECT(amx_gemm_bf16(0, 3, SIZE_MAX / 4, 2, a, K, b, SIZE_MAX / 4, big,
			     SIZE_MAX / 4), -EOVERFLOW, "C span overflows");
	EXPECT(amx_gemm_bf16(0, M, N, K, a, K, b, N, NULL, N), -EINVAL, "C NULL");

	/* fp16: the same rules; complex: lda, ldb, ldc count complex elements */
	EXPECT(amx_gemm_f16(0, M, N, K, NULL, K, b, N, c, N), -EINVAL,
	       "f16 A NULL");
	EXPECT(amx_gemm_f16(0, M, N, K, a, K, b, N - 1, c, N), -EINVAL,
	       "f16 ldb < N");
	EXPECT(amx_gemm_f16(8, M, N, K, a, K, b, N, c, N), -EINVAL,
	       "f16 unknown flag");
	EXPECT(amx_gemm_f16(0, M, N, K, (uint16_t *)c, K, b, N, c, N), -EINVAL,
	       "f16 C overlaps A");
	EXPECT(amx_gemm_f16(0, M, N, SIZE_MAX / 2, a, SIZE_MAX / 2, b, N, c, N),
	       -EOVERFLOW, "f16 A span overflows");
	EXPECT(amx_gemm_cf16(0, 2, 2, 2, a, 2, b, 2, NULL, 2), -EINVAL,
	       "cf16 C NULL");
	EXPECT(amx_gemm_cf16(0, 2, 2, 2, a, 1, b, 2, c, 2), -EINVAL,
	       "cf16 lda < K");
	EXPECT(amx_gemm_cf16(0, 2, 2, 2, a, 2, b, 2, c, 1), -EINVAL,
	       "cf16 ldc < N");
	EXPECT(amx_gemm_cf16(2, 2, 2, 2, a, 2, b, 2, c, 2), -EINVAL,
	       "cf16 unknown flag");
	EXPECT(amx_gemm_cf16(0, 2, 2, 2, a, 2, (uint16_t *)(c + 3), 2, c, 2),
	       -EINVAL, "cf16 C overlaps B");
	EXPECT(amx_gemm_cf16(0, 2, 2, 2, (uint16_t *)(c + 2), 2, b, 2, c, 2),
	       -EINVAL, "cf16 C overlaps A");
	EXPECT(amx_gemm_cf16(0, 2, 2, SIZE_MAX / 4, a, SIZE_MAX / 4, b, 2, c, 2),
	       -EOVERFLOW, "cf16 A span overflows (4-byte elements)");
	EXPECT(amx_gemm_cf16(0, 2, SIZE_MAX / 8, 2, a, 2, b, SIZE_MAX / 8, c,
			     SIZE_MAX / 8), -EOVERFLOW, "cf16 B span overflows");

	EXPECT(amx_gemm_bf16(0, 0, N, K, NULL, 0, b, N, c, N), 0, "M = 0 no-op");
	EXPECT(amx_gemm_bf16(0, M, 0, K, a, K, NULL, 0, c, 0), 0, "N = 0 no-op");
	EXPECT(amx_gemm_bf16(AMX_GEMM_ACCUMULATE, M, N, 0, NULL, 0, NULL, N, c, N),
	       0, "K = 0 accumulate no-op");
	reset();
	ret = amx_gemm_bf16(0, M, N - 1, 0, NULL, 0, NULL, N, c, N);
	{
		int ok = !ret;

		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < N; j++)
				ok &= j < N - 1 ? c[i * N + j] == 0 :
					c[i * N + j] == cref[i * N + j];
		tap_ok(ok, "K = 0 overwrite zeroes C (only the window): %d", ret);
	}

	ret = amx_packed_b_create(&pb, AMX_GEMM_BF16, K, N, b, N);
	tap_ok(!ret && amx_packed_b_size(pb) > 0, "packed_b_create bf16: %d", ret);
	ret = amx_packed_b_create(&pb8, AMX_GEMM_S8, K, N, b8, N);
	tap_ok(!ret, "packed_b_create s8: %d", ret);
	tap_ok(amx_packed_b_create(NULL, AMX_GEMM_BF16, K, N, b, N) == -EINVAL,
		 "packed_b_create NULL handle pointer");
	tap_ok(amx_packed_b_create(&pb, 7, K, N, b, N) == -EINVAL,
		 "packed_b_create unknown type");
	tap_ok(amx_packed_b_create(&pb, AMX_GEMM_BF16, K, N, b, N - 1) == -EINVAL,
		 "packed_b_create ldb < N");
	{
		struct amx_packed_b *huge = NULL;

		tap_ok(amx_packed_b_create(&huge, AMX_GEMM_S8, SIZE_MAX / 128,
					     96, b8, 96) == -EOVERFLOW && !huge,
			 "packed_b_create size overflow");
	}
	EXPECT(amx_gemm_bf16_packed(0, M, a, K, NULL, c, N), -EINVAL,
	       "packed NULL handle");
	EXPECT(amx_gemm_bf16_packed(0, M, a, K, pb8, c, N), -EINVAL,
	       "packed type mismatch");
	EXPECT(amx_gemm_s8s8_packed(0, M, a8, K, pb, (int32_t *)c, N), -EINVAL,
	       "packed int8 call on bf16 handle");
	EXPECT(amx_gemm_bf16_packed(0, M, a, K - 1, pb, c, N), -EINVAL,
	       "packed lda < K");
	EXPECT(amx_gemm_bf16_packed(2, M, a, K, pb, c, N), -EINVAL,
	       "packed unknown flag");
	EXPECT(amx_gemm_u8s8_packed(0, M, (uint8_t *)c, K, pb8, (int32_t *)c, N),
	       -EINVAL, "packed C overlaps A");
	{
		struct amx_packed_b *pbh = NULL;

		ret = amx_packed_b_create(&pbh, AMX_GEMM_F16, K, N, b, N);
		tap_ok(!ret, "packed_b_create f16: %d", ret);
		EXPECT(amx_gemm_f16_packed(0, M, a, K, pb, c, N), -EINVAL,
		       "packed f16 call on bf16 handle");
		EXPECT(amx_gemm_bf16_packed(0, M, a, K, pbh, c, N), -EINVAL,
		       "packed bf16 call on f16 handle");
		EXPECT(amx_gemm_s8s8_packed(0, M, a8, K, pbh, (int32_t *)c, N),
		       -EINVAL, "packed s8s8 call on f16 handle");
		EXPECT(amx_gemm_f16_packed(0, M, a, K, pb8, c, N), -EINVAL,
		       "packed f16 call on int8 handle");
		EXPECT(amx_gemm_f16_packed(0, M, a, K, NULL, c, N), -EINVAL,
		       "packed f16 NULL handle");
		EXPECT(amx_gemm_f16_packed(0, M, a, K - 1, pbh, c, N), -EINVAL,
		       "packed f16 lda < K");
		amx_packed_b_free(pbh);
	}
	amx_packed_b_free(pb);
	amx_packed_b_free(pb8);
	amx_packed_b_free(NULL);
	tap_ok(amx_packed_b_size(NULL) == 0, "packed_b_size(NULL) = 0");
	tap_ok(amx_set_num_threads(100000) == -EINVAL,
		 "set_num_threads out of range");
	tap_ok(amx_gemm_backend(9) == -EINVAL, "backend of unknown type");
	tap_ok(amx_gemm_backend(AMX_GEMM_F16) > 0, "backend of f16: %d",
	       amx_gemm_backend(AMX_GEMM_F16));
	return tap_finish();
}
