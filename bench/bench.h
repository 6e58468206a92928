/* SPDX-License-Identifier: MIT */
#ifndef AMX_BENCH_H
#define AMX_BENCH_H

#include <stdint.h>

extern volatile double bench_sink;

/* each returns the flops (ops) it executed */
double bench_peak_avx512_bf16(long iters);
double bench_peak_avx512_int8(long iters);
double bench_peak_amx_bf16(long iters);
double bench_peak_amx_int8(long iters);

#endif
