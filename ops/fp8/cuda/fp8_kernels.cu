// The FP8 W8A16 family's kernels, compiled as one translation unit into fp8.fatbin: the metrale
// seed's decode kernels under their seed names and argument lists, and our own (8 warps for
// small N, weight-rows kernels on TMA, wgmma kernels for M up to 64). Grid (ceil(N / tile N), 1,
// 1) or persistent, as each kernel says; tile geometry in fp8_tiles.h, bodies in fp8_device.cuh
// and fp8_wgmma.cuh.
#include "fp8_device.cuh"
#include "fp8_wgmma.cuh"

using fp8_device::bf16;
using gpuops::ops::fp8::GemvTile;
using gpuops::ops::fp8::M16N64Tile;
using gpuops::ops::fp8::M16Tile;
using gpuops::ops::fp8::M16W8Tile;
using gpuops::ops::fp8::M64Tile;
using gpuops::ops::fp8::TcM16LdgTile;
using gpuops::ops::fp8::TcM16LdgW4Tile;
using gpuops::ops::fp8::TcM16Tile;
using gpuops::ops::fp8::TcM8F16Tile;
using gpuops::ops::fp8::TcM32Tile;
using gpuops::ops::fp8::TcM64Tile;
using gpuops::ops::fp8::TcM8LdgTile;
using gpuops::ops::fp8::TcM8LdgW4Tile;
using gpuops::ops::fp8::TcM8Tile;
using gpuops::ops::fp8::WgM32N64Split2Tile;
using gpuops::ops::fp8::WgM32StreamKTile;
using gpuops::ops::fp8::WgM32Tile;
using gpuops::ops::fp8::WgM64N64Split2Tile;
using gpuops::ops::fp8::WgM64StreamKTile;
using gpuops::ops::fp8::WgM64Tile;
using gpuops::ops::fp8::WgM128StreamKTile;
using gpuops::ops::fp8::WgM128Tile;

// Tensor cores, 16 rows x 32 columns per block, 4 warps splitting K.
extern "C" __global__ void __launch_bounds__(M16Tile::kThreads)
    w8a16_gemm_m16(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k) {
  fp8_device::GemmDecode<M16Tile>(input, weight, block_scale, output, m, n, k, k, n);
}

// The same with 64 columns per block.
extern "C" __global__ void __launch_bounds__(M16N64Tile::kThreads)
    w8a16_gemm_m16_n64(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k) {
  fp8_device::GemmDecode<M16N64Tile>(input, weight, block_scale, output, m, n, k, k, n);
}

// w8a16_gemm_m16 with row pitches: one launch fills one slot of a packed [m, q|k|v] buffer.
extern "C" __global__ void __launch_bounds__(M16Tile::kThreads)
    w8a16_gemm_m16_strided(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k, uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmDecode<M16Tile>(input, weight, block_scale, output, m, n, k, a_row_stride,
                                  c_row_stride);
}

// 16 rows x 32 columns on 8 warps splitting K.
extern "C" __global__ void __launch_bounds__(M16W8Tile::kThreads)
    w8a16_gemm_m16_w8(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k, uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmDecode<M16W8Tile>(input, weight, block_scale, output, m, n, k, a_row_stride,
                                    c_row_stride);
}

// Up to 64 rows x 64 columns, 4 warps splitting the columns.
extern "C" __global__ void __launch_bounds__(M64Tile::kThreads)
    w8a16_gemm_m64(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k, uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmRows<M64Tile>(input, weight, block_scale, output, m, n, k, a_row_stride,
                                c_row_stride);
}

