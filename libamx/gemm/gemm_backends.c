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
	return 64 / gemm_op_esz(op);
}

static size_t clamp(size_t v, size_t lo, size_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* nc: the packed B block (kc x nc) 3/8 of L2 */
static size_t nc_from_l2(enum gemm_op op, size_t kc)
{
	size_t nc = (size_t)gemm_cache_size(2) * 3 / 8 / (kc * gemm_op_esz(op));

	return clamp(nc / GEMM_NR * GEMM_NR, 256, 4096);
}

/*
 * The small-M path's K block, in bytes: one B micro-panel (K x GEMM_NR)
 * the size of L1, so that it stays there across the few A micro-panels
 * (that path runs B-resident, see gemm.c).  The A-resident kc of the
 * AVX-512 defaults below is 2-3x that, which made M = 16..32 against
 * 4096 x 4096 10-25 % slower on Zen 5.
 */
size_t gemm_small_m_kc_bytes(void)
{
	return clamp((size_t)gemm_cache_size(1) / GEMM_NR / 64 * 64, 256, 4096);
}

/*
 * AVX-512 and C run A-resident (gemm.c): kc makes one A micro-panel
 * (GEMM_MR_AVX rows x kc) the size of L1, so that C is written once per
 * 2048 bf16 / 4096 int8 of K on a 48 KiB L1.  Measured on Zen 5 against the
 * kc of a B micro-panel in L1 (768 bf16): 2048^3 bf16 391 -> 454 GFLOPS,
 * u8s8 828 -> 920 GOPS; 4096 x 512 x 4096 u8s8 672 -> 837.  mc only sets
 * where the small-M path starts (gemm.c): its A block (mc rows x its own
 * smaller kc) half of L2.  nc: the B block (kc x nc, a thread's own
 * buffer, streamed once per A micro-panel) half of this CPU's share of L3
 * (gemm_l3_per_cpu()).  A quarter of the whole L3 gave 16 MiB B blocks
 * per thread with kc = 4 KiB, far past the share of a core on a many-core
 * part; on Zen 5 (16 MiB of L3 a CPU) u8s8 2048^3 ran at 868/867/848 GOPS
 * with nc = 4096/2048/1024.
 */
static void vnni_default_blocks(enum gemm_op op, struct gemm_blocks *bs)
{
	size_t esz = gemm_op_esz(op);

	bs->kc = clamp((size_t)gemm_cache_size(1) / GEMM_MR_AVX / 64 * 64 / esz,
		       128, 4096);
	bs->mc = clamp((size_t)gemm_cache_size(2) / 2 / gemm_small_m_kc_bytes()
		       / 96 * 96, 96, 1920);
	bs->nc = clamp((size_t)gemm_l3_per_cpu() / 2 / (bs->kc * esz) /
		       GEMM_NR * GEMM_NR, 256, 4096);
	bs->pf = 0;
	bs->small = 0;
}

/*
 * AMX: measured on a Sapphire Rapids class Xeon (L1d 48 KiB, L2 2 MiB),
 * the 2 x 2 tile micro-kernel over packed panels with ir innermost reaches
 * 55-57 % of the TDP peak at kc = 256-384 bf16 and mc = 128-512, and 37 %
 * at the kc = 768 the L1 formula above gives; prefetching A in the K loop
 * cost 5-20 points.  So: kc = 384 bf16 (768 bytes a row: a 24 KiB B
 * micro-panel that stays in L1 across the ir loop), the same bytes for
 * int8 (kc = 768), no prefetch.  Other CPUs: amx-tune.
 *
 * mc and nc were timed in the library on an AMX Xeon (L2 2 MiB, 2026-12-04,
 * 1 thread, GFLOPS plain / prepacked): mc = 32 (one A micro-panel in L1
 * against the B micro-panels streaming past) with nc = 1024 (the B block,
 * kc x nc = 768 KiB, stays in L2 for all the M blocks) against the mc =
 * 256 and nc = 4096 before: bf16 1024^3 860/915 -> 953/985, 4096^3
 * 508/512 -> 829/821; u8s8 2048^3 1733/1840 -> 1975/1970.  mc 64, 128
 * and 512 and nc 512, 768, 1344 and 2048 were slower.  So nc fills 3/8
 * of L2.  Tasks of few rows run as one M block (one_block_rows, gemm.c).
 *
 * Edges copied (edge tiles 0.930x, 0.966x and 0.980x in three full
 * amx-silicon.sh runs there, geometric means over 56 ratios to oneDNN).
 * C moved inside the first and last K step (cio): interleave against
 * block 1.018x and 1.025x in the first two runs, 0.97-1.15x in
 * alternating runs of single shapes, but block against interleave 0.998x
 * in the third, whose second run of the same default gave 1.017x: no
 * difference this machine can measure, and interleave stays.
 *
 * Small calls go to AVX-512 (bs->small, in flop): a call's tile
 * configuration and release alone take 0.13 us there, and the AMX edge
 * handling computes whole 32 x 32 blocks.  On that Xeon, 1 thread, AMX
 * against AVX-512 BF16/VNNI (GFLOPS, plain / prepacked B): bf16 16^3
 * 13/18 against 27/30, 24^3 28/58 against 53/58, 32^3 134/152 against
 * 84/89; u8s8 (VNNI is 7.5x slower than AMX there, not 28x) 32^3
 * 124/155 against 209/302, 48^3 170/351 against 229/379, 64^3 694/855
 * against 473/551.  So below 2^16 flop (32^3) for bf16 and 2^18 (about
 * 50^3) for int8.
 */
static void amx_default_blocks(enum gemm_op op, struct gemm_blocks *bs)
{
	bs->kc = 768 / gemm_op_esz(op);
	bs->mc = 32;
	bs->nc = nc_from_l2(op, bs->kc);
	bs->pf = 0;
	bs->edge = GEMM_EDGE_COPY;
	bs->cio = GEMM_CIO_INTERLEAVE;
	bs->small = gemm_op_esz(op) == 2 ? 1ul << 16 : 1ul << 18;
}

const struct gemm_backend gemm_backend_amx = {
	.id = AMX_GEMM_BACKEND_AMX,
	.name = "amx",
	.mr = GEMM_MR_AMX,
	.ukr = { gemm_ukr_amx_bf16, gemm_ukr_amx_s8s8, gemm_ukr_amx_u8s8,
		 gemm_ukr_amx_f16 },
	/*
	 * A in place when K is whole tile rows and rows are line-aligned
	 * (a row of a tile never spans two lines): the same lines as the
	 * packed A, without the copy.  Not timed on silicon yet.
	 */
	.ukr_direct = { gemm_ukr_amx_bf16_direct, gemm_ukr_amx_s8s8_direct,
			gemm_ukr_amx_u8s8_direct, gemm_ukr_amx_f16_direct },
	.direct_kalign = 64,
	.direct_align = 64,
	.direct_whole_rows = 1,
	.pack_a = gemm_pack_a_tile,
	.corr_ops = 0,		/* TDPBSSD multiplies s8 x s8 itself */
	.one_block_rows = 256,
	/*
	 * One task per thread: on the AMX Xeon (2 threads, quiet) two made
	 * each task a quarter of C, too small to run well: against one,
	 * bf16 256^3 1009/1179 -> 1629/2034 GFLOPS (plain/prepacked), 512^3
	 * 1285/1510 -> 1867/2141, u8s8 512^3 2619/2979 -> 4022/4723, 1024^3
	 * 3116/3353 -> 3877/4164, 2048^3 3299/3461 -> 3823/4037; decode
	 * shapes and 4096^3 within 3 %.
	 */
	.tasks_per_thread = 1,
	.thread_begin = gemm_amx_begin,
	.thread_end = gemm_amx_end,
	.default_blocks = amx_default_blocks,
};

const struct gemm_backend gemm_backend_avx512 = {
	.id = AMX_GEMM_BACKEND_AVX512,
	.name = "avx512",
	.mr = GEMM_MR_AVX,
	.ukr = { gemm_ukr_avx512_bf16, gemm_ukr_avx512_u8s8,
		 gemm_ukr_avx512_u8s8, gemm_ukr_avx512_f16 },
	.ukr_direct = { gemm_ukr_avx512_bf16_direct,
			gemm_ukr_avx512_s8s8_direct,
			gemm_ukr_avx512_u8s8_direct,
			gemm_ukr_avx512_f16_direct },
	.ukr_fused = { [GEMM_OP_BF16] = gemm_ukr_avx512_bf16_fused },
	.direct_kalign = 4,	/* a bf16 pair, an int8 quad: one dword */
	.direct_align = 1,
	.pack_a = gemm_pack_a_vnni,
	.a_resident = 1,
	.tasks_per_thread = 2,	/* a late thread costs less (Zen 5, busy) */
	.corr_ops = 1u << GEMM_OP_S8S8,	/* vpdpbusd is u8 x s8 only */
	.default_blocks = vnni_default_blocks,
};

const struct gemm_backend gemm_backend_c = {
	.id = AMX_GEMM_BACKEND_C,
	.name = "c",
	.mr = GEMM_MR_AVX,
	.ukr = { gemm_ukr_c_bf16, gemm_ukr_c_u8s8, gemm_ukr_c_u8s8,
		 gemm_ukr_c_f16 },
	.pack_a = gemm_pack_a_vnni,
	.a_resident = 1,
	.tasks_per_thread = 2,
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
	    !bs->nc || bs->nc > GEMM_NC_MAX || bs->pf > GEMM_PF_MAX ||
	    bs->edge > GEMM_EDGE_MAX || bs->cio > GEMM_CIO_MAX ||
	    bs->small > GEMM_SMALL_MAX)
		return -EINVAL;
	if (be->id != AMX_GEMM_BACKEND_AMX) {
		bs->edge = GEMM_EDGE_COPY;	/* only AMX has tiles */
		bs->cio = GEMM_CIO_BLOCK;
		bs->small = 0;			/* nothing below to go to */
	}
	bs->kc = gemm_round_up(bs->kc, kgran(op));
	bs->mc = gemm_round_up(bs->mc, be->mr);
	bs->nc = gemm_round_up(bs->nc, GEMM_NR);
	return 0;
}
