# SPDX-License-Identifier: MIT
#
# amx_add_test(NAME <name> SOURCES <files...> [NEEDS_AMX] [ARGS <args...>]
#              [LABELS <labels...>] [LIBS <targets...>] [NO_GUEST]
#              [GUEST_DEFAULT_ONLY] [GUEST_NUMA] [TARGET <program>])
#
# One program per feature.  The program prints TAP and exits 0 (pass),
# 4 (skip: the feature is missing here) or anything else (fail).  Every
# test is also listed in the guest manifest so the QEMU rig runs it in the
# guest (static build, AMX_GUEST=ON), unless NO_GUEST.  The guest boots
# twice, the second time with strict_sas_size=1; GUEST_DEFAULT_ONLY keeps
# a long test that has nothing to do with signal stacks (GEMM) out of the
# second boot.
#
# TARGET names the program (default test_<name>); several tests with other
# ARGS may share one program: it is built once.
#
# amx_add_test_command(NAME <name> COMMAND <cmd...> [LABELS ...]) adds a
# test that is not one of our programs (scripts, consumer builds).

# Every NEEDS_AMX test and example also runs under tools/amx-run, the
# user-mode emulator of our patched QEMU (label amxrun): so a machine
# without AMX runs them instead of skipping them.  There a skip (exit 4)
# is a failure: under amx-run AMX must be there.  The fixture test
# amxrun.qemu builds (or finds cached) the emulator with
# kernel/qemu/build.sh; amxrun-emulator.sh runs amx-run with the
# qemu-x86_64 it made.  Not in sanitizer builds (ASan's shadow memory
# does not fit QEMU's user-mode address space) nor for the guest.
if(AMX_SANITIZE OR AMX_GUEST)
  set(_amx_run_default OFF)
else()
  set(_amx_run_default ON)
