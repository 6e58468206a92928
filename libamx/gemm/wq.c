// SPDX-License-Identifier: MIT
/*
 * Weight-only quantized B (amx_wq_create(3), amx_gemm_bf16_wq(3)):
 * checking and packing the caller's integers and scales, importing
 * ggml's block formats, dequantizing, and the GEMM's driver and portable
 * C kernel.  The layout is described in wq.h.
 *
 * The GEMM streams B once per block of up to WQ_MR rows of A, panel by
 * panel: at M <= 8 (a decode step) every weight is read once, from
 * memory, and the time is the bytes of amx_wq_size() over the memory's
 * bandwidth.  Larger M walks B in chunks that stay in L2 while every
 * row block of A passes over them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wq.h"
#include "../pool/pool.h"

#define WQ_CHUNK	(192u * 1024)	/* bytes of B a chunk's row blocks share */
#define WQ_SMALL_M	64	/* up to this M, chunks of one kernel call */
/* from this M, chunks widened to bf16 once: 8-bit, 4-bit B */
#define WQ_EXPAND_M8	32
#define WQ_EXPAND_M4	(WQ_SMALL_M + 1)
#define WQ_XCHUNK	(768u * 1024)	/* bytes of a widened chunk */
#define WQ_AMX_M	32	/* from this M, AMX where the process has it */

static int wq_finite(float f)
{
	return f - f == 0.0f;
}

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

/* the value an fp32 header entry holds exactly as an fp16, or -1 */
static int f16_exact(float f)
{
	amx_fp16 h = amx_fp32_to_fp16(f);
	float back = amx_fp16_to_fp32(h);

	return memcmp(&back, &f, sizeof(f)) ? -1 : h;
}

static void hdr_put(const struct amx_wq *w, uint8_t *h, size_t i, float v)
{
	if (w->f16) {
		amx_fp16 x = amx_fp32_to_fp16(v);

		memcpy(h + i * 2, &x, sizeof(x));
	} else {
		memcpy(h + i * 4, &v, sizeof(v));
	}
}

/* the header of column @j's group @g */
static uint8_t *hdr_at(const struct amx_wq *w, size_t g, size_t j)
{
	return w->data + j / WQ_NR * w->pbytes + g * w->gbytes;
}

/* store the stored value @u (0..15, or an int8's byte) of B[kk][j] */
static void put_u(struct amx_wq *w, size_t kk, size_t j, unsigned int u)
{
	size_t g = kk / w->group, r = kk % w->group, c = j % WQ_NR;
	uint8_t *p = hdr_at(w, g, j) + w->hdr;
	size_t b = c * 2 + (r & 1);

	if (w->bits == 4) {
		p += wq_nib(r / 4, b);
		if (r & 2)
			*p = (uint8_t)((*p & 0x0f) | u << 4);
		else
			*p = (uint8_t)((*p & 0xf0) | u);
	} else {
		p[r / 4 * 64 + (r & 2 ? 32 : 0) + b] = (uint8_t)u;
	}
}

static unsigned int get_u(const struct amx_wq *w, size_t kk, size_t j)
{
	size_t g = kk / w->group, r = kk % w->group, c = j % WQ_NR;
	const uint8_t *p = hdr_at(w, g, j) + w->hdr;
	size_t b = c * 2 + (r & 1);

	if (w->bits == 4)
		return r & 2 ? p[wq_nib(r / 4, b)] >> 4 : p[wq_nib(r / 4, b)] & 15;
	return p[r / 4 * 64 + (r & 2 ? 32 : 0) + b];
}

/* an empty B of the shape: sizes worked out, panels zeroed */
/*
 * Memory for the panels, placed by the pool's column split (panels
 * [lo[p], lo[p + 1]) of part p are one run of bytes), interleaved, or one
 * copy per node (../pool/place.h).
 */
/* panels of a task: a multiple of every kernel call's panel count */
#define WQ_TASK_ALIGN	12

static int wq_place(struct amx_wq *w)
{
	struct amx_place *pl = &w->pl;
	size_t seg[AMX_POOL_MAX_NODES + 1];
	unsigned int part[AMX_POOL_MAX_NODES];

	/* in whole tasks' worth of panels, as wq_thread() splits them */
	amx_place_plan(pl, (w->npanels + WQ_TASK_ALIGN - 1) / WQ_TASK_ALIGN);
	for (unsigned int p = 0; p < pl->nparts; p++) {
		size_t p0 = pl->lo[p] * WQ_TASK_ALIGN;

		seg[p] = (p0 < w->npanels ? p0 : w->npanels) * w->pbytes;
		part[p] = p;
	}
	seg[pl->nparts] = w->bytes;
	return amx_place_alloc(pl, round_up(w->bytes, 64), seg, part,
			       pl->nparts, WQ_TASK_ALIGN * WQ_NR, w->n);
}

static int wq_alloc(struct amx_wq **out, unsigned int bits, unsigned int form,
		    int f16, size_t k, size_t n, size_t group)
{
	struct amx_wq *w;
	size_t esz = f16 ? 2 : 4, data;
	int ret;

	if (k > ((size_t)1 << 40) || n > ((size_t)1 << 40))
		return -EOVERFLOW;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->magic = WQ_MAGIC;
	w->bits = bits;
	w->form = form;
	w->f16 = !!f16;
	w->k = k;
	w->n = n;
	w->kp = group ? k : round_up(k, bits == 4 ? 8 : 4);
	w->group = group ? group : w->kp;
	w->ngroups = w->kp / w->group;
	w->npanels = (n + WQ_NR - 1) / WQ_NR;
	w->hdr = WQ_NR * esz * (form == WQ_PLAIN ? 1 : 2);
	data = w->group / 4 * (bits == 4 ? 32 : 64);
	w->gbytes = w->hdr + data;
	if (w->ngroups > SIZE_MAX / w->gbytes ||
	    w->npanels > SIZE_MAX / 2 / (w->ngroups * w->gbytes)) {
		free(w);
		return -EOVERFLOW;
	}
	w->pbytes = w->ngroups * w->gbytes;
	w->bytes = w->npanels * w->pbytes;
	ret = wq_place(w);
	if (ret) {
		free(w);
		return ret;
	}
	w->data = w->pl.data;
	memset(w->data, 0, w->bytes);
	*out = w;
	return 0;
}

/* the weight B[kk][j] stands for (kk < kp: padding rows included) */
static double wq_weight(const struct amx_wq *w, size_t kk, size_t j)
{
	const uint8_t *h = hdr_at(w, kk / w->group, j);
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);
	double s = wq_hdr(w, h, j % WQ_NR);
	unsigned int u = get_u(w, kk, j);
	int q = w->bits == 8 ? (int8_t)u : (int)u - (int)w->center;

	if (w->form == WQ_ZP)
		return s * (q - wq_hdr(w, h + vo, j % WQ_NR));
	if (w->form == WQ_MIN)
		return s * q + wq_hdr(w, h + vo, j % WQ_NR);
	return s * q;
}

