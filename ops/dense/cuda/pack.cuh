// Row repacking for the packed variant: operands the 16-byte kernels cannot read (an offset
// pointer, K or ldb not a multiple of 8) are copied into 16-byte-aligned rows of a multiple of 8
// elements, zero-padded, and the result copied back when C itself is not 16-byte aligned.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

using gpuops::ops::dense::PackTile;

// dst[r, c] = src[r · src_ld + c] for c < cols and 0 for cols <= c < dst_ld, rows [0, rows).
// Grid (rows, ceil(dst_ld / PackTile::kChunk)), block PackTile::kThreads: block (r, j) writes
// elements [j · kChunk, (j + 1) · kChunk) of row r. Into 16-byte rows (dst 16-byte aligned,
// dst_ld % 8 == 0: the A and B copies) thread t writes the 8 elements at j · kChunk + 8 t with
// one store, read from src at any 2-byte alignment through aligned blocks (a warp's lanes take
// consecutive pieces, so the block after lane l's is lane l + 1's); otherwise (C copied back)
// element by element, t + kThreads · i, consecutive threads on consecutive elements.
extern "C" __global__ void __launch_bounds__(PackTile::kThreads)
    dense_pack_rows_bf16(const bf16* __restrict__ src, bf16* __restrict__ dst, uint32_t rows,
                         uint32_t cols, uint32_t src_ld, uint32_t dst_ld) {
  const uint32_t row = blockIdx.x;
  if (row >= rows) return;
  const bf16* in = src + static_cast<size_t>(row) * src_ld;
  bf16* out = dst + static_cast<size_t>(row) * dst_ld;
  const uint32_t chunk0 = blockIdx.y * PackTile::kChunk;
  if (reinterpret_cast<uintptr_t>(dst) % 16 == 0 && dst_ld % 8 == 0) {
    const bf16* end = src + static_cast<size_t>(rows - 1) * src_ld + cols;
    const uint32_t c = chunk0 + 8 * threadIdx.x;
    const bf16* p = in + c;
    bool has, next_has;
    const uint4 x = dense_device::LoadBlockHolding(p, end, has);
    uint4 y;
    y.x = __shfl_down_sync(0xffffffffu, x.x, 1);
    y.y = __shfl_down_sync(0xffffffffu, x.y, 1);
    y.z = __shfl_down_sync(0xffffffffu, x.z, 1);
    y.w = __shfl_down_sync(0xffffffffu, x.w, 1);
    next_has = __shfl_down_sync(0xffffffffu, has ? 1u : 0u, 1) != 0;
    const bool aligned = reinterpret_cast<uintptr_t>(p) % 16 == 0;
    if (threadIdx.x % 32 == 31 && !aligned) y = dense_device::LoadBlockHolding(p + 8, end, next_has);
    const uint32_t valid = c < cols ? min(8u, cols - c) : 0u;
    const uint4 v = dense_device::FunnelBf16x8(p, x, y, valid == 0 || (has && (aligned || next_has)), valid);
    if (c < dst_ld) *reinterpret_cast<uint4*>(out + c) = v;
    return;
  }
  const uint16_t* in16 = reinterpret_cast<const uint16_t*>(in);
  uint16_t* out16 = reinterpret_cast<uint16_t*>(out);
  const uint32_t first = chunk0 + threadIdx.x;
  uint16_t v[PackTile::kPerThread];
#pragma unroll
  for (uint32_t i = 0; i < PackTile::kPerThread; ++i) {  // every load in flight before a store
    const uint32_t c = first + i * PackTile::kThreads;
    v[i] = c < cols ? in16[c] : uint16_t{0};
  }
#pragma unroll
  for (uint32_t i = 0; i < PackTile::kPerThread; ++i) {
    const uint32_t c = first + i * PackTile::kThreads;
    if (c < dst_ld) out16[c] = v[i];
  }
}
