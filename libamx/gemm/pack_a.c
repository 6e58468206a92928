// SPDX-License-Identifier: MIT
/*
 * Pack an mc x kc block of row-major A (bf16 or int8, handled as bytes) for
 * the micro-kernels, zero-padding K to a whole tile row (64 bytes).
 */
#include <string.h>
#include <immintrin.h>

#include "gemm.h"

/*
 * Rows [0, mr / 4 * 4) and bytes [0, q8) of one VNNI micro-panel: 4 rows x
 * 8 dwords at a time, transposed in registers (vpunpck{l,h}dq then
 * {l,h}qdq give, per 128-bit lane, the 4 rows of one dword), each lane
 * stored as the 16 bytes of 4 rows of one K group.  The scalar loop
 * stored one dword at a time: 18 us for a 256 x 256 bf16 block on Zen 5.
 */
__attribute__((target("avx2")))
static void pack_a_vnni_avx2(size_t mr, size_t q0, size_t q8,
			     const uint8_t *a, size_t lda, uint32_t *d,
			     uint8_t flip)
{
	__m256i fl = _mm256_set1_epi8((char)flip);

	for (size_t g = 0; g + 4 <= mr; g += 4) {
		const uint8_t *r = a + g * lda;

		for (size_t q = q0; q < q8; q += 32) {
			__m256i r0 = _mm256_xor_si256(fl, _mm256_loadu_si256((const void *)(r + q)));
			__m256i r1 = _mm256_xor_si256(fl, _mm256_loadu_si256((const void *)(r + lda + q)));
			__m256i r2 = _mm256_xor_si256(fl, _mm256_loadu_si256((const void *)(r + 2 * lda + q)));
			__m256i r3 = _mm256_xor_si256(fl, _mm256_loadu_si256((const void *)(r + 3 * lda + q)));
			__m256i t0 = _mm256_unpacklo_epi32(r0, r1);
			__m256i t1 = _mm256_unpackhi_epi32(r0, r1);
			__m256i t2 = _mm256_unpacklo_epi32(r2, r3);
			__m256i t3 = _mm256_unpackhi_epi32(r2, r3);
			__m256i o[4] = {
				_mm256_unpacklo_epi64(t0, t2),	/* dwords 0 | 4 */
				_mm256_unpackhi_epi64(t0, t2),	/* 1 | 5 */
				_mm256_unpacklo_epi64(t1, t3),	/* 2 | 6 */
				_mm256_unpackhi_epi64(t1, t3),	/* 3 | 7 */
			};
			uint32_t *dq = d + q / 4 * mr + g;

			for (int i = 0; i < 4; i++) {
				_mm_storeu_si128((void *)(dq + i * mr),
						 _mm256_castsi256_si128(o[i]));
				_mm_storeu_si128((void *)(dq + (i + 4) * mr),
						 _mm256_extracti128_si256(o[i], 1));
			}
		}
	}
}

/*
 * The same 64 bytes (16 K groups) at a time with AVX-512: each 128-bit lane
 * of o[i] holds group 4 * lane + i of the 4 rows.  Half the loads and
 * shuffles of the AVX2 loop for the same stores, and K outermost, so that
 * each 16-group piece of the micro-panel is written whole while it is in
 * L1.  12 rows of 4096 bytes, lda 4096, source in cache, on Zen 5: 42 GB/s
 * with the AVX2 loop, 64 GB/s with this; 1024 bytes: 49 -> 74 GB/s.
 */
__attribute__((target("avx512f,avx512bw")))
static void pack_a_vnni_avx512(size_t mr, size_t q64, const uint8_t *a,
			       size_t lda, uint32_t *d, uint8_t flip)
{
	__m512i fl = _mm512_set1_epi8((char)flip);

	for (size_t q = 0; q < q64; q += 64) {
		for (size_t g = 0; g + 4 <= mr; g += 4) {
			const uint8_t *r = a + g * lda;
			__m512i r0 = _mm512_xor_si512(fl, _mm512_loadu_si512(r + q));
			__m512i r1 = _mm512_xor_si512(fl, _mm512_loadu_si512(r + lda + q));
			__m512i r2 = _mm512_xor_si512(fl, _mm512_loadu_si512(r + 2 * lda + q));
			__m512i r3 = _mm512_xor_si512(fl, _mm512_loadu_si512(r + 3 * lda + q));
			__m512i t0 = _mm512_unpacklo_epi32(r0, r1);
			__m512i t1 = _mm512_unpackhi_epi32(r0, r1);
			__m512i t2 = _mm512_unpacklo_epi32(r2, r3);
			__m512i t3 = _mm512_unpackhi_epi32(r2, r3);
			__m512i o[4] = {
				_mm512_unpacklo_epi64(t0, t2),
				_mm512_unpackhi_epi64(t0, t2),
				_mm512_unpacklo_epi64(t1, t3),
				_mm512_unpackhi_epi64(t1, t3),
			};
			uint32_t *dq = d + q / 4 * mr + g;

			for (int i = 0; i < 4; i++) {
				_mm_storeu_si128((void *)(dq + i * mr),
						 _mm512_castsi512_si128(o[i]));
				_mm_storeu_si128((void *)(dq + (i + 4) * mr),
						 _mm512_extracti32x4_epi32(o[i], 1));
				_mm_storeu_si128((void *)(dq + (i + 8) * mr),
						 _mm512_extracti32x4_epi32(o[i], 2));
				_mm_storeu_si128((void *)(dq + (i + 12) * mr),
						 _mm512_extracti32x4_epi32(o[i], 3));
			}
		}
	}
}

