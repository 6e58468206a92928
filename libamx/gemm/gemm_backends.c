// SPDX-License-Identifier: MIT
/*
 * The GEMM backends as data (one table each) and their built-in blocking.
 * The driver (gemm.c) only reads these tables.
 */
#include <errno.h>
#include <stdlib.h>

#include "gemm.h"

/* the K granule in elements: one 64-byte tile row */
static size_t kgran(enum gemm_op op)
{
	return op == GEMM_OP_BF16 ? 32 : 64;
}

static size_t op_esz(enum gemm_op op)
{
	return op == GEMM_OP_BF16 ? 2 : 1;
}

static size_t clamp(size_t v, size_t lo, size_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* nc: the packed B block (kc x nc) a quarter of L3 */
static size_t nc_from_l3(enum gemm_op op, size_t kc)
{
	size_t nc = (size_t)gemm_cache_size(3) / 4 / (kc * op_esz(op));

	return clamp(nc / GEMM_NR * GEMM_NR, 256, 4096);
}

/*
 * AVX-512 and C: kc makes a B micro-panel (kc x NR) the size of L1
 * (measured ~8 % faster on Zen 4 than half of L1: fewer passes over C and
 * fewer packing calls per flop); mc makes the packed A block (mc x kc)
 * half of L2; nc from L3.
 */
static void vnni_default_blocks(enum gemm_op op, struct gemm_blocks *bs)
{
	size_t esz = op_esz(op);

	bs->kc = clamp((size_t)gemm_cache_size(1) / (GEMM_NR * esz) / 64 * 64,
		       128, 1024);
	bs->mc = clamp((size_t)gemm_cache_size(2) / 2 / (bs->kc * esz) / 96 * 96,
		       96, 1920);
	bs->nc = nc_from_l3(op, bs->kc);
	bs->pf = 0;
}

/*
 * AMX: measured on a Sapphire Rapids class Xeon (L1d 48 KiB, L2 2 MiB),
 * the 2 x 2 tile micro-kernel over packed panels with ir innermost reaches
 * 55-57 % of the TDP peak at kc = 256-384 bf16 and mc = 128-512, and 37 %
 * at the kc = 768 the L1 formula above gives; prefetching A in the K loop
 * cost 5-20 points.  So: kc = 384 bf16 (768 bytes a row: a 24 KiB B
 * micro-panel that stays in L1 across the ir loop), the same bytes for
 * int8 (kc = 768), mc = 256, no prefetch.  Other CPUs: amx-tune.
 */
static void amx_default_blocks(enum gemm_op op, struct gemm_blocks *bs)
{
	bs->kc = 768 / op_esz(op);
	bs->mc = 256;
	bs->nc = nc_from_l3(op, bs->kc);
	bs->pf = 0;
}

static void amx_pack_a(size_t mc, size_t kc_bytes, const uint8_t *a,
		       size_t lda_bytes, uint8_t *dst, uint8_t flip)
{
	gemm_pack_a_tile(mc, kc_bytes, a, lda_bytes, dst, flip);
}

const struct gemm_backend gemm_backend_amx = {
	.id = AMX_GEMM_BACKEND_AMX,
	.name = "amx",
	.mr = GEMM_MR_AMX,
	.nr = GEMM_NR,
	.ukr = { gemm_ukr_amx_bf16, gemm_ukr_amx_s8s8, gemm_ukr_amx_u8s8 },
	.pack_a = amx_pack_a,
	.corr_ops = 0,		/* TDPBSSD multiplies s8 x s8 itself */
	.thread_begin = gemm_amx_begin,
	.thread_end = gemm_amx_end,
	.default_blocks = amx_default_blocks,
};

const struct gemm_backend gemm_backend_avx512 = {
	.id = AMX_GEMM_BACKEND_AVX512,
	.name = "avx512",
	.mr = GEMM_MR_AVX,
	.nr = GEMM_NR,
	.ukr = { gemm_ukr_avx512_bf16, gemm_ukr_avx512_u8s8,
		 gemm_ukr_avx512_u8s8 },
	.pack_a = gemm_pack_a_vnni,
	.corr_ops = 1u << GEMM_OP_S8S8,	/* vpdpbusd is u8 x s8 only */
	.default_blocks = vnni_default_blocks,
};

const struct gemm_backend gemm_backend_c = {
	.id = AMX_GEMM_BACKEND_C,
	.name = "c",
	.mr = GEMM_MR_AVX,
	.nr = GEMM_NR,
	.ukr = { gemm_ukr_c_bf16, gemm_ukr_c_u8s8, gemm_ukr_c_u8s8 },
	.pack_a = gemm_pack_a_vnni,
	.corr_ops = 1u << GEMM_OP_S8S8,	/* same layout as AVX-512 */
	.default_blocks = vnni_default_blocks,
};

const struct gemm_backend *gemm_backend_by_id(int id)
{
	switch (id) {
	case AMX_GEMM_BACKEND_AMX: return &gemm_backend_amx;
	case AMX_GEMM_BACKEND_AVX512: return &gemm_backend_avx512;
	case AMX_GEMM_BACKEND_C: return &gemm_backend_c;
	}
	return NULL;
}

int gemm_blocks_fix(const struct gemm_backend *be, enum gemm_op op,
		    struct gemm_blocks *bs)
{
	if (!bs->kc || bs->kc > GEMM_KC_MAX || !bs->mc || bs->mc > GEMM_MC_MAX ||
	    !bs->nc || bs->nc > GEMM_NC_MAX || bs->pf > GEMM_PF_MAX)
		return -EINVAL;
	bs->kc = gemm_round_up(bs->kc, kgran(op));
	bs->mc = gemm_round_up(bs->mc, be->mr);
	bs->nc = gemm_round_up(bs->nc, be->nr);
	return 0;
}
