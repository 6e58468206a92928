/* SPDX-License-Identifier: MIT */
/*
 * The GEMM's link-time seam for tests.  Built with AMX_TILE_MODEL defined
 * (the amx_tile_model library target: the library's own sources, never
 * installed), the GEMM sources call amx_model_*() where they would run a
 * tile instruction or ask the foundation for AMX, and a test program
 * links in a C model of the instructions under those names
 * (tests/gemm_amx_emul.c).  In the real library this header is empty.
 */
#ifndef AMX_GEMM_TILE_MODEL_H
#define AMX_GEMM_TILE_MODEL_H

#ifdef AMX_TILE_MODEL
#include <amx.h>

void amx_model_tile_load(int t, const void *base, long stride);
void amx_model_tile_store(int t, void *base, long stride);
void amx_model_tile_zero(int t);
void amx_model_tdpbf16ps(int c, int a, int b);
void amx_model_tdpfp16ps(int c, int a, int b);
void amx_model_tcmmimfp16ps(int c, int a, int b);
void amx_model_tcmmrlfp16ps(int c, int a, int b);
void amx_model_tdpbssd(int c, int a, int b);
void amx_model_tdpbusd(int c, int a, int b);
int amx_model_status(void);
int amx_model_tile_configure(const struct amx_tilecfg *cfg);
void amx_model_tile_release(void);

#undef amx_tile_load
#undef amx_tile_store
#undef amx_tile_zero
#undef amx_tdpbf16ps
#undef amx_tdpfp16ps
#undef amx_tcmmimfp16ps
#undef amx_tcmmrlfp16ps
#undef amx_tdpbssd
#undef amx_tdpbusd
#define amx_tile_load(t, base, stride) \
	amx_model_tile_load(t, base, (long)(stride))
#define amx_tile_store(t, base, stride) \
	amx_model_tile_store(t, base, (long)(stride))
#define amx_tile_zero(t)	amx_model_tile_zero(t)
#define amx_tdpbf16ps(c, a, b)	amx_model_tdpbf16ps(c, a, b)
#define amx_tdpfp16ps(c, a, b)	amx_model_tdpfp16ps(c, a, b)
#define amx_tcmmimfp16ps(c, a, b)	amx_model_tcmmimfp16ps(c, a, b)
#define amx_tcmmrlfp16ps(c, a, b)	amx_model_tcmmrlfp16ps(c, a, b)
#define amx_tdpbssd(c, a, b)	amx_model_tdpbssd(c, a, b)
#define amx_tdpbusd(c, a, b)	amx_model_tdpbusd(c, a, b)
#define amx_status		amx_model_status
#define amx_tile_configure	amx_model_tile_configure
#define amx_tile_release	amx_model_tile_release
#endif

#endif /* AMX_GEMM_TILE_MODEL_H */