// Decode, weights as the mma's A operand loaded into registers: grid (ceil(N / 16), 1, 1), block
// 256, dynamic shared memory TcM8LdgTile::kSharedBytes; M <= 8. The decode kernels (tc_m8_ldg,
// tc_m8_ldg_w4, tc_m16_ldg, tc_m16_ldg_w4, tc_m8, tc_m16, tc_m8_f16) let the next launch start at
// once and read nothing but the weight before the previous launch has finished (griddepcontrol,
// sm_90): the op launches them overlapping it when the caller's weight is settled
// (GemmArgs::weight_settled).
extern "C" __global__ void __launch_bounds__(TcM8LdgTile::kThreads, TcM8LdgTile::kBlocksPerSm)
    w8a16_gemv_tc_m8_ldg(const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                         const float* __restrict__ block_scale, bf16* __restrict__ output,
                         uint32_t m, uint32_t n, uint32_t k, uint32_t a_row_stride,
                         uint32_t c_row_stride) {
  fp8_device::GemmWeightRowsLdg<TcM8LdgTile, true>(
      input, weight, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}

// The same with 4 warps a 16-row tile (block 128, TcM8LdgW4Tile::kSharedBytes), four blocks an SM.
extern "C" __global__ void __launch_bounds__(TcM8LdgW4Tile::kThreads, TcM8LdgW4Tile::kBlocksPerSm)
    w8a16_gemv_tc_m8_ldg_w4(const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                            const float* __restrict__ block_scale, bf16* __restrict__ output,
                            uint32_t m, uint32_t n, uint32_t k, uint32_t a_row_stride,
                            uint32_t c_row_stride) {
  fp8_device::GemmWeightRowsLdg<TcM8LdgW4Tile, true>(
      input, weight, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}

// M <= 16 (two activation tiles, batches of one 128-k block): block 256 at two blocks an SM
// (TcM16LdgTile) and block 128 at four (TcM16LdgW4Tile), grid (ceil(N / 16), 1, 1).
extern "C" __global__ void __launch_bounds__(TcM16LdgTile::kThreads, TcM16LdgTile::kBlocksPerSm)
    w8a16_gemv_tc_m16_ldg(const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                          const float* __restrict__ block_scale, bf16* __restrict__ output,
                          uint32_t m, uint32_t n, uint32_t k, uint32_t a_row_stride,
                          uint32_t c_row_stride) {
  fp8_device::GemmWeightRowsLdg<TcM16LdgTile, true>(
      input, weight, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}

extern "C" __global__ void __launch_bounds__(TcM16LdgW4Tile::kThreads,
                                             TcM16LdgW4Tile::kBlocksPerSm)
    w8a16_gemv_tc_m16_ldg_w4(const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                             const float* __restrict__ block_scale, bf16* __restrict__ output,
                             uint32_t m, uint32_t n, uint32_t k, uint32_t a_row_stride,
                             uint32_t c_row_stride) {
  fp8_device::GemmWeightRowsLdg<TcM16LdgW4Tile, true>(
      input, weight, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Decode, weights as the mma's A operand (sm_90, TMA): persistent, grid
// (min(ceil(N / 16), 3 SMs)), block 256, dynamic shared memory TcM8Tile::kSharedBytes; M <= 8.
// weight_map: the [N, K] E4M3 weight, box 16 rows x 128 k, 128-byte swizzle.
extern "C" __global__ void __launch_bounds__(TcM8Tile::kThreads, TcM8Tile::kBlocksPerSm)
    w8a16_gemv_tc_m8(const __grid_constant__ CUtensorMap weight_map,
                     const bf16* __restrict__ input, const float* __restrict__ block_scale,
                     bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                     uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWeightRows<TcM8Tile, false, true>(
      &weight_map, input, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}

// The same for M <= 16 (two activation tiles; TcM16Tile::kSharedBytes).
extern "C" __global__ void __launch_bounds__(TcM16Tile::kThreads, TcM16Tile::kBlocksPerSm)
    w8a16_gemv_tc_m16(const __grid_constant__ CUtensorMap weight_map,
                      const bf16* __restrict__ input, const float* __restrict__ block_scale,
                      bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                      uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWeightRows<TcM16Tile, false, true>(
      &weight_map, input, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}

// M <= 32 and M <= 64 in one launch (four and eight activation tiles; TcM32Tile / TcM64Tile).
extern "C" __global__ void __launch_bounds__(TcM32Tile::kThreads, TcM32Tile::kBlocksPerSm)
    w8a16_gemm_tc_m32(const __grid_constant__ CUtensorMap weight_map,
                      const bf16* __restrict__ input, const float* __restrict__ block_scale,
                      bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                      uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWeightRows<TcM32Tile>(&weight_map, input, block_scale, output, m, n, k,
                                        a_row_stride, c_row_stride);
}

extern "C" __global__ void __launch_bounds__(TcM64Tile::kThreads, TcM64Tile::kBlocksPerSm)
    w8a16_gemm_tc_m64(const __grid_constant__ CUtensorMap weight_map,
                      const bf16* __restrict__ input, const float* __restrict__ block_scale,
                      bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                      uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWeightRows<TcM64Tile>(&weight_map, input, block_scale, output, m, n, k,
                                        a_row_stride, c_row_stride);
}

// Decode with F16 operands where exact (TcM8F16Tile): M <= 8, each warp's rows x k range within
// its staging (TcM8F16Tile::StagesFit); tc_m8's results bit for bit (grid min(ceil(N / 16),
// 2 SMs), block 256, dynamic shared memory TcM8F16Tile::kTotalSharedBytes).
extern "C" __global__ void __launch_bounds__(TcM8F16Tile::kThreads, TcM8F16Tile::kBlocksPerSm)
    w8a16_gemv_tc_m8_f16(const __grid_constant__ CUtensorMap weight_map,
                         const bf16* __restrict__ input, const float* __restrict__ block_scale,
                         bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                         uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWeightRows<TcM8F16Tile, true, true>(
      &weight_map, input, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}
#endif

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// M <= 32 and M <= 64 on warpgroup MMA (sm_90a): persistent, grid (min(ceil(N / 128), SMs)),
// block 384, dynamic shared memory WgM32Tile / WgM64Tile::kSharedBytes. weight_map: the [N, K]
// E4M3 weight, box 128 rows x 128 k, 128-byte swizzle; input_map: the [m, k] BF16 activations at
// a_row_stride, box 64 k x m rows up to the M tile, 128-byte swizzle. `input` and a_row_stride
// name the same rows for the launch contract (the host emulation reads them there); the device
// reads the activations through input_map only.
extern "C" __global__ void __launch_bounds__(WgM32Tile::kThreads, 1)
    w8a16_gemm_wg_m32(const __grid_constant__ CUtensorMap weight_map,
                      const __grid_constant__ CUtensorMap input_map, const bf16* __restrict__ input,
                      const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                      uint32_t n, uint32_t k, uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWgmma<WgM32Tile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                   c_row_stride);
}

extern "C" __global__ void __launch_bounds__(WgM64Tile::kThreads, 1)
    w8a16_gemm_wg_m64(const __grid_constant__ CUtensorMap weight_map,
                      const __grid_constant__ CUtensorMap input_map, const bf16* __restrict__ input,
                      const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                      uint32_t n, uint32_t k, uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWgmma<WgM64Tile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                   c_row_stride);
}

// Any M on warpgroup MMA (sm_90a), 128 weight rows x 128 activation rows a tile: persistent, grid
// (min(ceil(N / 128) x ceil(M / 128), SMs)), block 384, dynamic shared memory
// WgM128Tile::kSharedBytes; the tensor maps as wg_m64's, input_map's box 64 k x min(m, 128) rows.
extern "C" __global__ void __launch_bounds__(WgM128Tile::kThreads, 1)
    w8a16_gemm_wg_m128(const __grid_constant__ CUtensorMap weight_map,
                       const __grid_constant__ CUtensorMap input_map,
                       const bf16* __restrict__ input, const float* __restrict__ block_scale,
                       bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                       uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWgmma<WgM128Tile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                    c_row_stride);
}

// 64-row weight tiles, K split over a cluster of 2 blocks (compile-time cluster dims), two
// blocks an SM: grid (2 ceil(N / 64)), block 256, dynamic shared memory
// WgM32N64Split2Tile / WgM64N64Split2Tile::kSharedBytes; weight_map's
// box 64 rows x 128 k, input_map's as for wg_m32 / wg_m64.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    __launch_bounds__(WgM32N64Split2Tile::kThreads, WgM32N64Split2Tile::kBlocksPerSm)
        w8a16_gemm_wg_m32_n64_split2(const __grid_constant__ CUtensorMap weight_map,
                                     const __grid_constant__ CUtensorMap input_map,
                                     const bf16* __restrict__ input,
                                     const float* __restrict__ block_scale,
                                     bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                                     uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWgmma<WgM32N64Split2Tile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                            c_row_stride);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    __launch_bounds__(WgM64N64Split2Tile::kThreads, WgM64N64Split2Tile::kBlocksPerSm)
        w8a16_gemm_wg_m64_n64_split2(const __grid_constant__ CUtensorMap weight_map,
                                     const __grid_constant__ CUtensorMap input_map,
                                     const bf16* __restrict__ input,
                                     const float* __restrict__ block_scale,
                                     bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                                     uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::GemmWgmma<WgM64N64Split2Tile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                            c_row_stride);
}

// wg_m32 / wg_m64's tiles shared out stream-K: grid (min(SMs, ceil(N / 128) x K / 128)), block
// 384, dynamic shared memory WgM32StreamKTile / WgM64StreamKTile::kSharedBytes; workspace: the
// zero-filled StreamKWorkspace of that grid (left with its flags zero).
extern "C" __global__ void __launch_bounds__(WgM32StreamKTile::kThreads, 1)
    w8a16_gemm_wg_m32_streamk(const __grid_constant__ CUtensorMap weight_map,
                              const __grid_constant__ CUtensorMap input_map,
                              const bf16* __restrict__ input, const float* __restrict__ block_scale,
                              bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                              uint32_t a_row_stride, uint32_t c_row_stride,
                              uint8_t* __restrict__ workspace) {
  fp8_device::GemmWgmma<WgM32StreamKTile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                          c_row_stride, workspace);
}

extern "C" __global__ void __launch_bounds__(WgM64StreamKTile::kThreads, 1)
    w8a16_gemm_wg_m64_streamk(const __grid_constant__ CUtensorMap weight_map,
                              const __grid_constant__ CUtensorMap input_map,
                              const bf16* __restrict__ input, const float* __restrict__ block_scale,
                              bf16* __restrict__ output, uint32_t m, uint32_t n, uint32_t k,
                              uint32_t a_row_stride, uint32_t c_row_stride,
                              uint8_t* __restrict__ workspace) {
  fp8_device::GemmWgmma<WgM64StreamKTile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                          c_row_stride, workspace);
}

// wg_m128's tiles stream-K: grid (min(SMs, ceil(N / 128) x ceil(M / 128) x K / 128)), block 384,
// dynamic shared memory WgM128StreamKTile::kSharedBytes; the workspace as wg_m64_streamk's, 64
// FP32 accumulators a consumer thread.
extern "C" __global__ void __launch_bounds__(WgM128StreamKTile::kThreads, 1)
    w8a16_gemm_wg_m128_streamk(const __grid_constant__ CUtensorMap weight_map,
                               const __grid_constant__ CUtensorMap input_map,
                               const bf16* __restrict__ input,
                               const float* __restrict__ block_scale, bf16* __restrict__ output,
                               uint32_t m, uint32_t n, uint32_t k, uint32_t a_row_stride,
                               uint32_t c_row_stride, uint8_t* __restrict__ workspace) {
  fp8_device::GemmWgmma<WgM128StreamKTile>(&weight_map, &input_map, block_scale, output, m, n, k,
                                           c_row_stride, workspace);
}
#endif

// Scalar FFMA in k order, one thread per column: the bit-exact reference kernel.
extern "C" __global__ void __launch_bounds__(GemvTile::kThreads)
    w8a16_gemv_batch16(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k) {
  fp8_device::Gemv(input, weight, block_scale, output, m, n, k, k, n);
}

extern "C" __global__ void __launch_bounds__(GemvTile::kThreads)
    w8a16_gemv_batch16_strided(
                   const bf16* __restrict__ input, const uint8_t* __restrict__ weight,
                   const float* __restrict__ block_scale, bf16* __restrict__ output, uint32_t m,
                   uint32_t n, uint32_t k, uint32_t a_row_stride, uint32_t c_row_stride) {
  fp8_device::Gemv(input, weight, block_scale, output, m, n, k, a_row_stride, c_row_stride);
}
