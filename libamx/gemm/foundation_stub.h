/* SPDX-License-Identifier: MIT */
/*
 * Temporary stand-in for the foundation API (include/amx.h, libamx/internal.h)
 * until it lands in main. Delete this file and foundation_stub.c after merging.
 */
#ifndef AMX_GEMM_FOUNDATION_STUB_H
#define AMX_GEMM_FOUNDATION_STUB_H

#include <stdint.h>
#include <stddef.h>

#define AMX_EXPORT __attribute__((visibility("default")))

struct amx_tilecfg {
	uint8_t palette_id;
	uint8_t start_row;
	uint8_t reserved[14];
	uint16_t colsb[16];
	uint8_t rows[16];
};

int amx_status(void);
int amx_request(void);
int amx_tilecfg_init(struct amx_tilecfg *cfg, unsigned int palette);
int amx_tilecfg_set(struct amx_tilecfg *cfg, unsigned int tile,
		    unsigned int rows, unsigned int colsb);
int amx_tile_configure(const struct amx_tilecfg *cfg);
void amx_tile_release(void);
uint16_t amx_fp32_to_bf16(float f);
float amx_bf16_to_fp32(uint16_t h);
void amx_fp32_to_bf16_array(uint16_t *dst, const float *src, size_t n);
void amx_bf16_to_fp32_array(float *dst, const uint16_t *src, size_t n);

#endif
