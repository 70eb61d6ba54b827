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

// The same with F16 inputs (fragments as MmaBf16's).
__device__ __forceinline__ void MmaF16(float (&d)[4], const uint32_t (&a)[4],
                                       const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
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

// Programmatic dependent launch (sm_90 and up; nothing below). LetDependentsLaunch: the next
// launch on the stream, if launched as a programmatic dependent of this one, may start now.
// WaitForPreviousLaunch: returns once the launch this one was made a programmatic dependent of
// has finished and its writes are visible (at once for a launch in plain stream order).
__device__ __forceinline__ void LetDependentsLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void WaitForPreviousLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

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

// Unaligned BF16 rows (K or a row stride not a multiple of 8, or an offset pointer) read with
// aligned 16-byte loads: the block holding a piece's first element and the block after it,
// funnelled into place. Nothing at or past the operand's `end` is read.

// The 16-byte-aligned block holding p's first element (L1-cached: neighbouring pieces share
// blocks); zeros, and `has` false, when that block would reach `end`. The block may begin up to
// 14 bytes before an operand that starts off a 16-byte boundary, never before its allocation
// (device allocations start 256-byte aligned).
__device__ __forceinline__ uint4 LoadBlockHolding(const bf16* p, const bf16* end, bool& has) {
  const uintptr_t base = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  has = base + 16 <= reinterpret_cast<uintptr_t>(end);
  return has ? __ldg(reinterpret_cast<const uint4*>(base)) : make_uint4(0, 0, 0, 0);
}

// The first `valid` (0..8) of the eight BF16 at p, read one by one (for a piece whose blocks
// could not all be read); the rest zero.
__device__ __forceinline__ uint4 LoadBf16x8ByElement(const bf16* p, uint32_t valid) {
  const uint16_t* e = reinterpret_cast<const uint16_t*>(p);
  uint32_t w[8];
#pragma unroll
  for (uint32_t i = 0; i < 8; ++i) w[i] = i < valid ? e[i] : 0u;
  return make_uint4(w[0] | w[1] << 16, w[2] | w[3] << 16, w[4] | w[5] << 16, w[6] | w[7] << 16);
}

// v with its elements from `valid` (0..7) on zeroed: a row's last piece and the padding past it.
__device__ __forceinline__ uint4 KeepBf16x8(const uint4& v, uint32_t valid) {
  const auto keep = [valid](uint32_t i) {
    return (2 * i < valid ? 0x0000ffffu : 0u) | (2 * i + 1 < valid ? 0xffff0000u : 0u);
  };
  return make_uint4(v.x & keep(0), v.y & keep(1), v.z & keep(2), v.w & keep(3));
}

// Bytes [4 kWords + bits / 8, + 16) of the 32 bytes x:y (bits 0, 8, 16 or 24): whole words from
// word kWords, then a funnel. For callers whose shift is the same for every piece (a row's).
template <uint32_t kWords>
__device__ __forceinline__ uint4 FunnelWords(const uint4& x, const uint4& y, uint32_t bits) {
  const uint32_t w[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
  return make_uint4(__funnelshift_r(w[kWords], w[kWords + 1], bits),
                    __funnelshift_r(w[kWords + 1], w[kWords + 2], bits),
                    __funnelshift_r(w[kWords + 2], w[kWords + 3], bits),
                    __funnelshift_r(w[kWords + 3], w[kWords + 4], bits));
}

// Eight BF16 at p (2-byte aligned) from x, the aligned block holding p, and y, the block after
// it (unused when p is 16-byte aligned). `whole` false (a block that was needed was not read)
// loads the `valid` elements one by one instead. Elements from `valid` (0..8) on are zero.
__device__ __forceinline__ uint4 FunnelBf16x8(const bf16* p, const uint4& x, const uint4& y,
                                              bool whole, uint32_t valid) {
  if (!whole) return LoadBf16x8ByElement(p, valid);
  // Bytes shift .. shift + 15 of x:y: whole words from word shift / 4, then a 16-bit funnel.
  const uint32_t shift = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) & 15);
  const uint32_t w[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
  const uint32_t j = shift / 4, bits = (shift % 4) * 8;
  uint32_t t[5];
#pragma unroll
  for (uint32_t i = 0; i < 5; ++i) {
    t[i] = j == 0 ? w[i] : j == 1 ? w[i + 1] : j == 2 ? w[i + 2] : w[i + 3];
  }
  const uint4 o = make_uint4(__funnelshift_r(t[0], t[1], bits), __funnelshift_r(t[1], t[2], bits),
                             __funnelshift_r(t[2], t[3], bits), __funnelshift_r(t[3], t[4], bits));
  return valid < 8 ? KeepBf16x8(o, valid) : o;
}

// FunnelBf16x8 for quads of lanes (4i .. 4i + 3) reading consecutive 16-byte pieces of one row,
// lane q at p0 + 8q: `cur` and `cur_has` are LoadBlockHolding(p), `next` and `next_has` the same
// one step of 32 elements on (LoadBlockHolding(p + 32)). The block after lane q's is lane
// q + 1's `cur`, and for lane 3 lane 0's `next`: one shuffle each. Every lane of the warp calls.
__device__ __forceinline__ uint4 QuadFunnelBf16x8(const bf16* p, const uint4& cur, bool cur_has,
                                                  const uint4& next, bool next_has,
                                                  uint32_t valid) {
  const uint32_t lane = threadIdx.x % 32, q = lane % 4;
  const uint32_t src = (lane & ~3u) | ((q + 1) & 3u);
  const uint4 give = q == 0 ? next : cur;  // what this lane's left neighbour needs from it
  const uint32_t give_has = (q == 0 ? next_has : cur_has) ? 1u : 0u;
  uint4 y;
  y.x = __shfl_sync(0xffffffffu, give.x, src);
  y.y = __shfl_sync(0xffffffffu, give.y, src);
  y.z = __shfl_sync(0xffffffffu, give.z, src);
  y.w = __shfl_sync(0xffffffffu, give.w, src);
  const bool y_has = __shfl_sync(0xffffffffu, give_has, src) != 0;
  const bool aligned = (reinterpret_cast<uintptr_t>(p) & 15) == 0;
  return FunnelBf16x8(p, cur, y, cur_has && (aligned || y_has), valid);
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
