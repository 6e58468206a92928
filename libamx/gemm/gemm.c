// SPDX-License-Identifier: MIT
/*
 * GEMM driver: argument checks, backend choice, thread partitioning and the
 * BLIS loop nest around the micro-kernels:
 *
 *   NC (jc) -> KC (pc) -> pack B -> MC (ic) -> pack A -> NR (jr) -> MR (ir)
 *
 * Threads split C into a grid of row and column ranges (never K), so every
 * element of C is computed by the same sequence of operations whatever the
 * thread count.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gemm.h"
#include "../pool/place.h"

#define PACKED_B_MAGIC 0x616d7862u	/* "amxb" */
/* at most this many B micro-panels packed at a time on the small-M path */
#define JIT_PANELS 8
/* below this many flops a second thread costs more than it brings */
#define GEMM_MT_MIN_FLOPS (4.0 * 1024 * 1024)
/*
 * Most bytes of fp32 accumulators a thread keeps for an epilogue whose C
 * cannot hold them (bf16 output, or accumulate): nc is cut to stay below.
 */
#define GEMM_EPI_SCRATCH ((size_t)4 << 20)

struct amx_packed_b {
	uint32_t magic;
	enum gemm_op op;	/* GEMM_OP_BF16, _F16 or _S8S8 (any int8) */
	size_t k, n, kc;	/* kc: the K block the layout was made for */
	size_t npanels;		/* panels of GEMM_NR columns */
	size_t kb_bytes;	/* bytes of one full K block (all panels) */
	size_t nkb;		/* K blocks */
	size_t bytes;
	uint8_t *data;		/* panels, 64-byte aligned (copy 0) */
	struct amx_place pl;	/* its node(s), ../pool/place.h */
	int32_t *corr;		/* int8: [panel][K block][GEMM_NR] */
	int32_t *colsum;	/* int8: [n] sum over k of B[k][j] */
};

struct gemm_job {
	enum gemm_op op;
	const struct gemm_backend *be;
	unsigned int flags;
	size_t m, n, k, esz;
	const uint8_t *a;
	size_t lda;		/* bytes */
	const void *b;
	size_t ldb;		/* elements */
	const struct amx_packed_b *pb;
	uint8_t *c;
	size_t ldc;		/* elements; C elements are 4 bytes */
	/*
	 * The epilogue, or NULL; with @cscr the kernels accumulate in this
	 * thread's scratch (gemm_plan()), not in C (see gemm_run()).
	 */
	const struct gemm_epi *epi;
	int cscr;
	struct gemm_blocks bs;
	int direct;		/* the kernels read A in place (a_in_place()) */
	unsigned int simd;	/* what the packers may use (gemm_select_backend()) */
	unsigned int next_task[AMX_POOL_MAX_NODES];	/* per split part */
	int err;
};

/* the pool's threads take AMX's first-use cost when the pool starts */
__attribute__((constructor)) static void gemm_pool_hook(void)
{
	amx_pool_set_thread_start(gemm_amx_warmup);
}

/* per-thread packing buffer, kept between calls */
static pthread_key_t tbuf_key;
static pthread_once_t tbuf_once = PTHREAD_ONCE_INIT;
static __thread void *tbuf;
static __thread size_t tbuf_size;

static void tbuf_key_init(void)
{
	pthread_key_create(&tbuf_key, free);
}

static void *tbuf_get(size_t size)
{
	void *p;

	if (size <= tbuf_size)
		return tbuf;
	size = gemm_round_up(size, 1 << 16);
	p = aligned_alloc(64, size);
	if (!p)
		return NULL;
	pthread_once(&tbuf_once, tbuf_key_init);
	free(tbuf);
	tbuf = p;
	tbuf_size = size;
	pthread_setspecific(tbuf_key, p);
	return p;
}

static void pack_b(const struct gemm_job *j, size_t pc, size_t kcb, size_t jc,
		   size_t ncb, uint8_t *dst, size_t stride, int32_t *corr)
{
	if (j->esz == 2)	/* bf16 or fp16: the same 16-bit moves */
		gemm_pack_b_bf16(kcb, ncb, (const uint16_t *)j->b + pc * j->ldb + jc,
				 j->ldb, (uint16_t *)(void *)dst, stride / 2,
				 j->simd);
	else
		gemm_pack_b_s8(kcb, ncb, (const int8_t *)j->b + pc * j->ldb + jc,
			       j->ldb, (int8_t *)dst, stride, corr, GEMM_NR,
			       j->simd);
}

/*
 * Whether the kernels may read A in place (backends that have such
 * kernels): every K block must hold whole 4-byte groups, and the rows of
 * one micro-panel must not crowd into a few L1 sets.  L1 sets repeat every
 * 4 KiB on the CPUs concerned (64 sets of 64-byte lines), so with lda a
 * multiple of 4 KiB all rows read the same set at every step, and the B
 * panels streaming past evict them: M = 16, lda = 8 KiB ran at 0.65x of
 * packed A.  Half of a micro-panel per set (lda = 2 KiB: 6 rows) still
 * measured as fast as packing on Zen 5 (12-way L1).  Reading A in place
 * saves packing it, which is a quarter of the time at 256^3.
 */
static int a_in_place(const struct gemm_job *j)
{
	const struct gemm_backend *be = j->be;
	uint8_t rows[64] = { 0 };
	size_t mr = be->mr;

	if (!be->ukr_direct[j->op] || j->k * j->esz % be->direct_kalign ||
	    ((uintptr_t)j->a | j->lda) % be->direct_align)
		return 0;
	for (size_t i = 0; i < mr && i < j->m; i++)
		if (++rows[i * j->lda % 4096 / 64] > mr / 2)
			return 0;
	return 1;
}

/* one K block: where it starts, its length and padded bytes */
struct gemm_kblk {
	size_t pc, kcb, kcpad;
	int acc;
	int last;		/* the last K block: the epilogue follows */
};

/* the packed B micro-panels at hand and their int8 corrections */
struct gemm_bpanels {
	const uint8_t *bp;	/* the first micro-panel */
	size_t bstride;		/* bytes from one micro-panel to the next */
	const int32_t *corr;	/* the first one's corrections, or NULL */
	size_t cstride;		/* int32s from one's corrections to the next */
	/*
	 * fuse: the micro-panels are not packed yet: the first micro-panel
	 * of A against each (read in place) packs it on the way into bp
	 * (the backend's ukr_fused), keep: unless it is the only one.
	 */
	int fuse, keep;
	/*
	 * Where the kernels accumulate the block's first column: rows cld
	 * elements apart, counted from row crow0; or, with ctile, one
	 * micro-tile of scratch (GEMM_NR elements a row) for every kernel.
	 */
	uint8_t *c;
	size_t cld, crow0;
	int ctile;
};

/*
 * C[ic + ir, jc + jr] (+)= the micro-panel of A at @a (in place, rows lda
 * apart, when @direct; packed otherwise) times B micro-panel jr; @first:
 * the first micro-panel of A against it in this block (see bs->fuse).
 * Inlined into gemm_macro(): as a call it took 1.3 % of a 256^3 u8s8
 * product with prepacked B on Zen 5, about 10 cycles per 12 x 32 kernel.
 */
