// The FP8 W8A16 family's check suite: every variant the build ships, at the shapes below, on any
// backend. `gpuops check` and the numerics tests run it through the family (fp8_family.cc).
//
// Per weight (N, K): BF16 values uniform in [-1, 1) times 2^-(row % 16) · (1 + row / 7) (so the
// block scales are not powers of two and small rows quantize to E4M3 subnormals), quantized with
// QuantizeFp8Block. Per case: fresh random A at the case's row pitch, the output poisoned at its
// row pitch and followed by poisoned guard elements, then every element checked as written, the
// gaps between rows and the guard intact, and the contract:
//   strict order (gemv)       bit-exact to StrictOrderGemm on the CPU;
//   tensor-core bound         within the bound against the float64 reference of the dequantized
//                             weight (e4m3 · scale, exact in double), relative Frobenius < 8e-3.
// The strided variants run with pitches past k and n (a_row_stride = k + 24, c_row_stride =
// n + 5). References cover every column when M·N·K is small and a fixed sample of columns
// otherwise; written-ness, gaps and guards are always checked over the whole output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "ops/family.h"
#include "ops/fp8/fp8_variants.h"

namespace gpuops::ops::fp8 {

struct CheckShape {
  uint32_t m = 0, n = 0, k = 0, lda = 0, ldc = 0;
  friend bool operator==(const CheckShape&, const CheckShape&) = default;
};

// The shapes a variant is checked at. Full: M in {1, 2, 8, 9, 15, 16} (the 16-row kernels) or
// {1, 16, 17, 33, 64, 100} (m64, 100 in two slabs), up to each kernel's M, N in {32, 200, 4096}, K in {128, 384, 4096}.
// Quick: a subset sized for a CPU.
std::vector<CheckShape> CheckShapes(ShapeSet set, Variant v);

// Runs the suite, reporting every case through options.on_case; an error only when the suite
// itself cannot run (the family does not load).
absl::Status RunChecks(GpuBackend& gpu, const CheckOptions& options);

// "fp8.<variant>", as check reports and --op filters name it.
std::string OpName(Variant v);

}  // namespace gpuops::ops::fp8
