// SPDX-License-Identifier: MIT
/*
 * Pack a kc x nc block of row-major int8 B into VNNI panels of GEMM_NR
 * columns: panel[q][j][0..3] = B[4q + 0..3][j], zero past kc and nc, K padded
 * to a whole tile (64 bytes).  Also, when asked, the per-column correction
 * corr[j] = -128 * sum_k B[k][j] (mod 2^32) used by the VNNI fallback for
 * s8 x s8 (A is biased to u8 by +128).
 *
 * Rows are walked in order for a group of GEMM_PACK_PANELS panels at a
 * time, so each row is read in 256-byte pieces rather than one 32-byte
 * panel column of every row (a TLB miss per row when B is wide).
 */
#include <string.h>
#include <immintrin.h>

#include "gemm.h"

/*
 * Four full rows of 32 columns into 128 bytes of VNNI quads: vpunpck{l,h}bw
 * pairs rows 0/1 and 2/3, vpunpck{l,h}wd makes quads of 4 columns per
 * 128-bit lane, vperm2i128 orders the lanes.  With @sum, the column sums
 * of the quads are added to sum[0..3] (columns 0-7, 8-15, 16-23, 24-31):
 * vpmaddubsw by ones adds the pairs, vpmaddwd by ones the pairs of pairs.
 */
