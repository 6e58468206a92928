// SPDX-License-Identifier: MIT
/*
 * The AMX code path on any x86-64: this program links the amx_tile_model
 * library (the library's own sources built with AMX_TILE_MODEL, see
 * libamx/gemm/tile_model.h) and supplies, under the seam's amx_model_*
 * names, the tests' C model of TILELOADD, TILESTORED, TILEZERO,
 * TDPBF16PS, TDPFP16PS, TCMMRLFP16PS, TCMMIMFP16PS, TDPBSSD and TDPBUSD
 * (amx_model.h, the one tests/emu/amx_diff.c
 * holds silicon to; here per thread), with amx_status() reporting AMX as
 * usable.  The model
 * checks what the hardware would fault on (no configuration, shape
 * mismatches between tiles); out-of-bounds tile loads and stores show up
 * under the sanitizer build.  Then the shape grid runs on the AMX backend:
 * int8 exact, bf16 within the documented bound.
 *
 * This checks the AMX kernels' data layout and loops, not the silicon;
 * gemm_amx runs the real instructions where AMX exists (QEMU guest).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amx.h>

#include "amx_model.h"

/* ---- tile model: the tests' one C model (amx_model.h) ------------ */

struct emu_tiles {
	struct tmodel m;
	/*
	 * The C schedule seen: a C tile (0-3) stored, or A tile 4 loaded (a
	 * K step begun), since the last of the other (see emu_c_moves).
	 */
	int c_stored, a_loaded;
};

static __thread struct emu_tiles emu;
static unsigned long emu_ops;
/*
 * C tiles moved inside a K step (cio = interleave): loads of a C tile
 * after the step's A tile, dot products after a C tile's store.  The
 * block schedule moves C only between K steps: both stay 0.
 */
static unsigned long emu_c_moves;

static void emu_fail(const char *what, int t)
{
	fprintf(stderr, "# tile model: %s (tile %d)\n", what, t);
	printf("not ok - tile model fault: %s\n", what);
	abort();
}

/* what the hardware would fault on (#UD) */
static void emu_check(int t)
{
	if (!emu.m.cfg.palette)
		emu_fail("tile instruction without LDTILECFG", t);
	if (!tmodel_tile_ok(&emu.m, t))
		emu_fail("unconfigured tile", t);
}

static void emu_check_ldst(int t)
{
	emu_check(t);
	if (!tmodel_ldst_ok(&emu.m, t))
		emu_fail("tile load or store with colsb not a multiple of 4", t);
}

static void emu_loadd(int t, const void *base, long stride)
{
	emu_check_ldst(t);
	if (t < 4 && emu.a_loaded)
		__atomic_add_fetch(&emu_c_moves, 1, __ATOMIC_RELAXED);
	if (t == 4) {
		emu.a_loaded = 1;
		emu.c_stored = 0;
	}
	tmodel_loadd(&emu.m, t, base, stride);
}

static void emu_stored(int t, void *base, long stride)
{
	emu_check_ldst(t);
	if (t < 4) {
		emu.c_stored = 1;
		emu.a_loaded = 0;
	}
	tmodel_stored(&emu.m, t, base, stride);
}

static void emu_zero(int t)
{
	emu_check(t);
	tmodel_zero(&emu.m, t);
}

/* TDP* @op, after the checks the hardware makes (#UD otherwise) */
static void emu_tdp(enum tmodel_op op, int c, int a, int b)
{
	emu_check(c);
	emu_check(a);
	emu_check(b);
	if (c == a || c == b || a == b)
		emu_fail("TDP operands not distinct", c);
	if (!tmodel_tdp_ok(&emu.m, c, a, b))
		emu_fail("TDP shape mismatch", c);
	if (emu.c_stored)
		__atomic_add_fetch(&emu_c_moves, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&emu_ops, 1, __ATOMIC_RELAXED);
	tmodel_tdp(&emu.m, op, c, a, b);
}