static inline __attribute__((always_inline)) void
gemm_micro(const struct gemm_job *j, const struct gemm_kblk *kb,
	   const struct gemm_bpanels *bs, int direct, const uint8_t *a,
	   size_t mrb, size_t row, size_t col, size_t jr, size_t ncb,
	   int first)
{
	size_t nr = ncb - jr < GEMM_NR ? ncb - jr : GEMM_NR;
	const uint8_t *bp = bs->bp + jr / GEMM_NR * bs->bstride;
	const int32_t *corr = bs->corr ? bs->corr + jr / GEMM_NR * bs->cstride
				       : NULL;
	uint8_t *c = bs->ctile ? bs->c :
		     bs->c + ((row - bs->crow0) * bs->cld + jr) * 4;
	size_t ldc = bs->ctile ? GEMM_NR : bs->cld;

	if (bs->fuse && first) {
		size_t kbytes = kb->kcb * j->esz;
		/* our own buffer (bs->fuse is never set on a prepacked B) */
		uint8_t *dst = bs->keep ? (uint8_t *)(uintptr_t)bp : NULL;

		j->be->ukr_fused[j->op](mrb, nr, kbytes, a, j->lda,
					(const uint8_t *)j->b +
					(kb->pc * j->ldb + col + jr) * j->esz,
					j->ldb * j->esz, dst, c, ldc,
					kb->acc);
		if (dst)	/* K padding: zero, as the packers leave it */
			memset(dst + kbytes * GEMM_NR, 0,
			       (kb->kcpad - kbytes) * GEMM_NR);
	} else if (direct) {
		j->be->ukr_direct[j->op](mrb, nr, kb->kcb * j->esz, a, j->lda,
					 bp, c, ldc, corr, kb->acc, &j->bs);
	} else {
		j->be->ukr[j->op](mrb, nr, kb->kcpad, a, bp, c, ldc, corr,
				  kb->acc, &j->bs);
	}
	/* the block is final: the epilogue, while it is in L1 */
	if (j->epi && kb->last)
		gemm_epi_tile(j->epi, row, mrb, col + jr, nr, c, ldc);
}

/*
 * The blocking of one task (the block of C rows x cols a thread computes),
 * worked out once by gemm_plan() from the call's blocking, the backend and
 * the task's shape; the loop levels below only read it.  Block lengths are
 * in elements of the operands (kc) or rows and columns of C (mc, nc); the
 * bytes of a K block come from gemm_kblk_at() alone.
 */
struct gemm_plan {
	size_t kc;		/* K block */
	size_t mc, nc;		/* M block (rows), N block (columns) */
	/*
	 * jit: the rows fit one M block, so a packed B block would serve
	 * one A block only: B is packed @group columns at a time, just
	 * before their macro-kernel, into a buffer that stays in L2, and A
	 * once per K block for all the groups (see gemm_loop_jit()).
	 */
	int jit;
	size_t group;
	int direct;		/* the kernels read A in place */
	/*
	 * fuse: plain B and A in place: each B micro-panel is packed by the
	 * first micro-kernel that uses it (gemm_bpanels.fuse), not in a
	 * pass of its own before the macro-kernel.
	 */
	int fuse;
	int a_res;		/* macro-kernel loop order (gemm_macro()) */
	int need_corr;		/* int8 column sums for the u8 flip */
	uint8_t flip;		/* XORed into A while packing (0x80 or 0) */
	uint8_t *abuf, *bbuf;	/* this thread's packing buffers */
	int32_t *cbuf;
	const uint8_t *pbdata;	/* the copy of the packed B this thread reads */
	/*
	 * Epilogue scratch (gemm_job.cscr): one micro-tile when the task has
	 * one K block (ctile), else rows m0.. x the columns of an N block
	 * from jc0, cacc_ld elements a row.
	 */
	uint8_t *cacc;
	size_t cacc_ld, m0, jc0;
	int ctile;
};

/*
 * One macro-kernel: rows [ic, ic + mcb) of C against the @ncb columns
 * from @col whose packed B @bs holds, over K block @kb.  A is read in
 * place (p->direct), or comes packed in @apk (all mcb rows), or is packed
 * here into p->abuf.  The loop order is the backend's:
 * - B-resident (AMX): jr outer, ir inner: one B micro-panel stays in L1
 *   while the packed A block streams from L2 (the silicon sweep in
 *   gemm_backends.c);
 * - A-resident (AVX-512, C): ir outer, jr inner: one A micro-panel stays
 *   in L1 while B streams past.  Consecutive kernels then write C blocks
 *   side by side instead of 12 rows further down: with ldc a multiple of
 *   4 KiB the latter put every C row of two calls into the same L1 set
 *   (2048^3 bf16 on Zen 5: 326 GFLOPS B-resident, 442 A-resident with
 *   kc = K).
 */
static void gemm_macro(const struct gemm_job *j, const struct gemm_plan *p,
		       const struct gemm_kblk *kb,
		       const struct gemm_bpanels *bs, const uint8_t *apk,
		       size_t ic, size_t mcb, size_t col, size_t ncb)
{
	const struct gemm_backend *be = j->be;
	const uint8_t *ablk = j->a + ic * j->lda + kb->pc * j->esz;
	size_t mr = be->mr, kbytes = kb->kcb * j->esz, tail = mcb % mr;
	int direct = p->direct, a_res = p->a_res;
	uint8_t *abuf = p->abuf;
	/*
	 * The first micro-panel direct kernels must not read in place: AMX's
	 * always read mr (or mr / 2) rows, so a ragged last one is packed.
	 */
	size_t iedge = direct && be->direct_whole_rows && tail &&
		       tail != mr / 2 ? mcb - tail : mcb;

	if (!direct && !apk && !a_res) {
		be->pack_a(mcb, kbytes, ablk, j->lda, abuf, p->flip, j->simd);
		apk = abuf;
	}
	if (iedge < mcb && !a_res)
		be->pack_a(tail, kbytes, ablk + iedge * j->lda, j->lda, abuf,
			   p->flip, j->simd);
	if (a_res) {
		for (size_t ir = 0; ir < mcb; ir += mr) {
			size_t mrb = mcb - ir < mr ? mcb - ir : mr;
			int d = direct && ir < iedge;
			const uint8_t *a = ablk + ir * j->lda;

			if (apk) {
				a = apk + ir * kb->kcpad;
			} else if (!d) {
				be->pack_a(mrb, kbytes, a, j->lda, abuf,
					   p->flip, j->simd);
				a = abuf;
			}
			for (size_t jr = 0; jr < ncb; jr += GEMM_NR)
				gemm_micro(j, kb, bs, d, a, mrb, ic + ir, col,
					   jr, ncb, ir == 0);
		}
		return;
	}
	for (size_t jr = 0; jr < ncb; jr += GEMM_NR)
		for (size_t ir = 0; ir < mcb; ir += mr) {
			const uint8_t *a = direct ? ir < iedge ?
					   ablk + ir * j->lda : abuf :
					   apk + ir * kb->kcpad;

			gemm_micro(j, kb, bs, direct && ir < iedge, a,
				   mcb - ir < mr ? mcb - ir : mr, ic + ir, col,
				   jr, ncb, ir == 0);
		}
}

/* B micro-panels packed at a time on the small-M path: half of L2 */
static size_t jit_panels(size_t kcpad)
{
	size_t n = (size_t)gemm_cache_size(2) / 2 / (kcpad * GEMM_NR);

	return n < 1 ? 1 : n > JIT_PANELS ? JIT_PANELS : n;
}

