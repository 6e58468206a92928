// SPDX-License-Identifier: MIT
/*
 * AMX kernel of the weight-only quantized GEMM with bf16 A (wq.h): 16 or
 * 32 rows of A times 1 or 2 panels of B widened to bf16 K pairs by
 * wq_expand_avx512(), all of K.
 *
 * A widened panel holds, for every 32 rows of K, 16 rows of 64 bytes
 * (16 columns x a bf16 pair): exactly one B tile, its rows 64 bytes
 * apart.  A's tile is 16 of its rows x those 32 K values, read in place.
 * A group (32, 64 or 128 rows of K, or all of them) is multiplied into
 * the C tiles from zero (TDPBF16PS), which are then stored and added to
 * the fp32 accumulators times the group's scales (and its offsets times
 * A's group sums), as the AVX-512 kernel does per group: tiles 0-3 are C
 * (2 x 2 of 16 x 16), 4-5 A, 6-7 B, as gemm_amx_begin() configures them.
 *
 * Through tile_model.h the tile instructions become calls of a C model
 * in the amx_tile_model build (tests/gemm_amx_emul.c checks this kernel
 * there).
 */
#include <string.h>

#include "wq.h"
#include "tile_model.h"

/* the C tiles in use: 0 always, 1 with a second panel, 2-3 with 32 rows */
static void c_zero(int two, int wide)
{
	amx_tile_zero(0);
	if (wide)
		amx_tile_zero(1);
	if (two)
		amx_tile_zero(2);
	if (two && wide)
		amx_tile_zero(3);
}

/* ...stored to @tmp, 32 elements of 4 bytes a row */
static void c_store(void *tmp, int two, int wide)
{
	char *t = tmp;

	amx_tile_store(0, t, 128);
	if (wide)
		amx_tile_store(1, t + 64, 128);
	if (two)
		amx_tile_store(2, t + 16 * 128, 128);
	if (two && wide)
		amx_tile_store(3, t + 16 * 128 + 64, 128);
}

/*
 * One K step into the C tiles in use: A's 16 rows (32 with @two) at @a,
 * @as bytes apart, times B's tile at @b (and the next panel's, @xpanel
 * bytes on, with @wide); TDPBUSD with @i8, else TDPBF16PS
 */
static void k_step(const void *a, size_t as, const uint8_t *b,
		   size_t xpanel, int two, int wide, int i8)
{
	const char *pa = a;

	amx_tile_load(4, pa, as);
	if (two)
		amx_tile_load(5, pa + 16 * as, as);
	amx_tile_load(6, b, 64);
	if (wide)
		amx_tile_load(7, b + xpanel, 64);
	if (i8) {
		amx_tdpbusd(0, 4, 6);
		if (wide)
			amx_tdpbusd(1, 4, 7);
		if (two)
			amx_tdpbusd(2, 5, 6);
		if (two && wide)
			amx_tdpbusd(3, 5, 7);
		return;
	}
	amx_tdpbf16ps(0, 4, 6);
	if (wide)
		amx_tdpbf16ps(1, 4, 7);
	if (two)
		amx_tdpbf16ps(2, 5, 6);
	if (two && wide)
		amx_tdpbf16ps(3, 5, 7);
}

void wq_amx_kernel(const struct amx_wq *w, size_t mr, size_t np,
		   const uint16_t *a, size_t lda, const float *asum,
		   const uint8_t *panel, const uint8_t *xd, size_t xpanel,
		   int avx512, float *out)
{
	float tmp[32 * 32] __attribute__((aligned(64)));
	size_t subs = w->group / 32, steps = w->group / 4;
	int two = mr > 16, wide = np > 1;

	for (size_t r = 0; r < mr; r++)
		memset(out + r * WQ_NP * WQ_NR, 0, np * WQ_NR * sizeof(*out));
	for (size_t g = 0; g < w->ngroups; g++) {
		c_zero(two, wide);
		for (size_t s = 0; s < subs; s++) {
			size_t kb = g * w->group + 32 * s;
			const uint8_t *b = xd + (g * steps + 8 * s) * 128;

			k_step(a + kb, lda * 2, b, xpanel, two, wide, 0);
		}
		c_store(tmp, two, wide);
		for (size_t p = 0; p < np; p++)
			wq_group_add(w, wq_xform(w),
				     panel + p * w->pbytes + g * w->gbytes, mr,
				     tmp + 16 * p, 32, asum ? asum + g : NULL,
				     w->ngroups, out + 16 * p, WQ_NP * WQ_NR,
				     avx512);
	}
}

