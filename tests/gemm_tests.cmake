# SPDX-License-Identifier: MIT
# GEMM tests (TAP; exit 0 pass, 4 skip, 1 fail); included from the tests
# directory's CMakeLists.txt, which defines amx_add_test().
# the shape grid, one program per fallback path (each within its time bound)
foreach(_path avx512 c)
  amx_add_test(NAME gemm_bf16.${_path} TARGET test_gemm_bf16
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_bf16.c ARGS ${_path}
	LABELS gemm GUEST_DEFAULT_ONLY)
  amx_add_test(NAME gemm_int8.${_path} TARGET test_gemm_int8
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_int8.c ARGS ${_path}
	LABELS gemm GUEST_DEFAULT_ONLY)
  # not in the guest: its kernels are the same C and AVX-512F code as
  # natively (the TCG guest has no AVX-512), and the guest's time bound
  # goes to the AMX programs
  amx_add_test(NAME gemm_f16.${_path} TARGET test_gemm_f16
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_f16.c ARGS ${_path}
	LABELS gemm NO_GUEST)
endforeach()
# the fused epilogue: the fallback backends, and AMX (amx-run, the guest)
amx_add_test(NAME gemm_epilogue TARGET test_gemm_epilogue
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_epilogue.c ARGS fallback
	LIBS m LABELS gemm NO_GUEST)
amx_add_test(NAME gemm_epilogue.amx TARGET test_gemm_epilogue
	SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_epilogue.c ARGS amx
	LIBS m NEEDS_AMX LABELS gemm GUEST_DEFAULT_ONLY)
amx_add_test(NAME gemm_errors SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_errors.c
	LABELS gemm GUEST_DEFAULT_ONLY)
# also on the two-node guest: 8 CPUs, the pool split over two nodes
amx_add_test(NAME gemm_threads SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_threads.c
	LABELS gemm GUEST_DEFAULT_ONLY GUEST_NUMA)
amx_add_test(NAME gemm_amx SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_amx.c
	NEEDS_AMX LABELS gemm GUEST_DEFAULT_ONLY)
amx_add_test(NAME gemm_amx_f16 SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_amx_f16.c
	NEEDS_AMX LABELS gemm GUEST_DEFAULT_ONLY)
# the AMX path on a C model of the tile instructions, on any x86-64: the
# library's sources behind the link-time seam (amx_tile_model), the model
# in the test program; not a guest program (the guest has the real thing)
if(TARGET amx_tile_model)
  add_executable(test_gemm_amx_emul ${CMAKE_CURRENT_LIST_DIR}/gemm_amx_emul.c)
  target_link_libraries(test_gemm_amx_emul PRIVATE amx_tile_model amx_build_flags m)
  target_include_directories(test_gemm_amx_emul PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  # the tile model is scalar C: optimise it even in Debug/sanitizer builds
  target_compile_options(test_gemm_amx_emul PRIVATE -O2)
  add_test(NAME gemm_amx_emul COMMAND test_gemm_amx_emul)
  # 18 s on a quiet Zen; over 50 s (tap.h's default bound) on a fresh
  # machine with two QEMU builds beside it: its own bound is ctest's, less 10 s
  set_tests_properties(gemm_amx_emul PROPERTIES SKIP_RETURN_CODE 4 TIMEOUT 120
                       ENVIRONMENT AMX_TEST_ALARM=110 LABELS "unit;gemm")
endif()
# whatever tile state the caller left, a GEMM computes and returns 0
amx_add_test(NAME gemm_tile_state SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_tile_state.c
	NEEDS_AMX LABELS gemm GUEST_DEFAULT_ONLY)
# the grids' oracle is scalar C: optimise it even in Debug/sanitizer builds
# (the library they test keeps the build's flags)
target_compile_options(test_gemm_bf16 PRIVATE -O2)
target_compile_options(test_gemm_int8 PRIVATE -O2)
target_compile_options(test_gemm_f16 PRIVATE -O2)
target_compile_options(test_gemm_amx_f16 PRIVATE -O2)
target_compile_options(test_gemm_epilogue PRIVATE -O2)
# blocking: tuning file, AMX_GEMM_BLOCKS, odd blockings on every backend
amx_add_test(NAME gemm_blocking SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_blocking.c
	LABELS gemm GUEST_DEFAULT_ONLY)
# amx-tune's sweep, bounded, and the file it writes read back
amx_add_test(NAME gemm_tune SOURCES ${CMAKE_CURRENT_LIST_DIR}/gemm_tune.c
	LABELS gemm GUEST_DEFAULT_ONLY)
