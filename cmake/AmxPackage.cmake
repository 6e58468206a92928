# SPDX-License-Identifier: MIT
# The SDK: CMake package (amx::amx, amx::amx_static; component cblas:
# amx::amx_cblas, amx::amx_cblas_static) and pkg-config files.
include(CMakePackageConfigHelpers)

set(AMX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/amx)

install(EXPORT amxTargets NAMESPACE amx:: DESTINATION ${AMX_CMAKE_DIR})
export(EXPORT amxTargets NAMESPACE amx::
       FILE ${PROJECT_BINARY_DIR}/amxTargets.cmake)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/amxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/amxConfig.cmake INSTALL_DESTINATION ${AMX_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/amxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/amxConfig.cmake
              ${PROJECT_BINARY_DIR}/amxConfigVersion.cmake
        DESTINATION ${AMX_CMAKE_DIR})

# Relocatable: the prefix is found from where amx.pc itself is installed.
file(RELATIVE_PATH AMX_PC_UP /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
set(AMX_PC_PREFIX "\${pcfiledir}/${AMX_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/amx.pc.in ${PROJECT_BINARY_DIR}/amx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/amx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(AMX_BUILD_CBLAS)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/amx_cblas.pc.in
                 ${PROJECT_BINARY_DIR}/amx_cblas.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/amx_cblas.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
