# nvcc for the op families' device code. Each family's kernels build into one fatbin holding SASS
# for sm_90a and sm_80 and PTX for compute_90 (ELF entries uncompressed, as nvcc 13 writes them).
# Kernels that need sm_90a features are guarded with __CUDA_ARCH_FEAT_SM90_ALL, so they exist only
# in the sm_90a image. Kernels include their family's cuda/ headers and the device helpers every
# family shares (ops/device/).
if(NOT GPUOPS_NVCC)
  find_program(GPUOPS_NVCC nvcc HINTS ENV CUDA_HOME PATHS /usr/local/cuda/bin REQUIRED)
endif()
get_filename_component(GPUOPS_CUDA_ROOT "${GPUOPS_NVCC}/../.." ABSOLUTE)
set(GPUOPS_CUDA_GENCODE
    -gencode=arch=compute_90a,code=sm_90a
    -gencode=arch=compute_80,code=sm_80
    -gencode=arch=compute_90,code=compute_90)
message(STATUS "gpuops: nvcc ${GPUOPS_NVCC}")

# gpuops_add_fatbin(<out_var> FAMILY <name> SOURCE <main.cu> [DEPENDS <files...>] [FLAGS <...>])
function(gpuops_add_fatbin out_var)
  cmake_parse_arguments(ARG "" "FAMILY;SOURCE" "DEPENDS;FLAGS" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${ARG_FAMILY}.fatbin)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${GPUOPS_NVCC} -fatbin -O3 -std=c++17 ${GPUOPS_CUDA_GENCODE} ${ARG_FLAGS}
            -I${CMAKE_CURRENT_SOURCE_DIR}/cuda -I${PROJECT_SOURCE_DIR}/ops -MD -MF ${out}.d -o ${out} ${ARG_SOURCE}
    DEPFILE ${out}.d
    DEPENDS ${ARG_SOURCE} ${ARG_DEPENDS}
    COMMENT "nvcc: ${ARG_FAMILY} kernels -> ${ARG_FAMILY}.fatbin"
    VERBATIM)
  add_custom_target(gpuops_${ARG_FAMILY}_fatbin DEPENDS ${out})
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
