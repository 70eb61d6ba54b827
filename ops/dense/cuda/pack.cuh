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
// dst_ld % 8 == 0: the A and B copies) thread t writes the 8 elements at j · kChunk + 8 (t + i
// kThreads), i < kPieces, with one store each, read from src at any 2-byte alignment through
// aligned blocks (a warp's lanes take consecutive pieces, so the block after lane l's is lane
// l + 1's); every piece's blocks are loaded before the first store. Otherwise (C copied back)
// element by element, consecutive threads on consecutive elements.
extern "C" __global__ void __launch_bounds__(PackTile::kThreads)
    dense_pack_rows_bf16(const bf16* __restrict__ src, bf16* __restrict__ dst, uint32_t rows,
                         uint32_t cols, uint32_t src_ld, uint32_t dst_ld) {
  const uint32_t row = blockIdx.x;
  if (row >= rows) return;
  const bf16* in = src + static_cast<size_t>(row) * src_ld;
  bf16* out = dst + static_cast<size_t>(row) * dst_ld;
  const uint32_t chunk0 = blockIdx.y * PackTile::kChunk;
  constexpr uint32_t kPieces = PackTile::kPieces;
  if (reinterpret_cast<uintptr_t>(dst) % 16 == 0 && dst_ld % 8 == 0) {
    const bf16* end = src + static_cast<size_t>(rows - 1) * src_ld + cols;
    const bool last_lane = threadIdx.x % 32 == 31;
    // Every piece starts at the same offset within its block (pieces are 8 elements apart).
    const bool aligned = reinterpret_cast<uintptr_t>(in + chunk0) % 16 == 0;
    uint4 x[kPieces], after[kPieces];
    bool has[kPieces], after_has[kPieces];
#pragma unroll
    for (uint32_t i = 0; i < kPieces; ++i) {
      const uint32_t c = chunk0 + 8 * (threadIdx.x + i * PackTile::kThreads);
      const bool wanted = c < cols;  // a piece at or past cols is all zeros
      x[i] = wanted ? dense_device::LoadBlockHolding(in + c, end, has[i]) : make_uint4(0, 0, 0, 0);
      has[i] = wanted && has[i];
      // The warp's last lane reads the block after its own itself.
      after[i] = wanted && last_lane && !aligned
                     ? dense_device::LoadBlockHolding(in + c + 8, end, after_has[i])
                     : make_uint4(0, 0, 0, 0);
      after_has[i] = wanted && last_lane && !aligned && after_has[i];
    }
#pragma unroll
    for (uint32_t i = 0; i < kPieces; ++i) {
      const uint32_t c = chunk0 + 8 * (threadIdx.x + i * PackTile::kThreads);
      uint4 y;
      y.x = __shfl_down_sync(0xffffffffu, x[i].x, 1);
      y.y = __shfl_down_sync(0xffffffffu, x[i].y, 1);
      y.z = __shfl_down_sync(0xffffffffu, x[i].z, 1);
      y.w = __shfl_down_sync(0xffffffffu, x[i].w, 1);
      bool next_has = __shfl_down_sync(0xffffffffu, has[i] ? 1u : 0u, 1) != 0;
      if (last_lane) {
        y = after[i];
        next_has = after_has[i];
      }
      const uint32_t valid = c < cols ? min(8u, cols - c) : 0u;
      const uint4 v = dense_device::FunnelBf16x8(in + c, x[i], y,
                                                 valid == 0 || (has[i] && (aligned || next_has)),
                                                 valid);
      if (c < dst_ld) *reinterpret_cast<uint4*>(out + c) = v;
    }
    return;
  }
  const uint16_t* in16 = reinterpret_cast<const uint16_t*>(in);
  uint16_t* out16 = reinterpret_cast<uint16_t*>(out);
  constexpr uint32_t kPerThread = PackTile::kChunk / PackTile::kThreads;
  const uint32_t first = chunk0 + threadIdx.x;
  uint16_t v[kPerThread];
#pragma unroll
  for (uint32_t i = 0; i < kPerThread; ++i) {  // every load in flight before a store
    const uint32_t c = first + i * PackTile::kThreads;
    v[i] = c < cols ? in16[c] : uint16_t{0};
  }
#pragma unroll
  for (uint32_t i = 0; i < kPerThread; ++i) {
    const uint32_t c = first + i * PackTile::kThreads;
    if (c < dst_ld) out16[c] = v[i];
  }
}

using gpuops::ops::dense::ShiftTile;

// The _shifted gemv's activation copies (ShiftTile): copy L's row r, element j, is src[r, j - L]
// where 0 <= j - L < cols, else zero. Grid (rows, ShiftTile::kCopies, ceil(dst_ld / kChunk)),
// block ShiftTile::kThreads; thread t writes 8 elements with one 16-byte store, read one by one
// (consecutive threads on consecutive elements). dst is 16-byte aligned, dst_ld =
// ShiftedRowElems(cols) (src_ld = cols: A's rows are K apart).
extern "C" __global__ void __launch_bounds__(ShiftTile::kThreads)
    dense_shift_rows_bf16(const bf16* __restrict__ src, bf16* __restrict__ dst, uint32_t rows,
                          uint32_t cols, uint32_t src_ld, uint32_t dst_ld) {
  const uint32_t row = blockIdx.x, lead = blockIdx.y;
  if (row >= rows) return;
  const uint16_t* in = reinterpret_cast<const uint16_t*>(src) + static_cast<size_t>(row) * src_ld;
  const uint32_t c = blockIdx.z * ShiftTile::kChunk + ShiftTile::kPerThread * threadIdx.x;
  if (c >= dst_ld) return;
  uint32_t v[4] = {0, 0, 0, 0};
#pragma unroll
  for (uint32_t i = 0; i < ShiftTile::kPerThread; ++i) {
    const uint32_t j = c + i;
    if (j >= lead && j - lead < cols) v[i / 2] |= uint32_t{in[j - lead]} << (16 * (i % 2));
  }
  bf16* out = dst + (static_cast<size_t>(lead) * rows + row) * dst_ld + c;
  *reinterpret_cast<uint4*>(out) = make_uint4(v[0], v[1], v[2], v[3]);
}
