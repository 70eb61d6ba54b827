// The argument lists of the dense kernels (ops/dense/cuda), one struct per list. A kernel binds to
// its struct when the family loads (names and sizes checked against the compiled parameters),
// launchers pack the struct, and the host emulations unpack it by name.
#pragma once

#include <cstdint>

#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops::ops::dense {

// C[M,N] = A[M,K] · B[N,K]ᵀ with B rows K apart: dense_gemm_bf16, _router, _tc, _pipelined.
GPUOPS_KERNEL_ARGS(MnkArgs, (DevicePtr, a), (DevicePtr, b), (DevicePtr, c), (uint32_t, m),
                   (uint32_t, n), (uint32_t, k));

// The same with B rows ldb elements apart: the _ldb kernels and the gemv kernels.
GPUOPS_KERNEL_ARGS(LdbArgs, (DevicePtr, a), (DevicePtr, b), (DevicePtr, c), (uint32_t, m),
                   (uint32_t, n), (uint32_t, k), (uint32_t, ldb));

// c = bf16(fmaf(scale, bf16(A·Bᵀ), c)): dense_gemm_bf16_tc_scaled_acc.
GPUOPS_KERNEL_ARGS(ScaledAccArgs, (DevicePtr, a), (DevicePtr, b), (DevicePtr, c), (uint32_t, m),
                   (uint32_t, n), (uint32_t, k), (float, scale));

// FP32 partials workspace[split][M][N]: dense_gemm_bf16_splitk_partial.
GPUOPS_KERNEL_ARGS(SplitKPartialArgs, (DevicePtr, a), (DevicePtr, b), (DevicePtr, workspace),
                   (uint32_t, m), (uint32_t, n), (uint32_t, k), (uint32_t, splits));

// C = bf16(Σ_split workspace[split]) in split order: dense_gemm_bf16_splitk_reduce.
GPUOPS_KERNEL_ARGS(SplitKReduceArgs, (DevicePtr, workspace), (DevicePtr, c), (uint32_t, m),
                   (uint32_t, n), (uint32_t, splits));

// A and B as TMA tensor maps (B's row stride in its map): dense_gemm_bf16_wgmma_128x{256,128}.
GPUOPS_KERNEL_ARGS(TmaArgs, (TensorMapBytes, a_map), (TensorMapBytes, b_map), (DevicePtr, c),
                   (uint32_t, m), (uint32_t, n), (uint32_t, k));

// The same over K splits into FP32 partials: dense_gemm_bf16_wgmma_128x128_splitk.
GPUOPS_KERNEL_ARGS(TmaSplitKArgs, (TensorMapBytes, a_map), (TensorMapBytes, b_map),
                   (DevicePtr, workspace), (uint32_t, m), (uint32_t, n), (uint32_t, k),
                   (uint32_t, splits));

// Whole tiles into C, the last wave's tiles into `splits` FP32 partials each (TailOf):
// dense_gemm_bf16_wgmma_128x{256,192,128}_tail.
GPUOPS_KERNEL_ARGS(TmaTailArgs, (TensorMapBytes, a_map), (TensorMapBytes, b_map), (DevicePtr, c),
                   (DevicePtr, workspace), (uint32_t, m), (uint32_t, n), (uint32_t, k),
                   (uint32_t, splits));

// A through one tensor map over dense_shift_rows_bf16's eight shifted copies of A (copy L's rows
// at L M + row), B through eight, one a row class (dense_row_class_maps.h), class r's rows
// starting ClassTiles::ShiftOf(b_shifts, r) elements into its tensor's rows:
// dense_gemm_bf16_wgmma_{64x64,64x128,128x128}_classes.
GPUOPS_KERNEL_ARGS(TmaRowClassArgs, (TensorMapBytes, a_map), (TensorMapBytes, b_map0),
                   (TensorMapBytes, b_map1), (TensorMapBytes, b_map2), (TensorMapBytes, b_map3),
                   (TensorMapBytes, b_map4), (TensorMapBytes, b_map5), (TensorMapBytes, b_map6),
                   (TensorMapBytes, b_map7), (DevicePtr, c), (uint32_t, m), (uint32_t, n),
                   (uint32_t, k), (uint32_t, b_shifts));

// C's tail tiles = bf16(Σ_split partial) in split order: dense_gemm_bf16_tail_reduce.
GPUOPS_KERNEL_ARGS(TailReduceArgs, (DevicePtr, workspace), (DevicePtr, c), (uint32_t, m),
                   (uint32_t, n), (uint32_t, splits), (uint32_t, first_tile),
                   (uint32_t, tail_tiles), (uint32_t, tile_m), (uint32_t, tile_n));

// dst = src's rows re-laid dst_ld apart, zero-padded past cols: dense_pack_rows_bf16.
GPUOPS_KERNEL_ARGS(PackArgs, (DevicePtr, src), (DevicePtr, dst), (uint32_t, rows),
                   (uint32_t, cols), (uint32_t, src_ld), (uint32_t, dst_ld));

}  // namespace gpuops::ops::dense
