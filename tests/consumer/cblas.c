// SPDX-License-Identifier: MIT
/*
 * Built against an installed libamx_cblas, the way BLAS code is: only
 * <amx_cblas.h> and the cblas_* names.  Checks a small product per entry
 * point in both layouts against the plain loops.
 */
#include <amx_cblas.h>
#include <stdio.h>
#include <string.h>

/* bf16 of small integers: the upper half of the binary32 */
static uint16_t bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

int main(void)
{
	enum { M = 3, N = 2, K = 4 };
	uint16_t a[M * K], b[K * N], bp[64];
	float y[M];
	float fa[M * K], fb[K * N], c[M * N], want[M * N];
	uint8_t ua[M * K];
	int8_t sb[K * N];
	int32_t ci[M * N], wanti[M * N], oc = 5;
	int bad = 0;

	for (int i = 0; i < M * K; i++) {
		fa[i] = (float)(i % 5 - 2);
		a[i] = bf16(fa[i]);
		ua[i] = (uint8_t)(i * 17 % 256);
	}
	for (int i = 0; i < K * N; i++) {
		fb[i] = (float)(i % 3 - 1);
		b[i] = bf16(fb[i]);
		sb[i] = (int8_t)(i * 29 % 256 - 128);
	}
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			float s = 0;
			int32_t si = 0;

			for (int p = 0; p < K; p++) {
				s += fa[i * K + p] * fb[p * N + j];
				si += (ua[i * K + p] + 1) * (sb[p * N + j] - 2);
			}
			want[i * N + j] = 2 * s;
			wanti[i * N + j] = si + oc;
		}

	/* row-major C = 2 A B */
	cblas_gemm_bf16bf16f32(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N,
			       K, 2, a, K, b, N, 0, c, N);
	bad |= memcmp(c, want, sizeof(c)) != 0;
	/* column-major C^T = 2 B^T A^T: the same numbers, through sbgemm */
	cblas_sbgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, M, K, 2, b,
		     N, a, K, 0, c, N);
	bad |= memcmp(c, want, sizeof(c)) != 0;
	/* row-major: A is uint8, B int8; (A + 1)(B - 2) + 5 */
	cblas_gemm_s8u8s32(CblasRowMajor, CblasNoTrans, CblasNoTrans,
			   CblasFixOffset, M, N, K, 1, ua, K, 1, sb, N, -2, 0,
			   ci, N, &oc);
	bad |= memcmp(ci, wanti, sizeof(ci)) != 0;
	/* MKL's packed form: B packed once, then C = 2 A B */
	bad |= cblas_gemm_bf16bf16f32_pack_get_size(CblasBMatrix, M, N, K) >
	       sizeof(bp);
	cblas_gemm_bf16bf16f32_pack(CblasRowMajor, CblasBMatrix, CblasNoTrans,
				    M, N, K, b, N, bp);
	memset(c, 0, sizeof(c));
	cblas_gemm_bf16bf16f32_compute(CblasRowMajor, CblasNoTrans,
				       CblasPacked, M, N, K, 2, a, K, bp, 0, 0,
				       c, N);
	bad |= memcmp(c, want, sizeof(c)) != 0;
	/* OpenBLAS's GEMV: y = 2 A x, x the first column of B (stride N) */
	cblas_sbgemv(CblasRowMajor, CblasNoTrans, M, K, 2, a, K, b, N, 0, y, 1);
	for (int i = 0; i < M; i++)
		bad |= y[i] != want[i * N];

	printf("consumer_cblas: %s\n", bad ? "MISMATCH" : "all five agree");
	return bad;
}
