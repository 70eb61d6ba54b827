// Device helpers every family's kernels share: BF16 conversions, cp.async, ldmatrix and the
// mma.sync wrappers. Kernels include it as "device/mma_kit.cuh" (nvcc runs with -I ops/).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

namespace device_kit {

using bf16 = __nv_bfloat16;

__device__ __forceinline__ float ToFloat(bf16 x) { return __bfloat162float(x); }
__device__ __forceinline__ bf16 ToBf16(float x) { return __float2bfloat16_rn(x); }

// D += A·B for one m16n8k16 tile: BF16 inputs, FP32 accumulators (row-major A, col-major B).
// Fragments (g = lane / 4, q = lane % 4): a = {(g, 2q..), (g + 8, 2q..), (g, 2q + 8..),
// (g + 8, 2q + 8..)}, b = {(k 2q.., col g), (k 2q + 8.., col g)}, d = {(g, 2q), (g, 2q + 1),
// (g + 8, 2q), (g + 8, 2q + 1)}.
__device__ __forceinline__ void MmaBf16(float (&d)[4], const uint32_t (&a)[4],
                                        const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
// D = A·B for one m16n8k16 tile of FP8 E4M3 inputs into fresh FP32 accumulators (sm_89 and up).
// Fragments: a = {(g, 4q..4q + 3), (g + 8, 4q..4q + 3)}, four bytes each; b = (k 4q..4q + 3,
// col g); d as MmaBf16's.
__device__ __forceinline__ void MmaE4m3(float (&d)[4], const uint32_t (&a)[2], uint32_t b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%7,%7,%7,%7};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b), "f"(0.0f));
}
#endif

// 16 bytes of a stream read once (weights): not kept in L1, L2 prefetching 256 bytes.
__device__ __forceinline__ uint4 LoadStreaming16(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// 16 bytes every block of an SM reads (activations): kept in L1.
__device__ __forceinline__ uint4 LoadCached16(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Writes a warp's C^T fragments for 16 weight rows into its [16][8 kNTiles] FP32 partial:
// acc[t][0..1] at row g, columns 8t + 2q (+1); acc[t][2..3] at row g + 8.
template <uint32_t kNTiles>
__device__ __forceinline__ void StorePartial(float* mine, const float (&acc)[kNTiles][4],
                                             uint32_t g, uint32_t q) {
  constexpr uint32_t kCols = 8 * kNTiles;
#pragma unroll
  for (uint32_t t = 0; t < kNTiles; ++t) {
    mine[g * kCols + 8 * t + 2 * q] = acc[t][0];
    mine[g * kCols + 8 * t + 2 * q + 1] = acc[t][1];
    mine[(g + 8) * kCols + 8 * t + 2 * q] = acc[t][2];
    mine[(g + 8) * kCols + 8 * t + 2 * q + 1] = acc[t][3];
  }
}

__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global -> shared copy; when !valid the destination is zero-filled and nothing is read.
__device__ __forceinline__ void CpAsync16(void* smem, const void* gmem, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(SharedAddress(smem)),
               "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n"); }
template <int kPending>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Four 8x8 BF16 matrices from shared memory; lane l supplies the row address of matrix l / 8.
__device__ __forceinline__ void LdMatrixX4(uint32_t (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(SharedAddress(smem)));
}

// Two adjacent 16-bit (or four adjacent 8-bit) values from shared memory, 4-byte aligned.
__device__ __forceinline__ uint32_t LoadPair(const void* p) {
  return *reinterpret_cast<const uint32_t*>(p);
}

}  // namespace device_kit
