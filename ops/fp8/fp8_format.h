// FP8 block-scaled weights on the host (../shared/docs/numerics.md, "FP8 block-scaled weight"): a
// logical [N, K] weight held as E4M3 [N, K] row-major with one FP32 scale per 128 x 128 block,
// value = e4m3(w[n, k]) · block_scale[n / 128][k / 128]. The kernels read this layout as it is.
//
//   GPUOPS_ASSIGN_OR_RETURN(Fp8BlockWeight w, QuantizeFp8Block(bf16_rows, n, k));  // or a checkpoint
//   GPUOPS_ASSIGN_OR_RETURN(UploadedWeight d, UploadWeight(gpu, w));                // fp8_gemm.h
//
// Every function checks its input and returns a Status naming what is wrong; none aborts.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/e4m3.h"

namespace gpuops::ops::fp8 {

// The block edge along N and along K.
inline constexpr uint32_t kBlock = 128;

struct Fp8BlockWeight {
  uint32_t n = 0;
  uint32_t k = 0;                 // a multiple of kBlock
  std::vector<uint8_t> weight;    // [N, K] E4M3
  std::vector<float> block_scale; // [ceil(N / 128), K / 128]
  friend bool operator==(const Fp8BlockWeight&, const Fp8BlockWeight&) = default;
};

// The scale rows a weight of n rows needs: ceil(n / 128).
constexpr uint32_t ScaleRows(uint32_t n) { return n / kBlock + (n % kBlock != 0 ? 1 : 0); }

// kInvalidArgument unless `w` is well formed: N >= 1, K a positive multiple of 128, buffers of
// the sizes above, no NaN weight byte, every scale finite and non-negative.
absl::Status Validate(const Fp8BlockWeight& w);

// The quantizer from BF16 [N, K] row-major (K a multiple of 128), per 128 x 128 block (the last
// block row may hold fewer than 128 rows):
//   scale = block amax / 448            (FP32; 0 for an all-zero block)
//   code  = e4m3(x / scale)             (nearest, ties to even, saturating at ±448)
// A block whose scale underflows to 0 gets zero codes. kInvalidArgument for NaN or infinite
// input, naming the first such element.
absl::StatusOr<Fp8BlockWeight> QuantizeFp8Block(absl::Span<const uint16_t> bf16, uint32_t n,
                                                uint32_t k);

// The scale of element (row, col).
float BlockScale(const Fp8BlockWeight& w, uint32_t row, uint32_t col);
// Element (row, col) dequantized exactly: e4m3 · scale in double (the product needs up to 28
// significant bits, more than a float holds).
double Dequantized(const Fp8BlockWeight& w, uint32_t row, uint32_t col);
// The whole weight as BF16 [N, K], each element bf16(e4m3 · scale): what a BF16 GEMM baseline
// multiplies by, and what folding the scale into BF16 weights would compute with.
std::vector<uint16_t> DequantizeToBf16(const Fp8BlockWeight& w);

}  // namespace gpuops::ops::fp8
