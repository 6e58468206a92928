// SPDX-License-Identifier: MIT
/*
 * A GEMM computes the right result and returns 0 whatever tile state the
 * calling thread left behind: nothing configured, the library's own
 * configuration, the same 8 x 16 x 64 configuration loaded by the caller,
 * a different one, a partly configured palette, or one released again.
 * Every entry point (plain and packed, bf16/s8s8/u8s8), on every backend
 * AMX_FORCE_FALLBACK selects.  After an AMX call the tiles are released
 * (the man pages: tiles are caller-saved, not preserved across a call).
 * Every call here runs on AMX (small = 0), but the last check: with a
 * small above the call's size, it runs on AVX-512 where the CPU has it
 * and leaves the caller's tiles alone.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "amx_test.h"

#define M 37
#define N 45
#define K 70

enum state { S_NONE, S_LIBRARY, S_SAME, S_OTHER, S_PARTIAL, S_RELEASED, S_MAX };

static const char *const state_name[S_MAX] = {
	"no configuration", "the library's own configuration",
	"the caller's identical 8 x 16 x 64 configuration",
	"a different configuration (8 rows x 32 bytes)",
	"a partial palette (tiles 0-1 only)", "configured, then released",
};

static amx_bf16 a16[M * K], b16[K * N];
static uint8_t au8[M * K];
static int8_t as8[M * K], bs8[K * N];
static float ref_f[M * N], c_f[M * N];
static int32_t ref_u8s8[M * N], ref_s8s8[M * N], c_i[M * N];
static struct amx_packed_b *pb16, *pb8;

static void fill(void)
{
	uint64_t s = 0x1234567;
	size_t i, j, p;

	/* small integers: every product and sum is exact in fp32 */
	for (i = 0; i < M * K; i++) {
		int v = (int)(amx_test_rand(&s) % 9) - 4;

		a16[i] = amx_fp32_to_bf16((float)v);
		au8[i] = (uint8_t)(amx_test_rand(&s) & 0xff);
		as8[i] = (int8_t)(amx_test_rand(&s) & 0xff);
	}
	for (i = 0; i < K * N; i++) {
		int v = (int)(amx_test_rand(&s) % 9) - 4;

		b16[i] = amx_fp32_to_bf16((float)v);
		bs8[i] = (int8_t)(amx_test_rand(&s) & 0xff);
	}
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			float f = 0;
			int32_t x = 0, y = 0;

			for (p = 0; p < K; p++) {
				f += amx_bf16_to_fp32(a16[i * K + p]) *
				     amx_bf16_to_fp32(b16[p * N + j]);
				x += au8[i * K + p] * bs8[p * N + j];
				y += as8[i * K + p] * bs8[p * N + j];
			}
			ref_f[i * N + j] = f;
			ref_u8s8[i * N + j] = x;
			ref_s8s8[i * N + j] = y;
		}
}

static int set_state(enum state st)
{
	struct amx_tilecfg cfg;
	unsigned int t;
	int ret;

	amx_tile_release();
	switch (st) {
	case S_NONE:
		return 0;
	case S_LIBRARY:
		/* a GEMM of our own leaves whatever the library leaves */
		return amx_gemm_bf16(0, M, N, K, a16, K, b16, N, c_f, N);
	case S_SAME:
	case S_OTHER:
	case S_PARTIAL:
	case S_RELEASED:
		ret = amx_tilecfg_init(&cfg, 1);
		for (t = 0; !ret && t < 8; t++) {
			if (st == S_PARTIAL && t > 1)
				break;
			ret = amx_tilecfg_set(&cfg, t, st == S_OTHER ? 8 : 16,
					      st == S_OTHER ? 32 : 64);
		}
		if (!ret)
			ret = amx_tile_configure(&cfg);
		if (ret < 0)
			return ret;
		/* put data in the tiles too, as the caller's own code would */
		amx_tile_zero(0);
		if (st == S_RELEASED)
			amx_tile_release();
		return 0;
	default:
		return -EINVAL;
	}
}

static int call(int op)
{
	switch (op) {
	case 0:
		return amx_gemm_bf16(0, M, N, K, a16, K, b16, N, c_f, N);
	case 1:
		return amx_gemm_s8s8(0, M, N, K, as8, K, bs8, N, c_i, N);
	case 2:
		return amx_gemm_u8s8(0, M, N, K, au8, K, bs8, N, c_i, N);
	case 3:
		return amx_gemm_bf16_packed(0, M, a16, K, pb16, c_f, N);
	case 4:
		return amx_gemm_s8s8_packed(0, M, as8, K, pb8, c_i, N);
	default:
		return amx_gemm_u8s8_packed(0, M, au8, K, pb8, c_i, N);
	}
}

