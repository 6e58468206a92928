/* SPDX-License-Identifier: MIT */
/*
 * libamx_cblas: BLAS-style GEMM entry points on top of libamx, so that code
 * written against Intel MKL's cblas_gemm_bf16bf16f32()/cblas_gemm_f16f16f32()/
 * cblas_gemm_s8u8s32() (and their packed forms, cblas_gemm_*_pack_get_size(), _pack() and
 * _compute()) or OpenBLAS's cblas_sbgemm()/cblas_sbgemv() can be relinked
 * against libamx.  Link with -lamx_cblas (pkg-config amx_cblas, CMake
 * amx::amx_cblas).
 *
 * LP64 interface: every dimension is a C int.  The enumerations have the
 * values every CBLAS uses; when another cblas.h or MKL's mkl_cblas.h was
 * included first, its definitions are used instead of ours.  Errors are
 * reported the BLAS way: a message on stderr naming the function and the
 * position of the bad argument, and C is left untouched (see
 * cblas_gemm_bf16bf16f32(3)).
 */
#ifndef AMX_CBLAS_H
#define AMX_CBLAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define AMX_CBLAS_API __attribute__((visibility("default")))
#else
#define AMX_CBLAS_API
#endif

/* MKL's header defines all of these; netlib's and OpenBLAS's (CBLAS_H) the
 * layout and transpose ones only. */
#if !defined(_MKL_CBLAS_H_) && !defined(__MKL_CBLAS_H__)
#if !defined(CBLAS_H)
typedef enum CBLAS_LAYOUT {
	CblasRowMajor = 101,
	CblasColMajor = 102
} CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE {
	CblasNoTrans = 111,
	CblasTrans = 112,
	CblasConjTrans = 113	/* same as CblasTrans for real data */
} CBLAS_TRANSPOSE;
#endif
/* which C_offset cblas_gemm_s8u8s32() adds */
typedef enum CBLAS_OFFSET {
	CblasRowOffset = 171,	/* oc[j]: n values, one per column */
	CblasColOffset = 172,	/* oc[i]: m values, one per row */
	CblasFixOffset = 173	/* oc[0] everywhere */
} CBLAS_OFFSET;
/* which operand cblas_gemm_*_pack() packs */
typedef enum CBLAS_IDENTIFIER {
	CblasAMatrix = 161,
	CblasBMatrix = 162
} CBLAS_IDENTIFIER;
/* transa/transb of cblas_gemm_*_compute(): that operand is packed */
typedef enum CBLAS_STORAGE {
	CblasPacked = 151
} CBLAS_STORAGE;
#endif

/* OpenBLAS spells the bf16 storage type bfloat16, MKL MKL_BF16: both are the
 * upper 16 bits of an IEEE binary32 (amx_bf16 in <amx.h>), passed here as
 * uint16_t. */
#if !defined(OPENBLAS_CONFIG_H)
typedef uint16_t bfloat16;
#endif

/*
 * C := alpha * op(A) * op(B) + beta * C, bf16 A and B, fp32 accumulation
 * and C.  beta == 0 does not read C (NaN in C does not propagate).
 */
/* with mkl_cblas.h included, MKL's own declarations of these two stand */
#if !defined(_MKL_CBLAS_H_) && !defined(__MKL_CBLAS_H__)
AMX_CBLAS_API void
cblas_gemm_bf16bf16f32(const CBLAS_LAYOUT Layout,
		       const CBLAS_TRANSPOSE transa,
		       const CBLAS_TRANSPOSE transb, const int m, const int n,
		       const int k, const float alpha, const uint16_t *a,
		       const int lda, const uint16_t *b, const int ldb,
		       const float beta, float *c, const int ldc);
#endif

/*
 * The same with IEEE binary16 A and B (MKL's MKL_F16, amx_fp16 in <amx.h>,
 * passed as uint16_t), fp32 accumulation and C.
 */
#if !defined(_MKL_CBLAS_H_) && !defined(__MKL_CBLAS_H__)
AMX_CBLAS_API void
cblas_gemm_f16f16f32(const CBLAS_LAYOUT Layout, const CBLAS_TRANSPOSE transa,
		     const CBLAS_TRANSPOSE transb, const int m, const int n,
		     const int k, const float alpha, const uint16_t *a,
		     const int lda, const uint16_t *b, const int ldb,
		     const float beta, float *c, const int ldc);
#endif

/* OpenBLAS's name and types for the bf16 operation */
AMX_CBLAS_API void
cblas_sbgemm(const CBLAS_LAYOUT Order, const CBLAS_TRANSPOSE TransA,
	     const CBLAS_TRANSPOSE TransB, const int M, const int N,
	     const int K, const float alpha, const uint16_t *A, const int lda,
	     const uint16_t *B, const int ldb, const float beta, float *C,
	     const int ldc);

