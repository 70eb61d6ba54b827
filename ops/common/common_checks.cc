#include "ops/common/common_checks.h"

#include <cmath>
#include <cstdio>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/common/common_ops.h"
#include "verify/random.h"

namespace gpuops::ops::common {
namespace {

using verify::CheckBitIdentical;
using verify::CheckStats;
using verify::CheckWrittenAndGuard;
using verify::FillRandomBf16;
using verify::kGuardElements;

constexpr uint16_t kPoison = kBf16Poison;

absl::Status RunCase(GpuBackend& gpu, const CommonKernels& k, const std::string& op, uint64_t n,
                     uint64_t seed, CheckStats& stats) {
  std::vector<uint16_t> src(n);
  FillRandomBf16(absl::MakeSpan(src), seed, -4.0f, 4.0f);
  std::vector<uint16_t> dst0(n + kGuardElements, kPoison);
  std::vector<uint16_t> want(n);
  if (op == "bf16_scaled_add") {
    FillRandomBf16(absl::MakeSpan(dst0).first(n), seed ^ 1, -4.0f, 4.0f);
    const float scale = -0.625f;
    for (uint64_t i = 0; i < n; ++i) {
      want[i] = FloatToBf16(std::fma(scale, Bf16ToFloat(src[i]), Bf16ToFloat(dst0[i])));
    }
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer out, DeviceBuffer::FromHost<uint16_t>(gpu, dst0));
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer delta, DeviceBuffer::FromHost<uint16_t>(gpu, src));
    GPUOPS_RETURN_IF_ERROR(k.Bf16ScaledAdd(out.span(), delta.span(), scale, n));
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> got, out.ToHost<uint16_t>());
    CheckWrittenAndGuard(absl::MakeConstSpan(got).subspan(n), 0, kPoison, stats);
    CheckBitIdentical(absl::MakeConstSpan(got).first(n), want, op, stats);
    return absl::OkStatus();
  }
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer out, DeviceBuffer::FromHost<uint16_t>(gpu, dst0));
  if (op == "fill_u16") {
    const uint16_t value = 0x3f80;  // 1.0
    std::fill(want.begin(), want.end(), value);
    GPUOPS_RETURN_IF_ERROR(k.FillU16(out.span(), value, n));
  } else {
    want = src;
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer in, DeviceBuffer::FromHost<uint16_t>(gpu, src));
    GPUOPS_RETURN_IF_ERROR(k.CopyBf16(out.span(), in.span(), n));
  }
  GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> got, out.ToHost<uint16_t>());
  CheckWrittenAndGuard(got, n, kPoison, stats);
  CheckBitIdentical(absl::MakeConstSpan(got).first(n), want, op, stats);
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> CommonOps() { return {"bf16_scaled_add", "fill_u16", "copy_bf16"}; }

std::vector<uint64_t> CommonCheckSizes() { return {1, 2047, 2049, (1 << 20) + 3}; }

std::string CommonCaseResult::Describe() const {
  char head[96];
  std::snprintf(head, sizeof(head), "%-16s n=%-8llu", op.c_str(),
                static_cast<unsigned long long>(n));
  if (!status.ok()) return StrCat(head, "  ERROR ", status.message());
  return StrCat(head, "  bit-exact vs host formula  ", pass() ? "PASS" : "FAIL", " (",
                stats.checked, " checked)", pass() ? "" : StrCat(": ", stats.first_failure));
}

absl::StatusOr<std::vector<CommonCaseResult>> RunCommonChecks(
    GpuBackend& gpu, const std::function<bool(const std::string&)>& include, uint64_t seed,
    const std::function<void(const CommonCaseResult&)>& on_case) {
  GPUOPS_ASSIGN_OR_RETURN(CommonKernels kernels, CommonKernels::Load(gpu));
  std::vector<CommonCaseResult> results;
  for (const std::string& op : CommonOps()) {
    if (include && !include(op)) continue;
    for (uint64_t n : CommonCheckSizes()) {
      CommonCaseResult r{.op = op, .n = n};
      r.status = RunCase(gpu, kernels, op, n, seed ^ n, r.stats);
      if (on_case) on_case(r);
      results.push_back(std::move(r));
    }
  }
  return results;
}

}  // namespace gpuops::ops::common
