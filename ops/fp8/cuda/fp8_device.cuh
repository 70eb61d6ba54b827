// The FP8 W8A16 kernel bodies. C[m, n] = A[m, k] · W[n, k]ᵀ with A and C BF16 (row pitches lda
// and ldc elements), W E4M3 [n, k] row-major and one FP32 scale per 128 x 128 block of W.
//
// Tensor-core bodies: E4M3 -> BF16 is exact (bit placement, then a power-of-two multiply), the
// products are summed by mma.sync.m16n8k16 in FP32 over each 128-k block into an inner
// accumulator, and each block's sum is folded into the FP32 outer accumulator with one
// fmaf(inner, scale, outer): the scale never touches a weight element and never rounds to BF16.
//
// Within each 64-k chunk the kernels feed the mma a permutation of k (the same one for A and W),
// so that lane (g, q) multiplies the 16 consecutive k at 16q of the chunk: one 16-byte load of
// W per n8 tile and 32 bytes of A per row, instead of the mma's native 2 + 2 scattered k.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "device/mma_kit.cuh"
#include "device/tma_kit.cuh"
#include "fp8_tiles.h"

namespace fp8_device {

using device_kit::bf16;
using device_kit::CpAsync16;
using device_kit::CpAsyncCommit;
using device_kit::CpAsyncWait;
using device_kit::MmaBf16;
using device_kit::MmaF16;

// Two E4M3 bytes of `v` as BF16x2, exactly (subnormals included), in four instructions. The
// prmt (selector kSelect; a nibble with its high bit set fills its byte with the sign of the
// byte it picks) lays out [sign(x1) x 8, x0, sign(x0) x 8, x1] for the bytes x0, x1 it picks;
// rotating that right by 4 puts x0's exponent and mantissa at bits 4-10 and a copy of its sign
// at bit 15, x1's at bits 20-26 and 31, and the mask keeps exactly those: BF16 fields that read
// as the value times 2^-120, which one exact multiply by 2^120 restores. (The shift, mask and
// separate sign merge of E4m3HighBytesToBf16x2 below take five; bench/NOTES.md, session 38.)
template <uint32_t kSelect>
__device__ __forceinline__ uint32_t E4m3BytesToBf16x2(uint32_t v) {
  uint32_t laid;
  asm("prmt.b32 %0, %1, 0, %2;\n" : "=r"(laid) : "r"(v), "n"(kSelect));
  const uint32_t scaled = __funnelshift_r(laid, laid, 4) & 0x87f087f0u;
  uint32_t out;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;\n"
      : "=r"(out)
      : "r"(scaled), "r"(0x7b807b80u), "r"(0x80008000u));  // · 2^120 + (-0)
  return out;
}

// The five-instruction form, for two E4M3 bytes already in the high byte of each 16-bit half of
// `v` (zeros elsewhere): shift the exponent and mantissa into BF16's fields, merge the sign, the
// same multiply. Kept for wg_m128's fragments only: there it ran ~2 % faster than the form above
// (1024 x 4096 x 14336 on an H100, same-run A/B; bench/NOTES.md session 38), where every other
// kernel ran 1-7 % faster with the form above; why is not yet measured.
__device__ __forceinline__ uint32_t E4m3HighBytesToBf16x2(uint32_t v) {
  const uint32_t scaled = ((v >> 4) & 0x07f007f0u) | (v & 0x80008000u);
  uint32_t out;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;\n"
      : "=r"(out)
      : "r"(scaled), "r"(0x7b807b80u), "r"(0x80008000u));  // · 2^120 + (-0)
  return out;
}

// Bytes 0 and 1 of `v` (two E4M3 values, in k order) as BF16x2.
__device__ __forceinline__ uint32_t E4m3PairToBf16x2(uint32_t v) {
  return E4m3BytesToBf16x2<0x1809>(v);
}

