/* SPDX-License-Identifier: MIT */
/*
 * libamx GEMM helpers: bf16 and int8 matrix multiply on Intel AMX, with an
 * AVX-512 BF16/VNNI and a portable C fallback behind the same calls.
 *
 * All matrices are row-major.  Every function returns 0 or a negative errno
 * value and never modifies errno.  Included by <amx.h>.
 */
#ifndef AMX_GEMM_H
#define AMX_GEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* flags */
#define AMX_GEMM_ACCUMULATE	(1u << 0)	/* C += A*B instead of C = A*B */

/* element types of a pre-packed B */
enum amx_gemm_type {
	AMX_GEMM_BF16 = 1,	/* bf16 B, for amx_gemm_bf16_packed() */
	AMX_GEMM_S8 = 2,	/* int8 B, for amx_gemm_{s8s8,u8s8}_packed() */
};

/* which implementation a call made now would use */
enum amx_gemm_backend {
	AMX_GEMM_BACKEND_AMX = 1,	/* AMX tiles */
	AMX_GEMM_BACKEND_AVX512 = 2,	/* AVX-512 BF16 / VNNI */
	AMX_GEMM_BACKEND_C = 3,		/* portable C */
};

/*
 * C[m x n] (+)= A[m x k] * B[k x n]; bf16 inputs, fp32 accumulation/output.
 * bf16 values are the upper 16 bits of an IEEE fp32 (see amx_fp32_to_bf16()).
 */
int amx_gemm_bf16(unsigned int flags, size_t m, size_t n, size_t k,
		  const uint16_t *a, size_t lda, const uint16_t *b, size_t ldb,
		  float *c, size_t ldc);

/* C (+)= A * B with signed 8-bit A and B, int32 C (wrap-around on overflow) */
int amx_gemm_s8s8(unsigned int flags, size_t m, size_t n, size_t k,
		  const int8_t *a, size_t lda, const int8_t *b, size_t ldb,
		  int32_t *c, size_t ldc);

/* C (+)= A * B with unsigned 8-bit A, signed 8-bit B, int32 C */
int amx_gemm_u8s8(unsigned int flags, size_t m, size_t n, size_t k,
		  const uint8_t *a, size_t lda, const int8_t *b, size_t ldb,
		  int32_t *c, size_t ldc);

/* A B[k x n] re-laid out once for reuse with many A of any row count. */
struct amx_packed_b;

int amx_packed_b_create(struct amx_packed_b **pb, enum amx_gemm_type type,
			size_t k, size_t n, const void *b, size_t ldb);
void amx_packed_b_free(struct amx_packed_b *pb);
/* bytes held by the packed copy (0 for NULL) */
size_t amx_packed_b_size(const struct amx_packed_b *pb);

int amx_gemm_bf16_packed(unsigned int flags, size_t m, const uint16_t *a,
			 size_t lda, const struct amx_packed_b *b, float *c,
			 size_t ldc);
int amx_gemm_s8s8_packed(unsigned int flags, size_t m, const int8_t *a,
			 size_t lda, const struct amx_packed_b *b, int32_t *c,
			 size_t ldc);
int amx_gemm_u8s8_packed(unsigned int flags, size_t m, const uint8_t *a,
			 size_t lda, const struct amx_packed_b *b, int32_t *c,
			 size_t ldc);

/*
 * Library thread pool: n workers (including the caller); 0 restores the
 * default (AMX_NUM_THREADS, else one per physical core of the affinity mask).
 */
int amx_set_num_threads(unsigned int n);
int amx_get_num_threads(void);

/*
 * enum amx_gemm_backend that a GEMM call on @type made now by this process
 * would use (AMX only once amx_request() succeeded), or -EINVAL.
 */
int amx_gemm_backend(enum amx_gemm_type type);

#ifdef __cplusplus
}
#endif

#endif /* AMX_GEMM_H */
