// SPDX-License-Identifier: MIT
/*
 * Pack a kc x nc block of row-major bf16 B into VNNI panels of GEMM_NR
 * columns: panel[p][j][0..1] = B[2p + 0..1][j], zero past kc and nc, K
 * padded to a whole tile (32 bf16).
 */
#include <string.h>

#include "gemm.h"

static void pack_panel_full(size_t kc, const uint16_t *b, size_t ldb,
			    uint16_t *dst)
{
	size_t p;

	for (p = 0; p + 2 <= kc; p += 2) {
		const uint16_t *r0 = b + p * ldb, *r1 = r0 + ldb;

		for (size_t j = 0; j < GEMM_NR; j++) {
			dst[2 * j] = r0[j];
			dst[2 * j + 1] = r1[j];
		}
		dst += 2 * GEMM_NR;
	}
	if (p < kc) {
		const uint16_t *r0 = b + p * ldb;

		for (size_t j = 0; j < GEMM_NR; j++) {
			dst[2 * j] = r0[j];
			dst[2 * j + 1] = 0;
		}
	}
}

static void pack_panel_edge(size_t kc, size_t nr, const uint16_t *b,
			    size_t ldb, uint16_t *dst)
{
	for (size_t p = 0; p < kc; p += 2) {
		for (size_t j = 0; j < GEMM_NR; j++) {
			dst[2 * j] = j < nr ? b[p * ldb + j] : 0;
			dst[2 * j + 1] = j < nr && p + 1 < kc ?
					 b[(p + 1) * ldb + j] : 0;
		}
		dst += 2 * GEMM_NR;
	}
}

void gemm_pack_b_bf16(size_t kc, size_t nc, const uint16_t *b, size_t ldb,
		      uint16_t *dst, size_t panel_stride)
{
	size_t kpad = gemm_round_up(kc, GEMM_KGRAN_BYTES / 2);
	size_t tail_bytes = (kpad - gemm_round_up(kc, 2)) * GEMM_NR * 2;

	for (size_t j = 0; j < nc; j += GEMM_NR, dst += panel_stride) {
		size_t nr = nc - j < GEMM_NR ? nc - j : GEMM_NR;

		if (nr == GEMM_NR)
			pack_panel_full(kc, b + j, ldb, dst);
		else
			pack_panel_edge(kc, nr, b + j, ldb, dst);
		memset(dst + gemm_round_up(kc, 2) * GEMM_NR, 0, tail_bytes);
	}
}
