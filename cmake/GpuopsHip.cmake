# hipcc for the op families' AMD device code. Each family with hip/<name>_kernels.hip builds into
# one clang offload bundle of code objects for the targets below (Debian's hipcc 5.2.3 builds
# them with no AMD GPU present), with -ffp-contract=off: a multiply and an add round separately
# unless a kernel writes fmaf (the strict-order kernels rely on it). As nvcc brings the CUDA
# device environment, the rule brings HIP's (-include hip/hip_runtime.h): no source under ops/
# names a vendor runtime header. Kernels include their family's headers, the layout headers
# they share with the CUDA kernels and ops/device/hip_kit.h through -I ops/.
if(NOT GPUOPS_HIPCC)
  find_program(GPUOPS_HIPCC hipcc HINTS ENV ROCM_PATH PATHS /usr/bin /opt/rocm/bin REQUIRED)
endif()
set(GPUOPS_HIP_ARCHS gfx908 gfx90a gfx940 gfx1030 CACHE STRING "AMD targets of the code objects")
set(GPUOPS_HIP_SIGNATURE_ARCH gfx90a CACHE STRING "the target signatures.txt's HIP offsets come from")
message(STATUS "gpuops: hipcc ${GPUOPS_HIPCC} (${GPUOPS_HIP_ARCHS})")

# gpuops_add_hsaco(<out_var> FAMILY <name> SOURCE <main.hip> [DEPENDS <files...>])
function(gpuops_add_hsaco out_var)
  cmake_parse_arguments(ARG "" "FAMILY;SOURCE" "DEPENDS" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${ARG_FAMILY}.hsaco)
  set(arch_flags "")
  foreach(arch IN LISTS GPUOPS_HIP_ARCHS)
    list(APPEND arch_flags --offload-arch=${arch})
  endforeach()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${GPUOPS_HIPCC} --genco -O3 -std=c++17 -ffp-contract=off -include hip/hip_runtime.h
            ${arch_flags}
            -I${CMAKE_CURRENT_SOURCE_DIR}/hip -I${PROJECT_SOURCE_DIR}/ops -o ${out} ${ARG_SOURCE}
    DEPENDS ${ARG_SOURCE} ${ARG_DEPENDS}
    COMMENT "hipcc: ${ARG_FAMILY} kernels -> ${ARG_FAMILY}.hsaco"
    VERBATIM)
  add_custom_target(gpuops_${ARG_FAMILY}_hsaco ALL DEPENDS ${out})
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
