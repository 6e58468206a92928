// SPDX-License-Identifier: MIT
/*
 * Pack an mc x kc block of row-major A (bf16 or int8, handled as bytes) for
 * the micro-kernels, zero-padding K to a whole tile row (64 bytes).
 */
#include <string.h>

#include "gemm.h"

/* [kcpad/4][mr] 32-bit groups per micro-panel of up to GEMM_MR_AVX rows */
void gemm_pack_a_vnni(size_t mc, size_t kc_bytes, const uint8_t *a,
		      size_t lda_bytes, uint8_t *dst, uint8_t flip)
{
	size_t kpad = gemm_round_up(kc_bytes, GEMM_KGRAN_BYTES);
	size_t kfull = kc_bytes / 4 * 4;
	uint32_t fl = flip * 0x01010101u;

	for (size_t i = 0; i < mc; i += GEMM_MR_AVX) {
		size_t mr = mc - i < GEMM_MR_AVX ? mc - i : GEMM_MR_AVX;
		uint32_t *d = (uint32_t *)(void *)dst;

		for (size_t r = 0; r < mr; r++) {
			const uint8_t *row = a + (i + r) * lda_bytes;
			size_t q;

			for (q = 0; q < kfull; q += 4) {
				uint32_t w;

				memcpy(&w, row + q, 4);
				d[q / 4 * mr + r] = w ^ fl;
			}
			if (q < kpad) {
				uint8_t t[4] = { 0, 0, 0, 0 };
				uint32_t w;

				for (size_t u = 0; q + u < kc_bytes; u++)
					t[u] = row[q + u] ^ flip;
				memcpy(&w, t, 4);
				d[q / 4 * mr + r] = w;
				for (q += 4; q < kpad; q += 4)
					d[q / 4 * mr + r] = 0;
			}
		}
		dst += mr * kpad;
	}
}

/* [kcpad/64][32 rows][64 bytes] per micro-panel of GEMM_MR_AMX rows */
void gemm_pack_a_tile(size_t mc, size_t kc_bytes, const uint8_t *a,
		      size_t lda_bytes, uint8_t *dst, uint8_t flip)
{
	size_t kpad = gemm_round_up(kc_bytes, GEMM_KGRAN_BYTES);

	for (size_t i = 0; i < mc; i += GEMM_MR_AMX) {
		size_t mr = mc - i < GEMM_MR_AMX ? mc - i : GEMM_MR_AMX;

		for (size_t t = 0; t < kpad; t += 64) {
			size_t len = kc_bytes - t < 64 ? kc_bytes - t : 64;

			for (size_t r = 0; r < GEMM_MR_AMX; r++) {
				uint8_t *d = dst + (t / 64) * 64 * GEMM_MR_AMX +
					     r * 64;

				if (r < mr) {
					memcpy(d, a + (i + r) * lda_bytes + t, len);
					for (size_t u = 0; flip && u < len; u++)
						d[u] ^= flip;
					memset(d + len, 0, 64 - len);
				} else {
					memset(d, 0, 64);
				}
			}
		}
		dst += GEMM_MR_AMX * kpad;
	}
}
