/* SPDX-License-Identifier: MIT */
/*
 * Internal interfaces of the GEMM helpers: blocksizes, packing, micro-kernels,
 * thread pool.  Nothing here is exported.  The AMX kernels' bodies are
 * gemm_amx_kernel.h's, for the three files that build them.
 */
#ifndef AMX_GEMM_INTERNAL_H
#define AMX_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <amx.h>
#include "internal.h"
#include "../pool/pool.h"

/* register/tile blocking */
/*
 * Columns per B micro-panel: 2 AMX tiles, 2 zmm.  The same for every
 * backend, not a backend property: a packed B (amx_packed_b_create())
 * serves every backend, so its panels must fit all of them.
 */
#define GEMM_NR		32
#define GEMM_MR_AVX	12	/* rows of the AVX-512 / C micro-kernel */
#define GEMM_MR_AMX	32	/* rows of the AMX micro-kernel: 2 tiles */
#define GEMM_KGRAN_BYTES 64	/* K padded to one tile row: 32 bf16 / 64 int8 */
#define GEMM_MR_MAX	32

enum gemm_op { GEMM_OP_BF16, GEMM_OP_S8S8, GEMM_OP_U8S8, GEMM_OP_F16,
	       GEMM_NOPS };
enum { GEMM_NBACKENDS = 3 };	/* AMX_GEMM_BACKEND_AMX .. _C */

/*
 * Cache blocksizes, in elements, and the micro-kernel's prefetch distance
 * (K steps; 0 = none).  Any values in the ranges below give exact (int8)
 * or bound-respecting (bf16) results; gemm_blocks_fix() rounds kc up to
 * the K granule (64 bytes), mc to the backend's MR and nc to GEMM_NR.
 */
struct gemm_blocks {
	size_t mc, nc, kc, pf;
	size_t edge;	/* AMX edge blocks: enum gemm_edge */
	size_t cio;	/* AMX C tile loads and stores: enum gemm_cio */
	size_t small;	/* AMX: calls below this many flop run on AVX-512 */
};

/*
 * How the AMX kernels compute a block of C smaller than 32 x 32 (or 16 x
 * 32): through a 32 x 32 scratch block copied in and out, or straight
 * from and to C with tiles configured to the block's rows and columns
 * (two LDTILECFG a block).  Which is faster depends on the CPU and the
 * K block: the tuner decides (AMX_GEMM_EDGE_* in amx.h).
 */
enum gemm_edge {
	GEMM_EDGE_COPY = AMX_GEMM_EDGE_COPY,
	GEMM_EDGE_TILES = AMX_GEMM_EDGE_TILES,
	GEMM_EDGE_MAX = GEMM_EDGE_TILES,
};

/*
 * When the AMX kernels move their C tiles: all four loaded (or zeroed)
 * before the K loop and stored after it, or each C tile loaded just before
 * its first dot product (first K step) and stored right after its last
 * (last K step), so that those 1 KiB moves overlap the other tiles' dot
 * products.  A line through the recorded Xeon's kc sweep (mc 256, 64
 * cycles a K step at peak) leaves ~370 cycles a block outside the K
 * steps, the C moves among them: 27 % of a kc = 384 bf16 block.  Whether
 * interleaving hides some of it is the tuner's to find out on the CPU at
 * hand (AMX_GEMM_CIO_* in amx.h).
 */
enum gemm_cio {
	GEMM_CIO_BLOCK = AMX_GEMM_CIO_BLOCK,
	GEMM_CIO_INTERLEAVE = AMX_GEMM_CIO_INTERLEAVE,
	GEMM_CIO_MAX = GEMM_CIO_INTERLEAVE,
};

#define GEMM_KC_MAX	8192
#define GEMM_MC_MAX	8192
#define GEMM_NC_MAX	65536
#define GEMM_PF_MAX	64
#define GEMM_SMALL_MAX	(1ul << 30)

/* where the blocking in force came from */
enum gemm_blocks_src {
	GEMM_SRC_DEFAULT,	/* the backend's built-in defaults */
	GEMM_SRC_FILE,		/* the tuning file */
	GEMM_SRC_ENV,		/* AMX_GEMM_BLOCKS */
	GEMM_SRC_API,		/* amx_gemm_set_blocking() */
};

/*
 * Micro-kernel contract: C[mr x nr] (+)= Ap * Bp over kcpad_bytes of packed
 * K (a multiple of 64).  Ap/Bp are one micro-panel each; corr (int8
 * fallback only, else NULL) is added per column.  When !acc, C is not read.
 * bs: the blocking in force; kernels read their tunables from it (bs->pf,
 * the prefetch distance in K steps; bs->edge) and ignore the others.
 */