/*
 * The K block length for a K of @k with blocks of at most @kc: as many
 * blocks as kc gives, made even (whole 64-byte rows of @esz elements in
 * every block but the last), so that no block is a short tail: on the
 * AMX Xeon a block of few K steps runs at a fraction of the kernel's rate
 * (the C tiles move once a block, PERFORMANCE.md's kc sweep: 25 % of peak
 * at 2 K steps, 57 % at 12), and 512^3 bf16 at kc = 384 ran as
 * 384 + 128 (12 + 4 K steps) instead of 256 + 256.  There, 1 thread,
 * against blocks of kc and a rest: bf16 512^3 1.17-1.19x, 640^3 1.06x,
 * 1000^3 1.03-1.05x, 2048^3 1.06x; u8s8 1000^3 1.12x, 512 x 512 x 1100
 * 1.09x; neutral where K already splits evenly (AVX-512 too).
 */
static size_t kc_balanced(size_t k, size_t kc, size_t esz)
{
	size_t step = 64 / esz, nblk, even;

	if (!k || k <= kc)
		return kc;
	nblk = (k + kc - 1) / kc;
	even = gemm_round_up((k + nblk - 1) / nblk, step);
	return even < kc ? even : kc;
}

/*
 * The plan of a task of @rows x @cols of C, and its packing buffers
 * (this thread's, kept between calls).  -ENOMEM when they cannot be had.
 */
static int gemm_plan(const struct gemm_job *j, size_t rows, size_t cols,
		     struct gemm_plan *p)
{
	const struct amx_packed_b *pb = j->pb;
	const struct gemm_backend *be = j->be;
	size_t esz = j->esz, mr = be->mr;
	size_t kcmax, mcmax, ncmax, asz, nbuf, bsz, csz, ssz = 0;

	*p = (struct gemm_plan){
		.kc = pb ? pb->kc : kc_balanced(j->k, j->bs.kc, esz),
		.mc = j->bs.mc,
		.nc = j->bs.nc,
		.direct = j->direct,
		.need_corr = !!(be->corr_ops & (1u << j->op)),
	};
	p->flip = p->need_corr ? 0x80 : 0;
	p->fuse = !pb && p->direct && be->ukr_fused[j->op] && !p->need_corr &&
		  !be->direct_whole_rows;
	/*
	 * B-resident (AMX): the large problems run best with one A
	 * micro-panel against a B block in L2 (mc 32, nc from L2, see
	 * gemm_backends.c), but a few rows together as one M block, so that
	 * each B micro-panel is read from memory once for all of them while
	 * they keep the TDPs busy; N is not cut then (the B block is not
	 * reused across M blocks).  On the AMX Xeon, 128 x 4096 x 4096 bf16
	 * prepacked ran at 669 GFLOPS with mc = 32 and nc = 1024, 706 as one
	 * block with nc = 1024 and 741 with N whole, and the decode shapes
	 * with plain B lost 10-20 % to N blocks of 1024.
	 */
	if (be->one_block_rows && rows <= be->one_block_rows) {
		if (p->mc < rows)
			p->mc = gemm_round_up(rows, mr);
		p->nc = cols;
	}
	p->jit = !pb && rows <= p->mc;
	/*
	 * Few rows (prepacked B here): B-resident, so that B goes through
	 * the caches once, not once per A micro-panel (M = 16 against a
	 * prepacked 4096 x 4096 bf16 on Zen 5: 266 -> 300 GFLOPS).
	 */
	p->a_res = be->a_resident && rows > p->mc;
	if (p->jit && p->kc * esz > gemm_small_m_kc_bytes())
		p->kc = kc_balanced(j->k, gemm_small_m_kc_bytes() / esz, esz);
	kcmax = gemm_round_up((p->kc < j->k ? p->kc : j->k) * esz, 64);
	p->group = jit_panels(kcmax) * GEMM_NR;
	/*
	 * A-resident with A in place: B is the operand that streams, its kc
	 * x nc block once per micro-panel of A, and nothing is repacked per
	 * column block; so nc is cut to what the small-M path keeps in L2.
	 * 1024^3 on Zen 5 (A in place, K and N one block each: 2 MiB bf16 /
	 * 1 MiB int8 of B per block before), prepacked, 4 runs each against
	 * oneDNN: u8s8 0.96-0.98x -> 0.97-1.00x, bf16 0.98-1.01x ->
	 * 0.98-1.01x (neutral).  With A packed, a smaller nc would pack all
	 * of A once more per column block (2048^3 bf16, lda 4 KiB: 1.02x ->
	 * 0.91-0.93x at nc = 256).
	 */
	if (p->direct && p->a_res && p->nc > p->group)
		p->nc = p->group;
	/*
	 * Epilogue scratch: a micro-tile where one K block does, else rows x
	 * nc accumulators, nc cut to keep them within GEMM_EPI_SCRATCH.
	 */
	p->ctile = j->cscr && p->kc >= j->k;
	if (j->cscr && !p->ctile) {
		size_t ncs = GEMM_EPI_SCRATCH / (rows * 4) / GEMM_NR * GEMM_NR;

		ncs = ncs < GEMM_NR ? GEMM_NR : ncs;
		if (p->nc > ncs)
			p->nc = ncs;
	}

	mcmax = gemm_round_up(p->mc < rows ? p->mc : rows, mr);
	ncmax = gemm_round_up(p->nc < cols ? p->nc : cols, GEMM_NR);
	asz = p->direct ? be->direct_whole_rows ? mr * kcmax : 0 :
			  (p->a_res ? mr : mcmax) * kcmax;
	nbuf = p->jit && ncmax > p->group ? p->group : ncmax;
	bsz = pb ? 0 : nbuf * kcmax;
	csz = nbuf * sizeof(int32_t);
	if (p->ctile)
		ssz = GEMM_MR_MAX * GEMM_NR * 4;
	else if (j->cscr)
		ssz = gemm_round_up(rows * ncmax * 4, 64);
	p->abuf = tbuf_get(asz + bsz + csz + ssz);
	if (!p->abuf)
		return -ENOMEM;
	p->bbuf = p->abuf + asz;
	p->cbuf = (int32_t *)(void *)(p->bbuf + bsz);
	p->cacc = p->bbuf + bsz + csz;
	p->cacc_ld = ncmax;
	return 0;
}

/* The K block from @pc: its length, padded bytes and accumulate flag. */
static struct gemm_kblk gemm_kblk_at(const struct gemm_job *j,
				     const struct gemm_plan *p, size_t pc)
{
	struct gemm_kblk kb = {
		.pc = pc,
		.kcb = j->k - pc < p->kc ? j->k - pc : p->kc,
		/* an epilogue adds C's value itself, after the product */
		.acc = pc > 0 || (!j->epi && (j->flags & AMX_GEMM_ACCUMULATE)),
	};

	kb.last = pc + kb.kcb >= j->k;

	kb.kcpad = gemm_round_up(kb.kcb * j->esz, 64);
	return kb;
}

