// SPDX-License-Identifier: MIT
/*
 * Tile configuration shared by the AMX micro-kernels: tiles 0-3 hold the
 * 2 x 2 C accumulators, 4-5 two A tiles, 6-7 two B tiles; every tile is
 * 16 rows x 64 bytes.  Set once per call per thread, released after.
 * Uses amx.h's tile macros.
 */
#include <pthread.h>
#include <string.h>

#include "gemm_amx_kernel.h"

/*
 * Configure the tiles for an mr x nr block of C (1 <= mr, nr <= 32): C
 * tile rows and 4-byte columns split 16 + rest, A tiles as many rows as
 * their C tiles (64 bytes: a K step), B tiles as many columns (16 K
 * groups); tiles of an empty half stay unconfigured.  32 x 32 is the
 * kernels' full configuration, 8 tiles of 16 x 64 bytes.
 *
 * gemm_amx_cfg() builds the configuration (0 or -errno), gemm_amx_load()
 * loads one: 0 or -errno.  amx_tile_configure() answers 1 when the live
 * configuration already is this one (the caller loaded the same shapes,
 * or a previous call left them): that is success too, and must not reach
 * the caller.
 */
static int gemm_amx_cfg(size_t mr, size_t nr, struct amx_tilecfg *cfg)
{
	unsigned int r[2] = { mr < 16 ? mr : 16, mr > 16 ? mr - 16 : 0 };
	unsigned int cb[2] = { 4 * (nr < 16 ? nr : 16),
			       nr > 16 ? 4 * (nr - 16) : 0 };
	int ret = amx_tilecfg_init(cfg, 1);

	for (unsigned int t = 0; !ret && t < 4; t++)
		if (r[t / 2] && cb[t % 2])
			ret = amx_tilecfg_set(cfg, t, r[t / 2], cb[t % 2]);
	for (unsigned int i = 0; !ret && i < 2; i++) {
		if (r[i])
			ret = amx_tilecfg_set(cfg, 4 + i, r[i], 64);
		if (!ret && cb[i])
			ret = amx_tilecfg_set(cfg, 6 + i, 16, cb[i]);
	}
	return ret;
}

static int gemm_amx_load(const struct amx_tilecfg *cfg)
{
	int ret = amx_tile_configure(cfg);

	return ret < 0 ? ret : 0;
}

static int gemm_amx_shape(size_t mr, size_t nr)
{
	struct amx_tilecfg cfg;
	int ret = gemm_amx_cfg(mr, nr, &cfg);

	return ret ? ret : gemm_amx_load(&cfg);
}

/*
 * The full configuration is built once per process: building it took a
 * quarter of the overhead of a 64^3 u8s8 call on the AMX Xeon (twelve
 * amx_tilecfg_set() calls, each checking the palette).
 */
static struct amx_tilecfg full_cfg;
static int full_ret;
static pthread_once_t full_once = PTHREAD_ONCE_INIT;

static void full_build(void)
{
	full_ret = gemm_amx_cfg(GEMM_MR_AMX, GEMM_NR, &full_cfg);
}

int gemm_amx_begin(void)
{
	pthread_once(&full_once, full_build);
	return full_ret ? full_ret : gemm_amx_load(&full_cfg);
}

void gemm_amx_end(void)
{
	amx_tile_release();
}

/*
 * Touch tile data once so the kernel's first-use XFD trap (and the buffer
 * allocation behind it) is taken here, at pool start, not inside a GEMM.
 */
void gemm_amx_warmup(void)
{
	if (amx_status() || gemm_amx_begin())
		return;
	amx_tile_zero(0);
	gemm_amx_end();
}

void gemm_amx_block(gemm_amx_ukr ukr, size_t mr, size_t nr, size_t kt,
		    const void *a, size_t as, size_t ak, const void *b,
		    void *c, size_t ldc, int acc, const struct gemm_blocks *bs)
{
	uint32_t t[GEMM_MR_AMX * GEMM_NR] __attribute__((aligned(64)));
	uint32_t *cc = c;
	int half = mr <= 16;

	if (nr == GEMM_NR && (mr == GEMM_MR_AMX || mr == 16)) {
		ukr(kt, a, as, ak, b, c, ldc, acc, bs->pf, (int)bs->cio, half,
		    0);
		return;
	}
	/*
	 * The configuration cannot fail where gemm_amx_begin() succeeded
	 * (same palette, smaller shapes); if it did, the copy still works.
	 */
	if (bs->edge == GEMM_EDGE_TILES && !gemm_amx_shape(mr, nr)) {
		ukr(kt, a, as, ak, b, c, ldc, acc, bs->pf, (int)bs->cio, half,
		    nr <= 16);
		gemm_amx_begin();
		return;
	}
	if (acc)
		for (size_t i = 0; i < mr; i++)
			memcpy(t + i * GEMM_NR, cc + i * ldc, nr * sizeof(*t));
	ukr(kt, a, as, ak, b, t, GEMM_NR, acc, bs->pf, (int)bs->cio, half,
	    0);
	for (size_t i = 0; i < mr; i++)
		memcpy(cc + i * ldc, t + i * GEMM_NR, nr * sizeof(*t));
}
