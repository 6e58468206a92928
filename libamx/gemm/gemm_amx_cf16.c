// SPDX-License-Identifier: MIT
/*
 * AMX-COMPLEX path of amx_gemm_cf16(): TCMMRLFP16PS and TCMMIMFP16PS on
 * complex fp16 A and B as the caller stores them.  A complex number is
 * one dword (fp16 re, fp16 im), the pair the instructions read, so a row
 * of A is already an A tile row and a row of B a B tile row (16 complex
 * columns of one K index): nothing is repacked where blocks are whole.
 *
 * A block of C is 16 rows x 16 complex columns: tile 0 takes its real
 * parts, tile 1 its imaginary parts.  A K step is 16 complex values: A
 * tile 4 (16 rows of A), B tile 6 (16 rows of B).  The tiles are in
 * gemm_amx_begin()'s configuration, 16 x 64 bytes each.
 *
 * Where M or K leave a block row short, its A rows are copied, zero
 * padded, to the thread's scratch (allocated before any work, so that
 * -ENOMEM leaves C untouched); where N or K leave a B tile short (the
 * last column block, the last K step), that tile alone is copied, zero
 * padded, to a 1 KiB buffer.  Padded rows and columns only feed results
 * that are dropped, padded K values add zero products after the real
 * ones, exactly as the f16 packers pad K for TDPFP16PS.
 *
 * The results are those of the B2 form amx_gemm_cf16() uses without
 * AMX-COMPLEX (gemm.c), NaN payloads aside: the real part's lanes take
 * the same products (-im a . im b for im a . -im b), the imaginary
 * part's the same two in the other lane, and the lanes' sum is the same
 * sum.  What it saves is the B2 copy, twice B's size.
 *
 * Work: tasks of one block row (16 rows) by up to CF16_TASK_COLS column
 * blocks, claimed from a counter by the pool's threads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_amx_kernel.h"
#include "../pool/pool.h"

#define CF16_BLK	16	/* rows, complex columns, K values of a tile */
#define CF16_TASK_COLS	8	/* column blocks of a task */

struct cf16_job {
	unsigned int flags;
	size_t m, n, k, kpad;
	const uint8_t *a, *b;	/* 4 bytes a complex fp16 (any alignment) */
	size_t lda, ldb, ldc;	/* in complex elements */
	float *c;
	size_t ncb, ntc, ntasks;	/* column blocks, tasks a block row */
	uint8_t *abuf;		/* per thread 16 x kpad complex, or NULL */
	unsigned int next;
	int err;
};

/* 16 x 16 complex fp32 of C, split into real and imaginary tiles */
static void cf16_c_in(const struct cf16_job *j, size_t i0, size_t rows,
		      size_t j0, size_t cols, float *re, float *im)
{
	memset(re, 0, CF16_BLK * CF16_BLK * sizeof(*re));
	memset(im, 0, CF16_BLK * CF16_BLK * sizeof(*im));
	for (size_t r = 0; r < rows; r++) {
		const float *c = j->c + ((i0 + r) * j->ldc + j0) * 2;

		for (size_t x = 0; x < cols; x++) {
			re[r * CF16_BLK + x] = c[2 * x];
			im[r * CF16_BLK + x] = c[2 * x + 1];
		}
	}
}

static void cf16_c_out(const struct cf16_job *j, size_t i0, size_t rows,
		       size_t j0, size_t cols, const float *re,
		       const float *im)
{
	for (size_t r = 0; r < rows; r++) {
		float *c = j->c + ((i0 + r) * j->ldc + j0) * 2;

		for (size_t x = 0; x < cols; x++) {
			c[2 * x] = re[r * CF16_BLK + x];
			c[2 * x + 1] = im[r * CF16_BLK + x];
		}
	}
}

/*
 * The tile at @p (@nr rows of @nc dwords, rows @ld bytes apart) as a tile
 * load reads it: in place when whole, else copied, zero padded, to @tmp.
 */
static const uint8_t *cf16_tile(const uint8_t *p, size_t ld, size_t nr,
				size_t nc, uint8_t *tmp, size_t *stride)
{
	if (nr == CF16_BLK && nc == CF16_BLK) {
		*stride = ld;
		return p;
	}
	memset(tmp, 0, CF16_BLK * 64);
	for (size_t r = 0; r < nr; r++)
		memcpy(tmp + r * 64, p + r * ld, nc * 4);
	*stride = 64;
	return tmp;
}

