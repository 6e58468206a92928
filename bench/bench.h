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

/* bench_threads.c */
/* "all": the physical cores of the affinity mask (the pool's default) */
unsigned int bench_all_threads(void);
/*
 * "1,2,4,all" into @out (at most @max), ascending, each count once;
 * returns the count, -1 on a malformed list or a count not in 1..256
 */
int bench_parse_threads(const char *s, unsigned int *out, int max);
/* the NUMA nodes the pool's threads are on (starts the pool) */
int bench_pool_nodes(void);

#endif
