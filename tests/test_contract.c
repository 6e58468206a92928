// SPDX-License-Identifier: MIT
/*
 * The documented error contract of every exported function, checked from
 * tables: each call returns the documented value, leaves errno alone and,
 * when it fails, leaves every output (C, *pb, the packed image, a tile
 * configuration) exactly as it was (canary-filled before the call).
 *
 * Matrix functions are described once by the kinds of their arguments and
 * one valid argument vector; the bad inputs are generated from the kinds:
 * NULL pointers, leading dimensions below the width or with a span that
 * cannot exist (1 << 60, which used to crash), pointers whose span leaves
 * the user address space, unknown flags and types, foreign handles, C
 * aliasing an input (with and without an impossible span: the overflow
 * must win), an output of amx_quantize_*() on its input.  The other
 * functions have one table row per bad input.
 */
#include <amx.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

#define M 5
#define N 7
#define K 9
#define CANARY 0xa5
#define ERRNO_MARK 4242
#define ANY_NEG INT_MIN		/* expect: some negative errno */

/* argument kinds */
enum kind {
	K_INT,		/* no generated mutation */
	K_FLAGS,	/* unknown bit -> -EINVAL */
	K_TYPE,		/* enum amx_gemm_type: unknown -> -EINVAL */
	K_DIM,		/* huge -> -EOVERFLOW */
	K_LD,		/* < width -> -EINVAL; 1 << 60 -> -EOVERFLOW */
	K_IN,		/* matrix read: NULL -> -EINVAL; out of user space -> -EOVERFLOW */
	K_OUT,		/* matrix written: as K_IN, and aliasing an input -> -EINVAL */
	K_HANDLE,	/* packed B: NULL or other type -> -EINVAL */
	K_PPB,		/* struct amx_packed_b **: NULL -> -EINVAL */
};

/* symbolic values resolved at call time */
#define TOK		0x7e57000000000000ull
#define T_A		(TOK | 1)	/* the A buffer */
#define T_B		(TOK | 2)	/* the B buffer */
#define T_C		(TOK | 3)	/* the output buffer (canary-filled) */
#define T_PB_BF16	(TOK | 4)	/* a bf16 handle */
#define T_PB_S8		(TOK | 5)	/* an int8 handle */
#define T_PPB		(TOK | 6)	/* &handle (canary-filled) */
#define T_CFG		(TOK | 7)	/* a tile configuration (canary-filled) */
#define T_CFG_OK	(TOK | 8)	/* an initialised configuration (palette 1) */
#define T_PB_F16	(TOK | 9)	/* an fp16 handle */
#define T_C2		(TOK | 10)	/* a second output (in cbuf) */
#define T_C3		(TOK | 11)	/* a third */
#define T_WQ		(TOK | 12)	/* a weight-only quantized B */

enum fn {
	F_GEMM_BF16, F_GEMM_S8S8, F_GEMM_U8S8, F_GEMM_F16, F_GEMM_CF16,
	F_GEMM_BF16_P, F_GEMM_S8S8_P, F_GEMM_U8S8_P, F_GEMM_F16_P,
	F_PB_CREATE, F_PACK_BF16, F_PACK_I8, F_UNPACK_BF16, F_UNPACK_I8,
	F_FP32_TO_BF16_ARR, F_BF16_TO_FP32_ARR, F_FP32_TO_FP16_ARR,
	F_FP16_TO_FP32_ARR,
	F_GET_INFO, F_TILECFG_INIT, F_TILECFG_SET, F_TILE_CONFIGURE,
	F_TILE_READ_CONFIG, F_SET_THREADS, F_GEMM_BACKEND, F_SIGSTACK_UNINSTALL,
	F_QUANT_S8, F_QUANT_U8, F_QUANT_BF16_S8, F_QUANT_BF16_U8,
	F_GEMM_BF16_WQ, F_GEMM_S8_WQ, F_GEMM_U8_WQ,
};

#define MAXARG 10

/* A matrix function: argument kinds, a valid vector, widths of the ld's. */
struct sig {
	enum fn fn;
	const char *name;
	int nargs;
	enum kind kind[MAXARG];
	uint64_t ok[MAXARG];
	int width[MAXARG];	/* K_LD: index of the width argument (-1: from handle) */
	int rows[MAXARG];	/* K_LD: index of the row-count argument */
	size_t esz[MAXARG];	/* K_LD: element size of that matrix */
};

