// SPDX-License-Identifier: MIT
/*
 * Register-only AMX peak: four independent TDPBF16PS / TDPBUSD on tiles that
 * are zeroed once and never loaded or stored in the loop, with amx.h's tile
 * macros; call only when amx_status() == 0.
 */
#include <amx.h>

#include "bench.h"

/*
 * Through amx_tile_configure(): with gcc 12's _tile_loadconfig() builtin
 * the compiler dropped the stores of rows and colsb into the local config
 * (it does not know the builtin reads all 64 bytes) and LDTILECFG raised
 * #GP (found in the QEMU guest with TCG AMX).
 */
static void config(void)
{
	struct amx_tilecfg cfg;

	amx_tilecfg_init(&cfg, 1);
	for (unsigned int t = 0; t < 8; t++)
		amx_tilecfg_set(&cfg, t, 16, 64);
	amx_tile_configure(&cfg);
	amx_tile_zero(0); amx_tile_zero(1); amx_tile_zero(2); amx_tile_zero(3);
	amx_tile_zero(4); amx_tile_zero(5); amx_tile_zero(6); amx_tile_zero(7);
}

double bench_peak_amx_bf16(long iters)
{
	config();
	for (long i = 0; i < iters; i++) {
		amx_tdpbf16ps(0, 4, 6);
		amx_tdpbf16ps(1, 4, 7);
		amx_tdpbf16ps(2, 5, 6);
		amx_tdpbf16ps(3, 5, 7);
	}
	amx_tile_release();
	return (double)iters * 4 * 16 * 16 * 32 * 2;
}

double bench_peak_amx_int8(long iters)
{
	config();
	for (long i = 0; i < iters; i++) {
		amx_tdpbusd(0, 4, 6);
		amx_tdpbusd(1, 4, 7);
		amx_tdpbusd(2, 5, 6);
		amx_tdpbusd(3, 5, 7);
	}
	amx_tile_release();
	return (double)iters * 4 * 16 * 16 * 64 * 2;
}
