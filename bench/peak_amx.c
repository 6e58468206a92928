// SPDX-License-Identifier: MIT
/*
 * Register-only AMX peak: four independent TDPBF16PS / TDPBUSD on tiles that
 * are zeroed once and never loaded or stored in the loop.  Built with
 * -mamx-tile -mamx-bf16 -mamx-int8; call only when amx_status() == 0.
 */
#include <immintrin.h>

#include "bench.h"

struct tilecfg {
	uint8_t palette_id, start_row, reserved[14];
	uint16_t colsb[16];
	uint8_t rows[16];
};

static void config(void)
{
	struct tilecfg cfg = { .palette_id = 1 };

	for (int t = 0; t < 8; t++) {
		cfg.rows[t] = 16;
		cfg.colsb[t] = 64;
	}
	_tile_loadconfig(&cfg);
	_tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
	_tile_zero(4); _tile_zero(5); _tile_zero(6); _tile_zero(7);
}

double bench_peak_amx_bf16(long iters)
{
	config();
	for (long i = 0; i < iters; i++) {
		_tile_dpbf16ps(0, 4, 6);
		_tile_dpbf16ps(1, 4, 7);
		_tile_dpbf16ps(2, 5, 6);
		_tile_dpbf16ps(3, 5, 7);
	}
	_tile_release();
	return (double)iters * 4 * 16 * 16 * 32 * 2;
}

double bench_peak_amx_int8(long iters)
{
	config();
	for (long i = 0; i < iters; i++) {
		_tile_dpbusd(0, 4, 6);
		_tile_dpbusd(1, 4, 7);
		_tile_dpbusd(2, 5, 6);
		_tile_dpbusd(3, 5, 7);
	}
	_tile_release();
	return (double)iters * 4 * 16 * 16 * 64 * 2;
}