static const struct sig sigs[] = {
#define GEMM_SIG(f, nm, es, ces)					\
	{ f, nm, 10,							\
	  { K_FLAGS, K_DIM, K_DIM, K_DIM, K_IN, K_LD, K_IN, K_LD, K_OUT, K_LD }, \
	  { 0, M, N, K, T_A, K, T_B, N, T_C, N },			\
	  { [5] = 3, [7] = 2, [9] = 2 }, { [5] = 1, [7] = 3, [9] = 1 },	\
	  { [5] = es, [7] = es, [9] = ces } }
	GEMM_SIG(F_GEMM_BF16, "amx_gemm_bf16", 2, 4),
	GEMM_SIG(F_GEMM_S8S8, "amx_gemm_s8s8", 1, 4),
	GEMM_SIG(F_GEMM_U8S8, "amx_gemm_u8s8", 1, 4),
	GEMM_SIG(F_GEMM_F16, "amx_gemm_f16", 2, 4),
	/* complex: ld's count (re, im) pairs */
	GEMM_SIG(F_GEMM_CF16, "amx_gemm_cf16", 4, 8),
#define PACKED_SIG(f, nm, pb, es)					\
	{ f, nm, 7,							\
	  { K_FLAGS, K_DIM, K_IN, K_LD, K_HANDLE, K_OUT, K_LD },	\
	  { 0, M, T_A, K, pb, T_C, N },					\
	  { [3] = -1, [6] = -2 }, { [3] = 1, [6] = 1 },			\
	  { [3] = es, [6] = 4 } }
	PACKED_SIG(F_GEMM_BF16_P, "amx_gemm_bf16_packed", T_PB_BF16, 2),
	PACKED_SIG(F_GEMM_S8S8_P, "amx_gemm_s8s8_packed", T_PB_S8, 1),
	PACKED_SIG(F_GEMM_U8S8_P, "amx_gemm_u8s8_packed", T_PB_S8, 1),
	PACKED_SIG(F_GEMM_F16_P, "amx_gemm_f16_packed", T_PB_F16, 2),
	/* the epilogue argument NULL (its checks: tests/gemm_epilogue.c) */
	{ F_GEMM_BF16_WQ, "amx_gemm_bf16_wq", 8,
	  { K_FLAGS, K_DIM, K_IN, K_LD, K_HANDLE, K_OUT, K_LD, K_INT },
	  { 0, M, T_A, K, T_WQ, T_C, N, 0 },
	  { [3] = -1, [6] = -2 }, { [3] = 1, [6] = 1 }, { [3] = 2, [6] = 4 } },
	/* int8 A: row scales NULL (their checks: tests/test_wq.c) */
	{ F_GEMM_S8_WQ, "amx_gemm_s8_wq", 9,
	  { K_FLAGS, K_DIM, K_IN, K_LD, K_INT, K_HANDLE, K_OUT, K_LD, K_INT },
	  { 0, M, T_A, K, 0, T_WQ, T_C, N, 0 },
	  { [3] = -1, [7] = -2 }, { [3] = 1, [7] = 1 }, { [3] = 1, [7] = 4 } },
	{ F_GEMM_U8_WQ, "amx_gemm_u8_wq", 10,
	  { K_FLAGS, K_DIM, K_IN, K_LD, K_INT, K_INT, K_HANDLE, K_OUT, K_LD,
	    K_INT },
	  { 0, M, T_A, K, 0, 0, T_WQ, T_C, N, 0 },
	  { [3] = -1, [8] = -2 }, { [3] = 1, [8] = 1 }, { [3] = 1, [8] = 4 } },
	{ F_PB_CREATE, "amx_packed_b_create(bf16)", 6,
	  { K_PPB, K_TYPE, K_DIM, K_DIM, K_IN, K_LD },
	  { T_PPB, AMX_GEMM_BF16, K, N, T_B, N },
	  { [5] = 3 }, { [5] = 2 }, { [5] = 2 } },
	{ F_PB_CREATE, "amx_packed_b_create(f16)", 6,
	  { K_PPB, K_TYPE, K_DIM, K_DIM, K_IN, K_LD },
	  { T_PPB, AMX_GEMM_F16, K, N, T_B, N },
	  { [5] = 3 }, { [5] = 2 }, { [5] = 2 } },
	{ F_PB_CREATE, "amx_packed_b_create(s8)", 6,
	  { K_PPB, K_TYPE, K_DIM, K_DIM, K_IN, K_LD },
	  { T_PPB, AMX_GEMM_S8, K, N, T_B, N },
	  { [5] = 3 }, { [5] = 2 }, { [5] = 1 } },
#define PACK_SIG(f, nm, es)						\
	{ f, nm, 5, { K_OUT, K_IN, K_DIM, K_DIM, K_LD },		\
	  { T_C, T_B, K, N, N }, { [4] = 3 }, { [4] = 2 }, { [4] = es } }
	PACK_SIG(F_PACK_BF16, "amx_pack_b_bf16", 2),
	PACK_SIG(F_PACK_I8, "amx_pack_b_i8", 1),
#define UNPACK_SIG(f, nm, es)						\
	{ f, nm, 5, { K_OUT, K_IN, K_DIM, K_DIM, K_LD },		\
	  { T_C, T_B, K, N, N }, { [4] = 3 }, { [4] = 2 }, { [4] = es } }
	UNPACK_SIG(F_UNPACK_BF16, "amx_unpack_b_bf16", 2),
	UNPACK_SIG(F_UNPACK_I8, "amx_unpack_b_i8", 1),
	/* x from A's finite values; q, scales and zero points in C */
#define QUANT_SIG(f, nm, es, nargs)					\
	{ f, nm, nargs,							\
	  { K_DIM, K_DIM, K_IN, K_LD, K_OUT, K_LD, K_OUT, K_OUT },	\
	  { M, K, T_A, K, T_C, K, T_C2, T_C3 },				\
	  { [3] = 1, [5] = 1 }, { [3] = 0, [5] = 0 },			\
	  { [3] = es, [5] = 1 } }
	QUANT_SIG(F_QUANT_S8, "amx_quantize_s8", 4, 7),
	QUANT_SIG(F_QUANT_U8, "amx_quantize_u8", 4, 8),
	QUANT_SIG(F_QUANT_BF16_S8, "amx_quantize_bf16_s8", 2, 7),
	QUANT_SIG(F_QUANT_BF16_U8, "amx_quantize_bf16_u8", 2, 8),
};

