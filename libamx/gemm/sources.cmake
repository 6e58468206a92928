# SPDX-License-Identifier: MIT
# GEMM helpers and thread pool: sources of the amx library target, with the
# ISA flags set only on the files whose code needs them (the library itself
# stays baseline x86-64; the fast paths are chosen at run time).
set(AMX_GEMM_DIR ${CMAKE_CURRENT_LIST_DIR})

set(AMX_GEMM_SOURCES
	${AMX_GEMM_DIR}/gemm.c
	${AMX_GEMM_DIR}/gemm_cpu.c
	${AMX_GEMM_DIR}/gemm_backends.c
	${AMX_GEMM_DIR}/gemm_blocks.c
	${AMX_GEMM_DIR}/gemm_tuning.c
	${AMX_GEMM_DIR}/gemm_ref.c
	${AMX_GEMM_DIR}/epilogue.c
	${AMX_GEMM_DIR}/epilogue_avx512.c
	${AMX_GEMM_DIR}/wq.c
	${AMX_GEMM_DIR}/wq_avx512.c
	${AMX_GEMM_DIR}/wq_vnni_avx512.c
	${AMX_GEMM_DIR}/wq_amx.c
	${AMX_GEMM_DIR}/pack_a.c
	${AMX_GEMM_DIR}/pack_bf16_vnni.c
	${AMX_GEMM_DIR}/pack_s8_vnni.c
	${AMX_GEMM_DIR}/gemm_avx512_bf16_12x32.c
	${AMX_GEMM_DIR}/gemm_avx512_u8s8_12x32.c
	${AMX_GEMM_DIR}/gemm_avx512_f16_12x32.c
	${AMX_GEMM_DIR}/gemm_amx_tile.c
	${AMX_GEMM_DIR}/gemm_amx_bf16_32x32.c
	${AMX_GEMM_DIR}/gemm_amx_int8_32x32.c
	${AMX_GEMM_DIR}/gemm_amx_f16_32x32.c
	${AMX_GEMM_DIR}/gemm_amx_cf16.c
	${AMX_GEMM_DIR}/../pool/pool.c
	${AMX_GEMM_DIR}/../pool/place.c
)

# The 12 x 32 micro-kernels hold 24 zmm accumulators, two of B and one of
# A: 27 of the 32 registers.  GCC's -ftree-partial-pre (on at -O3, so in
# CMAKE_BUILD_TYPE=Release) made the u8s8 one keep its accumulators on
# the stack, 469 spills, 3.7x slower on Zen 4; off here whatever the build
# type (-O2 has it off anyway).  tests/check_ukr_spills.sh holds all three
# to no spill at -O3.
set(AMX_UKR_OPTIONS "$<$<C_COMPILER_ID:GNU>:-fno-tree-partial-pre>")
set_source_files_properties(${AMX_GEMM_DIR}/gemm_avx512_bf16_12x32.c
	PROPERTIES COMPILE_OPTIONS
	"-mavx512f;-mavx512bw;-mavx512vl;-mavx512bf16;${AMX_UKR_OPTIONS}")
set_source_files_properties(${AMX_GEMM_DIR}/gemm_avx512_u8s8_12x32.c
	PROPERTIES COMPILE_OPTIONS
	"-mavx512f;-mavx512bw;-mavx512vl;-mavx512vnni;${AMX_UKR_OPTIONS}")
set_source_files_properties(${AMX_GEMM_DIR}/gemm_avx512_f16_12x32.c
	PROPERTIES COMPILE_OPTIONS
	"-mavx512f;-mavx512bw;-mavx512vl;${AMX_UKR_OPTIONS}")
set_source_files_properties(${AMX_GEMM_DIR}/wq_avx512.c
	PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512bw;-mavx512vl;-mavx512bf16")
set_source_files_properties(${AMX_GEMM_DIR}/wq_vnni_avx512.c
	PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512bw;-mavx512vl;-mavx512vnni")
# the two epilogues do the same float operations, neither fused (epilogue.h)
set_source_files_properties(${AMX_GEMM_DIR}/epilogue.c
	PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")
# (AVX512-BF16 for its bf16 conversion, run only where CPUID has it)
set_source_files_properties(${AMX_GEMM_DIR}/epilogue_avx512.c
	PROPERTIES COMPILE_OPTIONS
	"-mavx512f;-mavx512bw;-mavx512vl;-mavx512bf16;-ffp-contract=off")
# the AMX files use amx.h's asm tile macros: no -mamx-* needed
# the packers and reference kernels are hot too; let them vectorise fully
set_source_files_properties(${AMX_GEMM_DIR}/pack_a.c
	${AMX_GEMM_DIR}/pack_bf16_vnni.c ${AMX_GEMM_DIR}/pack_s8_vnni.c
	${AMX_GEMM_DIR}/gemm_ref.c ${AMX_GEMM_DIR}/wq.c ${AMX_GEMM_DIR}/wq_amx.c
	PROPERTIES COMPILE_OPTIONS "-O3")