/*
 * The library's link-time seam (libamx/gemm/tile_model.h): the GEMM of the
 * amx_tile_model library calls these where the real one runs a tile
 * instruction or asks the foundation whether AMX is usable.
 */
void amx_model_tile_load(int t, const void *base, long stride)
{
	emu_loadd(t, base, stride);
}

void amx_model_tile_store(int t, void *base, long stride)
{
	emu_stored(t, base, stride);
}

void amx_model_tile_zero(int t)
{
	emu_zero(t);
}

void amx_model_tdpbf16ps(int c, int a, int b)
{
	emu_tdp(TMODEL_BF16, c, a, b);
}

void amx_model_tdpfp16ps(int c, int a, int b)
{
	emu_tdp(TMODEL_FP16, c, a, b);
}

/* AMX-COMPLEX's two, counted: amx_gemm_cf16() must reach them */
static unsigned long emu_cmm;

void amx_model_tcmmimfp16ps(int c, int a, int b)
{
	__atomic_add_fetch(&emu_cmm, 1, __ATOMIC_RELAXED);
	emu_tdp(TMODEL_CMMIM, c, a, b);
}

void amx_model_tcmmrlfp16ps(int c, int a, int b)
{
	__atomic_add_fetch(&emu_cmm, 1, __ATOMIC_RELAXED);
	emu_tdp(TMODEL_CMMRL, c, a, b);
}

void amx_model_tdpbssd(int c, int a, int b)
{
	emu_tdp(TMODEL_SSD, c, a, b);
}

void amx_model_tdpbusd(int c, int a, int b)
{
	emu_tdp(TMODEL_USD, c, a, b);
}

int amx_model_status(void)
{
	return 0;
}

/* configurations loaded, and those with a tile smaller than 16 x 64 */
static unsigned long emu_cfgs, emu_partial_cfgs;

int amx_model_tile_configure(const struct amx_tilecfg *cfg)
{
	int partial = 0;

	if (cfg->palette_id != 1)
		return -EINVAL;
	for (int t = 0; t < 8; t++) {
		if (cfg->rows[t] > 16 || cfg->colsb[t] > 64 ||
		    !cfg->rows[t] != !cfg->colsb[t])
			return -EINVAL;
		partial |= cfg->rows[t] != 16 || cfg->colsb[t] != 64;
	}
	memset(&emu, 0, sizeof(emu));
	tmodel_ldtilecfg(&emu.m, cfg);	/* the same 64-byte image */
	__atomic_add_fetch(&emu_cfgs, 1, __ATOMIC_RELAXED);
	if (partial)
		__atomic_add_fetch(&emu_partial_cfgs, 1, __ATOMIC_RELAXED);
	return 0;
}

void amx_model_tile_release(void)
{
	memset(&emu, 0, sizeof(emu));
}

#include "gemm_grid.h"
#include "gemm_cf16_b2.h"

/*
 * amx_gemm_bf16_wq() and amx_gemm_u8_wq() from M = 32 on (modelled)
 * AMX: blocks of 32 and 16 rows on the tiles (TDPBF16PS, TDPBUSD), the
 * rest on AVX-512 (or C), every kind of B, 1 and 2 threads, against an
 * fp64 product of A (bf16, or the u8 rows' real values (a - zp)) with
 * the dequantized weights (exact here: fp16-exact scales times small
 * integers): within 2^-22 (k + 32) sum |a| |w| (u8: |a| + zp + 128);
 * the tile instructions counted.
 */