/* one block: A rows at @a (@as bytes apart, kpad readable), B at @b */
static void cf16_block(const struct cf16_job *j, const uint8_t *a,
		       size_t as, const uint8_t *b, size_t i0, size_t rows,
		       size_t j0, size_t cols, float *re, float *im)
{
	uint8_t tb[CF16_BLK * 64] __attribute__((aligned(64)));
	size_t bs;

	if (j->flags & AMX_GEMM_ACCUMULATE) {
		cf16_c_in(j, i0, rows, j0, cols, re, im);
		amx_tile_load(0, re, 64);
		amx_tile_load(1, im, 64);
	} else {
		amx_tile_zero(0);
		amx_tile_zero(1);
	}
	for (size_t kk = 0; kk < j->k; kk += CF16_BLK) {
		size_t kn = j->k - kk < CF16_BLK ? j->k - kk : CF16_BLK;
		const uint8_t *pb = cf16_tile(b + kk * j->ldb * 4, j->ldb * 4,
					      kn, cols, tb, &bs);

		amx_tile_load(4, a + kk * 4, as);
		amx_tile_load(6, pb, bs);
		amx_tcmmrlfp16ps(0, 4, 6);
		amx_tcmmimfp16ps(1, 4, 6);
	}
	amx_tile_store(0, re, 64);
	amx_tile_store(1, im, 64);
	cf16_c_out(j, i0, rows, j0, cols, re, im);
}

static void cf16_thread(void *arg, unsigned int tid, unsigned int nthr)
{
	struct cf16_job *j = arg;
	float re[CF16_BLK * CF16_BLK] __attribute__((aligned(64)));
	float im[CF16_BLK * CF16_BLK] __attribute__((aligned(64)));
	uint8_t *abuf = j->abuf ? j->abuf + tid * CF16_BLK * j->kpad * 4 :
			NULL;
	size_t arb = SIZE_MAX;	/* the block row abuf holds */
	int begun = 0, ret = 0;
	unsigned int t;

	(void)nthr;
	while (!ret &&
	       (t = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) <
	       j->ntasks) {
		size_t rb = t / j->ntc, cb0 = t % j->ntc * CF16_TASK_COLS;
		size_t cb1 = cb0 + CF16_TASK_COLS < j->ncb ?
			     cb0 + CF16_TASK_COLS : j->ncb;
		size_t i0 = rb * CF16_BLK;
		size_t rows = j->m - i0 < CF16_BLK ? j->m - i0 : CF16_BLK;
		const uint8_t *a = j->a + i0 * j->lda * 4;
		size_t as = j->lda * 4;

		if (!begun) {
			ret = gemm_amx_begin();
			if (ret)
				break;
			begun = 1;
		}
		/* short rows or K: the block row's A, zero padded, once */
		if (rows < CF16_BLK || j->kpad != j->k) {
			if (arb != rb) {
				memset(abuf, 0, CF16_BLK * j->kpad * 4);
				for (size_t r = 0; r < rows; r++)
					memcpy(abuf + r * j->kpad * 4,
					       a + r * j->lda * 4, j->k * 4);
				arb = rb;
			}
			a = abuf;
			as = j->kpad * 4;
		}
		for (size_t cb = cb0; cb < cb1; cb++) {
			size_t j0 = cb * CF16_BLK;
			size_t cols = j->n - j0 < CF16_BLK ? j->n - j0 :
							     CF16_BLK;

			cf16_block(j, a, as, j->b + j0 * 4, i0, rows, j0, cols,
				   re, im);
		}
	}
	if (begun)
		gemm_amx_end();
	if (ret)
		__atomic_store_n(&j->err, ret, __ATOMIC_RELAXED);
}

int gemm_cf16_amx(unsigned int flags, size_t m, size_t n, size_t k,
		  const amx_fp16 *a, size_t lda, const amx_fp16 *b,
		  size_t ldb, float *c, size_t ldc, unsigned int want)
{
	struct cf16_job j = {
		.flags = flags, .m = m, .n = n, .k = k,
		.kpad = (k + CF16_BLK - 1) / CF16_BLK * CF16_BLK,
		.a = (const uint8_t *)a, .b = (const uint8_t *)b,
		.lda = lda, .ldb = ldb, .ldc = ldc, .c = c,
		.ncb = (n + CF16_BLK - 1) / CF16_BLK,
	};

	j.ntc = (j.ncb + CF16_TASK_COLS - 1) / CF16_TASK_COLS;
	j.ntasks = (m + CF16_BLK - 1) / CF16_BLK * j.ntc;
	/* before anything is written: an error leaves C as it was */
	if (m % CF16_BLK || k % CF16_BLK) {
		size_t bytes;

		if (__builtin_mul_overflow(j.kpad, (size_t)CF16_BLK * 4 * want,
					   &bytes))
			return -ENOMEM;
		j.abuf = aligned_alloc(64, bytes);
		if (!j.abuf)
			return -ENOMEM;
	}
	amx_pool_run(cf16_thread, &j, want);
	free(j.abuf);
	return j.err;
}
