// Accuracy checks for op outputs (../shared/docs/numerics.md), counting every element checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"

namespace gpuops::verify {

struct CheckStats {
  uint64_t checked = 0;
  uint64_t failures = 0;
  uint64_t unwritten = 0;     // elements still holding the poison pattern
  uint64_t guard_damage = 0;  // poisoned guard elements past the output that changed
  double max_abs_error = 0;
  double max_bound = 0;          // the bound at the worst element
  double worst_error_ratio = 0;  // max over elements of error / bound
  double sum_sq_error = 0;
  double sum_sq_ref = 0;
  std::string first_failure;

  double rel_frobenius() const;
  // No failure, nothing unwritten or damaged, and (when asked) relative Frobenius under 8e-3.
  bool ok(bool with_frobenius) const;
  void Fail(std::string what);
};

inline constexpr double kMaxRelFrobenius = 8e-3;

// Poisoned elements the suites place after every output, to catch writes past its end.
inline constexpr uint64_t kGuardElements = 64;

// Tensor-core bound for out[r, cols[j]] (row stride n): |out - ref| <= ulp_bf16(ref) +
// 2^-14 Σ|a·b|, NaN never passes. value and abs_sum are m x cols.size().
void CheckTensorCoreBound(absl::Span<const uint16_t> out, uint32_t m, uint32_t n,
                          absl::Span<const uint32_t> cols, absl::Span<const double> value,
                          absl::Span<const double> abs_sum, CheckStats& stats);

// Bit-exact: out[r, cols[j]] == expected[r * cols.size() + j].
void CheckBitExactColumns(absl::Span<const uint16_t> out, uint32_t m, uint32_t n,
                          absl::Span<const uint32_t> cols, absl::Span<const uint16_t> expected,
                          CheckStats& stats);

// Bit-exact over whole buffers.
void CheckBitIdentical(absl::Span<const uint16_t> out, absl::Span<const uint16_t> expected,
                       std::string_view what, CheckStats& stats);

// Counts elements of out[0, n) equal to `poison` (unwritten), and elements of out[n, end) (the
// guard) that are not (written out of bounds).
void CheckWrittenAndGuard(absl::Span<const uint16_t> out, uint64_t n, uint16_t poison,
                          CheckStats& stats);

// The columns a suite checks against its reference: all of them (AllColumns), or for a large
// problem a fixed sample (SampleColumns: the edges and tile boundaries, then random ones up to
// `count`), sorted.
std::vector<uint32_t> AllColumns(uint32_t n);
std::vector<uint32_t> SampleColumns(uint32_t n, uint32_t count, uint64_t seed);

}  // namespace gpuops::verify