typedef void (*gemm_ukr_fn)(size_t mr, size_t nr, size_t kcpad_bytes,
			    const void *ap, const void *bp, void *c, size_t ldc,
			    const int32_t *corr, int acc,
			    const struct gemm_blocks *bs);

/*
 * The same over A read in place: rows lda_bytes apart, k_bytes of each
 * (a multiple of 4: whole bf16 pairs / int8 quads) against the first
 * k_bytes / 4 groups of the packed B micro-panel.  For s8 x s8 the kernel
 * biases A itself (corr as above).
 */
typedef void (*gemm_ukr_direct_fn)(size_t mr, size_t nr, size_t k_bytes,
				   const uint8_t *a, size_t lda_bytes,
				   const void *bp, void *c, size_t ldc,
				   const int32_t *corr, int acc,
				   const struct gemm_blocks *bs);

/*
 * An in-place kernel that packs its B micro-panel on the way: it reads
 * B's k_bytes / 4 groups of (up to) nr columns straight from the caller's
 * row-major B (rows ldb_bytes apart, group g from rows g * G .. g * G +
 * G - 1), uses them from registers and, when bdst is not NULL, stores
 * them as the packed micro-panel (columns past nr zero) that the
 * following micro-panels of the block then read.  The first micro-panel
 * of a block thus packs B at no extra pass over it (a separate pass was
 * 3 % of a 256^3 bf16 call on Zen 5, 5 % at 128^3).
 */
typedef void (*gemm_ukr_fused_fn)(size_t mr, size_t nr, size_t k_bytes,
				  const uint8_t *a, size_t lda_bytes,
				  const uint8_t *bsrc, size_t ldb_bytes,
				  void *bdst, void *c, size_t ldc, int acc);

/*
 * A backend, as data: the driver's loops read this and never ask which
 * backend they run.
 */
struct gemm_backend {
	int id;				/* enum amx_gemm_backend */
	const char *name;		/* "amx", "avx512", "c" */
	size_t mr;			/* micro-kernel rows (x GEMM_NR) */
	gemm_ukr_fn ukr[GEMM_NOPS];
	/*
	 * Kernels reading A in place (no A packing), NULL where none; they
	 * need K blocks of whole direct_kalign bytes, A and lda aligned to
	 * direct_align bytes, and with direct_whole_rows they read mr (or
	 * mr / 2) rows whatever the block's rows (the driver packs a ragged
	 * last micro-panel then).
	 */
	gemm_ukr_direct_fn ukr_direct[GEMM_NOPS];
	/* the same packing B on the way (gemm_ukr_fused_fn), NULL where none */
	gemm_ukr_fused_fn ukr_fused[GEMM_NOPS];
	size_t direct_kalign, direct_align;
	int direct_whole_rows;
	/*
	 * Pack an mc x kc_bytes block of A into mr-row micro-panels of
	 * mr * kcpad bytes each; each byte XORed with @flip.
	 */
	void (*pack_a)(size_t mc, size_t kc_bytes, const uint8_t *a,
		       size_t lda_bytes, uint8_t *dst, uint8_t flip,
		       unsigned int simd);
	/*
	 * Loop order of the macro-kernel: 1 keeps an A micro-panel in L1
	 * across the B micro-panels (ir outer, jr inner), 0 a B micro-panel
	 * across the A micro-panels (jr outer); see gemm.c.
	 */
	int a_resident;
	/*
	 * B-resident backends: a task of at most this many rows runs them as
	 * one M block whatever mc says, with N not cut into nc blocks where
	 * B is packed a few micro-panels at a time (see gemm.c); 0: never.
	 */
	size_t one_block_rows;
	/* tasks of C per thread in a call on several threads (see gemm.c) */
	unsigned int tasks_per_thread;
	/*
	 * Ops (bit 1 << op) whose A is packed biased (flip 0x80) and whose
	 * result gets the per-column correction (s8 x s8 on u8 x s8 VNNI).
	 */
	unsigned int corr_ops;
	/* per calling thread around a job's blocks; NULL when not needed */
	int (*thread_begin)(void);
	void (*thread_end)(void);
	/* the built-in blocking for @op on this CPU */
	void (*default_blocks)(enum gemm_op op, struct gemm_blocks *bs);
};

AMX_HIDDEN extern const struct gemm_backend gemm_backend_amx;
AMX_HIDDEN extern const struct gemm_backend gemm_backend_avx512;
AMX_HIDDEN extern const struct gemm_backend gemm_backend_c;