static void t_wq(void)
{
	static const struct { int type, zp; uint32_t group; size_t m, n, k; }
	cs[] = {
		{ AMX_WQ_S4, 0, 32, 32, 32, 64 },
		{ AMX_WQ_U4, 1, 64, 45, 47, 128 },
		{ AMX_WQ_S8, 0, 128, 70, 33, 256 },
		{ AMX_WQ_U4, 0, 0, 48, 16, 128 },
		{ AMX_WQ_U4, 1, 32, 100, 80, 96 },
	};

	for (size_t x = 0; x < sizeof(cs) / sizeof(cs[0]); x++) {
		size_t m = cs[x].m, n = cs[x].n, k = cs[x].k;
		size_t ng = cs[x].group ? k / cs[x].group : 1;
		int8_t *q = malloc(k * n);
		float *sc = malloc(ng * n * 4), *b = malloc(k * n * 4);
		float *c = malloc(m * n * 4), *c2 = malloc(m * n * 4);
		uint8_t *zp = malloc(ng * n);
		amx_bf16 *a = malloc(m * k * 2);
		struct amx_wq_desc d = { .type = (uint32_t)cs[x].type,
					 .group = cs[x].group, .k = k, .n = n,
					 .q = q, .ldq = n, .scales = sc,
					 .zp = cs[x].zp ? zp : NULL };
		struct amx_wq *w = NULL;
		unsigned long ops = emu_ops;
		int bad = 0;
		uint64_t r = 0x1234567ull + x;

		for (size_t i = 0; i < k * n; i++) {
			r = r * 6364136223846793005ull + 1442695040888963407ull;
			q[i] = (int8_t)(cs[x].type == AMX_WQ_S8 ? (int)(r >> 56) - 128 :
					cs[x].type == AMX_WQ_S4 ? (int)(r >> 60) - 8 :
					(int)(r >> 60));
		}
		for (size_t i = 0; i < ng * n; i++) {
			sc[i] = (float)(1 + i % 13) / 64.0f;
			zp[i] = (uint8_t)(i % 16);
		}
		for (size_t i = 0; i < m * k; i++)
			a[i] = amx_fp32_to_bf16((float)((int)(i * 37 % 17) - 8) / 8.0f);
		bad += amx_wq_create(&w, &d) != 0;
		bad += !bad && amx_wq_dequantize(w, b, n) != 0;
		for (unsigned int th = 1; !bad && th <= 2; th++) {
			amx_set_num_threads(th);
			memset(c, 0, m * n * 4);
			bad += amx_gemm_bf16_wq(0, m, a, k, w, c, n, NULL) != 0;
			for (size_t i = 0; i < m; i++)
				for (size_t j = 0; j < n; j++) {
					double ref = 0, e = 0;

					for (size_t kk = 0; kk < k; kk++) {
						double av = amx_bf16_to_fp32(a[i * k + kk]);

						ref += av * b[kk * n + j];
						e += fabs(av * b[kk * n + j]);
					}
					bad += !(fabs(c[i * n + j] - ref) <=
						 ldexp((double)k + 32, -22) * e);
				}
			if (th == 1)
				memcpy(c2, c, m * n * 4);
			else
				bad += !!memcmp(c, c2, m * n * 4);
		}
		amx_set_num_threads(1);
		tap_ok(!bad && emu_ops > ops,
		       "amx-model wq type %d%s group %u, %zu x %zu x %zu: within "
		       "bound, 2 threads the same bits, %lu tile products",
		       cs[x].type, cs[x].zp ? "+zp" : "", cs[x].group, m, n, k,
		       emu_ops - ops);
		/* u8 A, zero points 0..255 */
		{
			uint8_t *a8 = malloc(m * k);
			int32_t *za = malloc(m * 4);

			ops = emu_ops;
			for (size_t i = 0; i < m * k; i++)
				a8[i] = (uint8_t)(i * 131 % 251);
			for (size_t i = 0; i < m; i++)
				za[i] = (int32_t)(i * 53 % 256);
			bad = 0;
			for (unsigned int th = 1; th <= 2; th++) {
				amx_set_num_threads(th);
				bad += amx_gemm_u8_wq(0, m, a8, k, NULL, za, w, c, n,
						      NULL) != 0;
				for (size_t i = 0; i < m; i++)
					for (size_t j = 0; j < n; j++) {
						double ref = 0, e = 0;

						for (size_t kk = 0; kk < k; kk++) {
							double av = (double)a8[i * k + kk] -
								    za[i];

							ref += av * b[kk * n + j];
							e += (fabs(av) + za[i] + 128) *
							     fabs(b[kk * n + j]);
						}
						bad += !(fabs(c[i * n + j] - ref) <=
							 ldexp((double)k + 32, -22) * e);
					}
				if (th == 1)
					memcpy(c2, c, m * n * 4);
				else
					bad += !!memcmp(c, c2, m * n * 4);
			}
			amx_set_num_threads(1);
			tap_ok(!bad && emu_ops > ops,
			       "amx-model wq u8 A, type %d%s group %u, %zu x %zu x "
			       "%zu: within bound, 2 threads the same bits, %lu "
			       "tile products", cs[x].type, cs[x].zp ? "+zp" : "",
			       cs[x].group, m, n, k, emu_ops - ops);
			free(a8);
			free(za);
		}
		amx_wq_free(w);
		free(q); free(sc); free(b); free(c); free(c2); free(zp); free(a);
	}
}

