// The argument lists of the FP8 W8A16 kernels (ops/fp8/cuda), one struct per list, in the metrale
// seed's order. A kernel binds to its struct when the family loads (names and sizes checked
// against the compiled parameters), launchers pack it, and the host emulations unpack it by name.
#pragma once

#include <cstdint>

#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops::ops::fp8 {

// Contiguous rows: input [m, k] and output [m, n] BF16; weight [n, k] E4M3; block_scale
// [ceil(n/128), k/128] FP32. w8a16_gemm_m16, _m16_n64, w8a16_gemv_batch16.
GPUOPS_KERNEL_ARGS(Fp8Args, (DevicePtr, input), (DevicePtr, weight), (DevicePtr, block_scale),
                   (DevicePtr, output), (uint32_t, m), (uint32_t, n), (uint32_t, k));

// The same with row pitches in elements: input row r at r · a_row_stride, output row r at
// r · c_row_stride (so one launch writes its slot of a packed [m, q|k|v] row buffer).
// w8a16_gemm_m16_strided, w8a16_gemv_batch16_strided and the 64-row and 8-warp kernels.
GPUOPS_KERNEL_ARGS(Fp8StridedArgs, (DevicePtr, input), (DevicePtr, weight),
                   (DevicePtr, block_scale), (DevicePtr, output), (uint32_t, m), (uint32_t, n),
                   (uint32_t, k), (uint32_t, a_row_stride), (uint32_t, c_row_stride));

// The weight as a TMA tensor map ([N, K] E4M3, box 16 rows x 128 k, 128-byte swizzle) in place
// of its pointer, then the strided list: the tc_ kernels.
GPUOPS_KERNEL_ARGS(Fp8TmaArgs, (TensorMapBytes, weight_map), (DevicePtr, input),
                   (DevicePtr, block_scale), (DevicePtr, output), (uint32_t, m), (uint32_t, n),
                   (uint32_t, k), (uint32_t, a_row_stride), (uint32_t, c_row_stride));

// The warpgroup kernels' list: Fp8TmaArgs (weight_map's box one tile's rows x 128 k) with the
// activations a second time as a TMA tensor map, input_map: the launch's [m, k] BF16 rows at
// a_row_stride (box 64 k x m rows, up to the kernel's M tile; 128-byte swizzle). The kernel
// stages A through input_map; input names the same rows (the host emulation reads them there and
// refuses a map that disagrees). w8a16_gemm_wg_m32, _m64 and their n64_split2 forms.
GPUOPS_KERNEL_ARGS(Fp8WgmmaArgs, (TensorMapBytes, weight_map), (TensorMapBytes, input_map),
                   (DevicePtr, input), (DevicePtr, block_scale), (DevicePtr, output), (uint32_t, m),
                   (uint32_t, n), (uint32_t, k), (uint32_t, a_row_stride),
                   (uint32_t, c_row_stride));

// Fp8WgmmaArgs and the stream-K workspace (cuda/fp8_tiles.h's StreamKWorkspace for the launch's
// grid, zero-filled; left with its flags zero): w8a16_gemm_wg_m32_streamk and _m64_streamk.
GPUOPS_KERNEL_ARGS(Fp8StreamKArgs, (TensorMapBytes, weight_map), (TensorMapBytes, input_map),
                   (DevicePtr, input), (DevicePtr, block_scale), (DevicePtr, output), (uint32_t, m),
                   (uint32_t, n), (uint32_t, k), (uint32_t, a_row_stride), (uint32_t, c_row_stride),
                   (DevicePtr, workspace));

}  // namespace gpuops::ops::fp8
