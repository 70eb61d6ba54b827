#include "verify/check.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/str.h"
#include "verify/random.h"

namespace gpuops::verify {

double CheckStats::rel_frobenius() const {
  return sum_sq_ref > 0 ? std::sqrt(sum_sq_error / sum_sq_ref) : std::sqrt(sum_sq_error);
}

bool CheckStats::ok(bool with_frobenius) const {
  return checked > 0 && failures == 0 && unwritten == 0 && guard_damage == 0 &&
         (!with_frobenius || rel_frobenius() < kMaxRelFrobenius);
}

void CheckStats::Fail(std::string what) {
  ++failures;
  if (first_failure.empty()) first_failure = std::move(what);
}

void CheckTensorCoreBound(absl::Span<const uint16_t> out, uint32_t m, uint32_t n,
                          absl::Span<const uint32_t> cols, absl::Span<const double> value,
                          absl::Span<const double> abs_sum, CheckStats& stats) {
  for (uint32_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < cols.size(); ++j) {
      const double ref = value[r * cols.size() + j];
      const uint16_t bits = out[size_t{r} * n + cols[j]];
      const double got = Bf16ToFloat(bits);
      const double bound =
          Bf16Ulp(static_cast<float>(ref)) + std::ldexp(abs_sum[r * cols.size() + j], -14);
      const double err = std::fabs(got - ref);
      ++stats.checked;
      stats.sum_sq_error += std::isfinite(err) ? err * err : 0.0;
      stats.sum_sq_ref += ref * ref;
      if (Bf16IsNan(bits) || !(err <= bound)) {
        stats.Fail(StrCat("c[", r, ", ", cols[j], "] = ", got, ", reference ", ref, ", error ", err,
                          " over bound ", bound));
        if (!std::isfinite(err)) continue;
      }
      if (err > stats.max_abs_error) {
        stats.max_abs_error = err;
        stats.max_bound = bound;
      }
      stats.worst_error_ratio = std::max(stats.worst_error_ratio, err / bound);
    }
  }
}

void CheckBitExactColumns(absl::Span<const uint16_t> out, uint32_t m, uint32_t n,
                          absl::Span<const uint32_t> cols, absl::Span<const uint16_t> expected,
                          CheckStats& stats) {
  for (uint32_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < cols.size(); ++j) {
      const uint16_t got = out[size_t{r} * n + cols[j]];
      const uint16_t want = expected[r * cols.size() + j];
      ++stats.checked;
      const double err = std::fabs(double{Bf16ToFloat(got)} - Bf16ToFloat(want));
      stats.max_abs_error = std::max(stats.max_abs_error, std::isfinite(err) ? err : 0.0);
      if (got != want) {
        stats.Fail(StrCat("c[", r, ", ", cols[j], "] = 0x", Hex(got), " (", Bf16ToFloat(got),
                          "), strict-order reference 0x", Hex(want), " (", Bf16ToFloat(want), ")"));
      }
    }
  }
}

void CheckBitIdentical(absl::Span<const uint16_t> out, absl::Span<const uint16_t> expected,
                       std::string_view what, CheckStats& stats) {
  if (out.size() != expected.size()) {
    stats.Fail(StrCat(what, ": sizes differ (", out.size(), " vs ", expected.size(), ")"));
    return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    ++stats.checked;
    if (out[i] != expected[i]) {
      stats.Fail(
          StrCat(what, ": element ", i, " is 0x", Hex(out[i]), ", expected 0x", Hex(expected[i])));
    }
  }
}

void CheckWrittenAndGuard(absl::Span<const uint16_t> out, uint64_t n, uint16_t poison,
                          CheckStats& stats) {
  for (uint64_t i = 0; i < n; ++i) {
    if (out[i] == poison) {
      if (stats.unwritten == 0) {
        stats.first_failure = stats.first_failure.empty()
                                  ? StrCat("element ", i, " was never written (still poison)")
                                  : stats.first_failure;
      }
      ++stats.unwritten;
    }
  }
  for (uint64_t i = n; i < out.size(); ++i) {
    if (out[i] != poison) {
      if (stats.guard_damage == 0 && stats.first_failure.empty()) {
        stats.first_failure = StrCat("guard element ", i - n, " past the output was overwritten");
      }
      ++stats.guard_damage;
    }
  }
}

std::vector<uint32_t> AllColumns(uint32_t n) {
  std::vector<uint32_t> cols(n);
  for (uint32_t j = 0; j < n; ++j) cols[j] = j;
  return cols;
}

std::vector<uint32_t> SampleColumns(uint32_t n, uint32_t count, uint64_t seed) {
  std::set<uint32_t> cols;
  for (uint32_t c : {0u, 1u, 2u, 7u, 8u, 15u, 16u, 63u, 64u, 127u, 128u, 255u, 256u}) {
    if (c < n) cols.insert(c);
  }
  for (uint32_t back = 1; back <= 3 && back <= n; ++back) cols.insert(n - back);
  Rng rng(seed);
  while (cols.size() < std::min<uint64_t>(count, n)) {
    cols.insert(static_cast<uint32_t>(rng.Next() % n));
  }
  return {cols.begin(), cols.end()};
}

}  // namespace gpuops::verify