// W bytes k..k+3 of one column as the mma's two B registers: {k, k+1} and {k+2, k+3}.
__device__ __forceinline__ void E4m3QuadToB(uint32_t quad, uint32_t (&b)[2]) {
  b[0] = E4m3PairToBf16x2(quad);
  b[1] = E4m3BytesToBf16x2<0x3a2b>(quad);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
// Bytes 0 and 1 of `v` (two E4M3 values) as F16x2, exactly (every E4M3 value is an F16 value):
// one instruction, where the BF16 path takes four.
__device__ __forceinline__ uint32_t E4m3PairToF16x2(uint32_t v) {
  uint32_t out;
  asm("{\n.reg .b16 pair;\ncvt.u16.u32 pair, %1;\ncvt.rn.f16x2.e4m3x2 %0, pair;\n}\n"
      : "=r"(out)
      : "r"(v));
  return out;
}
#endif

// The rows a launch writes: the decode kernels cover at most kMaxM of them.
template <typename Tile>
__device__ __forceinline__ uint32_t RowsCovered(uint32_t m) {
  return m < Tile::kMaxM ? m : Tile::kMaxM;
}

// Decode body (DecodeTile): see fp8_tiles.h for the split of K among warps.
template <typename Tile>
__device__ __forceinline__ void GemmDecode(const bf16* __restrict__ input,
                                           const uint8_t* __restrict__ weight,
                                           const float* __restrict__ block_scale,
                                           bf16* __restrict__ output, uint32_t m, uint32_t n,
                                           uint32_t k, uint32_t lda, uint32_t ldc) {
  extern __shared__ __align__(16) uint8_t smem[];
  constexpr uint32_t kWarps = Tile::kWarps, kStages = Tile::kStages, kNTiles = Tile::kNTiles;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t g = lane / 4, q = lane % 4;
  const uint32_t n0 = blockIdx.x * Tile::kN;
  const uint32_t rows = RowsCovered<Tile>(m);
  const uint32_t kblocks = k / 128;
  const float* scales = block_scale + uint64_t{n0 / 128} * kblocks;
  uint8_t* ring = smem + warp * kStages * Tile::kStageBytes;
  const uint32_t my_blocks = warp < kblocks ? (kblocks - warp + kWarps - 1) / kWarps : 0;
  const uint32_t chunks = 2 * my_blocks;

  // Chunk j of this warp: half j % 2 of 128-k block warp + kWarps · (j / 2).
  auto issue = [&](uint32_t j) {
    uint8_t* stage = ring + (j % kStages) * Tile::kStageBytes;
    const uint32_t k0 = (warp + kWarps * (j / 2)) * 128 + (j % 2) * 64 + 16 * q;
#pragma unroll
    for (uint32_t i = 0; i < kNTiles; ++i) {
      const uint32_t col = n0 + 8 * i + g;
      const bool valid = col < n;
      CpAsync16(stage + (i * 32 + lane) * 16, weight + (valid ? uint64_t{col} * k + k0 : 0),
                valid);
    }
    uint8_t* a_stage = stage + Tile::kStageWeightBytes;
#pragma unroll
    for (uint32_t h = 0; h < 2; ++h) {
      const uint32_t row = g + 8 * h;
      if (8 * h >= rows) break;  // warp-uniform: rows g + 8 are never read when m <= 8
      const bool valid = row < rows;
      const bf16* src = input + (valid ? uint64_t{row} * lda + k0 : 0);
      CpAsync16(a_stage + (h * 32 + lane) * 32, src, valid);
      CpAsync16(a_stage + (h * 32 + lane) * 32 + 16, src + 8, valid);
    }
  };

  float outer[kNTiles][4] = {};
  float inner[kNTiles][4];
#pragma unroll
  for (uint32_t s = 0; s + 1 < kStages; ++s) {
    if (s < chunks) issue(s);
    CpAsyncCommit();
  }
  float scale = 0.0f;
  for (uint32_t j = 0; j < chunks; ++j) {
    CpAsyncWait<kStages - 2>();
    __syncwarp();  // (a compiler fence too) the stage's bytes are this lane's own copies
    if (j + kStages - 1 < chunks) issue(j + kStages - 1);
    CpAsyncCommit();
    if (j % 2 == 0) {
      scale = scales[warp + kWarps * (j / 2)];
#pragma unroll
      for (uint32_t i = 0; i < kNTiles; ++i) {
        inner[i][0] = inner[i][1] = inner[i][2] = inner[i][3] = 0.0f;
      }
    }
    const uint8_t* stage = ring + (j % kStages) * Tile::kStageBytes;
    uint4 w[kNTiles];
#pragma unroll
    for (uint32_t i = 0; i < kNTiles; ++i) {
      w[i] = *reinterpret_cast<const uint4*>(stage + (i * 32 + lane) * 16);
    }
    // A rows g and g + 8: 16 consecutive k each, as 8 BF16 pairs.
    uint4 a_lo[2] = {}, a_hi[2] = {};
    const uint8_t* a_stage = stage + Tile::kStageWeightBytes;
    a_lo[0] = *reinterpret_cast<const uint4*>(a_stage + lane * 32);
    a_lo[1] = *reinterpret_cast<const uint4*>(a_stage + lane * 32 + 16);
    if (rows > 8) {
      a_hi[0] = *reinterpret_cast<const uint4*>(a_stage + (32 + lane) * 32);
      a_hi[1] = *reinterpret_cast<const uint4*>(a_stage + (32 + lane) * 32 + 16);
    }
    const uint32_t* lo = reinterpret_cast<const uint32_t*>(a_lo);
    const uint32_t* hi = reinterpret_cast<const uint32_t*>(a_hi);
#pragma unroll
    for (uint32_t s = 0; s < 4; ++s) {  // the chunk's four k16 steps: k 16q + 4s .. + 3
      const uint32_t a[4] = {lo[2 * s], hi[2 * s], lo[2 * s + 1], hi[2 * s + 1]};
#pragma unroll
      for (uint32_t i = 0; i < kNTiles; ++i) {
        uint32_t b[2];
        E4m3QuadToB(reinterpret_cast<const uint32_t*>(&w[i])[s], b);
        MmaBf16(inner[i], a, b);
      }
    }
    if (j % 2 == 1) {
#pragma unroll
      for (uint32_t i = 0; i < kNTiles; ++i) {
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) outer[i][e] = fmaf(inner[i][e], scale, outer[i][e]);
      }
    }
  }
  CpAsyncWait<0>();
  __syncthreads();  // every ring drained: the shared memory now holds the warps' partial sums
  float* partial = reinterpret_cast<float*>(smem);  // [warp][row][column]
#pragma unroll
  for (uint32_t i = 0; i < kNTiles; ++i) {
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e) {
      const uint32_t row = g + (e >= 2 ? 8 : 0);
      const uint32_t col = 8 * i + 2 * q + (e & 1);
      partial[(warp * 16 + row) * Tile::kN + col] = outer[i][e];
    }
  }
  __syncthreads();
  for (uint32_t idx = threadIdx.x; idx < rows * Tile::kN; idx += Tile::kThreads) {
    const uint32_t row = idx / Tile::kN, col = idx % Tile::kN;
    if (n0 + col >= n) continue;
    float sum = 0.0f;
#pragma unroll
    for (uint32_t w = 0; w < kWarps; ++w) sum += partial[(w * 16 + row) * Tile::kN + col];
    output[uint64_t{row} * ldc + n0 + col] = device_kit::ToBf16(sum);
  }
}

