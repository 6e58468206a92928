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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

#define AMX_EXPORT_FN __attribute__((visibility("default")))
#define PACKED_B_MAGIC 0x616d7862u	/* "amxb" */
/* below this many flops a second thread costs more than it brings */
#define GEMM_MT_MIN_FLOPS (4.0 * 1024 * 1024)

struct amx_packed_b {
	uint32_t magic;
	enum gemm_op op;	/* GEMM_OP_BF16 or GEMM_OP_S8S8 (any int8) */
	size_t k, n, kc;	/* kc: the K block the layout was made for */
	size_t npanels;		/* panels of GEMM_NR columns */
	size_t kb_bytes;	/* bytes of one full K block (all panels) */
	size_t nkb;		/* K blocks */
	size_t bytes;
	uint8_t *data;		/* panels, 64-byte aligned */
	int32_t *corr;		/* int8: [panel][K block][GEMM_NR] */
};

struct gemm_job {
	enum gemm_op op;
	int backend;
	unsigned int flags;
	size_t m, n, k, esz;
	const uint8_t *a;
	size_t lda;		/* bytes */
	const void *b;
	size_t ldb;		/* elements */
	const struct amx_packed_b *pb;
	uint8_t *c;
	size_t ldc;		/* elements; C elements are 4 bytes */
	struct gemm_blocks bs;
	size_t mr;
	gemm_ukr_fn ukr;
	unsigned int next_task;
	int err;
};

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

static gemm_ukr_fn pick_ukr(enum gemm_op op, int backend)
{
	if (backend == AMX_GEMM_BACKEND_AMX)
		return op == GEMM_OP_BF16 ? gemm_ukr_amx_bf16 :
		       op == GEMM_OP_S8S8 ? gemm_ukr_amx_s8s8 :
					    gemm_ukr_amx_u8s8;
	if (backend == AMX_GEMM_BACKEND_AVX512)
		return op == GEMM_OP_BF16 ? gemm_ukr_avx512_bf16 :
					    gemm_ukr_avx512_u8s8;
	return op == GEMM_OP_BF16 ? gemm_ukr_c_bf16 : gemm_ukr_c_u8s8;
}

static void pack_b(const struct gemm_job *j, size_t pc, size_t kcb, size_t jc,
		   size_t ncb, uint8_t *dst, size_t stride, int32_t *corr)
{
	if (j->op == GEMM_OP_BF16)
		gemm_pack_b_bf16(kcb, ncb, (const uint16_t *)j->b + pc * j->ldb + jc,
				 j->ldb, (uint16_t *)(void *)dst, stride / 2);
	else
		gemm_pack_b_s8(kcb, ncb, (const int8_t *)j->b + pc * j->ldb + jc,
			       j->ldb, (int8_t *)dst, stride, corr, GEMM_NR);
}