static const char *const op_name[] = {
	"bf16", "s8s8", "u8s8", "bf16_packed", "s8s8_packed", "u8s8_packed",
};

static int check(int op)
{
	const int32_t *ref = op % 3 == 1 ? ref_s8s8 : ref_u8s8;

	if (op % 3 == 0)
		return !memcmp(c_f, ref_f, sizeof(c_f));
	return !memcmp(c_i, ref, sizeof(c_i));
}

int main(void)
{
	static const char *const fallback[] = { NULL, "1", "c" };
	struct amx_tilecfg live;
	int ret;

	alarm(50);
	/* these products are small: keep them on AMX (see amx_gemm_get_blocking(3)) */
	setenv("AMX_GEMM_BLOCKS", "amx:*:small=0", 1);
	amx_test_request();
	fill();
	if (amx_packed_b_create(&pb16, AMX_GEMM_BF16, K, N, b16, N) ||
	    amx_packed_b_create(&pb8, AMX_GEMM_S8, K, N, bs8, N))
		tap_bail_out("amx_packed_b_create failed");
	amx_set_num_threads(1);

	tap_plan(3 * 6 * S_MAX + 3);
	for (unsigned int f = 0; f < 3; f++) {
		if (fallback[f])
			setenv("AMX_FORCE_FALLBACK", fallback[f], 1);
		else
			unsetenv("AMX_FORCE_FALLBACK");
		for (int op = 0; op < 6; op++)
			for (int st = 0; st < S_MAX; st++) {
				int sret = set_state(st), released = 1;

				memset(c_f, 0x7f, sizeof(c_f));
				memset(c_i, 0x7f, sizeof(c_i));
				ret = call(op);
				if (!fallback[f]) {
					amx_tile_read_config(&live);
					released = live.palette_id == 0;
				}
				tap_ok(!sret && ret == 0 && check(op) && released,
				       "%s, backend %d (AMX_FORCE_FALLBACK=%s), after %s: ret %d, result %s%s",
				       op_name[op], amx_gemm_backend(op % 3 ? AMX_GEMM_S8 : AMX_GEMM_BF16),
				       fallback[f] ? fallback[f] : "unset",
				       state_name[st], ret,
				       check(op) ? "right" : "WRONG",
				       released ? "" : ", tiles still configured");
			}
	}
	unsetenv("AMX_FORCE_FALLBACK");

	/* the reporter's sequence: two calls in a row after the usual config */
	set_state(S_SAME);
	ret = amx_gemm_bf16(0, M, N, K, a16, K, b16, N, c_f, N);
	tap_ok(ret == 0 && check(0), "first GEMM after the caller's config: %d", ret);
	memset(c_f, 0, sizeof(c_f));
	set_state(S_SAME);
	ret = amx_gemm_bf16(0, M, N, K, a16, K, b16, N, c_f, N);
	tap_ok(ret == 0 && check(0), "second GEMM, same config again: %d", ret);

	/* a call below small: AVX-512 runs it where there is one */
	{
		struct amx_gemm_blocking b;
		int avx, same;

		setenv("AMX_FORCE_FALLBACK", "1", 1);
		avx = amx_gemm_backend(AMX_GEMM_BF16) == AMX_GEMM_BACKEND_AVX512;
		unsetenv("AMX_FORCE_FALLBACK");
		amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &b);
		b.small = 2 * M * N * K + 1;
		ret = amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX,
					    AMX_GEMM_OP_BF16, &b);
		memset(c_f, 0, sizeof(c_f));
		if (!ret)
			ret = set_state(S_SAME);
		if (!ret)
			ret = amx_gemm_bf16(0, M, N, K, a16, K, b16, N, c_f, N);
		amx_tile_read_config(&live);
		same = live.palette_id == 1 && live.colsb[7] == 64;
		tap_ok(ret == 0 && check(0) && same == avx,
		       "bf16 below small (%u flop): result %s, caller's tiles %s "
		       "(want %s: this CPU %s AVX-512 BF16)", b.small,
		       check(0) ? "right" : "WRONG", same ? "kept" : "released",
		       avx ? "kept" : "released", avx ? "has" : "lacks");
		amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16,
				      NULL);
		amx_tile_release();
	}

	amx_packed_b_free(pb16);
	amx_packed_b_free(pb8);
	tap_done();
}