// Row-tile body (RowsTile): warp w owns columns 16w..16w+15 of the block for every row; A is
// staged once per chunk for all warps.
template <typename Tile>
__device__ __forceinline__ void GemmRows(const bf16* __restrict__ input,
                                         const uint8_t* __restrict__ weight,
                                         const float* __restrict__ block_scale,
                                         bf16* __restrict__ output, uint32_t m, uint32_t n,
                                         uint32_t k, uint32_t lda, uint32_t ldc) {
  extern __shared__ __align__(16) uint8_t smem[];
  constexpr uint32_t kStages = Tile::kStages, kMTiles = Tile::kMTiles;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t g = lane / 4, q = lane % 4;
  const uint32_t n0 = blockIdx.x * Tile::kN;
  const uint32_t rows = RowsCovered<Tile>(m);
  const uint32_t m_tiles = (rows + 15) / 16;
  const uint32_t kblocks = k / 128;
  const float* scales = block_scale + uint64_t{n0 / 128} * kblocks;
  const uint32_t chunks = 2 * kblocks;

  auto issue = [&](uint32_t j) {
    uint8_t* stage = smem + (j % kStages) * Tile::kStageBytes;
    const uint32_t k0 = j * 64;
    // A: rows x 128 bytes in 16-byte pieces over the whole block; rows past m zero-filled up to
    // the m16 tile, never read.
    for (uint32_t p = threadIdx.x; p < m_tiles * 16 * 8; p += Tile::kThreads) {
      const uint32_t row = p / 8, piece = p % 8;
      const bool valid = row < rows;
      CpAsync16(stage + row * Tile::kARowBytes + piece * 16,
                input + (valid ? uint64_t{row} * lda + k0 + piece * 8 : 0), valid);
    }
    // W: this lane's 16 bytes of its two columns.
    uint8_t* w_stage = stage + Tile::kStageABytes + warp * 2 * 32 * 16;
#pragma unroll
    for (uint32_t i = 0; i < 2; ++i) {
      const uint32_t col = n0 + 16 * warp + 8 * i + g;
      const bool valid = col < n;
      CpAsync16(w_stage + (i * 32 + lane) * 16,
                weight + (valid ? uint64_t{col} * k + k0 + 16 * q : 0), valid);
    }
  };

  float outer[kMTiles][2][4] = {};
  float inner[kMTiles][2][4];
#pragma unroll
  for (uint32_t s = 0; s + 1 < kStages; ++s) {
    if (s < chunks) issue(s);
    CpAsyncCommit();
  }
  float scale = 0.0f;
  for (uint32_t j = 0; j < chunks; ++j) {
    CpAsyncWait<kStages - 2>();
    __syncthreads();  // chunk j is in for every warp, and chunk j - 1's slot is free
    if (j + kStages - 1 < chunks) issue(j + kStages - 1);
    CpAsyncCommit();
    if (j % 2 == 0) {
      scale = scales[j / 2];
#pragma unroll
      for (uint32_t t = 0; t < kMTiles; ++t) {
#pragma unroll
        for (uint32_t i = 0; i < 2; ++i) {
          inner[t][i][0] = inner[t][i][1] = inner[t][i][2] = inner[t][i][3] = 0.0f;
        }
      }
    }
    const uint8_t* stage = smem + (j % kStages) * Tile::kStageBytes;
    const uint8_t* w_stage = stage + Tile::kStageABytes + warp * 2 * 32 * 16;
    uint32_t b[2][4][2];  // [n8 tile][k16 step][register]
#pragma unroll
    for (uint32_t i = 0; i < 2; ++i) {
      const uint4 w = *reinterpret_cast<const uint4*>(w_stage + (i * 32 + lane) * 16);
      const uint32_t* quads = reinterpret_cast<const uint32_t*>(&w);
#pragma unroll
      for (uint32_t s = 0; s < 4; ++s) E4m3QuadToB(quads[s], b[i][s]);
    }
#pragma unroll
    for (uint32_t t = 0; t < kMTiles; ++t) {
      if (t >= m_tiles) break;  // warp-uniform
      const uint8_t* a_row = stage + (16 * t + g) * Tile::kARowBytes + 32 * q;
      uint4 a_lo[2], a_hi[2];
      a_lo[0] = *reinterpret_cast<const uint4*>(a_row);
      a_lo[1] = *reinterpret_cast<const uint4*>(a_row + 16);
      a_hi[0] = *reinterpret_cast<const uint4*>(a_row + 8 * Tile::kARowBytes);
      a_hi[1] = *reinterpret_cast<const uint4*>(a_row + 8 * Tile::kARowBytes + 16);
      const uint32_t* lo = reinterpret_cast<const uint32_t*>(a_lo);
      const uint32_t* hi = reinterpret_cast<const uint32_t*>(a_hi);
#pragma unroll
      for (uint32_t s = 0; s < 4; ++s) {
        const uint32_t a[4] = {lo[2 * s], hi[2 * s], lo[2 * s + 1], hi[2 * s + 1]};
        MmaBf16(inner[t][0], a, b[0][s]);
        MmaBf16(inner[t][1], a, b[1][s]);
      }
    }
    if (j % 2 == 1) {
#pragma unroll
      for (uint32_t t = 0; t < kMTiles; ++t) {
#pragma unroll
        for (uint32_t i = 0; i < 2; ++i) {
#pragma unroll
          for (uint32_t e = 0; e < 4; ++e) {
            outer[t][i][e] = fmaf(inner[t][i][e], scale, outer[t][i][e]);
          }
        }
      }
    }
  }
  CpAsyncWait<0>();
#pragma unroll
  for (uint32_t t = 0; t < kMTiles; ++t) {
#pragma unroll
    for (uint32_t i = 0; i < 2; ++i) {
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) {
        const uint32_t row = 16 * t + g + (e >= 2 ? 8 : 0);
        const uint32_t col = n0 + 16 * warp + 8 * i + 2 * q + (e & 1);
        if (row < rows && col < n) {
          output[uint64_t{row} * ldc + col] = device_kit::ToBf16(outer[t][i][e]);
        }
      }
    }
  }
}