/* the loop nest over C[m0:m1, n0:n1] */
static int gemm_block(struct gemm_job *j, size_t m0, size_t m1, size_t n0,
		      size_t n1)
{
	const struct amx_packed_b *pb = j->pb;
	size_t esz = j->esz, kc = pb ? pb->kc : j->bs.kc;
	size_t mc = j->bs.mc, nc = j->bs.nc;
	int amx = j->backend == AMX_GEMM_BACKEND_AMX;
	int need_corr = !amx && j->op == GEMM_OP_S8S8;
	uint8_t flip = need_corr ? 0x80 : 0;
	size_t kcmax = gemm_round_up((kc < j->k ? kc : j->k) * esz, 64);
	size_t mcmax = gemm_round_up(mc < m1 - m0 ? mc : m1 - m0, GEMM_MR_AMX);
	size_t ncmax = gemm_round_up(nc < n1 - n0 ? nc : n1 - n0, GEMM_NR);
	size_t asz = mcmax * kcmax, bsz = pb ? 0 : ncmax * kcmax;
	size_t csz = ncmax * sizeof(int32_t);
	uint8_t *abuf, *bbuf;
	int32_t *cbuf;

	abuf = tbuf_get(asz + bsz + csz);
	if (!abuf)
		return -ENOMEM;
	bbuf = abuf + asz;
	cbuf = (int32_t *)(void *)(bbuf + bsz);

	for (size_t jc = n0; jc < n1; jc += nc) {		/* NC loop */
		size_t ncb = n1 - jc < nc ? n1 - jc : nc;

		for (size_t pc = 0; pc < j->k; pc += kc) {	/* KC loop */
			size_t kcb = j->k - pc < kc ? j->k - pc : kc;
			size_t kcpad = gemm_round_up(kcb * esz, 64);
			int acc = pc > 0 || (j->flags & AMX_GEMM_ACCUMULATE);
			const uint8_t *bp;
			const int32_t *corr = NULL;
			size_t bstride, cstride = GEMM_NR;

			if (pb) {
				size_t panel = jc / GEMM_NR;

				bstride = kcpad * GEMM_NR;
				bp = pb->data + pc / kc * pb->kb_bytes +
				     panel * bstride;
				cstride = pb->nkb * GEMM_NR;
				if (need_corr)
					corr = pb->corr + panel * cstride +
					       pc / kc * GEMM_NR;
			} else {			/* pack B */
				bstride = kcpad * GEMM_NR;
				pack_b(j, pc, kcb, jc, ncb, bbuf, bstride,
				       need_corr ? cbuf : NULL);
				bp = bbuf;
				if (need_corr)
					corr = cbuf;
			}

			for (size_t ic = m0; ic < m1; ic += mc) { /* MC loop */
				size_t mcb = m1 - ic < mc ? m1 - ic : mc;
				const uint8_t *ablk = j->a + ic * j->lda + pc * esz;

				if (amx)			/* pack A */
					gemm_pack_a_tile(mcb, kcb * esz, ablk,
							 j->lda, abuf);
				else
					gemm_pack_a_vnni(mcb, kcb * esz, ablk,
							 j->lda, abuf, flip);

				for (size_t jr = 0; jr < ncb; jr += GEMM_NR) {
					size_t nr = ncb - jr < GEMM_NR ?
						    ncb - jr : GEMM_NR;
					const uint8_t *bpj = bp + jr / GEMM_NR * bstride;
					const int32_t *cj = corr ?
						corr + jr / GEMM_NR * cstride : NULL;

					for (size_t ir = 0; ir < mcb; ir += j->mr) {
						size_t mr = mcb - ir < j->mr ?
							    mcb - ir : j->mr;

						j->ukr(mr, nr, kcpad,
						       abuf + ir * kcpad, bpj,
						       j->c + ((ic + ir) * j->ldc +
							       jc + jr) * 4,
						       j->ldc, cj, acc);
					}
				}
			}
		}
	}
	return 0;
}

/* task grid tm x tn = nthr minimising the largest share of C */
static void choose_grid(const struct gemm_job *j, unsigned int nthr,
			unsigned int *tm, unsigned int *tn)
{
	size_t um = (j->m + j->mr - 1) / j->mr;
	size_t un = (j->n + GEMM_NR - 1) / GEMM_NR;
	size_t best = (size_t)-1;

	*tm = nthr;
	*tn = 1;
	for (unsigned int t = 1; t <= nthr; t++) {
		size_t w;

		if (nthr % t)
			continue;
		w = ((um + nthr / t - 1) / (nthr / t)) * ((un + t - 1) / t);
		if (w <= best) {
			best = w;
			*tn = t;
			*tm = nthr / t;
		}
	}
}

/*
 * C is cut into a fixed grid of tasks (two per thread when there are
 * several) that the threads of the job take in turn: a thread the OS
 * starts late, e.g. on a core busy with something else, then simply takes
 * fewer tasks instead of holding up the call.  Which thread computes a
 * task does not change its result.
 */
