/* SPDX-License-Identifier: MIT */
/*
 * The fused epilogue's arithmetic, shared by the portable C version
 * (epilogue.c) and the AVX-512 one (epilogue_avx512.c), which does the
 * same float operations in the same order, lane by lane, so that both
 * give the same bits (both files are built with -ffp-contract=off: no
 * multiply-add is fused in one and not the other).  No libm: the library
 * does not link it, and its exp() would cost more than the product of a
 * decode call.
 *
 * exp(x): x = n ln2 + r with |r| <= ln2 / 2 (ln2 in two parts, Cody and
 * Waite, so that n * EPI_LN2_HI is exact), e^r by its Taylor polynomial
 * of degree 7 (truncation below 6e-9 relative), times 2^n as two powers
 * of two so that every n from -150 to 128 has a normal scale factor.
 * x is clamped to [-104, 89] first: e^89 overflows to infinity and e^-104
 * rounds to 0 or the smallest denormal, as the true values do.
 *
 * erfc(a), a >= 0, for GELU's erf form: t = 1 / (1 + a / 2), erfc(a) =
 * t exp(-a^2 + P(t)) with P the degree-9 Chebyshev fit published in
 * Press et al., Numerical Recipes (2nd ed., 6.2): fractional error below
 * 1.2e-7 for every a.  1 + erf(z) is then 2 - erfc(z) for z >= 0 and
 * erfc(-z) below, so that GELU keeps its relative accuracy where it
 * tends to 0 (no 1 - 1 cancellation).
 */
#ifndef AMX_GEMM_EPILOGUE_H
#define AMX_GEMM_EPILOGUE_H

#define EPI_LOG2E	1.44269504088896341f
#define EPI_LN2_HI	0.693145751953125f	/* 0x3f317200: 9 low zero bits */
#define EPI_LN2_LO	1.42860682030941723212e-6f
/* x + 1.5 * 2^23 - 1.5 * 2^23: x rounded to an integer, ties to even */
#define EPI_RND		12582912.0f
#define EPI_EXP_LO	-104.0f
#define EPI_EXP_HI	89.0f
#define EPI_C7		1.98412698412698413e-4f	/* 1/7! */
#define EPI_C6		1.38888888888888889e-3f	/* 1/6! */
#define EPI_C5		8.33333333333333333e-3f	/* 1/5! */
#define EPI_C4		4.16666666666666667e-2f	/* 1/4! */
#define EPI_C3		1.66666666666666667e-1f	/* 1/3! */
#define EPI_C2		0.5f
/* GELU, tanh form: v / (1 + exp(-2 sqrt(2/pi) (v + 0.044715 v^3))) */
#define EPI_GELU_K	0.044715f
#define EPI_GELU_M2S	-1.59576912160573071f	/* -2 sqrt(2 / pi) */
#define EPI_RSQRT2	0.70710678118654752f
/* erfc's P(t), highest degree first */
#define EPI_ERFC_P { 0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, \
		     0.27886807f, -0.18628806f, 0.09678418f, 0.37409196f, \
		     1.00002368f, -1.26551223f }
#define EPI_ERFC_NP 10

#endif
