// The common family's checks for `gpuops check`: each element-wise kernel at awkward sizes
// (1, a block's width +- 1, a million and change) against its host formula, every element.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "verify/check.h"

namespace gpuops::verify {

struct CommonCaseResult {
  std::string op;  // "bf16_scaled_add", "fill_u16", "copy_bf16"
  uint64_t n = 0;
  CheckStats stats;
  absl::Status status;
  bool pass() const { return status.ok() && stats.ok(false); }
  std::string Describe() const;
};

std::vector<std::string> CommonOps();

absl::StatusOr<std::vector<CommonCaseResult>> RunCommonSuite(
    GpuBackend& gpu, const std::function<bool(const std::string&)>& include, uint64_t seed,
    const std::function<void(const CommonCaseResult&)>& on_case);

}  // namespace gpuops::verify