/* Calls that are not matrix-shaped: one row per bad input. */
struct row {
	enum fn fn;
	const char *what;
	uint64_t v[4];
	int expect;
};

static const struct row rows[] = {
	{ F_FP32_TO_BF16_ARR, "fp32_to_bf16_array dst NULL", { 0, T_A, 4 }, -EINVAL },
	{ F_FP32_TO_BF16_ARR, "fp32_to_bf16_array src NULL", { T_C, 0, 4 }, -EINVAL },
	{ F_FP32_TO_BF16_ARR, "fp32_to_bf16_array n = 0, NULLs", { 0, 0, 0 }, 0 },
	{ F_BF16_TO_FP32_ARR, "bf16_to_fp32_array dst NULL", { 0, T_A, 4 }, -EINVAL },
	{ F_BF16_TO_FP32_ARR, "bf16_to_fp32_array src NULL", { T_C, 0, 4 }, -EINVAL },
	{ F_FP32_TO_FP16_ARR, "fp32_to_fp16_array dst NULL", { 0, T_A, 40 }, -EINVAL },
	{ F_FP32_TO_FP16_ARR, "fp32_to_fp16_array src NULL", { T_C, 0, 40 }, -EINVAL },
	{ F_FP16_TO_FP32_ARR, "fp16_to_fp32_array dst NULL", { 0, T_A, 40 }, -EINVAL },
	{ F_FP16_TO_FP32_ARR, "fp16_to_fp32_array src NULL", { T_C, 0, 40 }, -EINVAL },
	{ F_FP16_TO_FP32_ARR, "fp16_to_fp32_array n = 0, NULLs", { 0, 0, 0 }, 0 },
	{ F_GET_INFO, "get_info NULL", { 0 }, -EINVAL },
	{ F_TILECFG_INIT, "tilecfg_init NULL", { 0, 1 }, -EINVAL },
	{ F_TILECFG_INIT, "tilecfg_init palette 0", { T_CFG, 0 }, -EINVAL },
	{ F_TILECFG_INIT, "tilecfg_init palette 2", { T_CFG, 2 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set NULL", { 0, 0, 16, 64 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set uninitialised", { T_CFG, 0, 16, 64 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set tile 16", { T_CFG_OK, 16, 16, 64 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set tile 8", { T_CFG_OK, 8, 16, 64 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set rows 17", { T_CFG_OK, 0, 17, 64 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set colsb 65", { T_CFG_OK, 0, 16, 65 }, -EINVAL },
	{ F_TILECFG_SET, "tilecfg_set rows 0 colsb 64", { T_CFG_OK, 0, 0, 64 }, -EINVAL },
	{ F_TILE_CONFIGURE, "tile_configure NULL", { 0 }, -EINVAL },
	{ F_TILE_READ_CONFIG, "tile_read_config NULL", { 0 }, -EINVAL },
	{ F_SET_THREADS, "set_num_threads 257", { 257 }, -EINVAL },
	{ F_SET_THREADS, "set_num_threads UINT_MAX", { UINT_MAX }, -EINVAL },
	{ F_GEMM_BACKEND, "gemm_backend 0", { 0 }, -EINVAL },
	{ F_GEMM_BACKEND, "gemm_backend 4", { 4 }, -EINVAL },
	{ F_GEMM_BACKEND, "gemm_backend -1", { (uint64_t)-1 }, -EINVAL },
	{ F_SIGSTACK_UNINSTALL, "sigaltstack_uninstall not installed", { 0 }, -ENOENT },
};

static uint8_t abuf[4096] __attribute__((aligned(64)));
static uint8_t bbuf[4096] __attribute__((aligned(64)));
static uint8_t cbuf[8192] __attribute__((aligned(64)));
static uint8_t cref[sizeof(cbuf)];
static struct amx_packed_b *pb_bf16, *pb_s8, *pb_f16, *pb_out;
static struct amx_wq *wq;
static struct amx_tilecfg cfg, cfg_ref;

static void *ptr(uint64_t v)
{
	switch (v) {
	case T_A: return abuf;
	case T_B: return bbuf;
	case T_C: return cbuf;
	case T_C2: return cbuf + 4096;
	case T_C3: return cbuf + 6144;
	case T_PB_BF16: return pb_bf16;
	case T_PB_S8: return pb_s8;
	case T_PB_F16: return pb_f16;
	case T_WQ: return wq;
	case T_PPB: return &pb_out;
	case T_CFG: case T_CFG_OK: return &cfg;
	}
	return (void *)(uintptr_t)v;
}

/* Fill every output with canaries; T_CFG_OK gets a valid palette-1 header. */
static void arm(const uint64_t *v, int n)
{
	memset(cbuf, CANARY, sizeof(cbuf));
	memset(&pb_out, CANARY, sizeof(pb_out));
	memset(&cfg, CANARY, sizeof(cfg));
	for (int i = 0; i < n; i++)
		if (v[i] == T_CFG_OK)
			amx_tilecfg_init(&cfg, 1);
	memcpy(cref, cbuf, sizeof(cbuf));
	cfg_ref = cfg;
}

static int outputs_untouched(void)
{
	struct amx_packed_b *canary;

	memset(&canary, CANARY, sizeof(canary));
	return !memcmp(cbuf, cref, sizeof(cbuf)) && pb_out == canary &&
	       !memcmp(&cfg, &cfg_ref, sizeof(cfg));
}

#define P(i) ptr(v[i])
#define Z(i) ((size_t)v[i])
#define U(i) ((unsigned int)v[i])

static int call(enum fn fn, const uint64_t *v)
{
	switch (fn) {
	case F_GEMM_BF16:
		return amx_gemm_bf16(U(0), Z(1), Z(2), Z(3), P(4), Z(5), P(6), Z(7), P(8), Z(9));
	case F_GEMM_S8S8:
		return amx_gemm_s8s8(U(0), Z(1), Z(2), Z(3), P(4), Z(5), P(6), Z(7), P(8), Z(9));
	case F_GEMM_U8S8:
		return amx_gemm_u8s8(U(0), Z(1), Z(2), Z(3), P(4), Z(5), P(6), Z(7), P(8), Z(9));
	case F_GEMM_F16:
		return amx_gemm_f16(U(0), Z(1), Z(2), Z(3), P(4), Z(5), P(6), Z(7), P(8), Z(9));
	case F_GEMM_CF16:
		return amx_gemm_cf16(U(0), Z(1), Z(2), Z(3), P(4), Z(5), P(6), Z(7), P(8), Z(9));
	case F_GEMM_F16_P:
		return amx_gemm_f16_packed(U(0), Z(1), P(2), Z(3), P(4), P(5), Z(6));
	case F_GEMM_BF16_P:
		return amx_gemm_bf16_packed(U(0), Z(1), P(2), Z(3), P(4), P(5), Z(6));
	case F_GEMM_S8S8_P:
		return amx_gemm_s8s8_packed(U(0), Z(1), P(2), Z(3), P(4), P(5), Z(6));
	case F_GEMM_U8S8_P:
		return amx_gemm_u8s8_packed(U(0), Z(1), P(2), Z(3), P(4), P(5), Z(6));
	case F_GEMM_BF16_WQ:
		return amx_gemm_bf16_wq(U(0), Z(1), P(2), Z(3), P(4), P(5), Z(6),
					P(7));
	case F_GEMM_S8_WQ:
		return amx_gemm_s8_wq(U(0), Z(1), P(2), Z(3), P(4), P(5), P(6),
				      Z(7), P(8));
	case F_GEMM_U8_WQ:
		return amx_gemm_u8_wq(U(0), Z(1), P(2), Z(3), P(4), P(5), P(6),
				      P(7), Z(8), P(9));
	case F_PB_CREATE:
		return amx_packed_b_create(P(0), (enum amx_gemm_type)v[1], Z(2), Z(3), P(4), Z(5));
	case F_PACK_BF16: return amx_pack_b_bf16(P(0), P(1), Z(2), Z(3), Z(4));
	case F_PACK_I8: return amx_pack_b_i8(P(0), P(1), Z(2), Z(3), Z(4));
	case F_UNPACK_BF16: return amx_unpack_b_bf16(P(0), P(1), Z(2), Z(3), Z(4));
	case F_UNPACK_I8: return amx_unpack_b_i8(P(0), P(1), Z(2), Z(3), Z(4));
	case F_FP32_TO_BF16_ARR: return amx_fp32_to_bf16_array(P(0), P(1), Z(2));
	case F_BF16_TO_FP32_ARR: return amx_bf16_to_fp32_array(P(0), P(1), Z(2));
	case F_FP32_TO_FP16_ARR: return amx_fp32_to_fp16_array(P(0), P(1), Z(2));
	case F_FP16_TO_FP32_ARR: return amx_fp16_to_fp32_array(P(0), P(1), Z(2));
	case F_GET_INFO: return amx_get_info(P(0));
	case F_TILECFG_INIT: return amx_tilecfg_init(P(0), U(1));
	case F_TILECFG_SET: return amx_tilecfg_set(P(0), U(1), U(2), U(3));
	case F_TILE_CONFIGURE: return amx_tile_configure(P(0));
	case F_TILE_READ_CONFIG: return amx_tile_read_config(P(0));
	case F_SET_THREADS: return amx_set_num_threads(U(0));
	case F_GEMM_BACKEND: return amx_gemm_backend((enum amx_gemm_type)v[0]);
	case F_SIGSTACK_UNINSTALL: return amx_sigaltstack_uninstall();
	case F_QUANT_S8:
		return amx_quantize_s8(Z(0), Z(1), P(2), Z(3), P(4), Z(5),
				       P(6));
	case F_QUANT_U8:
		return amx_quantize_u8(Z(0), Z(1), P(2), Z(3), P(4), Z(5),
				       P(6), P(7));
	case F_QUANT_BF16_S8:
		return amx_quantize_bf16_s8(Z(0), Z(1), P(2), Z(3), P(4), Z(5),
					    P(6));
	case F_QUANT_BF16_U8:
		return amx_quantize_bf16_u8(Z(0), Z(1), P(2), Z(3), P(4), Z(5),
					    P(6), P(7));
	}
	return -ENOSYS;
}

/* One checked call: result, errno, outputs. */
static void check(enum fn fn, const uint64_t *v, int nargs, int expect,
		  const char *name, const char *what)
{
	int ret, err, same, ok;

	arm(v, nargs);
	errno = ERRNO_MARK;
	ret = call(fn, v);
	err = errno;
	same = outputs_untouched();
	if (pb_out && ret == 0 && fn == F_PB_CREATE) {
		amx_packed_b_free(pb_out);
		pb_out = NULL;
	}
	ok = (expect == ANY_NEG ? ret < 0 : ret == expect) && err == ERRNO_MARK &&
	     (ret >= 0 || same);
	tap_ok(ok, "%s %s: %d (want %d)%s%s", name, what, ret, expect,
	       err == ERRNO_MARK ? "" : ", errno changed",
	       ret < 0 && !same ? ", output written" : "");
}

static uint64_t bad_pointer_top(void)
{
	/* below 2^47, but no matrix of this size fits before it */
	return (1ull << 47) - 16;
}

static void dim(const struct sig *s, int i, uint64_t val, const char *what)
{
	uint64_t v[MAXARG];

	memcpy(v, s->ok, sizeof(v));
	v[i] = val;
	for (int j = 0; j < s->nargs; j++)
		if (s->kind[j] == K_LD && s->width[j] == i)
			v[j] = val;
	check(s->fn, v, s->nargs, -EOVERFLOW, s->name, what);
}

static void mutate(const struct sig *s)
{
	uint64_t v[MAXARG];
	char what[96];

#define TRY(i, val, exp, fmt, ...) do {					\
	memcpy(v, s->ok, sizeof(v));					\
	v[i] = (val);							\
	snprintf(what, sizeof(what), "arg %d " fmt, i, ##__VA_ARGS__);	\
	check(s->fn, v, s->nargs, exp, s->name, what);			\
} while (0)

	memcpy(v, s->ok, sizeof(v));
	check(s->fn, v, s->nargs, 0, s->name, "valid arguments");
	for (int i = 0; i < s->nargs; i++) {
		switch (s->kind[i]) {
		case K_INT:
			break;
		case K_FLAGS:
			/* amx_gemm_bf16_wq() knows AMX_GEMM_QUANTIZE_A (2) */
			TRY(i, s->fn == F_GEMM_BF16_WQ ? 4 : 2, -EINVAL,
			    "unknown flag 2 (bf16_wq: 4)");
			TRY(i, 1u << 31, -EINVAL, "unknown flag 1<<31");
			if (s->fn != F_GEMM_BF16_WQ)
				TRY(i, AMX_GEMM_QUANTIZE_A, -EINVAL,
				    "AMX_GEMM_QUANTIZE_A (bf16_wq only)");
			break;
		case K_TYPE:
			TRY(i, 0, -EINVAL, "type 0");
			TRY(i, 4, -EINVAL, "type 4");
			break;
		case K_DIM:
			/* the ld's of that width follow, so only the span is wrong */
			dim(s, i, SIZE_MAX / 2, "size SIZE_MAX/2");
			dim(s, i, 1ull << 48, "size 1<<48");
			break;
		case K_LD: {
			int w = s->width[i];
			uint64_t width = w >= 0 ? s->ok[w] : w == -1 ? K : N;

			TRY(i, width - 1, -EINVAL, "ld = width - 1");
			TRY(i, 0, -EINVAL, "ld = 0");
			TRY(i, 1ull << 60, -EOVERFLOW, "ld = 1<<60");
			/* rows >= 2: the span reaches past 2^47 wherever A is */
			TRY(i, 1ull << 47, -EOVERFLOW, "ld = 1<<47");
			TRY(i, SIZE_MAX, -EOVERFLOW, "ld = SIZE_MAX");
			break;
		}
		case K_OUT:
			if (s->fn <= F_GEMM_F16_P) {
				/* C aliasing A (and B): -EINVAL ... */
				TRY(i, T_A, -EINVAL, "C = A");
				if (s->nargs == 10)
					TRY(i, T_B, -EINVAL, "C = B");
				/* ... unless a span cannot exist: -EOVERFLOW wins */
				memcpy(v, s->ok, sizeof(v));
				v[i] = T_A;
				v[s->nargs == 10 ? 5 : 3] = 1ull << 60;
				check(s->fn, v, s->nargs, -EOVERFLOW, s->name,
				      "C = A, lda = 1<<60: overflow before overlap");
			}
			if (s->fn >= F_QUANT_S8) {
				/* an output on the input x (overlap) ... */
				TRY(i, T_A, -EINVAL, "output = x");
				/* ... the overflow of x's span first */
				memcpy(v, s->ok, sizeof(v));
				v[i] = T_A;
				v[3] = 1ull << 60;
				check(s->fn, v, s->nargs, -EOVERFLOW, s->name,
				      "output = x, ldx 1<<60: overflow first");
			}
			/* fall through */
		case K_IN:
			TRY(i, 0, -EINVAL, "NULL");
			TRY(i, bad_pointer_top(), -EOVERFLOW, "span crosses 2^47");
			TRY(i, 0xffff800000000000ull, -EOVERFLOW, "kernel address");
			TRY(i, UINT64_MAX - 8, -EOVERFLOW, "span wraps");
			break;
		case K_HANDLE:
			TRY(i, 0, -EINVAL, "NULL handle");
			TRY(i, s->ok[i] == T_PB_BF16 ? T_PB_S8 : T_PB_BF16, -EINVAL,
			    "handle of another type");
			TRY(i, s->ok[i] == T_PB_F16 ? T_PB_S8 : T_PB_F16, -EINVAL,
			    "handle of a third type");
			TRY(i, s->ok[i] == T_WQ ? T_PB_S8 : T_WQ, -EINVAL,
			    "packed B of the other kind");
			break;
		case K_PPB:
			TRY(i, 0, -EINVAL, "NULL");
			break;
		}
	}
#undef TRY
}

/* Functions that cannot fail: errno untouched, sane results. */
static void never_fail(void)
{
	static const int errs[] = { 0, 1, -1, -EINVAL, EINVAL, -4095, -4096,
				    INT_MIN, INT_MAX, -EOVERFLOW };
	struct amx_info info;
	const char *s;
	size_t z;
	int ok = 1, ret;

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		errno = ERRNO_MARK;
		s = amx_strerror(errs[i]);
		ok &= s && s[0] && errno == ERRNO_MARK;
	}
	tap_ok(ok, "amx_strerror: a sentence for every value, errno untouched");
	errno = ERRNO_MARK;
	z = amx_pack_b_size_bf16(SIZE_MAX, SIZE_MAX) + amx_pack_b_size_i8(SIZE_MAX, 3);
	tap_ok(z == 0 && amx_pack_b_size_bf16(0, 5) == 0 && errno == ERRNO_MARK,
	       "amx_pack_b_size_*: 0 when not representable or empty");
	errno = ERRNO_MARK;
	ok = amx_packed_b_size(NULL) == 0 && amx_version() == AMX_VERSION &&
	     amx_version_string() && amx_sigaltstack_size() > 0 &&
	     amx_get_num_threads() > 0 && amx_get_info(&info) == 0 &&
	     amx_status() == info.status && (amx_request(), 1);
	amx_tile_release();
	amx_packed_b_free(NULL);
	ok &= amx_bf16_to_fp32(amx_fp32_to_bf16(1.5f)) == 1.5f;
	ok &= amx_fp16_to_fp32(amx_fp32_to_fp16(1.5f)) == 1.5f;
	tap_ok(ok && errno == ERRNO_MARK,
	       "version, status, info, sizes, request, release, free(NULL), scalar conversions: errno untouched");
	errno = ERRNO_MARK;
	ret = amx_sigaltstack_install();
	tap_ok((ret == 0 || ret == 1) && amx_sigaltstack_uninstall() == (ret ? -ENOENT : 0) &&
	       errno == ERRNO_MARK, "sigaltstack install (%d) and uninstall: errno untouched", ret);
}

/* Empty matrices are not read: NULL and any ld are accepted. */
static void empty(void)
{
	static const struct { enum fn fn; uint64_t v[MAXARG]; const char *what; } e[] = {
		{ F_GEMM_BF16, { 0, 0, N, K, 0, 0, T_B, N, T_C, N }, "m = 0, A NULL, lda 0" },
		{ F_GEMM_S8S8, { 0, M, 0, K, T_A, K, 0, 0, 0, 0 }, "n = 0, B and C NULL" },
		{ F_GEMM_U8S8, { 1, M, N, 0, 0, 0, 0, 0, T_C, N }, "k = 0 accumulate, A B NULL" },
		{ F_GEMM_BF16_P, { 0, 0, 0, 0, T_PB_BF16, 0, 0 }, "packed m = 0, NULLs" },
		{ F_GEMM_BF16_WQ, { 0, 0, 0, 0, T_WQ, 0, 0, 0 }, "wq m = 0, NULLs" },
		{ F_GEMM_U8_WQ, { 0, 0, 0, 0, 0, 0, T_WQ, 0, 0, 0 },
		  "u8 wq m = 0, NULLs" },
		{ F_GEMM_CF16, { 0, M, N, 0, 0, 0, 0, 0, T_C, N }, "cf16 k = 0, A B NULL" },
		{ F_GEMM_F16, { 0, M, 0, K, T_A, K, 0, 0, 0, 0 }, "f16 n = 0, B and C NULL" },
		{ F_PB_CREATE, { T_PPB, AMX_GEMM_BF16, 8, 0, 0, 0 }, "create n = 0, B NULL" },
		{ F_PB_CREATE, { T_PPB, AMX_GEMM_S8, 0, 8, 0, 0 }, "create k = 0, B NULL" },
		{ F_PACK_BF16, { 0, 0, 0, N, 0 }, "pack k = 0, NULLs" },
		{ F_UNPACK_I8, { 0, 0, K, 0, 0 }, "unpack n = 0, NULLs" },
		{ F_QUANT_U8, { 0, K, 0, 0, 0, 0, 0, 0 },
		  "quantize m = 0, NULLs" },
		{ F_QUANT_BF16_S8, { M, 0, 0, 0, 0, 0, T_C2 },
		  "quantize k = 0, x and q NULL" },
	};

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		check(e[i].fn, e[i].v, MAXARG, 0, "empty:", e[i].what);
}

int main(void)
{
	const char *paths[] = { "0", "1", "c" };
	int ret;

	printf("TAP version 13\n");
	for (size_t i = 0; i < sizeof(abuf); i++) {
		abuf[i] = (uint8_t)(i * 7 + 1);
		bbuf[i] = (uint8_t)(i * 13 + 5);
	}
	/* small bf16 values only: keep the products finite */
	for (size_t i = 0; i < sizeof(abuf); i += 2) {
		abuf[i + 1] = 0x3f;
		bbuf[i + 1] = 0x3f;
	}
	/* where AMX can be had, the valid calls run on it */
	tap_diag("amx_request: %d", amx_request());
	ret = amx_packed_b_create(&pb_bf16, AMX_GEMM_BF16, K, N, bbuf, N) |
	      amx_packed_b_create(&pb_s8, AMX_GEMM_S8, K, N, bbuf, N) |
	      amx_packed_b_create(&pb_f16, AMX_GEMM_F16, K, N, bbuf, N);
	{
		static const float one[N] = { 1, 1, 1, 1, 1, 1, 1 };
		struct amx_wq_desc d = {
			.type = AMX_WQ_S8, .k = K, .n = N,
			.q = (const int8_t *)bbuf, .ldq = N, .scales = one,
		};

		ret |= amx_wq_create(&wq, &d);
	}
	if (ret) {
		tap_ok(0, "packed_b_create for the fixtures: %d", ret);
		tap_done();
	}
	/* the checks come before any backend is chosen: every path alike */
	for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		setenv("AMX_FORCE_FALLBACK", paths[p], 1);
		tap_diag("AMX_FORCE_FALLBACK=%s: backend %d", paths[p],
			 amx_gemm_backend(AMX_GEMM_BF16));
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			mutate(&sigs[i]);
		empty();
	}
	unsetenv("AMX_FORCE_FALLBACK");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check(rows[i].fn, rows[i].v, 4, rows[i].expect, "", rows[i].what);
	never_fail();
	amx_packed_b_free(pb_bf16);
	amx_packed_b_free(pb_s8);
	amx_packed_b_free(pb_f16);
	amx_wq_free(wq);
	tap_done();
}