/*
 * C := alpha * (op(A) + oa) * (op(B) + ob) + beta * C + C_offset, int32 C.
 * As in MKL, the signedness of a and b follows the layout: column-major A
 * is int8_t and B uint8_t; row-major A is uint8_t and B int8_t (the
 * row-major call is the column-major one on the transposed problem).
 * offsetc picks C_offset from oc (CBLAS_OFFSET).  alpha == 1 with beta 0
 * or 1 is exact modulo 2^32; other scalars go through double, rounded to
 * nearest and saturated.
 */
#if !defined(_MKL_CBLAS_H_) && !defined(__MKL_CBLAS_H__)
AMX_CBLAS_API void
cblas_gemm_s8u8s32(const CBLAS_LAYOUT Layout, const CBLAS_TRANSPOSE transa,
		   const CBLAS_TRANSPOSE transb, const CBLAS_OFFSET offsetc,
		   const int m, const int n, const int k, const float alpha,
		   const void *a, const int lda, const int8_t oa,
		   const void *b, const int ldb, const int8_t ob,
		   const float beta, int32_t *c, const int ldc,
		   const int32_t *oc);
#endif

/*
 * MKL's packed GEMM: cblas_gemm_*_pack_get_size() bytes for op(A) (m x k,
 * CblasAMatrix) or op(B) (k x n, CblasBMatrix); cblas_gemm_*_pack() stores
 * op(src) there; cblas_gemm_*_compute() takes CblasPacked as transa or
 * transb for an operand so packed (its lda or ldb is then ignored), with
 * the same Layout, m, n and k as the pack.  A packed buffer holds no
 * pointer: it may be copied or moved (see cblas_gemm_bf16bf16f32_pack(3)).
 * transa and transb are MKL_INT in MKL, int here.
 */
#if !defined(_MKL_CBLAS_H_) && !defined(__MKL_CBLAS_H__)
AMX_CBLAS_API size_t
cblas_gemm_bf16bf16f32_pack_get_size(const CBLAS_IDENTIFIER identifier,
				     const int m, const int n, const int k);
AMX_CBLAS_API void
cblas_gemm_bf16bf16f32_pack(const CBLAS_LAYOUT Layout,
			    const CBLAS_IDENTIFIER identifier,
			    const CBLAS_TRANSPOSE trans, const int m,
			    const int n, const int k, const uint16_t *src,
			    const int ld, uint16_t *dest);
AMX_CBLAS_API void
cblas_gemm_bf16bf16f32_compute(const CBLAS_LAYOUT Layout, const int transa,
			       const int transb, const int m, const int n,
			       const int k, const float alpha,
			       const uint16_t *a, const int lda,
			       const uint16_t *b, const int ldb,
			       const float beta, float *c, const int ldc);

AMX_CBLAS_API size_t
cblas_gemm_f16f16f32_pack_get_size(const CBLAS_IDENTIFIER identifier,
				   const int m, const int n, const int k);
AMX_CBLAS_API void
cblas_gemm_f16f16f32_pack(const CBLAS_LAYOUT Layout,
			  const CBLAS_IDENTIFIER identifier,
			  const CBLAS_TRANSPOSE trans, const int m,
			  const int n, const int k, const uint16_t *src,
			  const int ld, uint16_t *dest);
AMX_CBLAS_API void
cblas_gemm_f16f16f32_compute(const CBLAS_LAYOUT Layout, const int transa,
			     const int transb, const int m, const int n,
			     const int k, const float alpha,
			     const uint16_t *a, const int lda,
			     const uint16_t *b, const int ldb,
			     const float beta, float *c, const int ldc);

AMX_CBLAS_API size_t
cblas_gemm_s8u8s32_pack_get_size(const CBLAS_IDENTIFIER identifier,
				 const int m, const int n, const int k);
AMX_CBLAS_API void
cblas_gemm_s8u8s32_pack(const CBLAS_LAYOUT Layout,
			const CBLAS_IDENTIFIER identifier,
			const CBLAS_TRANSPOSE trans, const int m, const int n,
			const int k, const void *src, const int ld,
			void *dest);
AMX_CBLAS_API void
cblas_gemm_s8u8s32_compute(const CBLAS_LAYOUT Layout, const int transa,
			   const int transb, const CBLAS_OFFSET offsetc,
			   const int m, const int n, const int k,
			   const float alpha, const void *a, const int lda,
			   const int8_t oa, const void *b, const int ldb,
			   const int8_t ob, const float beta, int32_t *c,
			   const int ldc, const int32_t *oc);
#endif

/*
 * OpenBLAS's bf16 matrix-vector product: y := alpha * op(A) * x + beta * y,
 * A m x n (as stored), fp32 y; negative incx/incy run the vectors
 * backwards, as in BLAS.
 */
AMX_CBLAS_API void
cblas_sbgemv(const CBLAS_LAYOUT order, const CBLAS_TRANSPOSE trans,
	     const int m, const int n, const float alpha, const uint16_t *a,
	     const int lda, const uint16_t *x, const int incx,
	     const float beta, float *y, const int incy);

#ifdef __cplusplus
}
#endif

#endif /* AMX_CBLAS_H */
