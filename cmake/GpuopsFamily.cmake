# gpuops_add_family(<name> SOURCES <host sources> CUDA_MAIN <cuda/main.cu>
#                   [HIP_MAIN <hip/main.hip>] [LIBS <libs>] SUITE_SOURCES <sources>
#                   [SUITE_LIBS <libs>] [TEST_ONLY])
#
# Adds library gpuops_ops_<name> with the family's host code and its embedded module image:
# signatures.txt always; with GPUOPS_CUDA_KERNELS also the fatbin nvcc builds from CUDA_MAIN, a
# test that the committed signatures.txt matches that fatbin, and a target
# update_signatures_<name> (all of them: update_signatures) that rewrites it. The library is
# gpuops::<name> and installed with its headers, unless TEST_ONLY. And, where tools or tests
# are built, library gpuops_ops_<name>_suite: the family as tools and suites see it
# (ops/family.h, its Unit()), which the product library never links. With GPUOPS_HIP_KERNELS and
# HIP_MAIN: the code-object bundle hipcc builds (<name>.hsaco), embedded in the library, a test that signatures.txt's HIP
# section matches it, and update_signatures_hip_<name>.
if(NOT TARGET update_signatures)
  add_custom_target(update_signatures)
endif()

function(gpuops_add_family name)
  cmake_parse_arguments(ARG "TEST_ONLY" "CUDA_MAIN;HIP_MAIN" "SOURCES;LIBS;SUITE_SOURCES;SUITE_LIBS" ${ARGN})
  # A test-only family exists only in builds with tests, benchmarks, the command or fuzzers.
  if(ARG_TEST_ONLY AND NOT GPUOPS_BUILD_SUITES AND NOT GPUOPS_FUZZ)
    return()
  endif()
  set(lib gpuops_ops_${name})
  add_library(${lib} ${ARG_SOURCES})
  target_include_directories(${lib} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/gpuops>)
  target_link_libraries(${lib} PUBLIC gpuops_runtime gpuops_ops_kit ${ARG_LIBS}
                        PRIVATE gpuops_options)
  if(NOT ARG_TEST_ONLY)
    gpuops_export_library(${lib} ${name})
    set_property(GLOBAL APPEND PROPERTY GPUOPS_PRODUCT_FAMILIES ${lib})
    if(GPUOPS_INSTALL)
      install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuops/ops/${name}
              FILES_MATCHING PATTERN "*.h" PATTERN "*_checks.h" EXCLUDE)
    endif()
  endif()
  if(GPUOPS_BUILD_SUITES)
    add_library(${lib}_suite ${ARG_SUITE_SOURCES})
    target_link_libraries(${lib}_suite PUBLIC ${lib} gpuops_ops_family gpuops_verify
                          ${ARG_SUITE_LIBS} PRIVATE gpuops_options)
  endif()
  set(sig ${CMAKE_CURRENT_SOURCE_DIR}/signatures.txt)
  # The HIP kernels: the family's code-object bundle (embedded next to the fatbin) and the HIP
  # section of signatures.txt.
  set(embed_hsaco "")
  if(GPUOPS_HIP_KERNELS AND ARG_HIP_MAIN)
    file(GLOB hip_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/hip/*.hip
         ${CMAKE_CURRENT_SOURCE_DIR}/hip/*.h ${CMAKE_CURRENT_SOURCE_DIR}/cuda/*.h)
    gpuops_add_hsaco(hsaco FAMILY ${name} SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_HIP_MAIN}
                     DEPENDS ${hip_sources})
    set(embed_hsaco HSACO ${hsaco})
    file(GLOB hip_kernel_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/hip/*.hip)
    set(hip_sigtool_args --family ${name} --hsaco ${hsaco} --arch ${GPUOPS_HIP_SIGNATURE_ARCH}
        --sources ${hip_kernel_sources})
    if(GPUOPS_BUILD_TESTS)
      add_test(NAME ${name}_hip_signatures_match_hsaco
               COMMAND gpuops_sigtool ${hip_sigtool_args} --check ${sig})
    endif()
    add_custom_target(update_signatures_hip_${name}
      COMMAND gpuops_sigtool ${hip_sigtool_args} --out ${sig}
      DEPENDS ${hsaco} gpuops_sigtool
      COMMENT "Rewriting the HIP section of ${sig} from the compiled ${name} code objects")
    add_dependencies(update_signatures update_signatures_hip_${name})
  endif()
  file(GLOB cuda_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cuda/*.cu
       ${CMAKE_CURRENT_SOURCE_DIR}/cuda/*.cuh ${CMAKE_CURRENT_SOURCE_DIR}/cuda/*.h)
  if(GPUOPS_CUDA_KERNELS)
    gpuops_add_fatbin(fatbin FAMILY ${name} SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_CUDA_MAIN}
                      DEPENDS ${cuda_sources})
    gpuops_embed_family(${lib} FAMILY ${name} SIGNATURES ${sig} FATBIN ${fatbin} ${embed_hsaco})
    set(sigtool_args --family ${name} --fatbin ${fatbin} --sources ${cuda_sources})
    if(GPUOPS_BUILD_TESTS)
      add_test(NAME ${name}_signatures_match_fatbin COMMAND gpuops_sigtool ${sigtool_args} --check ${sig})
    endif()
    add_custom_target(update_signatures_${name}
      COMMAND gpuops_sigtool ${sigtool_args} --out ${sig}
      DEPENDS ${fatbin} gpuops_sigtool
      COMMENT "Rewriting ${sig} from the compiled ${name} fatbin")
    add_dependencies(update_signatures update_signatures_${name})
  else()
    gpuops_embed_family(${lib} FAMILY ${name} SIGNATURES ${sig} ${embed_hsaco})
  endif()
endfunction()
