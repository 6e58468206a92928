// SPDX-License-Identifier: MIT
/* VNNI packing of B: layout, zero padding, round trips, bad input. */
#include <stdlib.h>
#include <string.h>

#include "amx_test.h"

/* Where element (kk, j) of B lands in the packed image, in elements. */
static size_t packed_index(size_t kk, size_t j, size_t k, size_t g)
{
	size_t kblk = 16 * g, kblocks = (k + kblk - 1) / kblk;
	size_t tile = (j / 16) * kblocks + kk / kblk;
	size_t r = (kk % kblk) / g, p = kk % g;

	return tile * (1024 / (4 / g)) + r * (64 / (4 / g)) + (j % 16) * g + p;
}

/* The two element types behind one signature. */
struct vnni_type {
	size_t es, g;
	size_t (*size)(size_t k, size_t n);
	int (*pack)(void *dst, const void *b, size_t k, size_t n, size_t ldb);
	int (*unpack)(void *b, const void *src, size_t k, size_t n, size_t ldb);
};

static int pack16(void *d, const void *b, size_t k, size_t n, size_t ldb)
{
	return amx_pack_b_bf16(d, b, k, n, ldb);
}

static int unpack16(void *b, const void *s, size_t k, size_t n, size_t ldb)
{
	return amx_unpack_b_bf16(b, s, k, n, ldb);
}

static int pack8(void *d, const void *b, size_t k, size_t n, size_t ldb)
{
	return amx_pack_b_i8(d, b, k, n, ldb);
}

static int unpack8(void *b, const void *s, size_t k, size_t n, size_t ldb)
{
	return amx_unpack_b_i8(b, s, k, n, ldb);
}

static const struct vnni_type bf16 = { 2, 2, amx_pack_b_size_bf16, pack16, unpack16 };
static const struct vnni_type i8 = { 1, 4, amx_pack_b_size_i8, pack8, unpack8 };

/* Element i of a matrix of es-byte elements, as an integer. */
static unsigned int elem(const struct vnni_type *t, const uint8_t *m, size_t i)
{
	return t->es == 2 ? ((const uint16_t *)m)[i] : m[i];
}

static int check(const struct vnni_type *t, size_t k, size_t n, size_t ldb, uint64_t *seed)
{
	size_t size = t->size(k, n), i, j, nonzero = 0;
	uint8_t *b = malloc(k * ldb * t->es), *back = calloc(k * ldb, t->es);
	uint8_t *img = malloc(size + 64);
	int ok = 1;

	for (i = 0; i < k * ldb * t->es; i++)
		b[i] = (uint8_t)(amx_test_rand(seed) | 1);	/* never zero */
	memset(img, 0xa5, size + 64);
	if (t->pack(img, b, k, n, ldb))
		ok = 0;
	for (i = 0; ok && i < k; i++)
		for (j = 0; j < n; j++)
			if (elem(t, img, packed_index(i, j, k, t->g)) != elem(t, b, i * ldb + j))
				ok = 0;
	for (i = 0; i < size / t->es; i++)
		nonzero += elem(t, img, i) != 0;
	if (nonzero != k * n)	/* all padding is zero */
		ok = 0;
	if (img[size] != 0xa5)	/* nothing past the end */
		ok = 0;
	if (t->unpack(back, img, k, n, ldb))
		ok = 0;
	for (i = 0; ok && i < k; i++)
		for (j = 0; j < n; j++)
			if (elem(t, back, i * ldb + j) != elem(t, b, i * ldb + j))
				ok = 0;
	free(b);
	free(back);
	free(img);
	return ok;
}

int main(void)
{
	static const size_t ks[] = { 1, 2, 3, 31, 32, 33, 63, 64, 65, 100, 130 };
	static const size_t ns[] = { 1, 15, 16, 17, 33, 50 };
	uint64_t seed = 42;
	uint8_t dst[1024];
	int16_t b[4] = { 1, 2, 3, 4 };
	size_t a, c;
	int ok_bf16 = 1, ok_i8 = 1;

	tap_plan(9);
	tap_ok(amx_pack_b_size_bf16(32, 16) == 1024 && amx_pack_b_size_bf16(33, 17) == 4096 &&
	       amx_pack_b_size_i8(64, 16) == 1024 && amx_pack_b_size_i8(65, 16) == 2048 &&
	       amx_pack_b_size_bf16(0, 5) == 0, "packed sizes count whole tiles");

	for (a = 0; a < sizeof(ks) / sizeof(ks[0]); a++) {
		for (c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
			if (!check(&bf16, ks[a], ns[c], ns[c] + (a % 3) * 7, &seed)) {
				ok_bf16 = 0;
				tap_diag("bf16 k=%zu n=%zu failed", ks[a], ns[c]);
			}
			if (!check(&i8, ks[a], ns[c], ns[c] + (c % 2) * 5, &seed)) {
				ok_i8 = 0;
				tap_diag("int8 k=%zu n=%zu failed", ks[a], ns[c]);
			}
		}
	}
	tap_ok(ok_bf16, "bf16: layout, zero padding, bounds and round trip for 66 ragged shapes");
	tap_ok(ok_i8, "int8: layout, zero padding, bounds and round trip for 66 ragged shapes");

	memset(dst, 0x77, sizeof(dst));
	tap_ok(amx_pack_b_bf16(dst, (amx_bf16 *)b, 2, 2, 1) == -EINVAL && dst[0] == 0x77,
	       "ldb < n: -EINVAL, nothing written");
	tap_ok(amx_pack_b_bf16(NULL, (amx_bf16 *)b, 2, 2, 2) == -EINVAL &&
	       amx_pack_b_i8(dst, NULL, 2, 2, 2) == -EINVAL && dst[0] == 0x77,
	       "NULL with a non-zero size: -EINVAL");
	tap_ok(amx_pack_b_i8(dst, NULL, 0, 5, 0) == 0 && dst[0] == 0x77,
	       "empty matrix is a no-op");
	tap_ok(amx_pack_b_size_i8(SIZE_MAX, SIZE_MAX) == 0 &&
	       amx_pack_b_i8(dst, (int8_t *)b, SIZE_MAX, SIZE_MAX, SIZE_MAX) == -EOVERFLOW &&
	       dst[0] == 0x77, "overflowing sizes: -EOVERFLOW, nothing written");
	tap_ok(amx_pack_b_bf16(dst, (amx_bf16 *)b, (SIZE_MAX / 4), 16, SIZE_MAX / 8) ==
	       -EOVERFLOW && dst[0] == 0x77, "overflowing extent of B: -EOVERFLOW");
	tap_ok(amx_unpack_b_i8((int8_t *)b, dst, 2, 3, 2) == -EINVAL && b[0] == 1,
	       "unpack checks its arguments too");
	tap_done();
}
