// NVFP4 weights on the host: the E2M1 and E4M3 codes, the checkpoint layout, the layout the
// kernels read, the quantizer from BF16 and the dequantized values the references use
// (../shared/docs/numerics.md, "NVFP4 weight").
//
//   GPUOPS_ASSIGN_OR_RETURN(Nvfp4Weight w, QuantizeNvfp4(bf16_rows, n, k));  // or a checkpoint
//   GPUOPS_ASSIGN_OR_RETURN(Nvfp4PreparedWeight p, Prepare(w));                // kernel layout
//   GPUOPS_ASSIGN_OR_RETURN(Nvfp4DeviceWeight d, Upload(gpu, p));              // on the device
//
// Every function checks its input and returns a Status naming what is wrong; none aborts.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/e4m3.h"  // the scales' codec

namespace gpuops::ops::nvfp4 {

// --- Element codes

// An E2M1 nibble (bit 3 sign, bits 0-2 magnitude code) as a float: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
float E2m1ToFloat(uint8_t nibble);
// The nearest E2M1 code to `x` (ties to the even code, magnitudes beyond 6 saturate to 6; a
// magnitude that rounds to 0 gives +0). `x` must be finite.
uint8_t FloatToE2m1(float x);

// --- Weights

// The checkpoint layout (ModelOpt, vLLM) of a logical [N, K] weight, K a multiple of 16.
struct Nvfp4Weight {
  uint32_t n = 0;
  uint32_t k = 0;
  std::vector<uint8_t> packed;  // [N, K/2]: byte j of row r holds k = 2j (low nibble), 2j + 1
  std::vector<uint8_t> scales;  // [N, K/16] E4M3: one per 16 consecutive k of a row
  float global_scale = 1.0f;    // weight_scale_2
  friend bool operator==(const Nvfp4Weight&, const Nvfp4Weight&) = default;
};

// The layout the kernels read: K rows of `ldb` columns (ldb >= N, even; the columns from N on
// are zero), so a k-row of the weight is one contiguous run of N values.
struct Nvfp4PreparedWeight {
  uint32_t n = 0;
  uint32_t k = 0;
  uint32_t ldb = 0;
  std::vector<uint8_t> packed;  // [K, ldb/2]: byte j of k-row r holds n = 2j (low nibble), 2j + 1
  std::vector<uint8_t> scales;  // [K/16, ldb] E4M3: the scale of (n, 16-k group g) at g * ldb + n
  float global_scale = 1.0f;
  friend bool operator==(const Nvfp4PreparedWeight&, const Nvfp4PreparedWeight&) = default;
};

// kInvalidArgument unless `w` is well formed: N >= 1, K a positive multiple of 16, buffers of
// the sizes above, a finite global scale, and no NaN scale byte.
absl::Status Validate(const Nvfp4Weight& w);
absl::Status Validate(const Nvfp4PreparedWeight& w);

// The row stride Prepare uses by default: N when N is a multiple of 32 (every k-row then
// starts 16-byte aligned), else N rounded up to 128 (as the seed pads lm_head).
uint32_t DefaultLdb(uint32_t n);

// `w` in the kernels' layout with row stride `ldb` (0: DefaultLdb(N)); ldb must be even and at
// least N. Bit-exact: Unprepare(Prepare(w)) == w.
absl::StatusOr<Nvfp4PreparedWeight> Prepare(const Nvfp4Weight& w, uint32_t ldb = 0);
// Back to the checkpoint layout; kInvalidArgument when a pad column is not zero.
absl::StatusOr<Nvfp4Weight> Unprepare(const Nvfp4PreparedWeight& w);

// The quantizer from BF16 [N, K] row-major (K a multiple of 16):
//   global = amax / (6 · 448)                      (amax over the tensor)
//   scale  = e4m3(block_amax / (6 · global))       (per 16 consecutive k of a row)
//   code   = e2m1(x / (e4m3 scale · global))       (nearest, ties to even)
// An all-zero tensor gets global = 0 and zero codes; a block whose scale rounds to 0 gets zero
// codes. kInvalidArgument for NaN or infinite input, naming the first such element.
absl::StatusOr<Nvfp4Weight> QuantizeNvfp4(absl::Span<const uint16_t> bf16, uint32_t n, uint32_t k);

// Element (row, col) dequantized: e2m1 · e4m3 scale (exact in float, and in BF16) and that
// times the global scale (rounded once to float).
float DequantizedUnscaled(const Nvfp4Weight& w, uint32_t row, uint32_t col);
float Dequantized(const Nvfp4Weight& w, uint32_t row, uint32_t col);
// The whole weight dequantized to BF16 [N, K]: the e2m1 · e4m3 product is exact in BF16 and the
// global scale then rounds once (what a BF16 GEMM baseline multiplies by).
std::vector<uint16_t> DequantizeToBf16(const Nvfp4Weight& w);

}  // namespace gpuops::ops::nvfp4