/*
 * The last step of making a handle: w->colw, the int8-activation GEMM's
 * zero-point term (wq.h), and the other copies (AMX_PLACE_REPLICATE).
 * 0 or -ENOMEM.
 */
static int wq_colw(struct amx_wq *w)
{
	w->colw = calloc(w->npanels * WQ_NR, sizeof(*w->colw));
	if (!w->colw)
		return -ENOMEM;
	if (w->pl.ncopies > 1) {
		w->rep = calloc(w->pl.ncopies, sizeof(*w->rep));
		if (!w->rep)
			return -ENOMEM;
		amx_place_copy(&w->pl, w->bytes);
		for (unsigned int c = 0; c < w->pl.ncopies; c++) {
			w->rep[c] = *w;
			w->rep[c].rep = NULL;
			w->rep[c].data = (uint8_t *)amx_place_data(
				&w->pl, w->pl.copy_node[c]);
		}
	}
	for (size_t j = 0; j < w->n; j++) {
		double sum = 0.0;

		for (size_t kk = 0; kk < w->kp; kk++)
			sum += wq_weight(w, kk, j);
		w->colw[j] = (float)sum;
	}
	return 0;
}

void amx_wq_free(struct amx_wq *w)
{
	if (!w)
		return;
	w->magic = 0;
	amx_place_free(&w->pl);
	free(w->rep);
	free(w->colw);
	free(w);
}

int amx_wq_ranges(const struct amx_wq *w, struct amx_mem_range *r, size_t n)
{
	if (!w || w->magic != WQ_MAGIC)
		return -EINVAL;
	return amx_place_ranges(&w->pl, r, n);
}

size_t amx_wq_size(const struct amx_wq *w)
{
	return w && w->magic == WQ_MAGIC ? w->bytes : 0;
}

static int misaligned(const void *p, size_t to)
{
	return p && (uintptr_t)p % to;
}

/* the checks of amx_wq_create() that read the values; 0 or -errno */
static int desc_values(const struct amx_wq_desc *d, size_t ng, int *f16)
{
	int lo = d->type == AMX_WQ_S8 ? -128 : d->type == AMX_WQ_S4 ? -8 : 0;
	int hi = d->type == AMX_WQ_S8 ? 127 : d->type == AMX_WQ_S4 ? 7 : 15;

	*f16 = 1;
	for (size_t x = 0; x < ng * d->n; x++) {
		float s = d->scales[x];

		if (!(wq_finite(s) && s > 0.0f))
			return -EDOM;
		if (d->mins && !wq_finite(d->mins[x]))
			return -EDOM;
		if (d->zp && d->zp[x] > 15)
			return -ERANGE;
		if (f16_exact(s) < 0 || (d->mins && f16_exact(d->mins[x]) < 0))
			*f16 = 0;
	}
	for (size_t kk = 0; kk < d->k; kk++)
		for (size_t j = 0; j < d->n; j++) {
			int q = d->q[kk * d->ldq + j];

			if (q < lo || q > hi)
				return -ERANGE;
		}
	return 0;
}