// One 64-k step of the weight-rows kernels: lane (g, q)'s 16 weight bytes of rows g (lo) and
// g + 8 (hi) as the mma's A operand, against each activation tile's 16 k (8 BF16 pairs) as B.
// kF16: the activations are F16 (scaled rows, GemmWeightRows' F16 path) and the weights convert
// to F16 pairs; otherwise both are BF16.
template <uint32_t kTiles, bool kF16 = false>
__device__ __forceinline__ void WeightRowsStep(float (&inner)[kTiles][4], const uint4& lo,
                                               const uint4& hi, const uint4 (&xv)[kTiles][2]) {
  const uint32_t* wl = reinterpret_cast<const uint32_t*>(&lo);
  const uint32_t* wh = reinterpret_cast<const uint32_t*>(&hi);
#pragma unroll
  for (uint32_t j = 0; j < 4; ++j) {
    uint32_t a[4];
    if constexpr (kF16) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
      a[0] = E4m3PairToF16x2(wl[j]);
      a[1] = E4m3PairToF16x2(wh[j]);
      a[2] = E4m3PairToF16x2(wl[j] >> 16);
      a[3] = E4m3PairToF16x2(wh[j] >> 16);
#endif
    } else {
      uint32_t l[2], h[2];
      E4m3QuadToB(wl[j], l);
      E4m3QuadToB(wh[j], h);
      a[0] = l[0];
      a[1] = h[0];
      a[2] = l[1];
      a[3] = h[1];
    }
#pragma unroll
    for (uint32_t t = 0; t < kTiles; ++t) {
      const uint32_t* xr = reinterpret_cast<const uint32_t*>(xv[t]);
      const uint32_t b[2] = {xr[2 * j], xr[2 * j + 1]};
      if constexpr (kF16) {
        MmaF16(inner[t], a, b);
      } else {
        MmaBf16(inner[t], a, b);
      }
    }
  }
}

