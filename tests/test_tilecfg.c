// SPDX-License-Identifier: MIT
/* Building tile configurations: layout and validation (no AMX needed). */
#include <stddef.h>
#include <string.h>

#include "amx_test.h"

int main(void)
{
	struct amx_tilecfg cfg, copy;
	int ret;

	tap_plan(12);
	tap_ok(sizeof(cfg) == 64 && offsetof(struct amx_tilecfg, colsb) == 16 &&
	       offsetof(struct amx_tilecfg, rows) == 48 && _Alignof(struct amx_tilecfg) == 64,
	       "struct amx_tilecfg is the 64-byte LDTILECFG layout");

	memset(&cfg, 0xff, sizeof(cfg));
	tap_ok(amx_tilecfg_init(&cfg, 1) == 0 && cfg.palette_id == 1 && cfg.start_row == 0 &&
	       cfg.rows[7] == 0 && cfg.colsb[15] == 0, "init clears and sets palette 1");
	tap_ok(amx_tilecfg_init(&cfg, 0) == -EINVAL && amx_tilecfg_init(&cfg, 2) == -EINVAL &&
	       amx_tilecfg_init(NULL, 1) == -EINVAL, "palettes other than 1 are refused");

	amx_tilecfg_init(&cfg, 1);
	tap_ok(amx_tilecfg_set(&cfg, 0, 16, 64) == 0 && amx_tilecfg_set(&cfg, 7, 1, 4) == 0 &&
	       cfg.rows[0] == 16 && cfg.colsb[0] == 64 && cfg.rows[7] == 1 && cfg.colsb[7] == 4,
	       "set stores rows and colsb");
	copy = cfg;
	tap_ok(amx_tilecfg_set(&cfg, 8, 16, 64) == -EINVAL, "tile 8 is beyond palette 1");
	tap_ok(amx_tilecfg_set(&cfg, 1, 17, 64) == -EINVAL, "17 rows refused");
	tap_ok(amx_tilecfg_set(&cfg, 1, 16, 65) == -EINVAL, "65 bytes per row refused");
	tap_ok(amx_tilecfg_set(&cfg, 1, 0, 4) == -EINVAL && amx_tilecfg_set(&cfg, 1, 4, 0) == -EINVAL,
	       "rows and colsb must be both zero or both non-zero");
	tap_ok(!memcmp(&cfg, &copy, sizeof(cfg)), "refused calls leave the config unchanged");
	tap_ok(amx_tilecfg_set(&cfg, 0, 0, 0) == 0 && cfg.rows[0] == 0,
	       "0 x 0 unconfigures a tile");

	ret = amx_tile_configure(NULL);
	tap_ok(ret == -EINVAL, "configure(NULL) = -EINVAL");
	ret = amx_tile_configure(&cfg);
	if (amx_status() == 0) {
		cfg.reserved[3] = 1;
		tap_ok(amx_tile_configure(&cfg) == -EINVAL,
		       "a non-zero reserved byte is refused before LDTILECFG");
		amx_tile_release();
	} else {
		tap_ok(ret == amx_status(), "without AMX permission configure returns %d (%s)",
		       ret, amx_strerror(ret));
	}
	tap_done();
}