int amx_wq_create(struct amx_wq **out, const struct amx_wq_desc *d)
{
	size_t group, ng, bytes;
	unsigned int form = WQ_PLAIN, center = 0;
	struct amx_wq *w;
	int f16, ret;

	if (!out || !d || !d->q || !d->scales || !d->k || !d->n)
		return -EINVAL;
	if (d->type < AMX_WQ_S8 || d->type > AMX_WQ_U4)
		return -EINVAL;
	group = d->group;
	if (group != 0 && group != 32 && group != 64 && group != 128)
		return -EINVAL;
	if ((group && d->k % group) || d->ldq < d->n)
		return -EINVAL;
	if (misaligned(d->scales, sizeof(float)) ||
	    misaligned(d->mins, sizeof(float)))
		return -EINVAL;
	if ((d->zp || d->mins) && (d->type != AMX_WQ_U4 || (d->zp && d->mins)))
		return -EINVAL;
	for (size_t i = 0; i < 4; i++)
		if (d->reserved[i])
			return -EINVAL;
	ng = group ? d->k / group : 1;
	if ((ret = amx__matrix_span(d->k, d->n, d->ldq, 1, d->q, &bytes)) ||
	    (ret = amx__matrix_span(ng, d->n, d->n, 4, d->scales, &bytes)) ||
	    (d->zp && (ret = amx__matrix_span(ng, d->n, d->n, 1, d->zp,
					      &bytes))) ||
	    (d->mins && (ret = amx__matrix_span(ng, d->n, d->n, 4, d->mins,
						&bytes))))
		return ret;
	if ((ret = desc_values(d, ng, &f16)))
		return ret;
	if (d->type != AMX_WQ_S8)
		center = 8;
	if (d->mins) {
		form = WQ_MIN;
		center = 0;
	} else if (d->zp) {
		for (size_t x = 0; x < ng * d->n; x++)
			if (d->zp[x] != 8) {
				form = WQ_ZP;
				center = 0;
				break;
			}
	}
	ret = wq_alloc(&w, d->type == AMX_WQ_S8 ? 8 : 4, form, f16, d->k,
		       d->n, group);
	if (ret)
		return ret;
	w->center = center;
	for (size_t g = 0; g < ng; g++)
		for (size_t j = 0; j < d->n; j++) {
			uint8_t *h = hdr_at(w, g, j);

			hdr_put(w, h, j % WQ_NR, d->scales[g * d->n + j]);
			if (form == WQ_ZP)
				hdr_put(w, h + WQ_NR * (f16 ? 2 : 4), j % WQ_NR,
					d->zp[g * d->n + j]);
			else if (form == WQ_MIN)
				hdr_put(w, h + WQ_NR * (f16 ? 2 : 4), j % WQ_NR,
					d->mins[g * d->n + j]);
		}
	for (size_t kk = 0; kk < d->k; kk++)
		for (size_t j = 0; j < d->n; j++) {
			int q = d->q[kk * d->ldq + j];

			put_u(w, kk, j, d->type == AMX_WQ_S4 ? (unsigned int)(q + 8) :
			      (unsigned int)(uint8_t)q);
		}
	if ((ret = wq_colw(w))) {
		amx_wq_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* x rounded to an integer, ties to even: |x| < 2^22 (no libm here) */
static float wq_round(float x)
{
	volatile float big = 12582912.0f;	/* 1.5 * 2^23, not folded */

	return (x + big) - big;
}

int amx_wq_quantize(struct amx_wq **out, enum amx_wq_type type,
		    uint32_t group, size_t k, size_t n, const float *b,
		    size_t ldb)
{
	struct amx_wq_desc d = { .type = type, .group = group, .k = k, .n = n };
	size_t gs = group ? group : k, ng, bytes;
	int8_t *q = NULL;
	float *sc = NULL;
	uint8_t *zp = NULL;
	int ret;

	if (!out || !b || !k || !n || ldb < n || type < AMX_WQ_S8 ||
	    type > AMX_WQ_U4 ||
	    (group != 0 && group != 32 && group != 64 && group != 128) ||
	    (group && k % group))
		return -EINVAL;
	if ((ret = amx__matrix_span(k, n, ldb, 4, b, &bytes)))
		return ret;
	for (size_t kk = 0; kk < k; kk++)
		for (size_t j = 0; j < n; j++)
			if (!wq_finite(b[kk * ldb + j]))
				return -EDOM;
	ng = k / gs;
	if (n > SIZE_MAX / k || ng > SIZE_MAX / 4 / n)
		return -EOVERFLOW;
	q = malloc(k * n);
	sc = malloc(ng * n * sizeof(*sc));
	if (type == AMX_WQ_U4)
		zp = malloc(ng * n);
	if (!q || !sc || (type == AMX_WQ_U4 && !zp)) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t g = 0; g < ng; g++)
		for (size_t j = 0; j < n; j++) {
			const float *col = b + g * gs * ldb + j;
			float lo = 0.0f, hi = 0.0f, s, z = 0.0f;
			int qlo = type == AMX_WQ_S8 ? -128 : type == AMX_WQ_S4 ? -8 : 0;
			int qhi = type == AMX_WQ_S8 ? 127 : type == AMX_WQ_S4 ? 7 : 15;

			for (size_t r = 0; r < gs; r++) {
				float x = col[r * ldb];

				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
			}
			if (type == AMX_WQ_U4) {
				/* hi - lo may overflow: halves */
				s = (hi / 2 - lo / 2) / 7.5f;
			} else {
				float amax = -lo > hi ? -lo : hi;

				s = amax / (float)qhi;
			}
			if (!(s > 0.0f))	/* all zero, or below the denormals */
				s = hi - lo > 0.0f ? 1.40129846e-45f : 1.0f;
			if (type == AMX_WQ_U4) {
				z = wq_round(-lo / s);
				z = z > 15.0f ? 15.0f : z;
				zp[g * n + j] = (uint8_t)z;
			}
			sc[g * n + j] = s;
			for (size_t r = 0; r < gs; r++) {
				float v = wq_round(col[r * ldb] / s) + z;

				v = v < (float)qlo ? (float)qlo : v;
				v = v > (float)qhi ? (float)qhi : v;
				q[(g * gs + r) * n + j] = (int8_t)v;
			}
		}
	d.q = q;
	d.ldq = n;
	d.scales = sc;
	d.zp = zp;
	ret = amx_wq_create(out, &d);
out:
	free(q);
	free(sc);
	free(zp);
	return ret;
}

/* ggml's blocks: 32 weights each, fp16 d first */
#define GGML_QK	32

static size_t ggml_block_bytes(enum amx_ggml_type t)
{
	switch (t) {
	case AMX_GGML_Q4_0:
		return 2 + GGML_QK / 2;
	case AMX_GGML_Q4_1:
		return 4 + GGML_QK / 2;
	case AMX_GGML_Q8_0:
		return 2 + GGML_QK;
	}
	return 0;
}

static float ld_f16(const uint8_t *p)
{
	amx_fp16 h;

	memcpy(&h, p, sizeof(h));	/* little-endian, as ggml writes it */
	return amx_fp16_to_fp32(h);
}

int amx_wq_import_ggml(struct amx_wq **out, enum amx_ggml_type type,
		       size_t n, size_t k, const void *data, size_t row_bytes)
{
	size_t bb = ggml_block_bytes(type), nb, span;
	const uint8_t *src = data;
	struct amx_wq *w;
	int ret;

	if (!out || !data || !bb || !n || !k || k % GGML_QK)
		return -EINVAL;
	nb = k / GGML_QK;
	if (row_bytes / bb < nb)
		return -EINVAL;
	if ((ret = amx__matrix_span(n, nb * bb, row_bytes, 1, data, &span)))
		return ret;
	for (size_t j = 0; j < n; j++)
		for (size_t b = 0; b < nb; b++) {
			const uint8_t *blk = src + j * row_bytes + b * bb;

			if (!wq_finite(ld_f16(blk)) ||
			    (type == AMX_GGML_Q4_1 && !wq_finite(ld_f16(blk + 2))))
				return -EDOM;
		}
	ret = wq_alloc(&w, type == AMX_GGML_Q8_0 ? 8 : 4,
		       type == AMX_GGML_Q4_1 ? WQ_MIN : WQ_PLAIN, 1, k, n,
		       GGML_QK);
	if (ret)
		return ret;
	w->center = type == AMX_GGML_Q4_0 ? 8 : 0;
	for (size_t j = 0; j < n; j++)
		for (size_t b = 0; b < nb; b++) {
			const uint8_t *blk = src + j * row_bytes + b * bb;
			uint8_t *h = hdr_at(w, b, j);
			size_t k0 = b * GGML_QK;

			/* the fp16 bits as they are: d may be 0 or negative */
			memcpy(h + j % WQ_NR * 2, blk, 2);
			if (type == AMX_GGML_Q4_1)
				memcpy(h + (WQ_NR + j % WQ_NR) * 2, blk + 2, 2);
			if (type == AMX_GGML_Q8_0) {
				for (size_t x = 0; x < GGML_QK; x++)
					put_u(w, k0 + x, j, blk[2 + x]);
				continue;
			}
			blk += type == AMX_GGML_Q4_1 ? 4 : 2;
			/* weight x of a block: nibble x % 16, low half first */
			for (size_t x = 0; x < GGML_QK / 2; x++) {
				put_u(w, k0 + x, j, blk[x] & 15);
				put_u(w, k0 + x + GGML_QK / 2, j, blk[x] >> 4);
			}
		}
	if ((ret = wq_colw(w))) {
		amx_wq_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int amx_wq_dequantize(const struct amx_wq *w, float *b, size_t ldb)
{
	size_t bytes, vo;

	if (!w || w->magic != WQ_MAGIC || !b || ldb < w->n)
		return -EINVAL;
	if (amx__matrix_span(w->k, w->n, ldb, 4, b, &bytes) ||
	    ((uintptr_t)b < (uintptr_t)w->data + w->bytes &&
	     (uintptr_t)w->data < (uintptr_t)b + bytes))
		return -EINVAL;
	vo = WQ_NR * (w->f16 ? 2 : 4);
	for (size_t kk = 0; kk < w->k; kk++)
		for (size_t j = 0; j < w->n; j++) {
			const uint8_t *h = hdr_at(w, kk / w->group, j);
			float s = wq_hdr(w, h, j % WQ_NR), v;
			unsigned int u = get_u(w, kk, j);
			int q = w->bits == 8 ? (int8_t)u : (int)u - (int)w->center;

			if (w->form == WQ_ZP)
				v = s * (float)(q - (int)wq_hdr(w, h + vo,
								 j % WQ_NR));
			else if (w->form == WQ_MIN)
				v = s * (float)q + wq_hdr(w, h + vo, j % WQ_NR);
			else
				v = s * (float)q;
			b[kk * ldb + j] = v;
		}
	return 0;
}

/* ---- the GEMM ---- */

static float bf16f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

void wq_kernel_c(const struct amx_wq *w, size_t mr, size_t np,
		 const uint16_t *a, size_t lda, const float *asum,
		 const uint8_t *panel, float *out)
{
	size_t steps = w->group / 4, vo = WQ_NR * (w->f16 ? 2 : 4);

	for (size_t r = 0; r < mr; r++)
		for (size_t p = 0; p < np; p++) {
			float acc[WQ_NR] = { 0 };

			for (size_t g = 0; g < w->ngroups; g++) {
				const uint8_t *h = panel + p * w->pbytes +
						   g * w->gbytes;
				const uint8_t *d = h + w->hdr;
				const uint16_t *ar = a + r * lda + g * w->group;
				float dot[WQ_NR] = { 0 };

				for (size_t t = 0; t < steps; t++)
					for (size_t b = 0; b < 32; b++) {
						size_t c = b / 2, kk = 4 * t + (b & 1);
						float lo, hi;

						if (w->bits == 4) {
							unsigned int u = d[wq_nib(t, b)];

							lo = (float)((int)(u & 15) - (int)w->center);
							hi = (float)((int)(u >> 4) - (int)w->center);
						} else {
							lo = (float)(int8_t)d[t * 64 + b];
							hi = (float)(int8_t)d[t * 64 + 32 + b];
						}
						dot[c] += bf16f(ar[kk]) * lo;
						dot[c] += bf16f(ar[kk + 2]) * hi;
					}
				for (size_t c = 0; c < WQ_NR; c++) {
					float s = wq_hdr(w, h, c);

					acc[c] += s * dot[c];
					if (w->form == WQ_ZP)
						acc[c] -= s * wq_hdr(w, h + vo, c) *
							  asum[r * w->ngroups + g];
					else if (w->form == WQ_MIN)
						acc[c] += wq_hdr(w, h + vo, c) *
							  asum[r * w->ngroups + g];
				}
			}
			memcpy(out + r * WQ_NP * WQ_NR + p * WQ_NR, acc,
			       sizeof(acc));
		}
}

void wq_i8_kernel_c(const struct amx_wq *w, size_t mr, size_t np,
		    const int8_t *a, size_t lda, const int32_t *asum,
		    const uint8_t *panel, float *out)
{
	size_t steps = w->group / 4, vo = WQ_NR * (w->f16 ? 2 : 4);
	int32_t c = w->bits == 8 ? 128 : (int32_t)w->center;

	for (size_t r = 0; r < mr; r++)
		for (size_t p = 0; p < np; p++) {
			float acc[WQ_NR] = { 0 };

			for (size_t g = 0; g < w->ngroups; g++) {
				const uint8_t *h = panel + p * w->pbytes +
						   g * w->gbytes;
				const uint8_t *d = h + w->hdr;
				const int8_t *ar = a + r * lda + g * w->group;
				int32_t dot[WQ_NR] = { 0 };
				int32_t as = asum[r * w->ngroups + g];

				for (size_t t = 0; t < steps; t++)
					for (size_t b = 0; b < 32; b++) {
						size_t col = b / 2, kk = 4 * t + (b & 1);
						int32_t lo, hi;

						if (w->bits == 4) {
							lo = d[wq_nib(t, b)] & 15;
							hi = d[wq_nib(t, b)] >> 4;
						} else {	/* q + 128 */
							lo = (int8_t)d[t * 64 + b] + 128;
							hi = (int8_t)d[t * 64 + 32 + b] + 128;
						}
						dot[col] += ar[kk] * lo + ar[kk + 2] * hi;
					}
				for (size_t col = 0; col < WQ_NR; col++) {
					float sc = wq_hdr(w, h, col);

					if (w->form == WQ_PLAIN) {
						acc[col] += sc * (float)(dot[col] - c * as);
						continue;
					}
					acc[col] += sc * (float)dot[col];
					if (w->form == WQ_ZP)
						acc[col] += -sc * wq_hdr(w, h + vo, col) *
							    (float)as;
					else
						acc[col] += wq_hdr(w, h + vo, col) *
							    (float)as;
				}
			}
			memcpy(out + r * WQ_NP * WQ_NR + p * WQ_NR, acc,
			       sizeof(acc));
		}
}

/* the bf16 bits of the small integer @v (exact) */
static uint16_t bf16_of_int(int v)
{
	float f = (float)v;
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return (uint16_t)(u >> 16);
}

/* the stored value of column @c, row 4t + @e (e 0..3) of a group's steps @d */
static int step_val(const struct amx_wq *w, const uint8_t *d, size_t t,
		    size_t c, int e)
{
	size_t b = 2 * c + (e & 1);

	if (w->bits == 4)	/* w8 */
		return (e & 2 ? d[wq_nib(t, b)] >> 4 : d[wq_nib(t, b)] & 15) - 8;
	return (int8_t)d[t * 64 + (e & 2 ? 32 : 0) + b];
}

/*
 * wq_expand_avx512() and (@cs not NULL) wq_expand_i8_avx512() in C: the
 * same bytes, and the same column sums
 */
static void wq_expand_c(const struct amx_wq *w, const uint8_t *panel,
			size_t np, uint8_t *xd, int32_t *cs)
{
	size_t steps = w->group / 4, vo = WQ_NR * (w->f16 ? 2 : 4);
	int shift = w->bits == 4 ? 8 - (int)w->center : 0;

	for (size_t p = 0; p < np; p++)
		for (size_t g = 0; g < w->ngroups; g++) {
			const uint8_t *h = panel + p * w->pbytes + g * w->gbytes;
			const uint8_t *d = h + w->hdr;
			int z[WQ_NR] = { 0 };

			/* bf16: u - z with zero points (wq_xform()) */
			for (size_t c = 0; c < WQ_NR && !cs &&
			     w->form == WQ_ZP; c++)
				z[c] = (int)wq_hdr(w, h + vo, c);

			if (cs)
				memset(cs, 0, WQ_NR * sizeof(*cs));
			for (size_t t = 0; t < steps; t++) {
				for (size_t c = 0; c < WQ_NR && cs; c++)
					for (int e = 0; e < 4; e++) {
						int v = step_val(w, d, t, c, e);

						xd[4 * c + e] = (uint8_t)v;
						cs[c] += v;
					}
				for (size_t c = 0; c < WQ_NR && !cs; c++)
					for (int e = 0; e < 4; e++) {
						/* u - center, or q */
						uint16_t x = bf16_of_int(
							step_val(w, d, t, c, e) +
							shift - z[c]);

						memcpy(xd + (e & 2 ? 64 : 0) +
						       (2 * c + (e & 1)) * 2, &x, 2);
					}
				xd += cs ? 64 : 128;
			}
			if (cs)
				cs += WQ_NR;
		}
}

void wq_group_add(const struct amx_wq *w, unsigned int form,
		  const uint8_t *h, size_t rows, const float *src, size_t lds,
		  const float *asum, size_t asum_ld, float *out, size_t ldo,
		  int avx512)
{
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);

	if (avx512) {
		wq_group_add_avx512(w, form, h, rows, src, lds, asum, asum_ld,
				    out, ldo);
		return;
	}
	for (size_t c = 0; c < WQ_NR; c++) {
		float s = wq_hdr(w, h, c), v = 0.0f;

		if (form == WQ_ZP)
			v = s * -wq_hdr(w, h + vo, c);
		else if (form == WQ_MIN)
			v = wq_hdr(w, h + vo, c);
		for (size_t r = 0; r < rows; r++) {
			float acc = out[r * ldo + c] + s * src[r * lds + c];

			if (form != WQ_PLAIN)
				acc += v * asum[r * asum_ld];
			out[r * ldo + c] = acc;
		}
	}
}

struct wq_job {
	const struct amx_wq *w;
	const uint16_t *a;
	size_t lda, m;
	const float *asum;
	float *c;		/* no epilogue: fp32 C */
	size_t ldc;
	int acc, avx512;
	const struct gemm_epi *epi;
	unsigned int next[AMX_POOL_MAX_NODES];	/* the next task of a part */
	/* int8 A (amx_gemm_s8_wq()): a8 instead of a */
	int i8;
	const int8_t *a8;
	const int32_t *iasum;	/* [m][ngroups] */
	const float *rs;	/* [m] row scales, or NULL */
	const int32_t *zp8;	/* [m] zero points of a8, or NULL */
	int amx;		/* AMX for the blocks of 16 and 32 rows */
	const uint8_t *a8u;	/* int8 A on AMX, VNNI prefill: a + 128 */
	size_t ldau;		/* a8u's rows: kp + 64 bytes apart, or 0:
				 * packed for the VNNI prefill kernel */
};

/* panels in a kernel call of @mr rows: accumulators fit the 32 zmm */
static size_t wq_np(size_t mr)
{
	return mr <= 2 ? 4 : mr <= 4 ? 2 : 1;
}

static void wq_emit(const struct wq_job *jb, size_t i, size_t mr, size_t j,
		    size_t cols, float *out)
{
	/* int8 A: the zero points' share, then (unless the epilogue does) rs */
	for (size_t r = 0; jb->zp8 && r < mr; r++)
		for (size_t x = 0; x < cols; x++)
			out[r * WQ_NP * WQ_NR + x] -= (float)jb->zp8[i + r] *
						      jb->w->colw[j + x];
	if (jb->rs && !jb->epi)
		for (size_t r = 0; r < mr; r++)
			for (size_t x = 0; x < cols; x++)
				out[r * WQ_NP * WQ_NR + x] *= jb->rs[i + r];
	if (jb->epi) {
		gemm_epi_tile(jb->epi, i, mr, j, cols, out, WQ_NP * WQ_NR);
		return;
	}
	for (size_t r = 0; r < mr; r++) {
		float *c = jb->c + (i + r) * jb->ldc + j;
		const float *o = out + r * WQ_NP * WQ_NR;

		for (size_t x = 0; x < cols; x++)
			c[x] = jb->acc ? c[x] + o[x] : o[x];
	}
}

/*
 * Rows per kernel call: 4-bit B goes 4 rows (and 2 panels) at a time,
 * which keeps more of the multiplies per load than 8 rows of 1 panel
 * (the table lookups are cheap); 8-bit B's conversion to bf16 costs
 * more, and is shared by up to 8 rows.
 */
static size_t wq_mr(const struct amx_wq *w)
{
	return w->bits == 4 ? 4 : WQ_MR;
}

/*
 * int8 A on AVX-512 VNNI: from this M, chunks widened to int8 once and
 * multiplied by wq_i8x_kernel_avx512().  Zen 4, 4096 x 4096, time over
 * amx_gemm_s8s8_packed()'s (direct kernel -> widened): 8-bit B, group
 * 32, 1.46 -> 1.36 at M = 64, 1.56 -> 1.25 at 512 (the direct kernel
 * widens each 8-bit step anew for every 8 rows); 4-bit B's widening is
 * 2 ops in the direct kernel: group 32, 1.26 -> 1.35 at 128, 1.30 ->
 * 1.18 at 256; group 128 1.06 -> 1.11 at 256, 1.09 -> 1.10 at 512.
 */
static size_t wq_expand_i8_m(const struct amx_wq *w)
{
	if (w->bits == 8)
		return 64;
	return w->group <= 64 ? 256 : SIZE_MAX;
}

/* bytes of a widened panel: bf16 pairs, or int8 quads (int8 A) */
static size_t wq_xpanel(const struct amx_wq *w, int i8)
{
	return w->kp * WQ_NR * (i8 ? 1 : 2);
}

/*
 * Columns [p0, p1) of panels for the rows of the job: one task.  @xbuf:
 * the thread's room for a widened chunk, or NULL.
 */
static void wq_task(const struct wq_job *jb, const struct amx_wq *w,
		    size_t p0, size_t p1,
		    uint8_t *xbuf, int32_t *xcs, size_t xchunk, int amx,
		    float *amxout)
{
	size_t chunk, mrmax = xbuf ? 4 : wq_mr(w);
	size_t xpanel = wq_xpanel(w, jb->i8);
	float out[WQ_MR * WQ_NP * WQ_NR] __attribute__((aligned(64)));
	int small = !xbuf && jb->m <= WQ_SMALL_M;

	if (jb->i8)
		mrmax = WQ_MR;

	/*
	 * Up to WQ_SMALL_M rows, a chunk is the panels of one kernel call,
	 * every block of rows passes over it (from L2 after the first), and
	 * each pass also pulls the next chunk into L2: reading B overlaps
	 * the multiplies.  Beyond, chunks of WQ_CHUNK bytes keep B in L2
	 * while A's rows stream by, or, with @xbuf, chunks of @xchunk
	 * panels are widened once (to bf16, or int8 for int8 A) and every
	 * block of rows reads them as they are: the widening's cost no
	 * longer grows with M.
	 */
	if (xbuf) {
		chunk = xchunk;
	} else if (small) {
		chunk = wq_np(jb->m < mrmax ? jb->m : mrmax);
	} else {
		chunk = WQ_CHUNK / w->pbytes;
		chunk = chunk < WQ_NP ? WQ_NP : chunk / WQ_NP * WQ_NP;
	}
	for (size_t c0 = p0; c0 < p1; c0 += chunk) {
		size_t c1 = c0 + chunk < p1 ? c0 + chunk : p1;
		size_t pf = small && c1 < p1 ? (c1 - c0) * w->pbytes : 0;

		size_t i0 = 0;

		if (xbuf && jb->avx512 && jb->i8)
			wq_expand_i8_avx512(w, w->data + c0 * w->pbytes,
					    c1 - c0, xbuf, xcs);
		else if (xbuf && jb->avx512)
			wq_expand_avx512(w, w->data + c0 * w->pbytes, c1 - c0,
					 xbuf);
		else if (xbuf)	/* AMX without AVX-512: the emulators */
			wq_expand_c(w, w->data + c0 * w->pbytes, c1 - c0, xbuf,
				    jb->i8 ? xcs : NULL);
		/* AMX: the blocks of 32 and 16 rows; the rest as below */
		for (size_t mr; amx && xbuf && jb->m - i0 >= 16; i0 += mr) {
			mr = jb->m - i0 >= 32 ? 32 : 16;
			for (size_t p = c0; p < c1; p += 2) {
				size_t q = p + 2 <= c1 ? 2 : 1;
				size_t j = p * WQ_NR, cols = q * WQ_NR;

				if (jb->i8)
					wq_amx_i8_kernel(w, mr, q,
						jb->a8u + i0 * jb->ldau, jb->ldau,
						jb->iasum + i0 * w->ngroups,
						w->data + p * w->pbytes,
						xbuf + (p - c0) * xpanel, xpanel,
						xcs + (p - c0) * w->ngroups * WQ_NR,
						jb->avx512, amxout);
				else
					wq_amx_kernel(w, mr, q,
						jb->a + i0 * jb->lda, jb->lda,
						jb->asum ? jb->asum +
						i0 * w->ngroups : NULL,
						w->data + p * w->pbytes,
						xbuf + (p - c0) * xpanel, xpanel,
						jb->avx512, amxout);
				if (cols > w->n - j)
					cols = w->n - j;
				wq_emit(jb, i0, mr, j, cols, amxout);
			}
		}
		/* int8 A on AVX-512 over the widened chunk */
		for (size_t mr; xbuf && jb->i8 && jb->avx512 && i0 < jb->m;
		     i0 += mr) {
			mr = jb->m - i0 < WQ_I8X_MR ? jb->m - i0 : WQ_I8X_MR;
			for (size_t p = c0; p < c1; p += WQ_I8X_NP) {
				size_t q = p + WQ_I8X_NP <= c1 ? WQ_I8X_NP :
					   c1 - p;
				size_t j = p * WQ_NR, cols = q * WQ_NR;

				wq_i8x_kernel_avx512(w, mr, q, jb->a8u + i0 *
					(jb->ldau ? jb->ldau : w->kp), jb->ldau,
					jb->iasum + i0 * w->ngroups,
					w->data + p * w->pbytes,
					xbuf + (p - c0) * xpanel, xpanel,
					xcs + (p - c0) * w->ngroups * WQ_NR, out);
				if (cols > w->n - j)
					cols = w->n - j;
				wq_emit(jb, i0, mr, j, cols, out);
			}
		}
		for (size_t i = i0, mr; i < jb->m; i += mr) {
			size_t np;

			mr = jb->m - i < mrmax ? jb->m - i : mrmax;
			np = xbuf && !jb->i8 && mr >= 3 ? 3 : wq_np(mr);
			for (size_t p = c0; p < c1; p += np) {
				size_t q = p + np < c1 ? np : c1 - p;
				size_t j = p * WQ_NR, cols = q * WQ_NR;
				const uint16_t *a = jb->i8 ? NULL :
						    jb->a + i * jb->lda;
				const float *as = jb->asum ?
					jb->asum + i * w->ngroups : NULL;
				const uint8_t *pp = w->data + p * w->pbytes;

				if (jb->i8 && jb->avx512)
					wq_i8_kernel_avx512(w, mr, q,
						jb->a8 + i * jb->lda, jb->lda,
						jb->iasum + i * w->ngroups, pp, pf,
						out);
				else if (jb->i8)
					wq_i8_kernel_c(w, mr, q,
						jb->a8 + i * jb->lda, jb->lda,
						jb->iasum + i * w->ngroups, pp, out);
				else if (jb->avx512)
					wq_kernel_avx512(w, mr, q, a, jb->lda, as,
							 pp, xbuf ? xbuf +
							 (p - c0) * xpanel : NULL,
							 pf, out);
				else
					wq_kernel_c(w, mr, q, a, jb->lda, as, pp,
						    out);
				if (cols > w->n - j)
					cols = w->n - j;
				wq_emit(jb, i, mr, j, cols, out);
			}
		}
	}
}

/*
 * The pool's workers join a job when they can and the caller does not
 * wait for one that has not: tasks are claimed, never assigned by tid.
 * One task a thread when alone (B streams without a break), else four a
 * thread, so that a late worker's share goes to the others.
 */
static void wq_thread(void *arg, unsigned int tid, unsigned int nthr)
{
	struct wq_job *jb = arg;
	const struct amx_wq *w = jb->w, *tw = w;
	size_t units = (w->npanels + WQ_TASK_ALIGN - 1) / WQ_TASK_ALIGN;
	size_t per[AMX_POOL_MAX_NODES];
	struct amx_split sp;
	unsigned int part, t;
	int home;
	size_t xpanel = wq_xpanel(w, jb->i8), xchunk = 0;
	uint8_t *xbuf = NULL;
	int32_t *xcs = NULL;
	float *amxout = NULL;
	int amx = jb->amx;

	amx_place_split(&sp, units, nthr, &w->pl);
	for (unsigned int p = 0; p < sp.nparts; p++) {
		size_t pu = sp.lo[p + 1] - sp.lo[p];
		size_t tasks = nthr > 1 ? (size_t)(sp.nthr[p] ? sp.nthr[p] : 1) *
					  4 : 1;

		per[p] = (pu + tasks - 1) / tasks;
		sp.ntasks[p] = per[p] ? (unsigned int)((pu + per[p] - 1) /
						       per[p]) : 0;
	}
	home = amx_split_home(&sp, tid, nthr);
	if (w->rep && home >= 0)
		for (unsigned int c = 0; c < w->pl.ncopies; c++)
			if (w->pl.copy_node[c] == sp.node[home])
				tw = &w->rep[c];
	/* AMX: its own configuration in each thread, or AVX-512 there */
	if (amx && (jb->i8 ? wq_amx_i8_config(w) : gemm_amx_begin()))
		amx = 0;
	if (amx)
		amxout = aligned_alloc(64, 32 * WQ_NP * WQ_NR * sizeof(*amxout));
	if (amx && !amxout) {
		gemm_amx_end();
		amx = 0;
	}
	if (amx || (jb->avx512 && jb->i8 && jb->m >= wq_expand_i8_m(w)) ||
	    (jb->avx512 && !jb->i8 &&
	     jb->m >= (w->bits == 4 ? WQ_EXPAND_M4 : WQ_EXPAND_M8))) {
		/* whole kernel calls: 3 panels (AVX-512 bf16), 2 (int8, AMX) */
		size_t np = amx ? 2 : jb->i8 ? WQ_I8X_NP : 3;

		xchunk = WQ_XCHUNK / xpanel;
		xchunk = xchunk < np ? np : xchunk / np * np;
		xbuf = aligned_alloc(64, xchunk * xpanel);
		if (jb->i8) {
			xcs = malloc(xchunk * w->ngroups * WQ_NR * sizeof(*xcs));
			if (!xcs) {
				free(xbuf);
				xbuf = NULL;
			}
		}
	}
	/* without the widened chunk, no AMX: the kernels below take all */
	if (amx && !xbuf) {
		gemm_amx_end();
		amx = 0;
	}
	while (amx_split_claim(&sp, jb->next, home, &part, &t)) {
		size_t p0 = (sp.lo[part] + t * per[part]) * WQ_TASK_ALIGN;
		size_t p1 = p0 + per[part] * WQ_TASK_ALIGN, hi;

		hi = sp.lo[part + 1] * WQ_TASK_ALIGN;
		hi = hi < w->npanels ? hi : w->npanels;
		wq_task(jb, tw, p0, p1 < hi ? p1 : hi, xbuf, xcs, xchunk, amx,
			amxout);
	}
	if (amx)
		gemm_amx_end();
	free(amxout);
	free(xbuf);
	free(xcs);
}

static int overlaps(const void *a, size_t an, const void *b, size_t bn)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return an && bn && x < y + bn && y < x + an;
}

#define I8_S8	0	/* the source of gemm_i8_wq()'s A: int8 */
#define I8_U8	1	/* uint8 with zero points */
#define I8_BF16	2	/* bf16, quantized here per row (symmetric) */

static int gemm_i8_wq(unsigned int flags, size_t m, const void *a,
		      size_t lda, int src, const float *rs, const int32_t *zp,
		      const struct amx_wq *w, void *c, size_t ldc,
		      const struct amx_epilogue *ep);

int amx_gemm_bf16_wq(unsigned int flags, size_t m, const amx_bf16 *a,
		     size_t lda, const struct amx_wq *w, void *c, size_t ldc,
		     const struct amx_epilogue *ep)
{
	size_t abytes, cbytes, esz = ep && ep->out == AMX_OUT_BF16 ? 2 : 4;
	const struct gemm_backend *be;
	uint16_t *apad = NULL;
	float *asum = NULL;
	struct gemm_epi epi;
	struct wq_job jb;
	unsigned int simd;
	bool ignored;
	int ret;

	if (flags & AMX_GEMM_QUANTIZE_A)
		return gemm_i8_wq(flags & ~AMX_GEMM_QUANTIZE_A, m, a, lda,
				  I8_BF16, NULL, NULL, w, c, ldc, ep);
	if (flags & ~AMX_GEMM_ACCUMULATE)
		return -EINVAL;
	if (!w || w->magic != WQ_MAGIC)
		return -EINVAL;
	if ((ret = amx__matrix_span(m, w->k, lda, 2, a, &abytes)) ||
	    (ret = amx__matrix_span(m, w->n, ldc, esz, c, &cbytes)))
		return ret;
	if (overlaps(a, abytes, c, cbytes) ||
	    overlaps(w->data, w->bytes, c, cbytes))
		return -EINVAL;
	if (ep && (ep->magic != GEMM_EPI_MAGIC || ep->n != w->n))
		return -EINVAL;
	if (!m)
		return 0;

	memset(&jb, 0, sizeof(jb));
	jb.w = w;
	jb.a = a;
	jb.lda = lda;
	jb.m = m;
	jb.c = c;
	jb.ldc = ldc;
	jb.acc = !!(flags & AMX_GEMM_ACCUMULATE);
	be = gemm_select_backend(GEMM_OP_BF16, &simd);
	jb.avx512 = amx__force_fallback(&ignored, true) != AMX_FORCE_C &&
		    gemm_cpu_avx512bf16();
	/*
	 * AMX from WQ_AMX_M rows, for groups of whole tiles (32 rows of K):
	 * a chunk of B is widened for it in any case
	 */
	jb.amx = be->id == AMX_GEMM_BACKEND_AMX && m >= WQ_AMX_M &&
		 w->group % 32 == 0;
	if (ep) {
		epi = (struct gemm_epi){
			.ep = ep, .acc = jb.acc, .c = c, .ldc = ldc,
			.avx512 = !!(simd & GEMM_SIMD_AVX512),
		};
		jb.epi = &epi;
	}
	if (w->kp != w->k) {	/* K pairs past the row: a zero-padded copy */
		apad = calloc(m, w->kp * 2);
		if (!apad)
			return -ENOMEM;
		for (size_t i = 0; i < m; i++)
			memcpy(apad + i * w->kp, a + i * lda, w->k * 2);
		jb.a = apad;
		jb.lda = w->kp;
	}
	if (w->form != WQ_PLAIN) {
		asum = malloc(m * w->ngroups * sizeof(*asum));
		if (!asum) {
			free(apad);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m; i++)
			for (size_t g = 0; g < w->ngroups; g++) {
				const uint16_t *ar = jb.a + i * jb.lda +
						     g * w->group;
				float s = 0.0f;

				for (size_t kk = 0; kk < w->group; kk++)
					s += bf16f(ar[kk]);
				asum[i * w->ngroups + g] = s;
			}
		jb.asum = asum;
	}
	amx_pool_run(wq_thread, &jb,
		     w->bytes >= 512 * 1024 ||
		     2.0 * m * w->n * w->k >= 4.0 * 1024 * 1024 ?
		     amx_pool_size() : 1);
	free(asum);
	free(apad);
	return 0;
}

/*
 * int8 A: @u8 A is shifted to s8 (a - 128, its zero points with it),
 * rows padded to kp with their zero point (a zero real value); the
 * group sums of A worked out once.
 */
static int gemm_i8_wq(unsigned int flags, size_t m, const void *a,
		      size_t lda, int src, const float *rs, const int32_t *zp,
		      const struct amx_wq *w, void *c, size_t ldc,
		      const struct amx_epilogue *ep)
{
	size_t abytes, cbytes, esz = ep && ep->out == AMX_OUT_BF16 ? 2 : 4;
	int u8 = src == I8_U8;
	const struct gemm_backend *be;
	uint8_t *a8u = NULL;
	int8_t *a8 = NULL;
	int32_t *iasum = NULL, *zp8 = NULL;
	float *qs = NULL;
	struct gemm_epi epi;
	struct wq_job jb;
	unsigned int simd;
	bool ignored;
	int ret, avx512;

	if (flags & ~AMX_GEMM_ACCUMULATE)
		return -EINVAL;
	if (!w || w->magic != WQ_MAGIC)
		return -EINVAL;
	if ((ret = amx__matrix_span(m, w->k, lda, src == I8_BF16 ? 2 : 1, a,
				    &abytes)) ||
	    (ret = amx__matrix_span(m, w->n, ldc, esz, c, &cbytes)))
		return ret;
	if (overlaps(a, abytes, c, cbytes) ||
	    overlaps(w->data, w->bytes, c, cbytes))
		return -EINVAL;
	if (ep && (ep->magic != GEMM_EPI_MAGIC || ep->n != w->n))
		return -EINVAL;
	if (rs && ((ret = amx__matrix_span(1, m, m, 4, rs, &abytes)) ||
		   overlaps(rs, abytes, c, cbytes)))
		return ret ? ret : -EINVAL;
	if (zp && ((ret = amx__matrix_span(1, m, m, 4, zp, &abytes)) ||
		   overlaps(zp, abytes, c, cbytes)))
		return ret ? ret : -EINVAL;
	for (size_t i = 0; rs && i < m; i++)
		if (!(rs[i] > 0.0f && rs[i] <= 3.40282347e38f))
			return -EINVAL;
	for (size_t i = 0; zp && i < m; i++)
		if (zp[i] < 0 || zp[i] > 255)
			return -EINVAL;
	if (!m)
		return 0;

	a8 = malloc(m * w->kp);
	iasum = malloc(m * w->ngroups * sizeof(*iasum));
	zp8 = u8 ? malloc(m * sizeof(*zp8)) : NULL;
	qs = src == I8_BF16 ? malloc(m * sizeof(*qs)) : NULL;
	if (!a8 || !iasum || (u8 && !zp8) || (src == I8_BF16 && !qs)) {
		ret = -ENOMEM;
		goto out;
	}
	avx512 = amx__force_fallback(&ignored, true) != AMX_FORCE_C &&
		 gemm_cpu_avx512vnni();
	/* quantized straight into the kernels' copy: no pass of its own */
	if (src == I8_BF16 &&
	    (ret = amx_quantize_bf16_s8(m, w->k, a, lda, a8, w->kp, qs)))
		goto out;
	if (qs)
		rs = qs;
	for (size_t i = 0; i < m; i++) {
		const uint8_t *s8 = (const uint8_t *)a + i * lda;
		int8_t *dst = a8 + i * w->kp;
		int32_t z = u8 ? (zp ? zp[i] : 0) - 128 : 0;

		for (size_t kk = 0; src != I8_BF16 && kk < w->k; kk++)
			dst[kk] = (int8_t)(u8 ? s8[kk] ^ 0x80 : s8[kk]);
		for (size_t kk = w->k; kk < w->kp; kk++)
			dst[kk] = (int8_t)z;
		if (zp8)
			zp8[i] = z;
	}
	if (avx512)
		wq_group_sums_avx512(a8, m, w->kp, w->group, w->ngroups, iasum);
	else
		for (size_t i = 0; i < m; i++)
			for (size_t g = 0; g < w->ngroups; g++) {
				const int8_t *p = a8 + i * w->kp + g * w->group;
				int32_t sum = 0;

				for (size_t kk = 0; kk < w->group; kk++)
					sum += p[kk];
				iasum[i * w->ngroups + g] = sum;
			}

	memset(&jb, 0, sizeof(jb));
	jb.w = w;
	jb.i8 = 1;
	jb.a8 = a8;
	jb.lda = w->kp;
	jb.m = m;
	jb.c = c;
	jb.ldc = ldc;
	jb.acc = !!(flags & AMX_GEMM_ACCUMULATE);
	jb.iasum = iasum;
	jb.rs = rs;
	jb.zp8 = zp8;
	be = gemm_select_backend(GEMM_OP_U8S8, &simd);
	jb.avx512 = avx512;
	/* AMX (TDPBUSD) from WQ_AMX_M rows, for groups of 32 or 64 rows */
	jb.amx = be->id == AMX_GEMM_BACKEND_AMX && m >= WQ_AMX_M &&
		 wq_amx_i8_kt(w);
	if (jb.amx) {
		/* rows one line more than kp apart: not all in one L1 set */
		jb.ldau = w->kp + 64;
		a8u = malloc(m * jb.ldau);
		if (!a8u) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < m; i++)
			for (size_t x = 0; x < w->kp; x++)
				a8u[i * jb.ldau + x] =
					(uint8_t)a8[i * w->kp + x] ^ 0x80;
		jb.a8u = a8u;
	} else if (jb.avx512 && m >= wq_expand_i8_m(w)) {
		/*
		 * The VNNI prefill kernel's blocks of WQ_I8X_MR rows (or
		 * the rest), each as [kp / 4][rows] quads: one stream
		 */
		a8u = malloc(m * w->kp);
		if (!a8u) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i0 = 0; i0 < m; i0 += WQ_I8X_MR) {
			size_t mr = m - i0 < WQ_I8X_MR ? m - i0 : WQ_I8X_MR;
			uint8_t *blk = a8u + i0 * w->kp;

			for (size_t r = 0; r < mr; r++)
				for (size_t x = 0; x < w->kp; x += 4) {
					uint32_t v;

					memcpy(&v, a8 + (i0 + r) * w->kp + x, 4);
					v ^= 0x80808080u;
					memcpy(blk + (x / 4 * mr + r) * 4, &v, 4);
				}
		}
		jb.a8u = a8u;
		jb.ldau = 0;
	}
	/* the VNNI kernel's order of K for 4-bit B (wq.h); AMX's stays */
	if (jb.avx512 && w->bits == 4)
		wq_perm8(a8, m, w->kp, w->kp);
	if (ep) {
		epi = (struct gemm_epi){
			.ep = ep, .rs = rs, .acc = jb.acc, .c = c, .ldc = ldc,
			.avx512 = !!(simd & GEMM_SIMD_AVX512),
		};
		jb.epi = &epi;
	}
	amx_pool_run(wq_thread, &jb,
		     w->bytes >= 512 * 1024 ||
		     2.0 * m * w->n * w->k >= 4.0 * 1024 * 1024 ?
		     amx_pool_size() : 1);
	ret = 0;
out:
	free(a8);
	free(a8u);
	free(iasum);
	free(zp8);
	free(qs);
	return ret;
}

int amx_gemm_s8_wq(unsigned int flags, size_t m, const int8_t *a,
		   size_t lda, const float *row_scale, const struct amx_wq *w,
		   void *c, size_t ldc, const struct amx_epilogue *ep)
{
	return gemm_i8_wq(flags, m, a, lda, I8_S8, row_scale, NULL, w, c, ldc,
			  ep);
}

int amx_gemm_u8_wq(unsigned int flags, size_t m, const uint8_t *a,
		   size_t lda, const float *row_scale, const int32_t *row_zp,
		   const struct amx_wq *w, void *c, size_t ldc,
		   const struct amx_epilogue *ep)
{
	return gemm_i8_wq(flags, m, a, lda, I8_U8, row_scale, row_zp, w, c, ldc,
			  ep);
}
