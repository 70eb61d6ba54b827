// Row repacking for the packed variant: operands the 16-byte kernels cannot read (an offset
// pointer, K or ldb not a multiple of 8) are copied into 16-byte-aligned rows of a multiple of 8
// elements, zero-padded, and the result copied back when C itself is not 16-byte aligned.
#pragma once

#include "dense_device.cuh"
#include "dense_tiles.h"

using gpuops::ops::dense::PackTile;

namespace dense_device {

// The 16-byte-row copy of dense_pack_rows_bf16 for a row whose first element lies 4 kWords +
// bits / 8 bytes into its 16-byte block: piece p (8 elements) is blocks p and p + 1 of the row,
// realigned (the row's shift is the same for every piece, so the word offset is a template
// argument and the realignment four funnel shifts: FunnelWords). `readable` counts the row's blocks that end at or before the source's end; a
// piece needing one past them (the last row's end) is read element by element.
template <uint32_t kWords>
__device__ __forceinline__ void PackPieces(const bf16* __restrict__ in, const uint4* blocks,
                                           uint64_t readable, uint32_t bits,
                                           bf16* __restrict__ out, uint32_t chunk0, uint32_t cols,
                                           uint32_t dst_ld) {
  constexpr uint32_t kPieces = PackTile::kPieces;
  const bool shifted = kWords != 0 || bits != 0;
  uint4 x[kPieces], y[kPieces];
  bool fast[kPieces];
#pragma unroll
  for (uint32_t i = 0; i < kPieces; ++i) {
    const uint32_t c = chunk0 + 8 * (threadIdx.x + i * PackTile::kThreads);
    const uint32_t p = c / 8;
    x[i] = y[i] = make_uint4(0, 0, 0, 0);
    fast[i] = c >= cols || p + (shifted ? 1 : 0) < readable;
    if (c < cols && fast[i]) {
      x[i] = __ldg(blocks + p);
      if (shifted) y[i] = __ldg(blocks + p + 1);
    }
  }
#pragma unroll
  for (uint32_t i = 0; i < kPieces; ++i) {
    const uint32_t c = chunk0 + 8 * (threadIdx.x + i * PackTile::kThreads);
    if (c >= dst_ld) continue;
    const uint32_t valid = c < cols ? min(8u, cols - c) : 0u;
    uint4 v = FunnelWords<kWords>(x[i], y[i], bits);
    if (!fast[i]) v = LoadBf16x8ByElement(in + c, valid);
    if (valid < 8) v = KeepBf16x8(v, valid);  // the row's last piece and the zero padding past it
    *reinterpret_cast<uint4*>(out + c) = v;
  }
}

}  // namespace dense_device

// dst[r, c] = src[r · src_ld + c] for c < cols and 0 for cols <= c < dst_ld, rows [0, rows).
// Grid (rows, ceil(dst_ld / PackTile::kChunk)), block PackTile::kThreads: block (r, j) writes
// elements [j · kChunk, (j + 1) · kChunk) of row r. Into 16-byte rows (dst 16-byte aligned,
// dst_ld % 8 == 0: the A and B copies) thread t writes the 8 elements at j · kChunk + 8 (t + i
// kThreads), i < kPieces, with one store each, read from src at any 2-byte alignment as the two
// aligned 16-byte blocks holding them, funnelled into place (PackPieces; the row's shift within
// its blocks picks the instantiation); every piece's blocks are loaded before the first store.
// Otherwise (C copied back) element by element, consecutive threads on consecutive elements.
extern "C" __global__ void __launch_bounds__(PackTile::kThreads)
    dense_pack_rows_bf16(const bf16* __restrict__ src, bf16* __restrict__ dst, uint32_t rows,
                         uint32_t cols, uint32_t src_ld, uint32_t dst_ld) {
  const uint32_t row = blockIdx.x;
  if (row >= rows) return;
  const bf16* in = src + static_cast<size_t>(row) * src_ld;
  bf16* out = dst + static_cast<size_t>(row) * dst_ld;
  const uint32_t chunk0 = blockIdx.y * PackTile::kChunk;
  if (reinterpret_cast<uintptr_t>(dst) % 16 == 0 && dst_ld % 8 == 0) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(in);
    const uint32_t shift = static_cast<uint32_t>(first & 15);  // even: BF16 is 2-byte aligned
    const uint4* blocks = reinterpret_cast<const uint4*>(first - shift);
    const uintptr_t end =
        reinterpret_cast<uintptr_t>(src + static_cast<size_t>(rows - 1) * src_ld + cols);
    const uint64_t readable = (end - reinterpret_cast<uintptr_t>(blocks)) / 16;
    const uint32_t bits = (shift % 4) * 8;
    switch (shift / 4) {
      case 0:
        dense_device::PackPieces<0>(in, blocks, readable, bits, out, chunk0, cols, dst_ld);
        break;
      case 1:
        dense_device::PackPieces<1>(in, blocks, readable, bits, out, chunk0, cols, dst_ld);
        break;
      case 2:
        dense_device::PackPieces<2>(in, blocks, readable, bits, out, chunk0, cols, dst_ld);
        break;
      default:
        dense_device::PackPieces<3>(in, blocks, readable, bits, out, chunk0, cols, dst_ld);
        break;
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
