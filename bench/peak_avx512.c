// SPDX-License-Identifier: MIT
/*
 * Register-only peak of the fallback's instructions: 24 independent
 * accumulator chains of vdpbf16ps (64 flops each) or vpdpbusd (128 ops),
 * no memory traffic (inline asm so the compiler keeps every instruction).
 * Built with -mavx512bf16 -mavx512vnni; call only when
 * the CPU has them.
 */
#include <immintrin.h>

#include "bench.h"

double bench_peak_avx512_bf16(long iters)
{
	__m512 acc[24];
	__m512bh a = (__m512bh)_mm512_set1_epi32(0x3f803f80);
	__m512bh b = (__m512bh)_mm512_set1_epi32(0x3c003c00);
	float sink = 0;

#pragma GCC unroll 24
	for (int j = 0; j < 24; j++)
		acc[j] = _mm512_setzero_ps();
	for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
		for (int j = 0; j < 24; j++)
			asm volatile("vdpbf16ps %2, %1, %0"
				     : "+v"(acc[j]) : "v"(a), "v"(b));
	}
#pragma GCC unroll 24
	for (int j = 0; j < 24; j++)
		sink += _mm512_reduce_add_ps(acc[j]);
	bench_sink += sink;
	return (double)iters * 24 * 64;
}

double bench_peak_avx512_int8(long iters)
{
	__m512i acc[24];
	__m512i a = _mm512_set1_epi32(0x01010101), b = _mm512_set1_epi32(1);
	int sink = 0;

#pragma GCC unroll 24
	for (int j = 0; j < 24; j++)
		acc[j] = _mm512_setzero_si512();
	for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
		for (int j = 0; j < 24; j++)
			asm volatile("vpdpbusd %2, %1, %0"
				     : "+v"(acc[j]) : "v"(a), "v"(b));
	}
#pragma GCC unroll 24
	for (int j = 0; j < 24; j++)
		sink += _mm512_reduce_add_epi32(acc[j]);
	bench_sink += sink;
	return (double)iters * 24 * 128;
}
