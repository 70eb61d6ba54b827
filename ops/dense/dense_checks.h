// The dense family's check suite: every variant the build ships, at the shapes of the tests, on
// any backend, against the CPU reference of its accuracy contract. The numerics tests and
// `gpuops check` run it through the family (dense_family.cc).
//
// Per case: fresh random inputs (the pad columns of an ldb weight hold NaN, so reading them
// shows), the output poisoned with a NaN pattern and followed by poisoned guard elements, then
// every element checked as written, the guard intact, and the contract:
//   strict order   bit-exact against the CPU reference; the router also bit-identical to the
//                  scalar kernel over the whole output;
//   tensor core    within the bound against a float64 reference, relative Frobenius < 8e-3;
//                  split-K also bit-identical across two runs;
//   bit-identical  (the fused tc_scaled_acc) bit-identical to tc into a scratch buffer, then
//                  common_bf16_scaled_add.
// References cover every column when M·N·K is small and a fixed sample of columns (edges, tile
// boundaries, random) otherwise; written-ness and guards are always checked everywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "ops/dense/dense_variants.h"
#include "ops/family.h"
#include "verify/check.h"

namespace gpuops::ops::dense {

struct DenseShape {
  uint32_t m = 0, n = 0, k = 0, ldb = 0;
  // Elements by which A, B and C start past a 16-byte boundary (only for the variants that take
  // any alignment); the elements before an offset C must stay untouched.
  uint32_t offset = 0;
  friend bool operator==(const DenseShape&, const DenseShape&) = default;
};

// The shapes a variant is checked at. Full: M in {1, 15, 16, 17, 128, 300}, N in {64, 200,
// 4096, 151937}, K in {the variant's minimum, 4096}; odd N only for variants that take any N,
// and ldb = K + 8 for the _ldb variants; small-M variants take M at the edges of their range and
// also K = 4096 + their minimum, as does wgmma_128x128_splitk. The variants that take any
// alignment run K in {1, 37, 4099}, odd ldb (K + 3) and operands 1 element past a 16-byte
// boundary. The _tail variants also run past one wave of 132 SMs (129 x (67 tile widths + 8) x
// 512; full: 257 x (45 widths + 3) x 1024), so whole tiles and split tail tiles meet. Quick: a
// subset sized for a CPU.
std::vector<DenseShape> DenseShapes(ShapeSet set, Variant v);

struct DenseCaseResult {
  Variant variant;
  DenseShape shape;
  verify::CheckStats stats;
  absl::Status status;  // an error running the case (not a numerics failure)
  std::string skipped;  // non-empty: why the case did not run
  bool columns_sampled = false;

  bool pass() const;
  std::string Describe() const;  // one line: variant, shape, max error, bound, verdict
};

struct DenseCheckOptions {
  ShapeSet shapes = ShapeSet::kFull;
  std::function<bool(Variant)> include;  // empty: every variant
  uint64_t mac_budget = 0;               // skip cases with M·N·K above this (0: no limit)
  uint64_t full_reference_macs = uint64_t{1} << 26;  // all columns up to this M·N·K
  uint32_t sample_columns = 96;
  uint64_t seed = 0;
  std::function<void(const DenseCaseResult&)> on_case;  // progress, called per finished case
};

// Runs the suite; an error only when the suite itself cannot run (family not loadable).
absl::StatusOr<std::vector<DenseCaseResult>> RunDenseChecks(GpuBackend& gpu,
                                                            const DenseCheckOptions& options);

}  // namespace gpuops::ops::dense
