# SPDX-License-Identifier: MIT
# libamx_cblas tests (TAP; exit 0 pass, 4 skip, 1 fail); included from the
# tests directory's CMakeLists.txt.  In the guest they link statically and
# run on AMX (the library requests it on the first call); they take about a
# second there, so the strict_sas_size boot runs them too.
if(AMX_GUEST)
  set(_cblas amx::amx_cblas_static)
else()
  set(_cblas amx::amx_cblas)
endif()
amx_add_test(NAME cblas_bf16 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cblas_bf16.c
  LIBS ${_cblas} m LABELS cblas)
amx_add_test(NAME cblas_s8u8s32 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cblas_s8u8s32.c
  LIBS ${_cblas} m LABELS cblas)
amx_add_test(NAME cblas_packed SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cblas_packed.c
  LIBS ${_cblas} m LABELS cblas)
amx_add_test(NAME cblas_sbgemv SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cblas_sbgemv.c
  LIBS ${_cblas} m LABELS cblas)
# the same on libamx's portable C kernels (the AVX-512 or AMX ones above)
if(NOT AMX_GUEST)
  foreach(_t cblas_bf16 cblas_s8u8s32 cblas_packed cblas_sbgemv)
    add_test(NAME ${_t}.c COMMAND test_${_t})
    set_tests_properties(${_t}.c PROPERTIES ENVIRONMENT AMX_FORCE_FALLBACK=c
      SKIP_RETURN_CODE 4 TIMEOUT 300 LABELS "unit;cblas")
  endforeach()
endif()
