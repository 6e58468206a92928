// SPDX-License-Identifier: MIT
/* amx_tile_configure() skips an identical LDTILECFG and keeps tile data. */
#include <string.h>

#include "amx_test.h"

static uint8_t in[16 * 64], out[16 * 64];

int main(void)
{
	struct amx_tilecfg cfg, other, live;
	size_t i;
	int ret;

	amx_test_need_amx();
	tap_plan(9);
	ret = amx_request();
	if (!tap_ok(ret == 0, "amx_request() = %d", ret))
		tap_done();

	amx_tilecfg_init(&cfg, 1);
	amx_tilecfg_set(&cfg, 0, 16, 64);
	amx_tilecfg_set(&cfg, 1, 8, 32);
	other = cfg;
	amx_tilecfg_set(&other, 2, 4, 4);

	ret = amx_tile_configure(&cfg);
	tap_ok(ret == 0, "first configure loads (%d)", ret);
	amx_tile_read_config(&live);
	tap_ok(!memcmp(&live, &cfg, sizeof(cfg)), "STTILECFG reads back the configuration");

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	amx_tile_load(0, in, 64);
	ret = amx_tile_configure(&cfg);
	tap_ok(ret == 1, "identical configure is skipped (%d)", ret);
	amx_tile_store(0, out, 64);
	tap_ok(!memcmp(in, out, sizeof(in)), "tile data survived the skipped configure");

	ret = amx_tile_configure(&other);
	amx_tile_store(0, out, 64);
	for (i = 0; i < sizeof(out) && !out[i]; i++)
		;
	tap_ok(ret == 0 && i == sizeof(out), "a different configure loads and zeroes tiles (%d)", ret);

	other.rows[9] = 1;
	other.colsb[9] = 4;
	tap_ok(amx_tile_configure(&other) == -EINVAL, "a tile beyond max_names is refused");

	amx_tile_release();
	amx_tile_read_config(&live);
	memset(&other, 0, sizeof(other));
	tap_ok(!memcmp(&live, &other, sizeof(live)), "after release the configuration is empty");
	ret = amx_tile_configure(&cfg);
	tap_ok(ret == 0, "configure after release loads again (%d)", ret);
	amx_tile_release();
	tap_done();
}
