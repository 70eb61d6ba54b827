// Split-K: each split writes an FP32 partial over its K range into a workspace of
// splits * M * N floats; the reduce sums the partials in split order 0..S-1 (deterministic).
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

using gpuops::ops::dense::SplitKTile;

// Grid (ceil(N/16), ceil(M/16), splits), block (16, 16). workspace[s][row][col].
extern "C" __global__ void __launch_bounds__(SplitKTile::kThreadsX* SplitKTile::kThreadsY)
    dense_gemm_bf16_splitk_partial(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                   float* __restrict__ workspace, uint32_t m, uint32_t n,
                                   uint32_t k, uint32_t splits) {
  const uint32_t col = blockIdx.x * SplitKTile::kN + threadIdx.x;
  const uint32_t row = blockIdx.y * SplitKTile::kM + threadIdx.y;
  const uint32_t split = blockIdx.z;
  if (row >= m || col >= n || split >= splits) return;
  const uint32_t chunk = gpuops::ops::dense::SplitKChunk(k, splits);
  const uint32_t begin = min(k, split * chunk);
  const uint32_t end = min(k, begin + chunk);
  const bf16* a_row = a + static_cast<size_t>(row) * k;
  const bf16* b_row = b + static_cast<size_t>(col) * k;
  float acc = 0.0f;
  for (uint32_t i = begin; i < end; ++i) {
    acc = __fmaf_rn(dense_device::ToFloat(a_row[i]), dense_device::ToFloat(b_row[i]), acc);
  }
  workspace[(static_cast<size_t>(split) * m + row) * n + col] = acc;
}

// Grid (ceil(N/256), M), block 256. The partials of kReduceBatch splits are loaded before any is
// added, so their loads are in flight together (one at a time, the reduce waited on each
// in turn); the sum still runs in split order.
extern "C" __global__ void __launch_bounds__(SplitKTile::kReduceThreads)
    dense_gemm_bf16_splitk_reduce(const float* __restrict__ workspace, bf16* __restrict__ c,
                                  uint32_t m, uint32_t n, uint32_t splits) {
  // Launched to overlap the split kernel (programmatic dependent launch): wait here until it
  // has completed and its partials are visible. Without that launch mode this returns at once.
  device_kit::WaitForPreviousLaunch();
  const uint32_t col = blockIdx.x * SplitKTile::kReduceThreads + threadIdx.x;
  const uint32_t row = blockIdx.y;
  if (row >= m || col >= n) return;
  const float* partial = workspace + static_cast<size_t>(row) * n + col;
  const size_t split_stride = static_cast<size_t>(m) * n;
  constexpr uint32_t kBatch = SplitKTile::kReduceBatch;
  float sum = 0.0f;
  for (uint32_t first = 0; first < splits; first += kBatch) {
    float v[kBatch];
#pragma unroll
    for (uint32_t j = 0; j < kBatch; ++j) {
      v[j] = first + j < splits ? partial[(first + j) * split_stride] : 0.0f;
    }
#pragma unroll
    for (uint32_t j = 0; j < kBatch; ++j) {
      if (first + j < splits) sum = __fadd_rn(sum, v[j]);
    }
  }
  c[static_cast<size_t>(row) * n + col] = dense_device::ToBf16(sum);
}

// The tail-split wgmma kernels' reduce: grid (tail_tiles, ceil(tile_m / kTailReduceRows)), block
// kTailReduceThreads. Block (t, y) owns rows [16 y, 16 y + 16) of tail tile first_tile + t
// (PersistentTileCoords over tile_m x tile_n tiles): each element is the sum, in split order, of
// the tile's slots s x tail_tiles + t of the workspace (tile-local tile_m x tile_n FP32 blocks
// whose row 0 is C's row TileFirstRow), written to C as BF16; rows and columns past M and N are
// skipped.
extern "C" __global__ void __launch_bounds__(gpuops::ops::dense::kTailReduceThreads)
    dense_gemm_bf16_tail_reduce(const float* __restrict__ workspace, bf16* __restrict__ c,
                                uint32_t m, uint32_t n, uint32_t splits, uint32_t first_tile,
                                uint32_t tail_tiles, uint32_t tile_m, uint32_t tile_n) {
  // As dense_gemm_bf16_splitk_reduce: launched to overlap the kernel that writes the partials.
  device_kit::WaitForPreviousLaunch();
  using gpuops::ops::dense::kTailReduceRows;
  const uint32_t t = blockIdx.x;
  if (t >= tail_tiles || tile_m == 0 || tile_n % 4 != 0) return;
  const auto coord = gpuops::ops::dense::PersistentTileCoords(
      first_tile + t, (m + tile_m - 1) / tile_m, (n + tile_n - 1) / tile_n,
      gpuops::ops::dense::WgmmaTile<128>::kGroupM);
  // The partial's row 0 is C's row first_row (a last m-block past M starts at M - tile_m).
  const uint32_t first_row = gpuops::ops::dense::TileFirstRow(coord.m_block, tile_m, m);
  const size_t tile_elems = static_cast<size_t>(tile_m) * tile_n;
  const size_t slot_stride = tile_elems * tail_tiles;
  const uint32_t quads = tile_n / 4;
  constexpr uint32_t kBatch = SplitKTile::kReduceBatch;
  for (uint32_t i = threadIdx.x; i < kTailReduceRows * quads; i += blockDim.x) {
    const uint32_t r = blockIdx.y * kTailReduceRows + i / quads;
    const uint32_t row = coord.m_block * tile_m + r;
    const uint32_t col = coord.n_block * tile_n + 4 * (i % quads);
    if (r >= tile_m || row >= m || col >= n) continue;
    const float* partial = workspace + t * tile_elems + static_cast<size_t>(row - first_row) * tile_n +
                           4 * (i % quads);
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (uint32_t first = 0; first < splits; first += kBatch) {
      float4 v[kBatch];
#pragma unroll
      for (uint32_t j = 0; j < kBatch; ++j) {
        v[j] = first + j < splits
                   ? *reinterpret_cast<const float4*>(partial + (first + j) * slot_stride)
                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (uint32_t j = 0; j < kBatch; ++j) {
        if (first + j >= splits) continue;
        sum.x = __fadd_rn(sum.x, v[j].x);
        sum.y = __fadd_rn(sum.y, v[j].y);
        sum.z = __fadd_rn(sum.z, v[j].z);
        sum.w = __fadd_rn(sum.w, v[j].w);
      }
    }
    bf16* out = c + static_cast<size_t>(row) * n + col;
    const float s[4] = {sum.x, sum.y, sum.z, sum.w};
    if (n % 4 == 0) {
      // col % 4 == 0 and n % 4 == 0: four elements, 8-byte aligned, all inside the row.
      __nv_bfloat162 pair[2] = {__floats2bfloat162_rn(s[0], s[1]),
                                __floats2bfloat162_rn(s[2], s[3])};
      *reinterpret_cast<uint2*>(out) = *reinterpret_cast<const uint2*>(pair);
    } else {
#pragma unroll
      for (uint32_t j = 0; j < 4; ++j) {
        if (col + j < n) out[j] = dense_device::ToBf16(s[j]);
      }
    }
  }
}
