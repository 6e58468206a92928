# SPDX-License-Identifier: MIT
#
# The QEMU guest stage as CTest tests (label "guest"):
#   guest.boot.default, guest.boot.strict  boot the patched kernel with
#       every manifest program (default, and strict_sas_size=1); they fail
#       on any "not ok", a missing result, a kernel WARNING/BUG/Oops or a
#       timeout;
#   guest.boot.asan  boots once more with the programs that need AMX built
#       with ASan and UBSan (dynamically linked, their libraries copied
#       into the initramfs), but the GEMM grids: the only sanitized run of
#       the AMX paths on a machine without AMX (the AMX GEMM code runs
#       sanitized natively on the tile model, gemm_amx_emul);
#   guest.<variant>.<name>  the outcome of one program or kselftest in
#       that boot, from its exit code and KTAP totals
#       (kernel/rig/ktap-results.sh): pass, skip (4) or fail; no result
#       (the boot failed, e.g. the patched QEMU did not build) is a fail;
#   guest.boot.numa, guest.numa.<name>  the GUEST_NUMA programs once
#       more on a two-socket, two-node guest (run-guest.sh --numa: 8
#       vCPUs, 4 per node), without the kernel selftests;
#   guest.migrate  tile state survives migrating the guest to a file and
#       back (tests/emu/amx_migrate.py).
#   guest.boot.debug, guest.debug.<name>  (AMX_GUEST_DEBUG=ON only, label
#       kdebug, not guest: a second kernel build and a slow boot) every
#       program and kselftest once more on the debug kernel (KASAN,
#       kmemleak, lockdep: kernel/rig/run-guest.sh --debug); the boot
#       fails on any report of theirs.

function(amx_add_guest_tests)
  cmake_parse_arguments(G "" "" "KSELFTESTS" ${ARGN})
  get_property(_lines GLOBAL PROPERTY AMX_GUEST_MANIFEST)
  set(_names ${G_KSELFTESTS})
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "\t.*" "" _name "${_line}")
    list(APPEND _names ${_name})
  endforeach()

  get_property(_default_only GLOBAL PROPERTY AMX_GUEST_DEFAULT_ONLY)
  get_property(_needs_amx GLOBAL PROPERTY AMX_GUEST_NEEDS_AMX)
  get_property(_numa GLOBAL PROPERTY AMX_GUEST_NUMA)
  set(_variants default strict asan)
  if(_numa)
    list(APPEND _variants numa)
  endif()
  if(AMX_GUEST_DEBUG)
    list(APPEND _variants debug)
  endif()
  foreach(_variant IN LISTS _variants)
    set(_label guest)
    set(_timeout 1800)
    if(_variant STREQUAL "debug")
      set(_label kdebug)
      set(_timeout 3600)
    endif()
    add_test(NAME guest.boot.${_variant}
             COMMAND ${PROJECT_SOURCE_DIR}/cmake/guest-stage.sh
                     ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${_variant})
    # Two cores: one boot at a time; the kernel and QEMU builds are cached.
    set_tests_properties(guest.boot.${_variant} PROPERTIES
      LABELS ${_label} TIMEOUT ${_timeout} RESOURCE_LOCK amx_guest
      FIXTURES_SETUP guest_${_variant})
    foreach(_name IN LISTS _names)
      if(_variant STREQUAL "strict" AND _name IN_LIST _default_only)
        continue()
      endif()
      if(_variant STREQUAL "numa" AND NOT _name IN_LIST _numa)
        continue()
      endif()
      if(_variant STREQUAL "asan" AND
         (NOT _name IN_LIST _needs_amx OR _name IN_LIST _default_only))
        continue()
      endif()
      add_test(NAME guest.${_variant}.${_name}
               COMMAND ${PROJECT_SOURCE_DIR}/cmake/guest-result.sh
                       ${CMAKE_BINARY_DIR}/guest-${_variant}/results.tsv ${_name})
      set_tests_properties(guest.${_variant}.${_name} PROPERTIES
        LABELS ${_label} SKIP_RETURN_CODE 4 FIXTURES_REQUIRED guest_${_variant})
    endforeach()
  endforeach()

  # Tile state survives migration of the guest to a file and back
  # (kernel/qemu); uses the QEMU and kernel the boots above built.
  find_program(AMX_PYTHON3 python3)
  if(AMX_PYTHON3)
    add_test(NAME guest.migrate
             COMMAND ${AMX_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/emu/amx_migrate.py
                     ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/guest-migrate)
    set_tests_properties(guest.migrate PROPERTIES
      LABELS guest TIMEOUT 600 SKIP_RETURN_CODE 4 RESOURCE_LOCK amx_guest
      FIXTURES_REQUIRED guest_default)
  endif()
endfunction()