/* The packed B micro-panels of columns [jc, ...) in K block @kb. */
static struct gemm_bpanels gemm_bpanels_at(const struct gemm_job *j,
					   const struct gemm_plan *p,
					   const struct gemm_kblk *kb,
					   size_t jc)
{
	const struct amx_packed_b *pb = j->pb;
	struct gemm_bpanels bs = {
		.bstride = kb->kcpad * GEMM_NR,
		.cstride = GEMM_NR,
		.c = j->c + jc * 4,
		.cld = j->ldc,
	};

	if (p->ctile) {
		bs.c = p->cacc;
		bs.ctile = 1;
	} else if (j->cscr) {
		bs.c = p->cacc + (jc - p->jc0) * 4;
		bs.cld = p->cacc_ld;
		bs.crow0 = p->m0;
	}

	if (pb) {		/* prepacked: in place */
		size_t panel = jc / GEMM_NR;

		bs.bp = p->pbdata + kb->pc / p->kc * pb->kb_bytes +
			panel * bs.bstride;
		bs.cstride = pb->nkb * GEMM_NR;
		if (p->need_corr)
			bs.corr = pb->corr + panel * bs.cstride +
				  kb->pc / p->kc * GEMM_NR;
	} else {		/* packed into this thread's buffer */
		bs.bp = p->bbuf;
		bs.corr = p->need_corr ? p->cbuf : NULL;
		bs.fuse = p->fuse;
	}
	return bs;
}

/*
 * The small-M path of one K block (p->jit): A packed once (unless read in
 * place), then B @p->group columns at a time, each group right before its
 * macro-kernel (rows are still read in 512-byte pieces, see
 * pack_bf16_vnni.c), instead of the whole kc x nc block first, which for
 * M = 1..32 and a large B wrote and re-read all of B through memory on
 * every call.  The kernels see the same packed data either way.
 */
static void gemm_loop_jit(const struct gemm_job *j, const struct gemm_plan *p,
			  const struct gemm_kblk *kb, size_t m0, size_t m1,
			  size_t jc, size_t ncb)
{
	const uint8_t *apk = NULL;

	if (!p->direct) {
		j->be->pack_a(m1 - m0, kb->kcb * j->esz,
			      j->a + m0 * j->lda + kb->pc * j->esz, j->lda,
			      p->abuf, p->flip, j->simd);
		apk = p->abuf;
	}
	for (size_t g = 0; g < ncb; g += p->group) {
		size_t gn = ncb - g < p->group ? ncb - g : p->group;
		struct gemm_bpanels bs = gemm_bpanels_at(j, p, kb, jc + g);

		if (!p->fuse)
			pack_b(j, kb->pc, kb->kcb, jc + g, gn, p->bbuf,
			       bs.bstride, bs.corr ? p->cbuf : NULL);
		bs.keep = m1 - m0 > j->be->mr;
		gemm_macro(j, p, kb, &bs, apk, m0, m1 - m0, jc + g, gn);
	}
}

/* MC loop: the M blocks of rows [m0, m1) against one packed B block. */
static void gemm_loop_ic(const struct gemm_job *j, const struct gemm_plan *p,
			 const struct gemm_kblk *kb, struct gemm_bpanels *bs,
			 size_t m0, size_t m1, size_t jc, size_t ncb)
{
	for (size_t ic = m0; ic < m1; ic += p->mc) {
		gemm_macro(j, p, kb, bs, NULL, ic,
			   m1 - ic < p->mc ? m1 - ic : p->mc, jc, ncb);
		bs->fuse = 0;	/* packed by the first block */
	}
}

/* KC loop: the K blocks of C[m0:m1, jc:jc + ncb], B packed per block. */
static void gemm_loop_pc(const struct gemm_job *j, const struct gemm_plan *p,
			 size_t m0, size_t m1, size_t jc, size_t ncb)
{
	for (size_t pc = 0; pc < j->k; pc += p->kc) {
		struct gemm_kblk kb = gemm_kblk_at(j, p, pc);
		struct gemm_bpanels bs;

		if (p->jit) {
			gemm_loop_jit(j, p, &kb, m0, m1, jc, ncb);
			continue;
		}
		bs = gemm_bpanels_at(j, p, &kb, jc);
		if (!j->pb) {
			if (!p->fuse)
				pack_b(j, pc, kb.kcb, jc, ncb, p->bbuf,
				       bs.bstride, bs.corr ? p->cbuf : NULL);
			bs.keep = 1;	/* more rows than one MC block */
		}
		gemm_loop_ic(j, p, &kb, &bs, m0, m1, jc, ncb);
	}
}

/* NC loop over one task, C[m0:m1, n0:n1], after planning it. */
static int gemm_loop_jc(const struct gemm_job *j, size_t m0, size_t m1,
			size_t n0, size_t n1, const uint8_t *pbdata)
{
	struct gemm_plan p;
	int ret = gemm_plan(j, m1 - m0, n1 - n0, &p);

	if (ret)
		return ret;
	p.m0 = m0;
	p.pbdata = pbdata;
	for (size_t jc = n0; jc < n1; jc += p.nc) {
		p.jc0 = jc;
		gemm_loop_pc(j, &p, m0, m1, jc,
			     n1 - jc < p.nc ? n1 - jc : p.nc);
	}
	return 0;
}

/*
 * Task grid tm x tn = nthr: the largest task (in micro-tiles of C) at most
 * 1/16 above the smallest possible, and among those the one that reads
 * the operands the fewest times: each of the tn column strips reads (and
 * packs) all of A again, each of the tm row strips all of B, so
 * tn * M + tm * N.  Balance alone chose 1 x 4 for 4096 x 512 x 4096 on 2
 * threads (4 tasks): A, the large operand, packed 4 times; 0.59x oneDNN
 * (Zen 5, bf16), against 4 x 1.
 */
static void choose_grid(const struct gemm_job *j, unsigned int nthr,
			size_t un, size_t n, unsigned int *tm,
			unsigned int *tn)
{
	size_t um = (j->m + j->be->mr - 1) / j->be->mr;
	size_t wmin = (size_t)-1, best = (size_t)-1;

	for (unsigned int t = 1; t <= nthr; t++) {
		size_t w = ((um + nthr / t - 1) / (nthr / t)) * ((un + t - 1) / t);

		if (!(nthr % t) && w < wmin)
			wmin = w;
	}
	*tm = nthr;
	*tn = 1;
	for (unsigned int t = 1; t <= nthr; t++) {
		size_t w = ((um + nthr / t - 1) / (nthr / t)) * ((un + t - 1) / t);
		size_t cost = t * j->m + nthr / t * n;

		if (nthr % t || w > wmin + wmin / 16 || cost >= best)
			continue;
		best = cost;
		*tn = t;
		*tm = nthr / t;
	}
}

/*
 * C is cut into a fixed grid of tasks (be->tasks_per_thread per thread
 * when there are several) that the threads of the job take in turn: with
 * more than one, a thread the OS starts late, e.g. on a core busy with
 * something else, then simply takes fewer tasks instead of holding up
 * the call.  Which thread computes a task does not change its result.
 * On several NUMA nodes the columns are first cut into one range per node
 * (a packed B's own ranges: its pages are there), each with its own grid,
 * and a thread takes its node's tasks before the others'.
 */
