# Install rules and the CMake package (find_package(gpuops CONFIG)): every product library in
# the export set gpuopsTargets under gpuops::<name>, its headers, and gpuopsConfig.cmake with
# its version file. Test and bench code (testkit, suites, verify, tools) is not installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# gpuops_export_library(<target> <name>): `target` is gpuops::<name> here (an alias) and in the
# installed package.
function(gpuops_export_library target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(gpuops::${name} ALIAS ${target})
  if(GPUOPS_INSTALL)
    install(TARGETS ${target} EXPORT gpuopsTargets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
            INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endfunction()

# gpuops_install_package(): the export set, the config and version files. Called once, last.
function(gpuops_install_package)
  if(NOT GPUOPS_INSTALL)
    return()
  endif()
  set(dir ${CMAKE_INSTALL_LIBDIR}/cmake/gpuops)
  install(EXPORT gpuopsTargets NAMESPACE gpuops:: DESTINATION ${dir})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpuopsConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/gpuopsConfig.cmake INSTALL_DESTINATION ${dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuopsConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/gpuopsConfig.cmake ${PROJECT_BINARY_DIR}/gpuopsConfigVersion.cmake
          DESTINATION ${dir})
endfunction()