/* by enum amx_gemm_backend; NULL for others */
AMX_HIDDEN const struct gemm_backend *gemm_backend_by_id(int id);

/*
 * The blocking in force for @be and @op (defaults, then the tuning file,
 * then AMX_GEMM_BLOCKS, then amx_gemm_set_blocking(); the first call
 * reads file and environment), already fixed up for @be.
 */
AMX_HIDDEN void gemm_blocks_get(const struct gemm_backend *be,
				enum gemm_op op, struct gemm_blocks *bs,
				enum gemm_blocks_src *src);
/* one backend's and op's blocking in the table, and where it came from */
struct gemm_blocks_slot {
	struct gemm_blocks bs;
	enum gemm_blocks_src src;
};

/*
 * The tuning file and AMX_GEMM_BLOCKS as text (gemm_tuning.c), on tables
 * indexed [backend id - 1][op]:
 * - gemm_tuning_load(): the first usable file of the user's and the
 *   system's applied to @out; its status (0, -ENOENT none, -EINVAL
 *   malformed or not a regular file of at most 64 KiB, -EPROTO another
 *   version, -ESTALE another CPU), the path read or rejected in @used;
 * - gemm_tuning_parse_env(): an AMX_GEMM_BLOCKS value applied to @out,
 *   or -EINVAL and *@why, @out untouched;
 * - gemm_tuning_save(): @tab's entries that are not the default written
 *   as the file at @path (NULL: the user's), 0 or -errno;
 * - gemm_tuning_user_path(): the user's file (or, @dir_only, directory).
 */
AMX_HIDDEN extern const char *const gemm_op_names[GEMM_NOPS];
AMX_HIDDEN int gemm_tuning_load(struct gemm_blocks_slot out[][GEMM_NOPS],
				char *used, size_t len);
AMX_HIDDEN int gemm_tuning_parse_env(const char *env,
				     struct gemm_blocks_slot out[][GEMM_NOPS],
				     const char **why);
AMX_HIDDEN int gemm_tuning_save(const char *path,
				const struct gemm_blocks_slot tab[][GEMM_NOPS]);
AMX_HIDDEN int gemm_tuning_user_path(char *buf, size_t len, int dir_only);
/* round @bs to what @be needs; -EINVAL when a value is out of range */
AMX_HIDDEN int gemm_blocks_fix(const struct gemm_backend *be,
			       enum gemm_op op, struct gemm_blocks *bs);
/* the K block of the small-M (B packed just in time) path, in bytes */
AMX_HIDDEN size_t gemm_small_m_kc_bytes(void);
/* L3 bytes per CPU sharing it (sysfs), else the L3 size; never 0 */
AMX_HIDDEN long gemm_l3_per_cpu(void);
/* cache sizes in bytes (level 1..3), never 0 */
AMX_HIDDEN long gemm_cache_size(int level);

/* CPU features for the fallback (CPUID + XCR0), cached */
AMX_HIDDEN int gemm_cpu_avx512bf16(void);
AMX_HIDDEN int gemm_cpu_avx512vnni(void);
AMX_HIDDEN int gemm_cpu_avx2(void);
/* AVX-512 F, BW and VL, with the OS saving their state */
AMX_HIDDEN int gemm_cpu_avx512bw(void);
/* AMX-FP16 (TDPFP16PS) in CPUID */
AMX_HIDDEN int gemm_cpu_amx_fp16(void);
/* AMX-COMPLEX (TCMMRLFP16PS, TCMMIMFP16PS) in CPUID */
AMX_HIDDEN int gemm_cpu_amx_complex(void);

/*
 * The backend for @op and, in *@simd unless NULL, the vector instructions
 * the packers may use (passed to them as @simd): GEMM_SIMD_AVX2 and
 * GEMM_SIMD_AVX512 (F, BW, VL) where the CPU and OS have them, none under
 * AMX_FORCE_FALLBACK=c, which promises the portable C implementation only.
 * Both from one reading of the environment, once per GEMM call or packed B.
 */
#define GEMM_SIMD_AVX2		1u
#define GEMM_SIMD_AVX512	2u
AMX_HIDDEN const struct gemm_backend *gemm_select_backend(enum gemm_op op,
							  unsigned int *simd);
/*
 * The backend that runs @op calls below bs->small flop instead of @be:
 * AVX-512 in place of AMX where the CPU has the instructions, else NULL.
 */