// Weight-rows body loading into registers (LdgRowsTile), for any sm_80+ target. Lane (g, q) holds k 16q..16q+15 of a 64-k step for weight
// rows g and g + 8 and for activation row g of each n8 tile; mma j of the step multiplies the
// 4 k at 16q + 4j (the same permutation of k for both operands). Rows past N or M read row N-1
// or M-1 (branch-free loads), whose products land in outputs that are never stored.
// kOverlapPrevious (sm_90, a launch with programmatic stream serialization): the block lets the
// next launch start at once and issues its first weight batches (up to two) before the previous
// launch on the stream has finished; griddepcontrol.wait comes before the first activation or
// scale load (and so before any store).
template <typename Tile, bool kOverlapPrevious = false>
__device__ __forceinline__ void GemmWeightRowsLdg(const bf16* __restrict__ input,
                                               const uint8_t* __restrict__ weight,
                                               const float* __restrict__ block_scale,
                                               bf16* __restrict__ output, uint32_t m, uint32_t n,
                                               uint32_t k, uint32_t lda, uint32_t ldc) {
  extern __shared__ __align__(16) float partial[];  // [warp][16 weight rows][kMaxM]
  constexpr uint32_t kTiles = Tile::kActTiles, kUnroll = Tile::kUnrollBlocks;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t g = lane / 4, q = lane % 4;
  const uint32_t row0 = blockIdx.x * 16;
  const uint32_t rows = RowsCovered<Tile>(m);
  const uint8_t* w[2];
#pragma unroll
  for (uint32_t h = 0; h < 2; ++h) {
    w[h] = weight + uint64_t{min(row0 + g + 8 * h, n - 1)} * k + 16 * q;
  }
  const bf16* x[kTiles];
#pragma unroll
  for (uint32_t t = 0; t < kTiles; ++t) x[t] = input + uint64_t{min(8 * t + g, rows - 1)} * lda + 16 * q;
  const uint32_t kblocks = k / 128;
  const uint32_t per_warp = (kblocks + Tile::kWarps - 1) / Tile::kWarps;
  const uint32_t b_begin = min(kblocks, warp * per_warp);
  const uint32_t b_end = min(kblocks, b_begin + per_warp);
  const float* scales = block_scale + uint64_t{row0 / 128} * kblocks;
  float outer[kTiles][4] = {};
  bool previous_done = !kOverlapPrevious;
  auto wait_previous = [&] {
    if (!previous_done) device_kit::WaitForPreviousLaunch();
    previous_done = true;
  };
  if constexpr (kOverlapPrevious) device_kit::LetDependentsLaunch();

  auto fold = [&](const float (&inner)[kTiles][4], float scale) {
#pragma unroll
    for (uint32_t t = 0; t < kTiles; ++t) {
#pragma unroll
      for (uint32_t e = 0; e < 4; ++e) outer[t][e] = fmaf(inner[t][e], scale, outer[t][e]);
    }
  };
  // Batches of kUnroll 128-k blocks, double-buffered: the weights of batch i + 1 are loaded
  // into the other register set before batch i is multiplied, so a warp always has one batch of
  // loads in flight while it converts and multiplies the other.
  using Batch = uint4[kUnroll][2][2];  // [block][64-k step][row g, g + 8]
  auto load_weights = [&](Batch& dst, uint32_t b0) {
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (uint32_t s = 0; s < 2; ++s) {
        const uint32_t off = (b0 + u) * 128 + 64 * s;
        dst[u][s][0] = device_kit::LoadStreaming16(w[0] + off);
        dst[u][s][1] = device_kit::LoadStreaming16(w[1] + off);
      }
    }
  };
  auto multiply = [&](const Batch& wv, uint32_t b0) {
    wait_previous();
    uint4 xv[kUnroll][2][kTiles][2];
    float sc[kUnroll];
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (uint32_t s = 0; s < 2; ++s) {
        const uint32_t off = (b0 + u) * 128 + 64 * s;
#pragma unroll
        for (uint32_t t = 0; t < kTiles; ++t) {
          xv[u][s][t][0] = device_kit::LoadCached16(x[t] + off);
          xv[u][s][t][1] = device_kit::LoadCached16(x[t] + off + 8);
        }
      }
      sc[u] = scales[b0 + u];
    }
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) {
      float inner[kTiles][4] = {};
      WeightRowsStep<kTiles>(inner, wv[u][0][0], wv[u][0][1], xv[u][0]);
      WeightRowsStep<kTiles>(inner, wv[u][1][0], wv[u][1][1], xv[u][1]);
      fold(inner, sc[u]);
    }
  };
  const uint32_t batches = (b_end - b_begin) / kUnroll;
  uint32_t b = b_begin;
  Batch ping, pong;
  if (batches > 0) load_weights(ping, b);
  for (uint32_t i = 0; i < batches; i += 2) {
    if (i + 1 < batches) load_weights(pong, b + kUnroll);
    multiply(ping, b);
    b += kUnroll;
    if (i + 1 < batches) {
      if (i + 2 < batches) load_weights(ping, b + kUnroll);
      multiply(pong, b);
      b += kUnroll;
    }
  }
  wait_previous();
  for (; b < b_end; ++b) {  // fewer than kUnroll blocks left
    float inner[kTiles][4] = {};
#pragma unroll
    for (uint32_t s = 0; s < 2; ++s) {
      const uint32_t off = b * 128 + 64 * s;
      uint4 xv[kTiles][2];
#pragma unroll
      for (uint32_t t = 0; t < kTiles; ++t) {
        xv[t][0] = device_kit::LoadCached16(x[t] + off);
        xv[t][1] = device_kit::LoadCached16(x[t] + off + 8);
      }
      WeightRowsStep<kTiles>(inner, device_kit::LoadStreaming16(w[0] + off),
                             device_kit::LoadStreaming16(w[1] + off), xv);
    }
    fold(inner, scales[b]);
  }
  device_kit::StorePartial<kTiles>(partial + warp * 16 * Tile::kMaxM, outer, g, q);
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < 16 * Tile::kMaxM; i += Tile::kThreads) {
    const uint32_t row = i % 16;  // weight row: consecutive threads write consecutive n
    const uint32_t col = i / 16;  // activation row
    if (col >= rows || row0 + row >= n) continue;
    float sum = 0.0f;
    for (uint32_t v = 0; v < Tile::kWarps; ++v) sum += partial[(v * 16 + row) * Tile::kMaxM + col];
    output[uint64_t{col} * ldc + row0 + row] = device_kit::ToBf16(sum);
  }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Weight-rows body (WeightRowsTile, sm_90): persistent blocks walk 16-row weight tiles b,