static void gemm_thread(void *arg, unsigned int tid, unsigned int nthr)
{
	struct gemm_job *j = arg;
	const struct amx_packed_b *pb = j->pb;
	struct amx_split sp;
	unsigned int tm[AMX_POOL_MAX_NODES], tn[AMX_POOL_MAX_NODES];
	unsigned int part, t;
	size_t mr = j->be->mr;
	size_t um = (j->m + mr - 1) / mr;
	size_t un = (j->n + GEMM_NR - 1) / GEMM_NR;
	const uint8_t *pbdata = pb ? pb->data : NULL;
	int begun = 0, ret = 0, home;

	amx_place_split(&sp, un, nthr, pb ? &pb->pl : NULL);
	for (unsigned int p = 0; p < sp.nparts; p++) {
		size_t pun = sp.lo[p + 1] - sp.lo[p];
		unsigned int pt = sp.nthr[p] ? sp.nthr[p] : 1;

		/* one task: no grid (its divisions were 10 % of a 16^3 call) */
		sp.ntasks[p] = nthr > 1 ? j->be->tasks_per_thread * pt : 1;
		tm[p] = tn[p] = 1;
		size_t c1 = sp.lo[p + 1] * GEMM_NR;

		if (sp.ntasks[p] > 1)
			choose_grid(j, sp.ntasks[p], pun,
				    (c1 < j->n ? c1 : j->n) - sp.lo[p] * GEMM_NR,
				    &tm[p], &tn[p]);
	}
	home = amx_split_home(&sp, tid, nthr);
	if (pb && pb->pl.ncopies > 1 && home >= 0)
		pbdata = amx_place_data(&pb->pl, sp.node[home]);
	while (!ret && amx_split_claim(&sp, j->next_task, home, &part, &t)) {
		size_t m0 = 0, m1 = j->m, n0 = 0, n1 = j->n;
		size_t lo = sp.lo[part], pun = sp.lo[part + 1] - lo;

		if (sp.ntasks[part] > 1 || sp.nparts > 1) {
			unsigned int ti = t / tn[part], tj = t % tn[part];

			m0 = um * ti / tm[part] * mr;
			m1 = um * (ti + 1) / tm[part] * mr;
			n0 = (lo + pun * tj / tn[part]) * GEMM_NR;
			n1 = (lo + pun * (tj + 1) / tn[part]) * GEMM_NR;
		}
		if (m1 > j->m)
			m1 = j->m;
		if (n1 > j->n)
			n1 = j->n;
		if (m0 >= m1 || n0 >= n1)
			continue;
		if (j->be->thread_begin && !begun) {
			ret = j->be->thread_begin(); /* once per call and thread */
			if (ret)
				break;
			begun = 1;
		}
		ret = gemm_loop_jc(j, m0, m1, n0, n1, pbdata);
	}
	if (begun && j->be->thread_end)
		j->be->thread_end();
	if (ret)
		__atomic_store_n(&j->err, ret, __ATOMIC_RELAXED);
}

/*
 * Bounding byte range [*lo, *hi) of a rows x cols matrix with leading
 * dimension ld; empty (0, 0) when the matrix is.  -EINVAL or -EOVERFLOW as
 * amx__matrix_span() says: a span that cannot exist in the address space
 * is refused here, before any overlap test could answer -EINVAL for it.
 */
static int span(size_t rows, size_t cols, size_t ld, size_t esz,
		const void *p, uintptr_t *lo, uintptr_t *hi)
{
	size_t n;
	int ret = amx__matrix_span(rows, cols, ld, esz, p, &n);

	*lo = *hi = 0;
	if (ret || !n)
		return ret;
	*lo = (uintptr_t)p;
	*hi = *lo + n;
	return 0;
}

static int overlap(uintptr_t alo, uintptr_t ahi, uintptr_t blo, uintptr_t bhi)
{
	return alo < ahi && blo < bhi && alo < bhi && blo < ahi;
}

/*
 * The epilogue's checks of one call (amx_gemm_bf16_ep(3)): @ep for n
 * columns, @rs finite and > 0, @zp only on u8s8, neither under C.
 */
static int epi_check(enum gemm_op op, size_t m, size_t n,
		     const struct amx_epilogue *ep, const float *rs,
		     const int32_t *zp, uintptr_t clo, uintptr_t chi)
{
	uintptr_t lo, hi;

	if (ep->magic != GEMM_EPI_MAGIC || ep->n != n ||
	    (zp && op != GEMM_OP_U8S8))
		return -EINVAL;
	if (rs) {
		if (span(1, m, m, sizeof(*rs), rs, &lo, &hi) ||
		    overlap(clo, chi, lo, hi))
			return -EINVAL;
		for (size_t i = 0; i < m; i++)
			if (!(rs[i] > 0.0f && rs[i] <= 3.40282347e38f))
				return -EINVAL;
	}
	if (zp && (span(1, m, m, sizeof(*zp), zp, &lo, &hi) ||
		   overlap(clo, chi, lo, hi)))
		return -EINVAL;
	return 0;
}

/* sum over k of B[k][j] for each column (mod 2^32) into @cs */
static void colsum_s8(size_t k, size_t n, const int8_t *b, size_t ldb,
		      int32_t *cs)
{
	memset(cs, 0, n * sizeof(*cs));
	for (size_t p = 0; p < k; p++)
		for (size_t x = 0; x < n; x++)
			cs[x] = (int32_t)((uint32_t)cs[x] +
					  (uint32_t)b[p * ldb + x]);
}

/* C[m x n] as the epilogue makes it of a product of K = 0 (all zero) */
static void epi_zero_k(const struct gemm_epi *e, size_t m, size_t n)
{
	static const int32_t zero[GEMM_NR];

	for (size_t i = 0; i < m; i++)
		for (size_t x = 0; x < n; x += GEMM_NR)
			gemm_epi_tile(e, i, 1, x, n - x < GEMM_NR ? n - x :
				      GEMM_NR, zero, 0);
}