AMX_HIDDEN const struct gemm_backend *
gemm_small_backend(const struct gemm_backend *be, enum gemm_op op);

/*
 * Packed B block: panels of GEMM_NR columns; panel j holds kcpad/g groups of
 * [GEMM_NR][g] elements (g = 2 bf16 / fp16 or 4 int8: 4 bytes per column
 * and group; gemm_pack_b_bf16() moves 16-bit elements of either type),
 * zero-padded in K and N.  The same layout feeds TDPBF16PS/TDPB*D (a tile row
 * is 16 columns x 4 bytes, tile stride 128 B) and vdpbf16ps/vpdpbusd.
 * int8 packs also produce corr[j] = -128 * sum_k B[k][j] per column (mod 2^32),
 * which turns u8 (a ^ 0x80) x s8 products back into s8 x s8 on VNNI.
 */
AMX_HIDDEN void gemm_pack_b_bf16(size_t kc, size_t nc, const uint16_t *b,
				 size_t ldb, uint16_t *dst, size_t panel_stride,
				 unsigned int simd);
AMX_HIDDEN void gemm_pack_b_s8(size_t kc, size_t nc, const int8_t *b,
			       size_t ldb, int8_t *dst, size_t panel_stride,
			       int32_t *corr, size_t corr_stride,
			       unsigned int simd);

/*
 * Packed A block, byte-generic (esz = 2 bf16, 1 int8; rows of kc elements):
 * - VNNI layout (AVX-512/C): micro-panels of up to GEMM_MR_AVX rows, each
 *   [kcpad_bytes/4][mr] 32-bit groups;
 * - tile layout (AMX): micro-panels of GEMM_MR_AMX rows (zero rows past m),
 *   each [kcpad_bytes/64][32 rows][64 bytes].
 * Each byte of A is XORed with @flip (0x80 turns s8 into biased u8).
 */
AMX_HIDDEN void gemm_pack_a_vnni(size_t mc, size_t kc_bytes, const uint8_t *a,
				 size_t lda_bytes, uint8_t *dst, uint8_t flip,
				 unsigned int simd);
AMX_HIDDEN void gemm_pack_a_tile(size_t mc, size_t kc_bytes, const uint8_t *a,
				 size_t lda_bytes, uint8_t *dst, uint8_t flip,
				 unsigned int simd);

/* B packers: panels packed together, each row read in one piece of them */
#define GEMM_PACK_PANELS	8
/*
 * Rows of B read ahead with a software prefetch, by the packers and the
 * fused kernel.  512-byte pieces of rows 8 KiB apart are too short for
 * the hardware prefetchers: without it packing read B at 11 GB/s on Zen 5
 * (plain loads reach 42 GB/s), with 32 rows ahead at 17-19 GB/s.
 */
#define GEMM_PACK_AHEAD		32

/* bytes of an element of @op's A and B: bf16 and fp16 2, int8 1 */
static inline size_t gemm_op_esz(enum gemm_op op)
{
	return op == GEMM_OP_BF16 || op == GEMM_OP_F16 ? 2 : 1;
}

static inline size_t gemm_round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

/*
 * vpermt2w indices that interleave two rows of 32 bf16 (first operand
 * row 2p, second row 2p + 1) into the VNNI pairs of a packed B group:
 * @lo columns 0-15, @hi columns 16-31 (word 2i from row 2p, 2i + 1 from
 * row 2p + 1).  Shared by the AVX-512 packer and the fused kernel.
 */
static inline void gemm_bf16_pair_index(uint16_t lo[32], uint16_t hi[32])
{
	for (int i = 0; i < 32; i++) {
		lo[i] = (uint16_t)((i & 1) * 32 + i / 2);
		hi[i] = (uint16_t)(lo[i] + 16);
	}
}

/* a micro-kernel (gemm_ukr_fn) and an in-place one (gemm_ukr_direct_fn) */
#define GEMM_UKR(name)							\
	void name(size_t mr, size_t nr, size_t kcpad_bytes, const void *ap,	\
		  const void *bp, void *c, size_t ldc, const int32_t *corr,	\
		  int acc, const struct gemm_blocks *bs)
#define GEMM_UKR_DIRECT(name)						\
	void name(size_t mr, size_t nr, size_t k_bytes, const uint8_t *a,	\
		  size_t lda_bytes, const void *bp, void *c, size_t ldc,	\
		  const int32_t *corr, int acc, const struct gemm_blocks *bs)

