// The argument lists of the NVFP4 kernels (ops/nvfp4/cuda), one struct per list. A kernel binds to
// its struct when the family loads (names and sizes checked against the compiled parameters),
// launchers pack the struct, and the host emulations unpack it by name.
#pragma once

#include <cstdint>

#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/types.h"

namespace gpuops::ops::nvfp4 {

// C[M,N] = A[M,K] · dequant(W)ᵀ with W's k-rows exactly N apart: w4a16_gemm, _t_k64_n64_p3,
// _n128, _t_m128 (FP8, v2, v3), _t_m128_bf16.
GPUOPS_KERNEL_ARGS(Nvfp4Args, (DevicePtr, a), (DevicePtr, b_packed), (DevicePtr, b_scale),
                   (float, scale2), (DevicePtr, c), (uint32_t, m), (uint32_t, n), (uint32_t, k));

// The same with W's k-rows ldb columns apart (a padded weight, any N): w4a16_gemm_n128_ldb,
// w4a16_gemm_t_m128_bf16_ldb.
GPUOPS_KERNEL_ARGS(Nvfp4LdbArgs, (DevicePtr, a), (DevicePtr, b_packed), (DevicePtr, b_scale),
                   (float, scale2), (DevicePtr, c), (uint32_t, m), (uint32_t, n), (uint32_t, k),
                   (uint32_t, ldb));

}  // namespace gpuops::ops::nvfp4
