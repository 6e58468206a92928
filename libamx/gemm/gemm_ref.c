// SPDX-License-Identifier: MIT
/*
 * Portable C micro-kernels over the VNNI packed layout (GEMM_MR_AVX x
 * GEMM_NR): the fallback on CPUs without AVX-512 BF16/VNNI and the plain
 * reference the faster kernels are checked against.
 *
 * bf16: each product of two bf16 is exact in fp32; pairs are added to the
 * fp32 accumulator one after the other, as vdpbf16ps does.
 * fp16: see gemm_ukr_c_f16().
 * int8: A is biased u8, B is s8; sums wrap modulo 2^32, corr is added last.
 */
#include <string.h>

#include "gemm.h"

static float bf16_to_f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

void gemm_ukr_c_bf16(size_t mr, size_t nr, size_t kcpad_bytes,
		     const void *ap, const void *bp, void *c, size_t ldc,
		     const int32_t *corr, int acc,
		     const struct gemm_blocks *bs)
{
	const uint16_t *a = ap, *b = bp;
	float *cf = c;
	float t[GEMM_MR_AVX][GEMM_NR];
	size_t kp = kcpad_bytes / 4;

	(void)corr;
	(void)bs;
	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < mr; i++)
		for (size_t j = 0; acc && j < nr; j++)
			t[i][j] = cf[i * ldc + j];
	for (size_t p = 0; p < kp; p++) {
		const uint16_t *bb = b + p * 2 * GEMM_NR;

		for (size_t i = 0; i < mr; i++) {
			float a0 = bf16_to_f32(a[(p * mr + i) * 2]);
			float a1 = bf16_to_f32(a[(p * mr + i) * 2 + 1]);

			for (size_t j = 0; j < GEMM_NR; j++) {
				t[i][j] += a1 * bf16_to_f32(bb[2 * j + 1]);
				t[i][j] += a0 * bf16_to_f32(bb[2 * j]);
			}
		}
	}
	for (size_t i = 0; i < mr; i++)
		memcpy(cf + i * ldc, t[i], nr * sizeof(float));
}

/*
 * fp16: the products of two fp16 are exact in fp32 (11 + 11 significant
 * bits), so the order of the additions is all that can differ between
 * kernels.  Here and in the AVX-512F kernel: the even and the odd
 * products of a K pair go into two sums from +0, k ascending, added to
 * each other at the end of the K block and then to C (when accumulating).
 */
void gemm_ukr_c_f16(size_t mr, size_t nr, size_t kcpad_bytes,
		    const void *ap, const void *bp, void *c, size_t ldc,
		    const int32_t *corr, int acc, const struct gemm_blocks *bs)
{
	const amx_fp16 *a = ap, *b = bp;
	float *cf = c;
	float te[GEMM_MR_AVX][GEMM_NR], to[GEMM_MR_AVX][GEMM_NR];
	size_t kp = kcpad_bytes / 4;

	(void)corr;
	(void)bs;
	memset(te, 0, sizeof(te));
	memset(to, 0, sizeof(to));
	for (size_t p = 0; p < kp; p++) {
		float be[GEMM_NR], bo[GEMM_NR];

		for (size_t j = 0; j < GEMM_NR; j++) {
			be[j] = amx_fp16_to_fp32(b[(p * GEMM_NR + j) * 2]);
			bo[j] = amx_fp16_to_fp32(b[(p * GEMM_NR + j) * 2 + 1]);
		}
		for (size_t i = 0; i < mr; i++) {
			float a0 = amx_fp16_to_fp32(a[(p * mr + i) * 2]);
			float a1 = amx_fp16_to_fp32(a[(p * mr + i) * 2 + 1]);

			for (size_t j = 0; j < GEMM_NR; j++) {
				te[i][j] += a0 * be[j];
				to[i][j] += a1 * bo[j];
			}
		}
	}
	for (size_t i = 0; i < mr; i++)
		for (size_t j = 0; j < nr; j++) {
			float s = te[i][j] + to[i][j];

			cf[i * ldc + j] = acc ? cf[i * ldc + j] + s : s;
		}
}

void gemm_ukr_c_u8s8(size_t mr, size_t nr, size_t kcpad_bytes,
		     const void *ap, const void *bp, void *c, size_t ldc,
		     const int32_t *corr, int acc,
		     const struct gemm_blocks *bs)
{
	const uint8_t *a = ap;
	const int8_t *b = bp;
	int32_t *ci = c;
	uint32_t t[GEMM_MR_AVX][GEMM_NR];
	size_t kq = kcpad_bytes / 4;

	(void)bs;
	memset(t, 0, sizeof(t));
	for (size_t i = 0; i < mr; i++)
		for (size_t j = 0; acc && j < nr; j++)
			t[i][j] = (uint32_t)ci[i * ldc + j];
	for (size_t q = 0; q < kq; q++) {
		const int8_t *bb = b + q * 4 * GEMM_NR;

		for (size_t i = 0; i < mr; i++) {
			const uint8_t *aa = a + (q * mr + i) * 4;

			for (size_t j = 0; j < GEMM_NR; j++) {
				int32_t s = aa[0] * bb[4 * j] +
					    aa[1] * bb[4 * j + 1] +
					    aa[2] * bb[4 * j + 2] +
					    aa[3] * bb[4 * j + 3];

				t[i][j] += (uint32_t)s;
			}
		}
	}
	for (size_t i = 0; i < mr; i++)
		for (size_t j = 0; j < nr; j++)
			ci[i * ldc + j] = (int32_t)(t[i][j] +
					  (corr ? (uint32_t)corr[j] : 0));
}