// b + grid, ...; the block's warps split each tile's K in ranges of whole 128-k blocks. Each warp
// keeps its own ring of kStages TMA stages (16 rows x one 128-k block, 128-byte swizzle, one
// mbarrier each) and its lane 0 issues stage c + kStages - 1 before the warp multiplies stage c,
// across tile boundaries, so a warp's loads never wait on another warp and its ring stays full.
// Lane (g, q) holds k 16q..16q+15 of each 64-k half for weight rows g and g + 8 (one swizzled
// 16-byte shared load each) and for activation row g of each n8 tile; mma j of the half multiplies
// the 4 k at 16q + 4j (the same permutation of k for both operands). Rows past N arrive as zeros
// from TMA and are never stored; rows past M read row M - 1, whose products are never stored.
// Per tile, the warps' FP32 partials meet in shared memory (two buffers, one barrier a tile) and
// are added in warp order.
// One warp's F16 staging for the F16 path: `rows` activation rows of k [k_begin, k_begin +
// k_len) as F16 at `dst` ([row][k_len]), each scaled by the power of two 2^s that puts its largest
// magnitude in [2^14, 2^15). Exact when the row's smallest nonzero magnitude in the range lies
// within 2^28 of the largest (all of them then F16 normals): every product and sum is then the
// BF16 path's times 2^s. Returns false (nothing to use) when a row is out of that range, holds an
// infinity or NaN, or the rows do not fit `capacity` elements. down[t][c]: 2^-s of the lane's
// activation column 8t + 2q + c (1 past `rows`).
template <uint32_t kTiles>
__device__ __forceinline__ bool StageF16Range(const bf16* __restrict__ input, uint32_t lda,
                                              uint32_t rows, uint32_t k_begin, uint32_t k_len,
                                              __half* dst, uint32_t capacity,
                                              float (&down)[kTiles][2]) {
  const uint32_t lane = threadIdx.x % 32, q = lane % 4;
#pragma unroll
  for (uint32_t t = 0; t < kTiles; ++t) down[t][0] = down[t][1] = 1.0f;
  if (uint64_t{rows} * k_len > capacity) return false;
  bool exact = true;
  for (uint32_t r = 0; r < rows; ++r) {
    // Magnitudes compared as BF16 bit patterns without the sign (monotone in the magnitude).
    const uint16_t* row = reinterpret_cast<const uint16_t*>(input + uint64_t{r} * lda + k_begin);
    uint32_t largest = 0, smallest = 0xffff;
    for (uint32_t i = 8 * lane; i < k_len; i += 8 * 32) {
      const uint4 v = device_kit::LoadCached16(row + i);
      const uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (uint32_t w = 0; w < 4; ++w) {
#pragma unroll
        for (uint32_t half = 0; half < 2; ++half) {
          const uint32_t mag = (words[w] >> (16 * half)) & 0x7fffu;
          largest = max(largest, mag);
          if (mag != 0) smallest = min(smallest, mag);
        }
      }
    }
#pragma unroll
    for (uint32_t o = 16; o > 0; o /= 2) {
      largest = max(largest, __shfl_xor_sync(0xffffffffu, largest, o));
      smallest = min(smallest, __shfl_xor_sync(0xffffffffu, smallest, o));
    }
    const int e_max = static_cast<int>(largest >> 7), e_min = static_cast<int>(smallest >> 7);
    // s = 141 - e_max puts the largest in [2^14, 2^15), within FP32's normal range.
    int s = 0;
    if (largest >= 0x7f80u || (largest != 0 && (e_max < 15 || e_min < e_max - 28))) {
      exact = false;
    } else if (largest != 0) {
      s = 141 - e_max;
    }
    if (!exact) break;  // warp-uniform: every lane holds the reduced extremes
#pragma unroll
    for (uint32_t t = 0; t < kTiles; ++t) {
#pragma unroll
      for (uint32_t c = 0; c < 2; ++c) {
        if (8 * t + 2 * q + c == r) down[t][c] = __int_as_float((127 - s) << 23);
      }
    }
    const float up = __int_as_float((127 + s) << 23);
    const bf16* src = input + uint64_t{r} * lda + k_begin;
    for (uint32_t i = 8 * lane; i < k_len; i += 8 * 32) {
      const uint4 v = device_kit::LoadCached16(src + i);
      const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&v);
      uint4 out;
      __half2* halves = reinterpret_cast<__half2*>(&out);
#pragma unroll
      for (uint32_t p = 0; p < 4; ++p) {
        const float2 f = __bfloat1622float2(pairs[p]);
        halves[p] = __floats2half2_rn(f.x * up, f.y * up);
      }
      *reinterpret_cast<uint4*>(dst + uint64_t{r} * k_len + i) = out;
    }
  }
  if (!exact) {
#pragma unroll
    for (uint32_t t = 0; t < kTiles; ++t) down[t][0] = down[t][1] = 1.0f;
  }
  __syncwarp();  // the staged rows are complete before any lane reads another's
  return exact;
}

