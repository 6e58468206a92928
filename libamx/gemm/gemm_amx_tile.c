// SPDX-License-Identifier: MIT
/*
 * Tile configuration shared by the AMX micro-kernels: tiles 0-3 hold the
 * 2 x 2 C accumulators, 4-5 two A tiles, 6-7 two B tiles; every tile is
 * 16 rows x 64 bytes.  Set once per call per thread, released after.
 * Uses amx.h's tile macros.
 */
#include <string.h>

#include "gemm.h"

/*
 * 0 or -errno.  amx_tile_configure() answers 1 when the live configuration
 * already is ours (the caller loaded the same shapes, or a previous call
 * left them): that is success too, and must not reach the caller.
 */
int gemm_amx_begin(void)
{
	struct amx_tilecfg cfg;
	int ret = amx_tilecfg_init(&cfg, 1);

	for (unsigned int t = 0; !ret && t < 8; t++)
		ret = amx_tilecfg_set(&cfg, t, 16, 64);
	if (!ret)
		ret = amx_tile_configure(&cfg);
	return ret < 0 ? ret : 0;
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
		    void *c, size_t ldc, int acc, size_t pf)
{
	uint32_t t[GEMM_MR_AMX * GEMM_NR] __attribute__((aligned(64)));
	uint32_t *cc = c;
	int half = mr <= 16;

	if (nr == GEMM_NR && (mr == GEMM_MR_AMX || mr == 16)) {
		ukr(kt, a, as, ak, b, c, ldc, acc, pf, half);
		return;
	}
	if (acc)
		for (size_t i = 0; i < mr; i++)
			memcpy(t + i * GEMM_NR, cc + i * ldc, nr * sizeof(*t));
	ukr(kt, a, as, ak, b, t, GEMM_NR, acc, pf, half);
	for (size_t i = 0; i < mr; i++)
		memcpy(cc + i * ldc, t + i * GEMM_NR, nr * sizeof(*t));
}
