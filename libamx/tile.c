// SPDX-License-Identifier: MIT
/*
 * Tile configuration: building, validating and loading the 64-byte
 * LDTILECFG operand, per thread.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

_Static_assert(sizeof(struct amx_tilecfg) == 64, "LDTILECFG operand is 64 bytes");
_Static_assert(offsetof(struct amx_tilecfg, colsb) == 16, "colsb at byte 16");
_Static_assert(offsetof(struct amx_tilecfg, rows) == 48, "rows at byte 48");

/* Palette 1 as the architecture defines it, for machines without AMX. */
static const struct amx_palette palette1_arch = {
	.total_bytes = 8192, .bytes_per_tile = 1024, .bytes_per_row = 64,
	.max_names = 8, .max_rows = 16,
};

static const struct amx_palette *palette1(void)
{
	const struct amx_info *si = amx__static_info();

	if ((si->cpu & AMX_CPU_AMX_TILE) && si->max_palette >= 1)
		return &si->palette1;
	return &palette1_arch;
}

static unsigned int max_palette(void)
{
	const struct amx_info *si = amx__static_info();

	return (si->cpu & AMX_CPU_AMX_TILE) ? si->max_palette : 1;
}

int amx_tilecfg_init(struct amx_tilecfg *cfg, unsigned int palette)
{
	if (!cfg || palette != 1 || palette > max_palette())
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->palette_id = palette;
	return 0;
}

static bool shape_valid(const struct amx_palette *p, unsigned int tile,
			unsigned int rows, unsigned int colsb)
{
	if (!rows != !colsb)
		return false;
	if (tile >= p->max_names || tile >= AMX_TILE_MAX)
		return !rows;
	return rows <= p->max_rows && colsb <= p->bytes_per_row;
}

int amx_tilecfg_set(struct amx_tilecfg *cfg, unsigned int tile,
		    unsigned int rows, unsigned int colsb)
{
	const struct amx_palette *p;

	if (!cfg || cfg->palette_id != 1 || tile >= AMX_TILE_MAX)
		return -EINVAL;
	p = palette1();
	if (tile >= p->max_names || !shape_valid(p, tile, rows, colsb))
		return -EINVAL;
	cfg->rows[tile] = rows;
	cfg->colsb[tile] = colsb;
	return 0;
}

/* What LDTILECFG would refuse with #GP. */
static bool cfg_valid(const struct amx_tilecfg *cfg)
{
	static const uint8_t zero[sizeof(cfg->reserved)];
	const struct amx_palette *p;
	unsigned int t;

	if (memcmp(cfg->reserved, zero, sizeof(zero)))
		return false;
	if (cfg->palette_id == 0) {
		static const struct amx_tilecfg init;

		return !memcmp(cfg, &init, sizeof(init));
	}
	if (cfg->palette_id > max_palette())
		return false;
	p = palette1();
	for (t = 0; t < AMX_TILE_MAX; t++)
		if (!shape_valid(p, t, cfg->rows[t], cfg->colsb[t]))
			return false;
	return true;
}

static void sttilecfg(struct amx_tilecfg *cfg)
{
	__asm__ volatile("sttilecfg %0" : "=m"(*cfg));
}

int amx_tile_read_config(struct amx_tilecfg *cfg)
{
	int ret;

	if (!cfg)
		return -EINVAL;
	ret = amx_status();
	if (ret)
		return ret;
	sttilecfg(cfg);
	return 0;
}

int amx_tile_configure(const struct amx_tilecfg *cfg)
{
	struct amx_tilecfg live;
	int ret;

	if (!cfg)
		return -EINVAL;
	ret = amx_status();
	if (ret)
		return ret;
	if (!cfg_valid(cfg))
		return -EINVAL;
	/*
	 * LDTILECFG zeroes every tile register, so a thread that configures
	 * the same shapes again (every GEMM call does) keeps its data and
	 * saves the instruction when the live configuration already matches.
	 */
	sttilecfg(&live);
	if (!memcmp(&live, cfg, sizeof(live)))
		return 1;
	__asm__ volatile("ldtilecfg %0" : : "m"(*cfg));
	return 0;
}

void amx_tile_release(void)
{
	if (amx_status())
		return;
	__asm__ volatile("tilerelease" ::: "memory");
}