// The F16 path (kF16: tc_m8_f16): each warp first stages its own k range of the activation rows
// in shared memory as F16 (StageF16Range), while its first TMA stages are in flight, and then
// multiplies F16 weights by them; each 128-k block's FP32 sum is multiplied back by the row's
// power of two (exact) before the usual fold. A warp whose rows F16 cannot hold exactly takes
// the BF16 path, so every output is the BF16 path's, bit for bit.
// kOverlapPrevious: as GemmWeightRowsLdg's (the first kStages - 1 stages' TMA loads before
// griddepcontrol.wait; A, its F16 staging, the scales and C after).
template <typename Tile, bool kF16 = false, bool kOverlapPrevious = false>
__device__ __forceinline__ void GemmWeightRows(const CUtensorMap* __restrict__ weight_map,
                                               const bf16* __restrict__ input,
                                               const float* __restrict__ block_scale,
                                               bf16* __restrict__ output, uint32_t m, uint32_t n,
                                               uint32_t k, uint32_t lda, uint32_t ldc) {
  extern __shared__ __align__(1024) uint8_t tma_smem[];  // 1024: the swizzled stages
  uint8_t* smem = tma_smem;
  constexpr uint32_t kTiles = Tile::kActTiles, kWarps = Tile::kWarps, kStages = Tile::kStages;
  constexpr uint32_t kMaxM = Tile::kMaxM, kStageBytes = Tile::kStageBytes;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t g = lane / 4, q = lane % 4;
  uint8_t* ring = smem + warp * kStages * kStageBytes;
  float* partials = reinterpret_cast<float*>(smem + Tile::kRingBytes);  // [2][warp][16][kMaxM]
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + Tile::kRingBytes + Tile::kPartialBytes) +
                   warp * kStages;
  const uint32_t rows = RowsCovered<Tile>(m);
  const uint32_t kblocks = k / 128;
  const uint32_t per_warp = (kblocks + kWarps - 1) / kWarps;
  const uint32_t kb_begin = min(kblocks, warp * per_warp);
  const uint32_t my_kb = min(kblocks, kb_begin + per_warp) - kb_begin;
  const uint32_t tiles = (n + 15) / 16;
  const uint32_t my_tiles =
      blockIdx.x < tiles ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  const uint32_t stages = my_tiles * my_kb;  // this warp's, in order: tile-major, then k-block
  if (lane == 0) {
    for (uint32_t s = 0; s < kStages; ++s) device_kit::MbarInit(&bars[s], 1);
    device_kit::MbarInitFence();
  }
  __syncwarp();
  auto issue = [&](uint32_t c) {
    if (lane == 0) {
      const uint32_t tile = blockIdx.x + (c / my_kb) * gridDim.x;
      const uint32_t slot = c % kStages;
      device_kit::MbarExpectTx(&bars[slot], kStageBytes);
      device_kit::TmaLoad2D(ring + slot * kStageBytes, weight_map, &bars[slot],
                            static_cast<int32_t>((kb_begin + c % my_kb) * 128),
                            static_cast<int32_t>(tile * 16));
    }
  };
  if constexpr (kOverlapPrevious) device_kit::LetDependentsLaunch();
  for (uint32_t c = 0; c + 1 < kStages && c < stages; ++c) issue(c);
  if constexpr (kOverlapPrevious) device_kit::WaitForPreviousLaunch();
  // The F16 path's staging, while those stages are in flight (kF16 only; f16 is warp-uniform).
  bool f16 = false;
  float down[kTiles][2] = {};
  const __half* staged = nullptr;
  if constexpr (kF16) {
    __half* mine = reinterpret_cast<__half*>(smem + Tile::kStagedOffset) +
                   warp * Tile::kStagedPerWarp;
    f16 = StageF16Range<kTiles>(input, lda, rows, kb_begin * 128, my_kb * 128, mine,
                                Tile::kStagedPerWarp, down);
    staged = mine;
  }
  const bf16* x[kTiles];
