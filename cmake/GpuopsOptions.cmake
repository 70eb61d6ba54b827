# Warnings and sanitizers for every gpuops target.
add_library(gpuops_options INTERFACE)
target_compile_options(gpuops_options INTERFACE -Wall -Wextra -Werror=narrowing -Wno-unused-parameter
                                                -Wno-missing-field-initializers)
if(GPUOPS_SANITIZE)
  list(JOIN GPUOPS_SANITIZE "," _gpuops_san)
  target_compile_options(gpuops_options INTERFACE -fsanitize=${_gpuops_san} -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=all)
  target_link_options(gpuops_options INTERFACE -fsanitize=${_gpuops_san})
endif()
