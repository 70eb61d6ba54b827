// The common family's check suite: each element-wise kernel at awkward sizes (1, a block's width
// +- 1, a million and change) against its host formula, every element.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "verify/check.h"

namespace gpuops::ops::common {

struct CommonCaseResult {
  std::string op;  // "bf16_scaled_add", "fill_u16", "copy_bf16"
  uint64_t n = 0;
  verify::CheckStats stats;
  absl::Status status;
  bool pass() const { return status.ok() && stats.ok(false); }
  std::string Describe() const;
};

// The ops the suite checks: "bf16_scaled_add", "fill_u16", "copy_bf16".
std::vector<std::string> CommonOps();
// The sizes each op is checked at.
std::vector<uint64_t> CommonCheckSizes();

absl::StatusOr<std::vector<CommonCaseResult>> RunCommonChecks(
    GpuBackend& gpu, const std::function<bool(const std::string&)>& include, uint64_t seed,
    const std::function<void(const CommonCaseResult&)>& on_case);

}  // namespace gpuops::ops::common