#pragma unroll
  for (uint32_t t = 0; t < kTiles; ++t) {
    x[t] = input + uint64_t{min(8 * t + g, rows - 1)} * lda + 16 * q;
  }
  uint32_t c = 0;
  for (uint32_t it = 0; it < my_tiles; ++it) {
    const uint32_t row0 = (blockIdx.x + it * gridDim.x) * 16;
    const float* scales = block_scale + uint64_t{row0 / 128} * kblocks;
    float outer[kTiles][4] = {};
    for (uint32_t j = 0; j < my_kb; ++j, ++c) {
      __syncwarp();  // every lane is done with the slot stage c + kStages - 1 reuses
      if (c + kStages - 1 < stages) issue(c + kStages - 1);
      const uint32_t kb = kb_begin + j;
      uint4 xv[2][kTiles][2];  // activations first: their latency overlaps the wait
#pragma unroll
      for (uint32_t h = 0; h < 2; ++h) {
#pragma unroll
        for (uint32_t t = 0; t < kTiles; ++t) {
          if (f16) {
            const __half* row = staged + min(8 * t + g, rows - 1) * (my_kb * 128) + 16 * q;
            xv[h][t][0] = *reinterpret_cast<const uint4*>(row + j * 128 + 64 * h);
            xv[h][t][1] = *reinterpret_cast<const uint4*>(row + j * 128 + 64 * h + 8);
          } else {
            xv[h][t][0] = device_kit::LoadCached16(x[t] + kb * 128 + 64 * h);
            xv[h][t][1] = device_kit::LoadCached16(x[t] + kb * 128 + 64 * h + 8);
          }
        }
      }
      const float scale = scales[kb];
      const uint32_t slot = c % kStages;
      device_kit::MbarWait(&bars[slot], (c / kStages) & 1);
      const uint8_t* stage = ring + slot * kStageBytes;
      float inner[kTiles][4] = {};
#pragma unroll
      for (uint32_t h = 0; h < 2; ++h) {
        const uint4 lo =
            *reinterpret_cast<const uint4*>(stage + device_kit::Swizzle128(g, 4 * h + q));
        const uint4 hi =
            *reinterpret_cast<const uint4*>(stage + device_kit::Swizzle128(g + 8, 4 * h + q));
        if (f16) {
          WeightRowsStep<kTiles, true>(inner, lo, hi, xv[h]);
        } else {
          WeightRowsStep<kTiles, false>(inner, lo, hi, xv[h]);
        }
      }
#pragma unroll
      for (uint32_t t = 0; t < kTiles; ++t) {
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
          if constexpr (kF16) {  // element e is activation column 8t + 2q + (e & 1)
            outer[t][e] = fmaf(inner[t][e] * down[t][e & 1], scale, outer[t][e]);
          } else {
            outer[t][e] = fmaf(inner[t][e], scale, outer[t][e]);
          }
        }
      }
    }
    float* mine = partials + ((it & 1) * kWarps + warp) * 16 * kMaxM;
    device_kit::StorePartial<kTiles>(mine, outer, g, q);
    __syncthreads();  // partials of this tile complete; buffer it & 1 is next written at it + 2
    const float* all = partials + (it & 1) * kWarps * 16 * kMaxM;
    for (uint32_t i = threadIdx.x; i < 16 * kMaxM; i += Tile::kThreads) {
      const uint32_t row = i % 16;  // weight row: consecutive threads write consecutive n
      const uint32_t col = i / 16;  // activation row
      if (col >= rows || row0 + row >= n) continue;
      float sum = 0.0f;
      for (uint32_t v = 0; v < kWarps; ++v) sum += all[(v * 16 + row) * kMaxM + col];
      output[uint64_t{col} * ldc + row0 + row] = device_kit::ToBf16(sum);
    }
  }
}

#endif

// Scalar body: thread c owns column c for every row up to 16; per 128-k block, FFMA in k order
// into an inner sum, then fmaf(inner, scale, outer). Bit-exact to the CPU reference.
__device__ __forceinline__ void Gemv(const bf16* __restrict__ input,
                                     const uint8_t* __restrict__ weight,
                                     const float* __restrict__ block_scale,
                                     bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                                     uint32_t lda, uint32_t ldc) {
  constexpr uint32_t kMaxM = gpuops::ops::fp8::GemvTile::kMaxM;
  const uint32_t col = blockIdx.x * gpuops::ops::fp8::GemvTile::kN + threadIdx.x;
  if (col >= n) return;
  const uint32_t rows = m < kMaxM ? m : kMaxM;
  const uint32_t kblocks = k / 128;
  const uint8_t* wrow = weight + uint64_t{col} * k;
  float outer[kMaxM] = {};
  for (uint32_t blk = 0; blk < kblocks; ++blk) {
    float inner[kMaxM] = {};
    for (uint32_t k16 = blk * 128; k16 < (blk + 1) * 128; k16 += 16) {
      const uint4 packed = *reinterpret_cast<const uint4*>(wrow + k16);
      const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&packed);
#pragma unroll
      for (uint32_t e = 0; e < 16; ++e) {
        const float w = __half2float(__half(__nv_cvt_fp8_to_halfraw(bytes[e], __NV_E4M3)));
#pragma unroll
        for (uint32_t r = 0; r < kMaxM; ++r) {
          if (r < rows) {
            inner[r] = fmaf(device_kit::ToFloat(input[uint64_t{r} * lda + k16 + e]), w, inner[r]);
          }
        }
      }
    }
    const float scale = block_scale[uint64_t{col / 128} * kblocks + blk];
#pragma unroll
    for (uint32_t r = 0; r < kMaxM; ++r) outer[r] = fmaf(inner[r], scale, outer[r]);
  }
#pragma unroll
  for (uint32_t r = 0; r < kMaxM; ++r) {
    if (r < rows) output[uint64_t{r} * ldc + col] = device_kit::ToBf16(outer[r]);
  }
}

}  // namespace fp8_device