AMX_HIDDEN GEMM_UKR(gemm_ukr_c_bf16);
AMX_HIDDEN GEMM_UKR(gemm_ukr_c_u8s8);
AMX_HIDDEN GEMM_UKR(gemm_ukr_c_f16);
AMX_HIDDEN GEMM_UKR(gemm_ukr_avx512_f16);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_avx512_f16_direct);
AMX_HIDDEN GEMM_UKR(gemm_ukr_avx512_bf16);
AMX_HIDDEN GEMM_UKR(gemm_ukr_avx512_u8s8);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_avx512_bf16_direct);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_avx512_s8s8_direct);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_avx512_u8s8_direct);
AMX_HIDDEN void gemm_ukr_avx512_bf16_fused(size_t mr, size_t nr,
					   size_t k_bytes, const uint8_t *a,
					   size_t lda_bytes,
					   const uint8_t *bsrc,
					   size_t ldb_bytes, void *bdst,
					   void *c, size_t ldc, int acc);
AMX_HIDDEN GEMM_UKR(gemm_ukr_amx_bf16);
AMX_HIDDEN GEMM_UKR(gemm_ukr_amx_s8s8);
AMX_HIDDEN GEMM_UKR(gemm_ukr_amx_u8s8);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_amx_bf16_direct);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_amx_s8s8_direct);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_amx_u8s8_direct);
AMX_HIDDEN GEMM_UKR(gemm_ukr_amx_f16);
AMX_HIDDEN GEMM_UKR_DIRECT(gemm_ukr_amx_f16_direct);

/*
 * The fused epilogue (amx.h): a checked copy of the caller's description,
 * w[j] = scale * col_scale[j] worked out once.
 */
#define GEMM_EPI_MAGIC	0x616d7865u	/* "amxe" */
struct amx_epilogue {
	uint32_t magic;
	uint32_t act, out;	/* enum amx_act, enum amx_out_type */
	size_t n;
	float *w;		/* [n] */
	float *bias;		/* [n], or NULL */
};

/*
 * One call's epilogue: what gemm_epi_tile() needs besides the block.
 * The accumulators are int32 (@isint) or fp32; @c and @ldc are the
 * caller's C, in elements of ep->out.
 */
struct gemm_epi {
	const struct amx_epilogue *ep;
	const float *rs;	/* [m] row scales, or NULL */
	const int32_t *zp;	/* [m] u8 zero points, or NULL */
	const int32_t *colsum;	/* [n] column sums of B, with zp */
	int isint;
	int acc;		/* add C's old value (AMX_GEMM_ACCUMULATE) */
	int avx512;		/* the AVX-512F version (same bits) */
	uint8_t *c;
	size_t ldc;
};

/*
 * Rows [i, i + rows) x columns [j, j + cols) of C from the accumulators
 * at @src (rows lds elements of 4 bytes apart), which may be that block
 * of C itself (fp32 output, no accumulate: element by element in place).
 */
AMX_HIDDEN void gemm_epi_tile(const struct gemm_epi *e, size_t i, size_t rows,
			      size_t j, size_t cols, const void *src,
			      size_t lds);
/*
 * gemm_epi_tile() with AVX-512F (F, BW, VL): the portable C's bits; bf16
 * output through VCVTNEPS2BF16 where the CPU has AVX512-BF16 (or only
 * with @bf16cvt, for the tests: the same bits either way)
 */
AMX_HIDDEN void gemm_epi_tile_avx512(const struct gemm_epi *e, size_t i,
				     size_t rows, size_t j, size_t cols,
				     const void *src, size_t lds);
AMX_HIDDEN void gemm_epi_tile_avx512_as(const struct gemm_epi *e, size_t i,
					size_t rows, size_t j, size_t cols,
					const void *src, size_t lds,
					int bf16cvt);

/* AMX tile setup for the micro-kernels: 8 tiles of 16 rows x 64 bytes */
AMX_HIDDEN int gemm_amx_begin(void);
AMX_HIDDEN void gemm_amx_end(void);
/* first tile instruction of a thread (pays the XFD first-use trap) */
AMX_HIDDEN void gemm_amx_warmup(void);

/*
 * amx_gemm_cf16() on AMX-COMPLEX (gemm_amx_cf16.c), arguments checked, m,
 * n and k not 0, on up to @want threads of the pool: 0 or -ENOMEM, or
 * what configuring the tiles answered.
 */
AMX_HIDDEN int gemm_cf16_amx(unsigned int flags, size_t m, size_t n,
			     size_t k, const amx_fp16 *a, size_t lda,
			     const amx_fp16 *b, size_t ldb, float *c,
			     size_t ldc, unsigned int want);

#endif