static int gemm_run_ep(enum gemm_op op, unsigned int flags, size_t m,
		       size_t n, size_t k, const void *a, size_t lda,
		       const void *b, size_t ldb, const struct amx_packed_b *pb,
		       void *c, size_t ldc, const struct amx_epilogue *ep,
		       const float *rs, const int32_t *zp)
{
	size_t esz = gemm_op_esz(op);
	uintptr_t alo, ahi, blo, bhi, clo, chi;
	struct gemm_epi epi;
	int32_t *colsum = NULL;
	struct gemm_job j;
	unsigned int want, simd;
	double flops;
	int ret;

	if (flags & ~AMX_GEMM_ACCUMULATE)
		return -EINVAL;
	if (pb) {
		/* one int8 packing serves s8s8 and u8s8 */
		if (pb->magic != PACKED_B_MAGIC ||
		    (pb->op != op && (esz == 2 || gemm_op_esz(pb->op) == 2)))
			return -EINVAL;
		n = pb->n;
		k = pb->k;
	}
	ret = span(m, k, lda, esz, a, &alo, &ahi);
	if (!ret && !pb)
		ret = span(k, n, ldb, esz, b, &blo, &bhi);
	else
		blo = bhi = 0;
	if (!ret)
		ret = span(m, n, ldc, ep && ep->out == AMX_OUT_BF16 ? 2 : 4, c,
			   &clo, &chi);
	if (ret)
		return ret;
	if (overlap(clo, chi, alo, ahi) || overlap(clo, chi, blo, bhi))
		return -EINVAL;
	if (ep && (ret = epi_check(op, m, n, ep, rs, zp, clo, chi)))
		return ret;
	if (!m || !n)
		return 0;
	if (ep) {
		epi = (struct gemm_epi){
			.ep = ep, .rs = rs, .zp = k ? zp : NULL,
			.isint = esz == 1,
			.acc = !!(flags & AMX_GEMM_ACCUMULATE),
			.c = c, .ldc = ldc,
		};
		if (epi.zp && pb) {
			epi.colsum = pb->colsum;
		} else if (epi.zp) {
			colsum = malloc(n * sizeof(*colsum));
			if (!colsum)
				return -ENOMEM;
			colsum_s8(k, n, b, ldb, colsum);
			epi.colsum = colsum;
		}
	}
	if (!k) {
		if (ep) {
			gemm_select_backend(op, &simd);
			epi.avx512 = !!(simd & GEMM_SIMD_AVX512);
			epi_zero_k(&epi, m, n);
		}
		else if (!(flags & AMX_GEMM_ACCUMULATE))
			for (size_t i = 0; i < m; i++)
				memset((uint8_t *)c + i * ldc * 4, 0, n * 4);
		return 0;
	}

	memset(&j, 0, sizeof(j));
	if (ep) {
		j.epi = &epi;
		/* C cannot hold the fp32 accumulators, or holds what to add */
		j.cscr = ep->out != AMX_OUT_F32 || epi.acc;
	}
	j.op = op;
	j.be = gemm_select_backend(op, &j.simd);
	epi.avx512 = !!(j.simd & GEMM_SIMD_AVX512);
	j.flags = flags;
	j.m = m;
	j.n = n;
	j.k = k;
	j.esz = esz;
	j.a = a;
	j.lda = lda * esz;
	j.b = b;
	j.ldb = ldb;
	j.pb = pb;
	j.c = c;
	j.ldc = ldc;
	flops = 2.0 * m * n * k;	/* n and k from a packed B */
	gemm_blocks_get(j.be, op, &j.bs, NULL);
	if (flops < (double)j.bs.small) {
		const struct gemm_backend *lo = gemm_small_backend(j.be, op);

		if (lo) {	/* a packed B serves every backend */
			j.be = lo;
			gemm_blocks_get(j.be, op, &j.bs, NULL);
		}
	}
	j.direct = a_in_place(&j);

	want = flops < GEMM_MT_MIN_FLOPS ? 1 : amx_pool_size();
	amx_pool_run(gemm_thread, &j, want);
	free(colsum);
	return j.err;
}

static int gemm_run(enum gemm_op op, unsigned int flags, size_t m, size_t n,
		    size_t k, const void *a, size_t lda, const void *b,
		    size_t ldb, const struct amx_packed_b *pb, void *c,
		    size_t ldc)
{
	return gemm_run_ep(op, flags, m, n, k, a, lda, b, ldb, pb, c, ldc,
			   NULL, NULL, NULL);
}

