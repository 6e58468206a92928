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