__attribute__((target("avx2")))
static void pack_quads_avx2(const int8_t *r, size_t ldb, int8_t *d,
			    __m256i *sum)
{
	__m256i r0 = _mm256_loadu_si256((const void *)r);
	__m256i r1 = _mm256_loadu_si256((const void *)(r + ldb));
	__m256i r2 = _mm256_loadu_si256((const void *)(r + 2 * ldb));
	__m256i r3 = _mm256_loadu_si256((const void *)(r + 3 * ldb));
	__m256i a = _mm256_unpacklo_epi8(r0, r1), b = _mm256_unpackhi_epi8(r0, r1);
	__m256i c = _mm256_unpacklo_epi8(r2, r3), e = _mm256_unpackhi_epi8(r2, r3);
	__m256i q0 = _mm256_unpacklo_epi16(a, c);	/* cols 0-3 | 16-19 */
	__m256i q1 = _mm256_unpackhi_epi16(a, c);	/* cols 4-7 | 20-23 */
	__m256i q2 = _mm256_unpacklo_epi16(b, e);	/* cols 8-11 | 24-27 */
	__m256i q3 = _mm256_unpackhi_epi16(b, e);	/* cols 12-15 | 28-31 */
	__m256i v[4] = {
		_mm256_permute2x128_si256(q0, q1, 0x20),
		_mm256_permute2x128_si256(q2, q3, 0x20),
		_mm256_permute2x128_si256(q0, q1, 0x31),
		_mm256_permute2x128_si256(q2, q3, 0x31),
	};

	for (int i = 0; i < 4; i++)
		_mm256_storeu_si256((void *)(d + 32 * i), v[i]);
	if (!sum)
		return;
	for (int i = 0; i < 4; i++) {
		__m256i p = _mm256_maddubs_epi16(_mm256_set1_epi8(1), v[i]);

		sum[i] = _mm256_add_epi32(sum[i],
					  _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
	}
}

/*
 * The same for two full panels (64 columns) with AVX-512BW: the unpacks
 * give per 128-bit lane L the quads of columns 16L + 0..3 (q0), 4..7 (q1),
 * 8..11 (q2), 12..15 (q3); two rounds of vshufi64x2 gather lane L of
 * q0..q3 into one register: lanes 0, 1 are panel 0, lanes 2, 3 panel 1.
 * Half the loads, unpacks and stores of two pack_quads_avx2() calls.
 */
__attribute__((target("avx512f,avx512bw")))
static void pack_pairs_avx512(size_t kc, size_t j0, size_t j1,
			      const int8_t *b, size_t ldb, int8_t *dst,
			      size_t panel_stride, uint32_t (*sums)[GEMM_NR],
			      int want_sum)
{
	__m512i vs[GEMM_PACK_PANELS][2];
	const __m512i ones8 = _mm512_set1_epi8(1), ones16 = _mm512_set1_epi16(1);

	memset(vs, 0, sizeof(vs));
	for (size_t q = 0; q < kc; q += 4)
		for (size_t j = j0; j < j1; j += 2) {
			const int8_t *r = b + q * ldb + j * GEMM_NR;
			int8_t *d = dst + j * panel_stride + q * GEMM_NR;
			__m512i r0, r1, r2, r3, a, c, e, f, q0, q1, q2, q3;
			__m512i s0, s1, s2, s3, v[4];

			if (q + GEMM_PACK_AHEAD + 4 <= kc)
				for (int t = 0; t < 4; t++)
					_mm_prefetch((const char *)(r + (GEMM_PACK_AHEAD + t) * ldb),
						     _MM_HINT_T0);
			r0 = _mm512_loadu_si512(r);
			r1 = _mm512_loadu_si512(r + ldb);
			r2 = _mm512_loadu_si512(r + 2 * ldb);
			r3 = _mm512_loadu_si512(r + 3 * ldb);
			a = _mm512_unpacklo_epi8(r0, r1);
			c = _mm512_unpackhi_epi8(r0, r1);
			e = _mm512_unpacklo_epi8(r2, r3);
			f = _mm512_unpackhi_epi8(r2, r3);
			q0 = _mm512_unpacklo_epi16(a, e);
			q1 = _mm512_unpackhi_epi16(a, e);
			q2 = _mm512_unpacklo_epi16(c, f);
			q3 = _mm512_unpackhi_epi16(c, f);
			s0 = _mm512_shuffle_i64x2(q0, q1, 0x88);  /* q0.0 q0.2 q1.0 q1.2 */
			s1 = _mm512_shuffle_i64x2(q2, q3, 0x88);
			s2 = _mm512_shuffle_i64x2(q0, q1, 0xdd);  /* lanes 1 and 3 */
			s3 = _mm512_shuffle_i64x2(q2, q3, 0xdd);
			v[0] = _mm512_shuffle_i64x2(s0, s1, 0x88); /* columns 0-15 */
			v[1] = _mm512_shuffle_i64x2(s2, s3, 0x88); /* 16-31 */
			v[2] = _mm512_shuffle_i64x2(s0, s1, 0xdd); /* 32-47 */
			v[3] = _mm512_shuffle_i64x2(s2, s3, 0xdd); /* 48-63 */
			_mm512_storeu_si512(d, v[0]);
			_mm512_storeu_si512(d + 64, v[1]);
			_mm512_storeu_si512(d + panel_stride, v[2]);
			_mm512_storeu_si512(d + panel_stride + 64, v[3]);
			for (int i = 0; want_sum && i < 4; i++) {
				__m512i p = _mm512_maddubs_epi16(ones8, v[i]);
				__m512i *acc = &vs[j - j0 + i / 2][i % 2];

				*acc = _mm512_add_epi32(*acc, _mm512_madd_epi16(p, ones16));
			}
		}
	for (size_t j = j0; want_sum && j < j1; j++)
		for (int i = 0; i < 2; i++) {
			uint32_t t[16];

			_mm512_storeu_si512(t, vs[j - j0][i]);
			for (int u = 0; u < 16; u++)
				sums[j - j0][16 * i + u] += t[u];
		}
}

/* one quad row (t = 0..3 rows present, nr columns) the portable way */
static void pack_quad(const int8_t *r, size_t ldb, size_t rows, size_t nr,
		      int8_t *d, uint32_t *sum)
{
	memset(d, 0, 4 * GEMM_NR);
	for (size_t jj = 0; jj < nr; jj++)
		for (size_t t = 0; t < rows; t++) {
			d[4 * jj + t] = r[t * ldb + jj];
			sum[jj] += (uint32_t)(int32_t)r[t * ldb + jj];
		}
}

__attribute__((target("avx2")))
static void pack_group_avx2(size_t kc, size_t nc, size_t j0, size_t j1,
			    const int8_t *b, size_t ldb, int8_t *dst,
			    size_t panel_stride, uint32_t (*sums)[GEMM_NR],
			    int want_sum)
{
	__m256i vs[GEMM_PACK_PANELS][4];
	size_t q;

	memset(vs, 0, sizeof(vs));
	for (q = 0; q + 4 <= kc; q += 4)
		for (size_t j = j0; j < j1; j++) {
			size_t col = j * GEMM_NR;
			size_t nr = nc - col < GEMM_NR ? nc - col : GEMM_NR;
			int8_t *d = dst + j * panel_stride + q * GEMM_NR;

			if (q + GEMM_PACK_AHEAD + 4 <= kc) {
				const int8_t *ahead = b + (q + GEMM_PACK_AHEAD) * ldb + col;

				for (int t = 0; t < 4; t++)
					_mm_prefetch((const char *)(ahead + t * ldb),
						     _MM_HINT_T0);
			}
			if (nr == GEMM_NR) {
				pack_quads_avx2(b + q * ldb + col, ldb, d,
						want_sum ? vs[j - j0] : NULL);
			} else {
				/*
				 * The last, narrower panel: its rows copied
				 * into 32 zeroed columns, then the same
				 * shuffles (the zeros add nothing to the
				 * sums).  Byte by byte it took 30 % of a
				 * 16^3 u8s8 call.
				 */
				int8_t t[4 * GEMM_NR] __attribute__((aligned(32))) = { 0 };

				for (int u = 0; u < 4; u++)
					memcpy(t + u * GEMM_NR,
					       b + (q + u) * ldb + col, nr);
				pack_quads_avx2(t, GEMM_NR, d,
						want_sum ? vs[j - j0] : NULL);
			}
		}
	for (size_t j = j0; want_sum && j < j1; j++)
		for (int i = 0; i < 4; i++) {
			uint32_t t[8];

			_mm256_storeu_si256((void *)t, vs[j - j0][i]);
			for (int u = 0; u < 8; u++)
				sums[j - j0][8 * i + u] += t[u];
		}
}

void gemm_pack_b_s8(size_t kc, size_t nc, const int8_t *b, size_t ldb,
		    int8_t *dst, size_t panel_stride, int32_t *corr,
		    size_t corr_stride, unsigned int simd)
{
	size_t kpad = gemm_round_up(kc, GEMM_KGRAN_BYTES);
	size_t kfull = kc / 4 * 4;
	size_t npanels = (nc + GEMM_NR - 1) / GEMM_NR, nfull = nc / GEMM_NR;
	int avx2 = !!(simd & GEMM_SIMD_AVX2);
	int avx512 = !!(simd & GEMM_SIMD_AVX512);

	for (size_t j0 = 0; j0 < npanels; j0 += GEMM_PACK_PANELS) {
		size_t j1 = j0 + GEMM_PACK_PANELS < npanels ? j0 + GEMM_PACK_PANELS : npanels;
		size_t jf = j1 < nfull ? j1 : nfull;	/* nfull >= j0 */
		/* whole pairs of full panels by AVX-512, the rest by AVX2 */
		size_t jp = avx2 && avx512 ? j0 + (jf - j0) / 2 * 2 : j0;
		uint32_t sums[GEMM_PACK_PANELS][GEMM_NR];

		memset(sums, 0, sizeof(sums));
		if (jp > j0)
			pack_pairs_avx512(kfull, j0, jp, b, ldb, dst,
					  panel_stride, sums, !!corr);
		if (avx2) {
			pack_group_avx2(kfull, nc, jp, j1, b, ldb, dst,
					panel_stride, sums + (jp - j0), !!corr);
		} else {
			for (size_t q = 0; q < kfull; q += 4)
				for (size_t j = j0; j < j1; j++) {
					size_t col = j * GEMM_NR;

					pack_quad(b + q * ldb + col, ldb, 4,
						  nc - col < GEMM_NR ? nc - col : GEMM_NR,
						  dst + j * panel_stride + q * GEMM_NR,
						  sums[j - j0]);
				}
		}
		for (size_t j = j0; j < j1; j++) {
			size_t col = j * GEMM_NR;
			size_t nr = nc - col < GEMM_NR ? nc - col : GEMM_NR;
			int8_t *d = dst + j * panel_stride + kfull * GEMM_NR;
			size_t q = kfull;

			if (q < kc) {
				pack_quad(b + q * ldb + col, ldb, kc - q, nr, d,
					  sums[j - j0]);
				d += 4 * GEMM_NR;
				q += 4;
			}
			memset(d, 0, (kpad - q) * GEMM_NR);
			for (size_t jj = 0; corr && jj < GEMM_NR; jj++)
				corr[j * corr_stride + jj] =
					(int32_t)(0u - (sums[j - j0][jj] << 7));
		}
	}
}
