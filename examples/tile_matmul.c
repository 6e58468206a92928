// SPDX-License-Identifier: MIT
/*
 * The tile matmul example: multiply one int8 and one bf16 tile pair on
 * AMX and check both against a scalar reference.
 *
 *   int8: C[16x16] (s32) = A[16x64] (s8) . B[64x16] (s8)   TDPBSSD
 *   bf16: C[16x16] (f32) = A[16x32] (bf16) . B[32x16] (bf16) TDPBF16PS
 *
 * Exit status: 0 results correct, 1 wrong, 4 AMX unavailable here (the
 * reason is printed).
 */
#include <amx.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int8_t a8[16][64], b8[64][16];
static int32_t c8[16][16], ref8[16][16];
static amx_bf16 a16[16][32], b16[32][16];
static float c16[16][16], ref16[16][16];
static uint8_t packed8[1024], packed16[1024];

static void make_inputs(void)
{
	int i, j;

	for (i = 0; i < 16; i++)
		for (j = 0; j < 64; j++)
			a8[i][j] = (int8_t)((i * 64 + j) * 37 % 255 - 127);
	for (i = 0; i < 64; i++)
		for (j = 0; j < 16; j++)
			b8[i][j] = (int8_t)((i * 16 + j) * 53 % 255 - 127);
	/* Small integers: every product and partial sum is exact in fp32. */
	for (i = 0; i < 16; i++)
		for (j = 0; j < 32; j++)
			a16[i][j] = amx_fp32_to_bf16((float)((i + 2 * j) % 9 - 4));
	for (i = 0; i < 32; i++)
		for (j = 0; j < 16; j++)
			b16[i][j] = amx_fp32_to_bf16((float)((3 * i + j) % 7 - 3) * 0.5f);
}

static void reference(void)
{
	int i, j, k;

	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++) {
			int32_t s = 0;
			float f = 0;

			for (k = 0; k < 64; k++)
				s += a8[i][k] * b8[k][j];
			for (k = 0; k < 32; k++)
				f += amx_bf16_to_fp32(a16[i][k]) * amx_bf16_to_fp32(b16[k][j]);
			ref8[i][j] = s;
			ref16[i][j] = f;
		}
}

static void tile_multiply(void)
{
	struct amx_tilecfg cfg;

	amx_tilecfg_init(&cfg, 1);
	amx_tilecfg_set(&cfg, 0, 16, 64);	/* C */
	amx_tilecfg_set(&cfg, 1, 16, 64);	/* A */
	amx_tilecfg_set(&cfg, 2, 16, 64);	/* B, VNNI */
	amx_tile_configure(&cfg);

	amx_pack_b_i8(packed8, &b8[0][0], 64, 16, 16);
	amx_tile_zero(0);
	amx_tile_load(1, a8, 64);
	amx_tile_load(2, packed8, 64);
	amx_tdpbssd(0, 1, 2);
	amx_tile_store(0, c8, 64);

	amx_pack_b_bf16(packed16, &b16[0][0], 32, 16, 16);
	amx_tile_zero(0);
	amx_tile_load(1, a16, 64);
	amx_tile_load(2, packed16, 64);
	amx_tdpbf16ps(0, 1, 2);
	amx_tile_store(0, c16, 64);

	amx_tile_release();
}

int main(void)
{
	int ret = amx_request(), bad8 = 0, bad16 = 0, i, j;

	/*
	 * Exit 4 (skipped) only when this machine has no AMX to offer
	 * (-EOPNOTSUPP, or -EINVAL from a kernel without the permission
	 * calls); a refusal where AMX exists (-ENOSPC: the signal stack is
	 * too small, -EPERM, -ENOMEM) is an error.
	 */
	if (ret == -EOPNOTSUPP || ret == -EINVAL) {
		printf("tile_matmul: AMX unavailable: %s\n", amx_strerror(ret));
		return 4;
	}
	if (ret) {
		fprintf(stderr, "tile_matmul: amx_request() failed: %s\n",
			amx_strerror(ret));
		return 1;
	}
	make_inputs();
	reference();
	tile_multiply();
	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++) {
			bad8 += c8[i][j] != ref8[i][j];
			bad16 += c16[i][j] != ref16[i][j];
		}
	printf("int8 (TDPBSSD)    16x64 . 64x16: C[0][0..3] = %d %d %d %d (reference %d %d %d %d), %d/256 wrong\n",
	       c8[0][0], c8[0][1], c8[0][2], c8[0][3],
	       ref8[0][0], ref8[0][1], ref8[0][2], ref8[0][3], bad8);
	printf("bf16 (TDPBF16PS)  16x32 . 32x16: C[0][0..3] = %g %g %g %g (reference %g %g %g %g), %d/256 wrong\n",
	       c16[0][0], c16[0][1], c16[0][2], c16[0][3],
	       ref16[0][0], ref16[0][1], ref16[0][2], ref16[0][3], bad16);
	printf("tile_matmul: %s\n", bad8 || bad16 ? "FAILED" : "ok");
	return bad8 || bad16 ? 1 : 0;
}