int amx_gemm_bf16(unsigned int flags, size_t m, size_t n, size_t k,
		  const amx_bf16 *a, size_t lda, const amx_bf16 *b, size_t ldb,
		  float *c, size_t ldc)
{
	return gemm_run(GEMM_OP_BF16, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

int amx_gemm_s8s8(unsigned int flags, size_t m, size_t n, size_t k,
		  const int8_t *a, size_t lda, const int8_t *b, size_t ldb,
		  int32_t *c, size_t ldc)
{
	return gemm_run(GEMM_OP_S8S8, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

int amx_gemm_u8s8(unsigned int flags, size_t m, size_t n, size_t k,
		  const uint8_t *a, size_t lda, const int8_t *b, size_t ldb,
		  int32_t *c, size_t ldc)
{
	return gemm_run(GEMM_OP_U8S8, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

int amx_gemm_f16(unsigned int flags, size_t m, size_t n, size_t k,
		 const amx_fp16 *a, size_t lda, const amx_fp16 *b, size_t ldb,
		 float *c, size_t ldc)
{
	return gemm_run(GEMM_OP_F16, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

/*
 * amx_gemm_cf16() off AMX, where this scratch (4 m (k + 4n) bytes) is no
 * more than B2's (the 2k x 2n real copy of B described at amx_gemm_cf16()
 * below, 8 k n bytes): B2, written and read again for every call, costs
 * more than the product itself when A has few rows (a decode step reads
 * B once).  Instead A's real and imaginary parts become 2m real
 * rows A' (re a above im a, 4 m k bytes), B is read as it lies, k x 2n
 * reals (re b, im b side by side), T = A' B (2m x 2n, fp32), and
 *
 *   re c = T[i][2j] - T[m + i][2j + 1]	im c = T[i][2j + 1] + T[m + i][2j]
 *
 * The same four products per complex term as B2; each part is two sums
 * of k rather than one of 2k, then a subtraction or addition: within
 * amx_gemm_cf16(3)'s bound still (2 (k + 2) u for each sum, u for the
 * combination and u for C's old value: 2 (2k + 2) u in all for k >= 1).
 * C is written only once T is whole: -ENOMEM leaves it untouched.  On
 * Zen 4, one thread, N = K = 4096: 12.7x B2's speed at M = 1, 6.2x at
 * M = 8, 1.4x at M = 128, 1.06x at M = 512.  On AMX, B2 stays below the
 * AMX-COMPLEX path's size floor, where the tests hold the two paths bit
 * for bit.
 */
static int gemm_cf16_split(unsigned int flags, size_t m, size_t n, size_t k,
			   const amx_fp16 *a, size_t lda, const amx_fp16 *b,
			   size_t ldb, float *c, size_t ldc)
{
	amx_fp16 *a2 = malloc(2 * m * k * sizeof(*a2));
	float *t = malloc(2 * m * 2 * n * sizeof(*t));
	int ret = -ENOMEM;

	if (!a2 || !t)
		goto out;
	for (size_t i = 0; i < m; i++)
		for (size_t p = 0; p < k; p++) {
			a2[i * k + p] = a[(i * lda + p) * 2];
			a2[(m + i) * k + p] = a[(i * lda + p) * 2 + 1];
		}
	ret = gemm_run(GEMM_OP_F16, 0, 2 * m, 2 * n, k, a2, k, b, 2 * ldb,
		       NULL, t, 2 * n);
	if (ret)
		goto out;
	for (size_t i = 0; i < m; i++) {
		const float *t1 = t + i * 2 * n, *t2 = t + (m + i) * 2 * n;
		float *ci = c + i * ldc * 2;

		for (size_t j = 0; j < n; j++) {
			float re = t1[2 * j] - t2[2 * j + 1];
			float im = t1[2 * j + 1] + t2[2 * j];

			if (flags & AMX_GEMM_ACCUMULATE) {
				re += ci[2 * j];
				im += ci[2 * j + 1];
			}
			ci[2 * j] = re;
			ci[2 * j + 1] = im;
		}
	}
out:
	free(a2);
	free(t);
	return ret;
}

/*
 * Complex A (m x k) times complex B (k x n) is one real fp16 product: A
 * read as m x 2k reals (each row re, im, re, im, ...), C written as m x 2n
 * (re, im pairs), and a real B2 of 2k x 2n built from B so that column
 * 2j gives the real part and 2j + 1 the imaginary part of C[i][j]:
 *
 *   B2[2p][2j] = re b[p][j]	B2[2p][2j + 1] = im b[p][j]
 *   B2[2p + 1][2j] = -im b[p][j]	B2[2p + 1][2j + 1] = re b[p][j]
 *
 * (re a re b - im a im b, re a im b + im a re b).  Negating an fp16 is
 * exact, so this computes the four real products of each complex one, the
 * same number AMX-COMPLEX's TCMMRLFP16PS / TCMMIMFP16PS compute, with the
 * f16 kernels of every backend; C comes out interleaved, as the caller
 * wants it, instead of as separate real and imaginary tiles.  B2 costs
 * 8 k n bytes for the call.  Two paths avoid it: AMX-COMPLEX
 * (gemm_amx_cf16.c) and, off AMX with few rows, gemm_cf16_split() above.
 */
int amx_gemm_cf16(unsigned int flags, size_t m, size_t n, size_t k,
		  const amx_fp16 *a, size_t lda, const amx_fp16 *b, size_t ldb,
		  float *c, size_t ldc)
{
	uintptr_t alo, ahi, blo, bhi, clo, chi;
	const struct gemm_backend *be;
	amx_fp16 *b2;
	size_t bytes;
	int ret;

	if (flags & ~AMX_GEMM_ACCUMULATE)
		return -EINVAL;
	ret = span(m, k, lda, 4, a, &alo, &ahi);
	if (!ret)
		ret = span(k, n, ldb, 4, b, &blo, &bhi);
	if (!ret)
		ret = span(m, n, ldc, 8, c, &clo, &chi);
	if (ret)
		return ret;
	if (overlap(clo, chi, alo, ahi) || overlap(clo, chi, blo, bhi))
		return -EINVAL;
	if (!m || !n || !k)	/* B is not read */
		return gemm_run(GEMM_OP_F16, flags, m, 2 * n, 0, a, 2 * lda,
				NULL, 0, NULL, c, 2 * ldc);
	/*
	 * AMX-COMPLEX, where the f16 GEMM would run on AMX: the same sums
	 * (gemm_amx_cf16.c) straight from A and B, without B2
	 */
	be = gemm_select_backend(GEMM_OP_F16, NULL);
	if (be == &gemm_backend_amx && gemm_cpu_amx_complex()) {
		double flops = 8.0 * m * n * k;	/* B2's call */
		struct gemm_blocks bs;

		gemm_blocks_get(be, GEMM_OP_F16, &bs, NULL);
		if (flops >= (double)bs.small ||
		    !gemm_small_backend(be, GEMM_OP_F16))
			return gemm_cf16_amx(flags, m, n, k, a, lda, b, ldb, c,
					     ldc, flops < GEMM_MT_MIN_FLOPS ? 1 :
					     amx_pool_size());
	}
	if (be != &gemm_backend_amx &&
	    (double)m * ((double)k + 4.0 * n) <= 2.0 * k * n)
		return gemm_cf16_split(flags, m, n, k, a, lda, b, ldb, c, ldc);
	if (__builtin_mul_overflow(k, n, &bytes) ||
	    __builtin_mul_overflow(bytes, 8, &bytes))
		return -ENOMEM;
	b2 = malloc(bytes);
	if (!b2)
		return -ENOMEM;
	for (size_t p = 0; p < k; p++) {
		const amx_fp16 *src = b + p * ldb * 2;
		amx_fp16 *r0 = b2 + 2 * p * 2 * n, *r1 = r0 + 2 * n;

		for (size_t j = 0; j < n; j++) {
			amx_fp16 re = src[2 * j], im = src[2 * j + 1];

			r0[2 * j] = re;
			r0[2 * j + 1] = im;
			r1[2 * j] = im ^ 0x8000u;
			r1[2 * j + 1] = re;
		}
	}
	ret = gemm_run(GEMM_OP_F16, flags, m, 2 * n, 2 * k, a, 2 * lda, b2,
		       2 * n, NULL, c, 2 * ldc);
	free(b2);
	return ret;
}

int amx_gemm_bf16_packed(unsigned int flags, size_t m, const amx_bf16 *a,
			 size_t lda, const struct amx_packed_b *b, float *c,
			 size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_BF16, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

int amx_gemm_f16_packed(unsigned int flags, size_t m, const amx_fp16 *a,
			size_t lda, const struct amx_packed_b *b, float *c,
			size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_F16, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

int amx_gemm_s8s8_packed(unsigned int flags, size_t m, const int8_t *a,
			 size_t lda, const struct amx_packed_b *b, int32_t *c,
			 size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_S8S8, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

int amx_gemm_u8s8_packed(unsigned int flags, size_t m, const uint8_t *a,
			 size_t lda, const struct amx_packed_b *b, int32_t *c,
			 size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_U8S8, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

int amx_gemm_bf16_ep(unsigned int flags, size_t m, size_t n, size_t k,
		     const amx_bf16 *a, size_t lda, const amx_bf16 *b,
		     size_t ldb, void *c, size_t ldc,
		     const struct amx_epilogue *ep, const float *row_scale,
		     const int32_t *row_zp)
{
	if (!ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_BF16, flags, m, n, k, a, lda, b, ldb, NULL,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_f16_ep(unsigned int flags, size_t m, size_t n, size_t k,
		    const amx_fp16 *a, size_t lda, const amx_fp16 *b,
		    size_t ldb, void *c, size_t ldc,
		    const struct amx_epilogue *ep, const float *row_scale,
		    const int32_t *row_zp)
{
	if (!ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_F16, flags, m, n, k, a, lda, b, ldb, NULL,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_s8s8_ep(unsigned int flags, size_t m, size_t n, size_t k,
		     const int8_t *a, size_t lda, const int8_t *b, size_t ldb,
		     void *c, size_t ldc, const struct amx_epilogue *ep,
		     const float *row_scale, const int32_t *row_zp)
{
	if (!ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_S8S8, flags, m, n, k, a, lda, b, ldb, NULL,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_u8s8_ep(unsigned int flags, size_t m, size_t n, size_t k,
		     const uint8_t *a, size_t lda, const int8_t *b, size_t ldb,
		     void *c, size_t ldc, const struct amx_epilogue *ep,
		     const float *row_scale, const int32_t *row_zp)
{
	if (!ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_U8S8, flags, m, n, k, a, lda, b, ldb, NULL,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_bf16_packed_ep(unsigned int flags, size_t m, const amx_bf16 *a,
			    size_t lda, const struct amx_packed_b *b, void *c,
			    size_t ldc, const struct amx_epilogue *ep,
			    const float *row_scale, const int32_t *row_zp)
{
	if (!b || !ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_BF16, flags, m, 0, 0, a, lda, NULL, 0, b,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_f16_packed_ep(unsigned int flags, size_t m, const amx_fp16 *a,
			   size_t lda, const struct amx_packed_b *b, void *c,
			   size_t ldc, const struct amx_epilogue *ep,
			   const float *row_scale, const int32_t *row_zp)
{
	if (!b || !ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_F16, flags, m, 0, 0, a, lda, NULL, 0, b,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_s8s8_packed_ep(unsigned int flags, size_t m, const int8_t *a,
			    size_t lda, const struct amx_packed_b *b, void *c,
			    size_t ldc, const struct amx_epilogue *ep,
			    const float *row_scale, const int32_t *row_zp)
{
	if (!b || !ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_S8S8, flags, m, 0, 0, a, lda, NULL, 0, b,
			   c, ldc, ep, row_scale, row_zp);
}

int amx_gemm_u8s8_packed_ep(unsigned int flags, size_t m, const uint8_t *a,
			    size_t lda, const struct amx_packed_b *b, void *c,
			    size_t ldc, const struct amx_epilogue *ep,
			    const float *row_scale, const int32_t *row_zp)
{
	if (!b || !ep)
		return -EINVAL;
	return gemm_run_ep(GEMM_OP_U8S8, flags, m, 0, 0, a, lda, NULL, 0, b,
			   c, ldc, ep, row_scale, row_zp);
}

/*
 * Memory for a packed B of @alloc bytes, placed by the pool's column split
 * (../pool/place.h): in K block kb, panels [lo[p], lo[p + 1]) of part p
 * are one segment, at kb * kb_bytes + lo[p] * (that block's panel bytes).
 */
static int packed_place(struct amx_packed_b *pb, size_t alloc)
{
	struct amx_place *pl = &pb->pl;
	unsigned int nseg, *part;
	size_t esz = gemm_op_esz(pb->op), *seg;
	int ret;

	amx_place_plan(pl, pb->npanels);
	if (pb->nkb > UINT_MAX / AMX_POOL_MAX_NODES - 1)
		pl->how = AMX_PLACE_LOCAL, pl->nparts = 1;
	nseg = (unsigned int)pb->nkb * pl->nparts;
	seg = malloc((nseg + 1) * sizeof(*seg));
	part = malloc(nseg * sizeof(*part));
	if (!seg || !part) {
		free(seg);
		free(part);
		return -ENOMEM;
	}
	for (size_t kb = 0; kb < pb->nkb; kb++) {
		size_t kcb = pb->k - kb * pb->kc < pb->kc ? pb->k - kb * pb->kc :
							    pb->kc;
		size_t stride = gemm_round_up(kcb * esz, 64) * GEMM_NR;

		for (unsigned int p = 0; p < pl->nparts; p++) {
			seg[kb * pl->nparts + p] = kb * pb->kb_bytes +
						   pl->lo[p] * stride;
			part[kb * pl->nparts + p] = p;
		}
		seg[nseg] = kb * pb->kb_bytes + pb->npanels * stride;
	}
	if (!nseg) {		/* k == 0: nothing to place */
		pl->how = AMX_PLACE_LOCAL;
		seg[0] = 0;
	}
	ret = amx_place_alloc(pl, alloc, seg, part, nseg, GEMM_NR, pb->n);
	free(seg);
	free(part);
	return ret;
}

/*
 * The packed copy serves every backend.  It is the per-call packed B blocks
 * laid end to end: K block after K block, each holding all the panels of
 * GEMM_NR columns (VNNI, zero-padded), so one K block is one sequential
 * stream; for int8 also the VNNI fallback's per-block column corrections.
 */
int amx_packed_b_create(struct amx_packed_b **out, enum amx_gemm_type type,
			size_t k, size_t n, const void *b, size_t ldb)
{
	enum gemm_op op;
	struct amx_packed_b *pb;
	struct gemm_blocks bs;
	uintptr_t lo, hi;
	size_t esz, kpad, npanels, bytes, cbytes;
	unsigned int simd;
	int ret;

	if (!out)
		return -EINVAL;
	if (type == AMX_GEMM_BF16)
		op = GEMM_OP_BF16;
	else if (type == AMX_GEMM_S8)
		op = GEMM_OP_S8S8;
	else if (type == AMX_GEMM_F16)
		op = GEMM_OP_F16;
	else
		return -EINVAL;
	esz = gemm_op_esz(op);
	ret = span(k, n, ldb, esz, b, &lo, &hi);
	if (ret)
		return ret;
	gemm_blocks_get(gemm_select_backend(op, &simd), op, &bs, NULL);
	if (k > SIZE_MAX / 2 - 64 || n > SIZE_MAX / 2 - GEMM_NR)
		return -EOVERFLOW;
	bs.kc = kc_balanced(k, bs.kc, esz);
	kpad = gemm_round_up(k * esz, 64);
	npanels = (n + GEMM_NR - 1) / GEMM_NR;
	if (__builtin_mul_overflow(kpad, GEMM_NR, &bytes) ||
	    __builtin_mul_overflow(bytes, npanels, &bytes) ||
	    bytes > SIZE_MAX / 2)
		return -EOVERFLOW;
	pb = calloc(1, sizeof(*pb));
	if (!pb)
		return -ENOMEM;
	pb->magic = PACKED_B_MAGIC;
	pb->op = op;
	pb->k = k;
	pb->n = n;
	pb->kc = bs.kc;
	pb->npanels = npanels;
	pb->kb_bytes = bs.kc * esz * GEMM_NR * npanels;
	pb->nkb = (k + bs.kc - 1) / bs.kc;
	cbytes = esz == 2 ? 0 : npanels * pb->nkb * GEMM_NR * 4 + n * 4;
	pb->bytes = bytes + cbytes;
	ret = packed_place(pb, gemm_round_up(bytes + cbytes, 64) + 64);
	if (ret) {
		free(pb);
		return ret;
	}
	pb->data = pb->pl.data;
	if (cbytes) {
		pb->corr = (int32_t *)(void *)(pb->data + gemm_round_up(bytes, 64));
		/* for the zero points of u8 A (amx_gemm_u8s8_packed_ep()) */
		pb->colsum = pb->corr + npanels * pb->nkb * GEMM_NR;
		colsum_s8(k, n, b, ldb, pb->colsum);
	}
	/* an empty B (k or n zero) is not read: b may be NULL */
	for (size_t pc = 0; n && pc < k; pc += bs.kc) {
		size_t kcb = k - pc < bs.kc ? k - pc : bs.kc;
		size_t stride = gemm_round_up(kcb * esz, 64) * GEMM_NR;
		uint8_t *dst = pb->data + pc / bs.kc * pb->kb_bytes;

		if (esz == 2)
			gemm_pack_b_bf16(kcb, n, (const uint16_t *)b + pc * ldb,
					 ldb, (uint16_t *)(void *)dst, stride / 2,
					 simd);
		else
			gemm_pack_b_s8(kcb, n, (const int8_t *)b + pc * ldb,
				       ldb, (int8_t *)dst, stride,
				       pb->corr + pc / bs.kc * GEMM_NR,
				       pb->nkb * GEMM_NR, simd);
	}
	amx_place_copy(&pb->pl, pb->bytes);
	*out = pb;
	return 0;
}

void amx_packed_b_free(struct amx_packed_b *pb)
{
	/* freeing a handle twice is undefined, as for free(3) */
	if (!pb)
		return;
	amx_place_free(&pb->pl);
	free(pb);
}

int amx_packed_b_ranges(const struct amx_packed_b *pb, struct amx_mem_range *r,
			size_t n)
{
	if (!pb || pb->magic != PACKED_B_MAGIC)
		return -EINVAL;
	return amx_place_ranges(&pb->pl, r, n);
}

size_t amx_packed_b_size(const struct amx_packed_b *pb)
{
	return pb && pb->magic == PACKED_B_MAGIC ? pb->bytes : 0;
}
