// The NVFP4 family's kernels, compiled as one translation unit into nvfp4.fatbin: the spark seed's
// W4A16 kernels under their seed names, with the seed's argument lists and grids (N-fast:
// grid (ceil(N / tile_n), ceil(M / tile_m))). Tile geometry in nvfp4_tiles.h.
#include "gemm_bf16.cuh"
#include "gemm_fp8.cuh"

using gpuops::ops::nvfp4::BaseTile;
using gpuops::ops::nvfp4::DeepKTile;
using gpuops::ops::nvfp4::M128Tile;
using gpuops::ops::nvfp4::M128V2Tile;
using gpuops::ops::nvfp4::M128V3Tile;
using gpuops::ops::nvfp4::N128Tile;
using nvfp4_device::GemmBf16;

// Lossless, 64 x 64 tiles, 128 threads.
extern "C" __global__ void __launch_bounds__(BaseTile::kThreads)
    w4a16_gemm(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
               const uint8_t* __restrict__ b_scale, float scale2, bf16* __restrict__ c, uint32_t m,
               uint32_t n, uint32_t k) {
  GemmBf16<BaseTile>(a, b_packed, b_scale, scale2, c, m, n, k, n);
}

// w4a16_gemm's arguments and grid, K steps of 64.
extern "C" __global__ void __launch_bounds__(DeepKTile::kThreads)
    w4a16_gemm_t_k64_n64_p3(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                            const uint8_t* __restrict__ b_scale, float scale2,
                            bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  GemmBf16<DeepKTile>(a, b_packed, b_scale, scale2, c, m, n, k, n);
}

// Lossless, 64 x 128 tiles; the weight's k-rows ldb apart (ldb = N for a packed weight).
extern "C" __global__ void __launch_bounds__(N128Tile::kThreads)
    w4a16_gemm_n128(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                    const uint8_t* __restrict__ b_scale, float scale2, bf16* __restrict__ c,
                    uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
  GemmBf16<N128Tile>(a, b_packed, b_scale, scale2, c, m, n, k, ldb);
}

// Lossless, 128 x 128 tiles, 128 threads.
extern "C" __global__ void __launch_bounds__(M128Tile::kThreads)
    w4a16_gemm_t_m128_bf16(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                           const uint8_t* __restrict__ b_scale, float scale2,
                           bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k) {
  GemmBf16<M128Tile>(a, b_packed, b_scale, scale2, c, m, n, k, n);
}

// The same over a padded weight: nine arguments, the ninth ldb.
extern "C" __global__ void __launch_bounds__(M128Tile::kThreads)
    w4a16_gemm_t_m128_bf16_ldb(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                               const uint8_t* __restrict__ b_scale, float scale2,
                               bf16* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
                               uint32_t ldb) {
  GemmBf16<M128Tile>(a, b_packed, b_scale, scale2, c, m, n, k, ldb);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
using nvfp4_device::GemmFp8;

// FP8 (A rounded to E4M3), 128 x 128 tiles, 128 threads.
extern "C" __global__ void __launch_bounds__(M128Tile::kThreads)
    w4a16_gemm_t_m128(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                      const uint8_t* __restrict__ b_scale, float scale2, bf16* __restrict__ c,
                      uint32_t m, uint32_t n, uint32_t k) {
  GemmFp8<M128Tile>(a, b_packed, b_scale, scale2, c, m, n, k);
}

// FP8, 256 threads: rows 0-63 on warps 0-3, rows 64-127 on warps 4-7.
extern "C" __global__ void __launch_bounds__(M128V2Tile::kThreads)
    w4a16_gemm_t_m128_v2(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                         const uint8_t* __restrict__ b_scale, float scale2, bf16* __restrict__ c,
                         uint32_t m, uint32_t n, uint32_t k) {
  GemmFp8<M128V2Tile>(a, b_packed, b_scale, scale2, c, m, n, k);
}

// FP8, 256 threads, K steps of 64.
extern "C" __global__ void __launch_bounds__(M128V3Tile::kThreads)
    w4a16_gemm_t_m128_v3(const bf16* __restrict__ a, const uint8_t* __restrict__ b_packed,
                         const uint8_t* __restrict__ b_scale, float scale2, bf16* __restrict__ c,
                         uint32_t m, uint32_t n, uint32_t k) {
  GemmFp8<M128V3Tile>(a, b_packed, b_scale, scale2, c, m, n, k);
}
#endif
