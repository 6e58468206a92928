// SPDX-License-Identifier: MIT
/*
 * VNNI re-layout of a row-major B into B-operand tile blocks.
 *
 * A TDP instruction reads B as K/g rows of 16 columns, each column
 * holding g consecutive k-elements (g = 4 bytes / element size: bf16
 * pairs, int8 quads).  One block is a full 16 x 64-byte tile.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define TILE_COLS	16	/* fp32/int32 columns of a C tile */
#define TILE_ROWS	16
#define TILE_BYTES	1024

struct vnni_shape {
	size_t es;	/* element size in bytes */
	size_t g;	/* elements per 32-bit group */
	size_t kblk;	/* k-elements per block: TILE_ROWS * g */
};

static const struct vnni_shape shape_bf16 = { 2, 2, 32 };
static const struct vnni_shape shape_i8 = { 1, 4, 64 };

static int packed_size(const struct vnni_shape *s, size_t k, size_t n,
		       size_t *bytes)
{
	size_t nb = n / TILE_COLS + !!(n % TILE_COLS);
	size_t kb = k / s->kblk + !!(k % s->kblk);

	if (__builtin_mul_overflow(nb, kb, bytes) ||
	    __builtin_mul_overflow(*bytes, (size_t)TILE_BYTES, bytes))
		return -EOVERFLOW;
	return 0;
}

size_t amx_pack_b_size_bf16(size_t k, size_t n)
{
	size_t bytes;

	return packed_size(&shape_bf16, k, n, &bytes) ? 0 : bytes;
}

size_t amx_pack_b_size_i8(size_t k, size_t n)
{
	size_t bytes;

	return packed_size(&shape_i8, k, n, &bytes) ? 0 : bytes;
}

/*
 * Arguments shared by pack and unpack: both the caller's matrix and the
 * packed image must be able to exist (amx__matrix_span(),
 * amx__user_range()).
 */
static int check_args(const struct vnni_shape *s, const void *packed,
		      const void *b, size_t k, size_t n, size_t ldb)
{
	size_t bytes, span;
	int ret;

	if (!k || !n)
		return 0;
	if (!packed || !b || ldb < n)
		return -EINVAL;
	if (packed_size(s, k, n, &bytes))
		return -EOVERFLOW;
	ret = amx__matrix_span(k, n, ldb, s->es, b, &span);
	if (!ret)
		ret = amx__user_range(packed, bytes);
	return ret;
}

/*
 * Walk every element of the packed image in order; @to_packed chooses
 * the copy direction.  Out-of-range elements are zero in the image.
 */
static void relayout(const struct vnni_shape *s, uint8_t *packed,
		     uint8_t *b, size_t k, size_t n, size_t ldb, bool to_packed)
{
	size_t nb, kb, r, j, p;
	uint8_t *tile = packed;

	for (nb = 0; nb < n; nb += TILE_COLS) {
		for (kb = 0; kb < k; kb += s->kblk, tile += TILE_BYTES) {
			if (to_packed)
				memset(tile, 0, TILE_BYTES);
			for (r = 0; r < TILE_ROWS; r++) {
				for (j = 0; j < TILE_COLS && nb + j < n; j++) {
					for (p = 0; p < s->g; p++) {
						size_t kk = kb + r * s->g + p;
						uint8_t *t = tile + r * 64 +
							     (j * s->g + p) * s->es;
						uint8_t *e;

						if (kk >= k)
							break;
						e = b + (kk * ldb + nb + j) * s->es;
						if (to_packed)
							memcpy(t, e, s->es);
						else
							memcpy(e, t, s->es);
					}
				}
			}
		}
	}
}

static int pack(const struct vnni_shape *s, void *dst, const void *b,
		size_t k, size_t n, size_t ldb)
{
	int ret = check_args(s, dst, b, k, n, ldb);

	if (ret || !k || !n)
		return ret;
	relayout(s, dst, (uint8_t *)b, k, n, ldb, true);
	return 0;
}

static int unpack(const struct vnni_shape *s, void *b, const void *src,
		  size_t k, size_t n, size_t ldb)
{
	int ret = check_args(s, src, b, k, n, ldb);

	if (ret || !k || !n)
		return ret;
	relayout(s, (uint8_t *)src, b, k, n, ldb, false);
	return 0;
}

int amx_pack_b_bf16(void *dst, const amx_bf16 *b, size_t k, size_t n,
		    size_t ldb)
{
	return pack(&shape_bf16, dst, b, k, n, ldb);
}

int amx_pack_b_i8(void *dst, const int8_t *b, size_t k, size_t n, size_t ldb)
{
	return pack(&shape_i8, dst, b, k, n, ldb);
}

int amx_unpack_b_bf16(amx_bf16 *b, const void *src, size_t k, size_t n,
		      size_t ldb)
{
	return unpack(&shape_bf16, b, src, k, n, ldb);
}

int amx_unpack_b_i8(int8_t *b, const void *src, size_t k, size_t n,
		    size_t ldb)
{
	return unpack(&shape_i8, b, src, k, n, ldb);
}