size_t wq_amx_i8_kt(const struct amx_wq *w)
{
	if (w->group == 32)
		return 32;
	return w->group % 64 ? 0 : 64;
}

int wq_amx_i8_config(const struct amx_wq *w)
{
	struct amx_tilecfg cfg;
	unsigned int kt = (unsigned int)wq_amx_i8_kt(w);
	int ret = amx_tilecfg_init(&cfg, 1);

	for (unsigned int t = 0; !ret && t < 4; t++)
		ret = amx_tilecfg_set(&cfg, t, 16, 64);
	for (unsigned int t = 4; !ret && t < 6; t++)
		ret = amx_tilecfg_set(&cfg, t, 16, kt);
	for (unsigned int t = 6; !ret && t < 8; t++)
		ret = amx_tilecfg_set(&cfg, t, kt / 4, 64);
	if (!ret)
		ret = amx_tile_configure(&cfg);
	return ret < 0 ? ret : 0;
}

/*
 * TDPBUSD multiplies A's unsigned bytes (a + 128) by B's signed ones
 * (w8 = u - 8, or q): the C tiles hold sum (a + 128) w8, and the group's
 * column sums cs = sum w8 take the 128 back out, exactly:
 * D = sum a w8.  Then, as the real weights are s w8 (plain), s (w8 + 8
 * - z) (zero points) or s w8 + 8 s + m (mins):
 *
 *   acc += s * D  (+ s (8 - z) * asum,  or (8 s + m) * asum)
 */
void wq_amx_i8_kernel(const struct amx_wq *w, size_t mr, size_t np,
		      const uint8_t *a, size_t lda, const int32_t *asum,
		      const uint8_t *panel, const uint8_t *xd, size_t xpanel,
		      const int32_t *cs, int avx512, float *out)
{
	int32_t tmp[32 * 32] __attribute__((aligned(64)));
	float fas[32];
	size_t kt = wq_amx_i8_kt(w), subs = w->group / kt;
	size_t vo = WQ_NR * (w->f16 ? 2 : 4);
	int two = mr > 16, wide = np > 1;

	(void)avx512;
	for (size_t r = 0; r < mr; r++)
		memset(out + r * WQ_NP * WQ_NR, 0, np * WQ_NR * sizeof(*out));
	for (size_t g = 0; g < w->ngroups; g++) {
		c_zero(two, wide);
		for (size_t s = 0; s < subs; s++) {
			size_t kb = g * w->group + kt * s;
			const uint8_t *b = xd + kb / 4 * 64;

			k_step(a + kb, lda, b, xpanel, two, wide, 1);
		}
		c_store(tmp, two, wide);
		for (size_t r = 0; r < mr; r++)
			fas[r] = (float)asum[r * w->ngroups + g];
		for (size_t p = 0; p < np; p++) {
			const uint8_t *h = panel + p * w->pbytes + g * w->gbytes;
			const int32_t *c = cs + (p * w->ngroups + g) * WQ_NR;

			float sc[WQ_NR], v[WQ_NR];

			for (size_t x = 0; x < WQ_NR; x++) {
				sc[x] = wq_hdr(w, h, x);
				v[x] = w->form == WQ_ZP ?
				       sc[x] * (8.0f - wq_hdr(w, h + vo, x)) :
				       w->form == WQ_MIN ?
				       8.0f * sc[x] + wq_hdr(w, h + vo, x) : 0.0f;
			}
			/* D, exact, then the group's scale and offset */
			for (size_t r = 0; r < mr; r++) {
				const int32_t *t = tmp + r * 32 + 16 * p;
				float *o = out + r * WQ_NP * WQ_NR + 16 * p;

				for (size_t x = 0; x < WQ_NR; x++) {
					float dd = (float)(int32_t)((uint32_t)t[x] -
								    128u * (uint32_t)c[x]);

					o[x] += sc[x] * dd;
					if (w->form != WQ_PLAIN)
						o[x] += v[x] * fas[r];
				}
			}
		}
	}
}
