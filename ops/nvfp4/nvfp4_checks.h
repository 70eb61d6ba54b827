// The NVFP4 family's check suite: every variant the build ships, at the shapes below, on any
// backend, against the float64 reference of the dequantized weight. `gpuops check` and the
// numerics tests run it through the family (nvfp4_family.cc).
//
// Per weight (N, K, ldb): BF16 values uniform in [-1, 1) times 2^-(row % 16) (so the block scales
// span E4M3's binades down to its subnormals), quantized with QuantizeNvfp4 and prepared with row
// stride ldb. Per case: fresh random A, the output poisoned and followed by poisoned guard
// elements, then every element checked as written, the guard intact, and the contract:
//   lossless (tensor-core bound) within the bound against the float64 reference, relative
//                                Frobenius < 8e-3, and bit-identical to the first lossless
//                                variant run on the same problem (base where it runs);
//   FP8 activations              within the same bound against the float64 reference of A
//                                rounded to E4M3.
// References cover every column when M·N·K is small and a fixed sample of columns otherwise;
// written-ness, guards and bit-identity are always checked over the whole output.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "ops/family.h"
#include "ops/nvfp4/nvfp4_variants.h"

namespace gpuops::ops::nvfp4 {

struct CheckShape {
  uint32_t m = 0, n = 0, k = 0, ldb = 0;
  friend bool operator==(const CheckShape&, const CheckShape&) = default;
};

// The shapes a variant is checked at. Full: M in {1, 15, 17, 128, 300}, N in {64, 256, 4096},
// K in {16, 272, 4096} with ldb = N; the variants that read a padded weight also N = 200 and the
// odd vocab 151937 with ldb = DefaultLdb(N). Quick: a subset sized for a CPU.
std::vector<CheckShape> CheckShapes(ShapeSet set, Variant v);

// Runs the suite, reporting every case through options.on_case; an error only when the suite
// itself cannot run (the family does not load).
absl::Status RunChecks(GpuBackend& gpu, const CheckOptions& options);

// "nvfp4.<variant>", as check reports and --op filters name it.
std::string OpName(Variant v);

}  // namespace gpuops::ops::nvfp4