endif()
option(AMX_RUN_TESTS "Run the AMX tests under amx-run too (label amxrun)" ${_amx_run_default})
if(AMX_RUN_TESTS)
  set(AMX_RUN_EMULATOR ${CMAKE_BINARY_DIR}/amxrun-emulator.sh)
  file(WRITE ${AMX_RUN_EMULATOR}
"#!/bin/sh
# amx-run with the qemu-x86_64 that the amxrun.qemu test built (CMake-generated)
q=$(tail -n 1 '${CMAKE_BINARY_DIR}/amxrun-qemu.txt' 2>/dev/null)
[ -n \"$q\" ] && q=$(dirname \"$q\")/qemu-x86_64
exec sh '${PROJECT_SOURCE_DIR}/tools/amx-run' \${q:+--qemu \"$q\"} \"$@\"
")
  file(CHMOD ${AMX_RUN_EMULATOR} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  add_test(NAME amxrun.qemu COMMAND sh -c
           "'${PROJECT_SOURCE_DIR}/kernel/qemu/build.sh' > '${CMAKE_BINARY_DIR}/amxrun-qemu.txt'")
  set_tests_properties(amxrun.qemu PROPERTIES LABELS amxrun TIMEOUT 3600
                       FIXTURES_SETUP amxrun_qemu RESOURCE_LOCK amx_qemu_build)
endif()

# amx__amxrun_test(<name> <target> <args...>): <name> again as amxrun.<name>
function(amx__amxrun_test name target)
  if(NOT AMX_RUN_TESTS)
    return()
  endif()
  add_test(NAME amxrun.${name} COMMAND ${AMX_RUN_EMULATOR} $<TARGET_FILE:${target}> ${ARGN})
  # Emulated code is 10-100x slower: the programs' own bound grows too.
  set_tests_properties(amxrun.${name} PROPERTIES LABELS amxrun TIMEOUT 900
                       FIXTURES_REQUIRED amxrun_qemu ENVIRONMENT AMX_TEST_ALARM=800)
endfunction()

set_property(GLOBAL PROPERTY AMX_GUEST_MANIFEST "")
set_property(GLOBAL PROPERTY AMX_GUEST_DEFAULT_ONLY "")
set_property(GLOBAL PROPERTY AMX_GUEST_NEEDS_AMX "")
set_property(GLOBAL PROPERTY AMX_GUEST_NUMA "")

# Library the test and example programs link: static in the guest.
if(AMX_GUEST)
  set(AMX_TEST_LIB amx::amx_static)
else()
  set(AMX_TEST_LIB amx::amx)
endif()

function(amx_link_program target)
  target_link_libraries(${target} PRIVATE ${AMX_TEST_LIB} amx_build_flags)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  if(AMX_GUEST)
    target_link_options(${target} PRIVATE -static)
  endif()
endfunction()

function(amx__guest_list name target args default_only needs_amx)
  string(REPLACE ";" "\t" _args "${args}")
  set_property(GLOBAL APPEND PROPERTY AMX_GUEST_MANIFEST
               "${name}\t$<TARGET_FILE:${target}>\t${_args}")
  if(default_only)
    set_property(GLOBAL APPEND PROPERTY AMX_GUEST_DEFAULT_ONLY ${name})
  endif()
  if(needs_amx)
    set_property(GLOBAL APPEND PROPERTY AMX_GUEST_NEEDS_AMX ${name})
  endif()
endfunction()

function(amx_add_test)
  cmake_parse_arguments(T "NEEDS_AMX;NO_GUEST;GUEST_DEFAULT_ONLY;GUEST_NUMA"
                        "NAME;TARGET"
                        "SOURCES;ARGS;LABELS;LIBS" ${ARGN})
  if(T_TARGET)
    set(_target ${T_TARGET})
  else()
    set(_target test_${T_NAME})
  endif()
  if(NOT TARGET ${_target})
    add_executable(${_target} ${T_SOURCES})
    amx_link_program(${_target})
    if(T_LIBS)
      target_link_libraries(${_target} PRIVATE ${T_LIBS})
    endif()
  endif()
  add_test(NAME ${T_NAME} COMMAND ${_target} ${T_ARGS})
  set(_labels unit ${T_LABELS})
  if(T_NEEDS_AMX)
    list(APPEND _labels amx)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 4 TIMEOUT 120
                       LABELS "${_labels}")
  if(T_NEEDS_AMX)
    amx__amxrun_test(${T_NAME} ${_target} ${T_ARGS})
  endif()
  if(NOT T_NO_GUEST)
    amx__guest_list(${T_NAME} ${_target} "${T_ARGS}" "${T_GUEST_DEFAULT_ONLY}"
                    "${T_NEEDS_AMX}")
    if(T_GUEST_NUMA)
      set_property(GLOBAL APPEND PROPERTY AMX_GUEST_NUMA ${T_NAME})
    endif()
  endif()
endfunction()

# An example program run as a test (it verifies its own result).
function(amx_example_test name target)
  cmake_parse_arguments(E "NEEDS_AMX;NO_GUEST;GUEST_DEFAULT_ONLY" "" "ARGS" ${ARGN})
  add_test(NAME example.${name} COMMAND ${target} ${E_ARGS})
  set(_labels example)
  if(E_NEEDS_AMX)
    list(APPEND _labels amx)
  endif()
  set_tests_properties(example.${name} PROPERTIES SKIP_RETURN_CODE 4 TIMEOUT 120
                       LABELS "${_labels}")
  if(E_NEEDS_AMX)
    amx__amxrun_test(example.${name} ${target} ${E_ARGS})
  endif()
  if(NOT E_NO_GUEST)
    amx__guest_list(example.${name} ${target} "${E_ARGS}" "${E_GUEST_DEFAULT_ONLY}"
                    "${E_NEEDS_AMX}")
  endif()
endfunction()

function(amx_add_test_command)
  cmake_parse_arguments(T "" "NAME" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 4 TIMEOUT 600
                       LABELS "${T_LABELS}")
endfunction()

# guest-manifest.tsv: name <TAB> program <TAB> args..., one test a line;
# guest-manifest-strict.tsv: the same less the GUEST_DEFAULT_ONLY tests;
# guest-manifest-numa.tsv: the GUEST_NUMA tests, for the two-node boot
# (run-guest.sh --numa) on top of the default one;
# guest-manifest-amx.tsv: the NEEDS_AMX ones but the GUEST_DEFAULT_ONLY
# GEMM grids (the sanitized guest boot: under ASan in TCG the grids run
# past their time bound; the tile-model test gemm_amx_emul runs the AMX
# GEMM code under the sanitizers natively on every machine).
function(amx_write_guest_manifest)
  get_property(_lines GLOBAL PROPERTY AMX_GUEST_MANIFEST)
  get_property(_default_only GLOBAL PROPERTY AMX_GUEST_DEFAULT_ONLY)
  get_property(_needs_amx GLOBAL PROPERTY AMX_GUEST_NEEDS_AMX)
  get_property(_numa GLOBAL PROPERTY AMX_GUEST_NUMA)
  set(_strict)
  set(_amx)
  set(_numa_lines)
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "\t.*" "" _name "${_line}")
    if(_name IN_LIST _numa)
      list(APPEND _numa_lines "${_line}")
    endif()
    if(NOT _name IN_LIST _default_only)
      list(APPEND _strict "${_line}")
    endif()
    if(_name IN_LIST _needs_amx AND NOT _name IN_LIST _default_only)
      list(APPEND _amx "${_line}")
    endif()
  endforeach()
  list(JOIN _numa_lines "\n" _content)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/guest-manifest-numa.tsv CONTENT "${_content}\n")
  list(JOIN _amx "\n" _content)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/guest-manifest-amx.tsv CONTENT "${_content}\n")
  list(JOIN _lines "\n" _content)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/guest-manifest.tsv CONTENT "${_content}\n")
  list(JOIN _strict "\n" _content)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/guest-manifest-strict.tsv CONTENT "${_content}\n")
endfunction()