int main(void)
{
	unsigned long moves;

	unsetenv("AMX_FORCE_FALLBACK");
	/* the grids' small shapes stay on the (modelled) AMX kernels */
	setenv("AMX_GEMM_BLOCKS", "amx:*:small=0", 1);
	tap_ok(amx_gemm_backend(AMX_GEMM_BF16) == AMX_GEMM_BACKEND_AMX &&
		 amx_gemm_backend(AMX_GEMM_S8) == AMX_GEMM_BACKEND_AMX &&
		 amx_gemm_backend(AMX_GEMM_F16) == AMX_GEMM_BACKEND_AMX,
		 "model reports AMX (AMX-FP16 too): backend is AMX");
	/* plain B on 1 thread, packed B on 2 (the model is slow) */
	for (unsigned int th = 1; th <= 2; th++) {
		char what[32];

		amx_set_num_threads(th);
		snprintf(what, sizeof(what), "amx-model %u thr", th);
		t_grid(T_BF16, th == 2, what);
		t_grid(T_S8S8, th == 2, what);
		t_grid(T_U8S8, th == 2, what);
		t_grid(T_F16, th == 2, what);
		for (int type = T_BF16; type <= T_F16; type++)
			t_direct_a(type, th == 2, what);
	}
	/* AMX-COMPLEX (modelled) against TDPFP16PS on B2, 1 and 2 threads */
	for (unsigned int th = 1; th <= 2; th++) {
		char what[32];

		amx_set_num_threads(th);
		snprintf(what, sizeof(what), "amx-model %u thr", th);
		cf16_b2_grid(what, 1);
	}
	tap_ok(emu_cmm > 0, "cf16 ran on the TCMM*FP16PS pair: %lu of them",
	       emu_cmm);
	tap_ok(!emu_partial_cfgs, "edges copied by default: no partial tile "
		 "configuration (%lu)", emu_partial_cfgs);
	tap_ok(emu_c_moves > 0, "C moved inside the first and last K step "
		 "by default (cio interleave): %lu C tile moves inside K steps",
		 emu_c_moves);
	/* odd blockings (and the prefetch path) on the AMX kernels */
	amx_set_num_threads(1);
	{
		static const struct amx_gemm_blocking odd[] = {
			{ .kc = 1, .mc = 1, .nc = 1, .prefetch = 1 },
			{ .kc = 100, .mc = 40, .nc = 70, .prefetch = 3 },
			{ .kc = 1, .mc = 1, .nc = 1, .prefetch = 1,
			  .edge = AMX_GEMM_EDGE_TILES },
			{ .kc = 100, .mc = 40, .nc = 70, .prefetch = 3,
			  .edge = AMX_GEMM_EDGE_TILES },
			/* interleaved C over 1, 2, 3 and 4 K steps a block */
			{ .kc = 1, .mc = 1, .nc = 1, .prefetch = 1,
			  .cio = AMX_GEMM_CIO_INTERLEAVE },
			{ .kc = 100, .mc = 40, .nc = 70, .prefetch = 3,
			  .cio = AMX_GEMM_CIO_INTERLEAVE },
			{ .kc = 150, .mc = 64, .nc = 32, .prefetch = 2,
			  .edge = AMX_GEMM_EDGE_TILES,
			  .cio = AMX_GEMM_CIO_INTERLEAVE },
		};
		static const size_t shapes[][3] = {
			{ 1, 1, 1 }, { 17, 33, 65 }, { 70, 40, 300 }, { 33, 100, 129 },
		};

		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			unsigned int bad = 0, cases = 0;
			double worst = 0;

			for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_U8S8; op++)
				amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, op, &odd[i]);
			for (int type = T_BF16; type <= T_U8S8; type++)
				for (size_t s = 0; s < 4; s++)
					for (int v = 0; v < 2; v++, cases++)
						bad += !t_run_case(type, shapes[s][0],
								   shapes[s][1],
								   shapes[s][2], v, v,
								   (int)s & 1, &worst);
			tap_ok(!bad, "amx-model kc %u mc %u nc %u prefetch %u "
				 "edge %s cio %s: %u cases, %u wrong", odd[i].kc,
				 odd[i].mc, odd[i].nc, odd[i].prefetch,
				 odd[i].edge ? "tiles" : "copy",
				 odd[i].cio ? "interleave" : "block", cases, bad);
		}
		for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_U8S8; op++)
			amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, op, NULL);
	}
	/* the default blocking with edges on partial tiles: the grids again */
	moves = emu_c_moves;
	t_grids_blocking("amx-model edge tiles", AMX_GEMM_EDGE_TILES,
			 AMX_GEMM_CIO_BLOCK);
	printf("# %lu partial tile configurations\n", emu_partial_cfgs);
	tap_ok(emu_partial_cfgs > 0, "edge tiles: edge blocks ran on partial "
		 "tile configurations");
	tap_ok(emu_c_moves == moves, "edge tiles, cio block: no C tile move "
		 "inside a K step");
	/* and with C moved inside the first and last K step */
	t_grids_blocking("amx-model cio interleave", AMX_GEMM_EDGE_COPY,
			 AMX_GEMM_CIO_INTERLEAVE);
	printf("# %lu C tile moves inside K steps\n", emu_c_moves - moves);
	tap_ok(emu_c_moves > moves, "cio interleave: C tiles moved inside "
		 "K steps");
	/* a call below small runs no tile instruction where AVX-512 can */
	{
		static amx_bf16 a[16 * 16], b[16 * 16];
		static float c[16 * 16];
		struct amx_gemm_blocking bl;
		unsigned long before[2];
		int avx, ok = 1;

		setenv("AMX_FORCE_FALLBACK", "1", 1);
		avx = amx_gemm_backend(AMX_GEMM_BF16) == AMX_GEMM_BACKEND_AVX512;
		unsetenv("AMX_FORCE_FALLBACK");
		amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &bl);
		for (int i = 0; i < 2; i++) {
			bl.small = i ? 0 : 2 * 16 * 16 * 16 + 1;
			ok &= !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX,
						     AMX_GEMM_OP_BF16, &bl);
			before[i] = emu_cfgs;
			ok &= !amx_gemm_bf16(0, 16, 16, 16, a, 16, b, 16, c, 16);
			before[i] = emu_cfgs - before[i];
		}
		amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, NULL);
		tap_ok(ok && (before[0] == 0) == avx && before[1] > 0,
			 "16^3 bf16: %lu tile configurations below small, %lu "
			 "with small 0 (AVX-512 BF16 %s)", before[0], before[1],
			 avx ? "here: want 0" : "absent: want some");
	}
	t_wq();
	printf("# %lu TDP instructions modelled\n", emu_ops);
	tap_ok(emu_ops > 0, "the AMX micro-kernels ran");
	return tap_finish();
}