/* [kcpad/4][mr] 32-bit groups per micro-panel of up to GEMM_MR_AVX rows */
void gemm_pack_a_vnni(size_t mc, size_t kc_bytes, const uint8_t *a,
		      size_t lda_bytes, uint8_t *dst, uint8_t flip,
		      unsigned int simd)
{
	size_t kpad = gemm_round_up(kc_bytes, GEMM_KGRAN_BYTES);
	size_t kfull = kc_bytes / 4 * 4;
	size_t q8 = simd & GEMM_SIMD_AVX2 ? kc_bytes / 32 * 32 : 0;
	size_t q64 = simd & GEMM_SIMD_AVX512 ? kc_bytes / 64 * 64 : 0;
	uint32_t fl = flip * 0x01010101u;

	for (size_t i = 0; i < mc; i += GEMM_MR_AVX) {
		size_t mr = mc - i < GEMM_MR_AVX ? mc - i : GEMM_MR_AVX;
		uint32_t *d = (uint32_t *)(void *)dst;

		if (q64)
			pack_a_vnni_avx512(mr, q64, a + i * lda_bytes,
					   lda_bytes, d, flip);
		if (q8 > q64)
			pack_a_vnni_avx2(mr, q64, q8, a + i * lda_bytes,
					 lda_bytes, d, flip);
		for (size_t r = 0; r < mr; r++) {
			const uint8_t *row = a + (i + r) * lda_bytes;
			size_t q;

			for (q = r < mr / 4 * 4 ? q8 : 0; q < kfull; q += 4) {
				uint32_t w;

				memcpy(&w, row + q, 4);
				d[q / 4 * mr + r] = w ^ fl;
			}
			if (q < kpad) {
				uint8_t t[4] = { 0, 0, 0, 0 };
				uint32_t w;

				for (size_t u = 0; q + u < kc_bytes; u++)
					t[u] = row[q + u] ^ flip;
				memcpy(&w, t, 4);
				d[q / 4 * mr + r] = w;
				for (q += 4; q < kpad; q += 4)
					d[q / 4 * mr + r] = 0;
			}
		}
		dst += mr * kpad;
	}
}

/*
 * gemm_pack_a_tile() with AVX-512BW: one 64-byte load (masked at the end
 * of K) and one store a tile row.  The portable loop below is copies of
 * variable length, which gcc 12 turns into a loop of 8-byte moves: on the
 * AMX Xeon it took 27 % of a 128^3 u8s8 call with A packed, and moved by
 * a tenth with the alignment of unrelated code.
 */
__attribute__((target("avx512f,avx512bw")))
static void pack_a_tile_avx512(size_t mc, size_t kc_bytes, const uint8_t *a,
			       size_t lda_bytes, uint8_t *dst, uint8_t flip)
{
	size_t kpad = gemm_round_up(kc_bytes, GEMM_KGRAN_BYTES);
	__m512i fl = _mm512_set1_epi8((char)flip), zero = _mm512_setzero_si512();

	for (size_t i = 0; i < mc; i += GEMM_MR_AMX) {
		size_t mr = mc - i < GEMM_MR_AMX ? mc - i : GEMM_MR_AMX;
		const uint8_t *ai = a + i * lda_bytes;

		for (size_t t = 0; t < kpad; t += 64) {
			size_t len = kc_bytes - t < 64 ? kc_bytes - t : 64;
			__mmask64 m = len == 64 ? ~(__mmask64)0 :
				      ((__mmask64)1 << len) - 1;
			uint8_t *d = dst + t * GEMM_MR_AMX;
			size_t r;

			for (r = 0; r < mr; r++) {
				__m512i v = _mm512_maskz_loadu_epi8(m, ai + r * lda_bytes + t);

				/* flipped, then the K padding zeroed again */
				v = _mm512_maskz_mov_epi8(m, _mm512_xor_si512(v, fl));
				_mm512_storeu_si512(d + r * 64, v);
			}
			for (; r < GEMM_MR_AMX; r++)
				_mm512_storeu_si512(d + r * 64, zero);
		}
		dst += GEMM_MR_AMX * kpad;
	}
}

/* [kcpad/64][32 rows][64 bytes] per micro-panel of GEMM_MR_AMX rows */
void gemm_pack_a_tile(size_t mc, size_t kc_bytes, const uint8_t *a,
		      size_t lda_bytes, uint8_t *dst, uint8_t flip,
		      unsigned int simd)
{
	size_t kpad = gemm_round_up(kc_bytes, GEMM_KGRAN_BYTES);

	if (simd & GEMM_SIMD_AVX512) {
		pack_a_tile_avx512(mc, kc_bytes, a, lda_bytes, dst, flip);
		return;
	}
	for (size_t i = 0; i < mc; i += GEMM_MR_AMX) {
		size_t mr = mc - i < GEMM_MR_AMX ? mc - i : GEMM_MR_AMX;

		for (size_t t = 0; t < kpad; t += 64) {
			size_t len = kc_bytes - t < 64 ? kc_bytes - t : 64;

			for (size_t r = 0; r < GEMM_MR_AMX; r++) {
				uint8_t *d = dst + (t / 64) * 64 * GEMM_MR_AMX +
					     r * 64;

				if (r < mr) {
					memcpy(d, a + (i + r) * lda_bytes + t, len);
					for (size_t u = 0; flip && u < len; u++)
						d[u] ^= flip;
					memset(d + len, 0, 64 - len);
				} else {
					memset(d, 0, 64);
				}
			}
		}
		dst += GEMM_MR_AMX * kpad;
	}
}