static void gemm_thread(void *arg, unsigned int tid, unsigned int nthr)
{
	struct gemm_job *j = arg;
	unsigned int tasks = nthr > 1 ? 2 * nthr : 1, tm, tn, t;
	size_t um = (j->m + j->mr - 1) / j->mr;
	size_t un = (j->n + GEMM_NR - 1) / GEMM_NR;
	int amx = j->backend == AMX_GEMM_BACKEND_AMX, begun = 0, ret = 0;

	(void)tid;
	choose_grid(j, tasks, &tm, &tn);
	while (!ret && (t = __atomic_fetch_add(&j->next_task, 1,
					       __ATOMIC_RELAXED)) < tasks) {
		unsigned int ti = t / tn, tj = t % tn;
		size_t m0 = um * ti / tm * j->mr, m1 = um * (ti + 1) / tm * j->mr;
		size_t n0 = un * tj / tn * GEMM_NR, n1 = un * (tj + 1) / tn * GEMM_NR;

		if (m1 > j->m)
			m1 = j->m;
		if (n1 > j->n)
			n1 = j->n;
		if (m0 >= m1 || n0 >= n1)
			continue;
		if (amx && !begun) {
			ret = gemm_amx_begin();	/* once per call per thread */
			if (ret)
				break;
			begun = 1;
		}
		ret = gemm_block(j, m0, m1, n0, n1);
	}
	if (begun)
		gemm_amx_end();
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

static int gemm_run(enum gemm_op op, unsigned int flags, size_t m, size_t n,
		    size_t k, const void *a, size_t lda, const void *b,
		    size_t ldb, const struct amx_packed_b *pb, void *c,
		    size_t ldc)
{
	size_t esz = op == GEMM_OP_BF16 ? 2 : 1;
	uintptr_t alo, ahi, blo, bhi, clo, chi;
	struct gemm_job j;
	unsigned int want;
	int ret;

	if (flags & ~AMX_GEMM_ACCUMULATE)
		return -EINVAL;
	if (pb) {
		if (pb->magic != PACKED_B_MAGIC ||
		    (pb->op == GEMM_OP_BF16) != (op == GEMM_OP_BF16))
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
		ret = span(m, n, ldc, 4, c, &clo, &chi);
	if (ret)
		return ret;
	if (overlap(clo, chi, alo, ahi) || overlap(clo, chi, blo, bhi))
		return -EINVAL;
	if (!m || !n)
		return 0;
	if (!k) {
		if (!(flags & AMX_GEMM_ACCUMULATE))
			for (size_t i = 0; i < m; i++)
				memset((uint8_t *)c + i * ldc * 4, 0, n * 4);
		return 0;
	}

	memset(&j, 0, sizeof(j));
	j.op = op;
	j.backend = gemm_select_backend(op);
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
	gemm_blocks_get(op, &j.bs);
	j.mr = j.backend == AMX_GEMM_BACKEND_AMX ? GEMM_MR_AMX : GEMM_MR_AVX;
	j.ukr = pick_ukr(op, j.backend);

	want = 2.0 * m * n * k < GEMM_MT_MIN_FLOPS ? 1 : amx_pool_size();
	amx_pool_run(gemm_thread, &j, want);
	return j.err;
}

AMX_EXPORT_FN
int amx_gemm_bf16(unsigned int flags, size_t m, size_t n, size_t k,
		  const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb,
		  float *c, size_t ldc)
{
	return gemm_run(GEMM_OP_BF16, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

AMX_EXPORT_FN
int amx_gemm_s8s8(unsigned int flags, size_t m, size_t n, size_t k,
		  const int8_t *a, size_t lda, const int8_t *b, size_t ldb,
		  int32_t *c, size_t ldc)
{
	return gemm_run(GEMM_OP_S8S8, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

AMX_EXPORT_FN
int amx_gemm_u8s8(unsigned int flags, size_t m, size_t n, size_t k,
		  const uint8_t *a, size_t lda, const int8_t *b, size_t ldb,
		  int32_t *c, size_t ldc)
{
	return gemm_run(GEMM_OP_U8S8, flags, m, n, k, a, lda, b, ldb, NULL,
			c, ldc);
}

AMX_EXPORT_FN
int amx_gemm_bf16_packed(unsigned int flags, size_t m, const uint16_t *a,
			 size_t lda, const struct amx_packed_b *b, float *c,
			 size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_BF16, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

AMX_EXPORT_FN
int amx_gemm_s8s8_packed(unsigned int flags, size_t m, const int8_t *a,
			 size_t lda, const struct amx_packed_b *b, int32_t *c,
			 size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_S8S8, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

AMX_EXPORT_FN
int amx_gemm_u8s8_packed(unsigned int flags, size_t m, const uint8_t *a,
			 size_t lda, const struct amx_packed_b *b, int32_t *c,
			 size_t ldc)
{
	if (!b)
		return -EINVAL;
	return gemm_run(GEMM_OP_U8S8, flags, m, 0, 0, a, lda, NULL, 0, b,
			c, ldc);
}

/*
 * The packed copy serves every backend.  It is the per-call packed B blocks
 * laid end to end: K block after K block, each holding all the panels of
 * GEMM_NR columns (VNNI, zero-padded), so one K block is one sequential
 * stream; for int8 also the VNNI fallback's per-block column corrections.
 */
AMX_EXPORT_FN
int amx_packed_b_create(struct amx_packed_b **out, enum amx_gemm_type type,
			size_t k, size_t n, const void *b, size_t ldb)
{
	enum gemm_op op;
	struct amx_packed_b *pb;
	struct gemm_blocks bs;
	uintptr_t lo, hi;
	size_t esz, kpad, npanels, bytes, cbytes;
	int ret;

	if (!out)
		return -EINVAL;
	if (type == AMX_GEMM_BF16)
		op = GEMM_OP_BF16;
	else if (type == AMX_GEMM_S8)
		op = GEMM_OP_S8S8;
	else
		return -EINVAL;
	esz = op == GEMM_OP_BF16 ? 2 : 1;
	ret = span(k, n, ldb, esz, b, &lo, &hi);
	if (ret)
		return ret;
	gemm_blocks_get(op, &bs);
	if (k > SIZE_MAX / 2 - 64 || n > SIZE_MAX / 2 - GEMM_NR)
		return -EOVERFLOW;
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
	cbytes = op == GEMM_OP_BF16 ? 0 : npanels * pb->nkb * GEMM_NR * 4;
	pb->bytes = bytes + cbytes;
	pb->data = aligned_alloc(64, gemm_round_up(bytes + cbytes, 64) + 64);
	if (!pb->data) {
		free(pb);
		return -ENOMEM;
	}
	if (cbytes)
		pb->corr = (int32_t *)(void *)(pb->data + gemm_round_up(bytes, 64));
	/* an empty B (k or n zero) is not read: b may be NULL */
	for (size_t pc = 0; n && pc < k; pc += bs.kc) {
		size_t kcb = k - pc < bs.kc ? k - pc : bs.kc;
		size_t stride = gemm_round_up(kcb * esz, 64) * GEMM_NR;
		uint8_t *dst = pb->data + pc / bs.kc * pb->kb_bytes;

		if (op == GEMM_OP_BF16)
			gemm_pack_b_bf16(kcb, n, (const uint16_t *)b + pc * ldb,
					 ldb, (uint16_t *)(void *)dst, stride / 2);
		else
			gemm_pack_b_s8(kcb, n, (const int8_t *)b + pc * ldb,
				       ldb, (int8_t *)dst, stride,
				       pb->corr + pc / bs.kc * GEMM_NR,
				       pb->nkb * GEMM_NR);
	}
	*out = pb;
	return 0;
}

AMX_EXPORT_FN
void amx_packed_b_free(struct amx_packed_b *pb)
{
	/* freeing a handle twice is undefined, as for free(3) */
	if (!pb)
		return;
	free(pb->data);
	free(pb);
}

AMX_EXPORT_FN
size_t amx_packed_b_size(const struct amx_packed_b *pb)
{
	return pb && pb->magic == PACKED_B_MAGIC ? pb->bytes : 0;
}
