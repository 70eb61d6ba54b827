#include "ops/family.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "gpuops/runtime/types.h"

namespace gpuops::ops {

absl::StatusOr<ShapeSet> ParseShapeSet(std::string_view name) {
  if (name == "quick") return ShapeSet::kQuick;
  if (name == "full") return ShapeSet::kFull;
  return absl::InvalidArgumentError(StrCat("unknown shape set '", name, "' (quick, full)"));
}

absl::StatusOr<DeviceSpan> TraceBuffer(GpuBackend& gpu, uint64_t bytes, std::string name,
                                       TraceResult& result) {
  if (absl::StatusOr<DevicePtr> whole = gpu.Alloc(bytes); whole.ok()) {
    result.buffers[whole->address()] = std::move(name);
    return DeviceSpan(*whole, bytes);
  }
  GPUOPS_ASSIGN_OR_RETURN(DevicePtr stand_in, gpu.Alloc(256));
  result.buffers[stand_in.address()] = std::move(name);
  return DeviceSpan::Unchecked(stand_in);
}

absl::Status OnlyParams(const ProblemParams& params, std::string_view op,
                        std::initializer_list<std::string_view> known) {
  for (const auto& [name, value] : params) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return absl::InvalidArgumentError(
          StrCat(op, " takes no parameter '", name, "' (it takes ", StrJoin(known, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

namespace {

ProblemParams::const_iterator FindParam(const ProblemParams& params, std::string_view name) {
  return std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
}

}  // namespace

absl::StatusOr<std::optional<uint32_t>> ParamU32(const ProblemParams& params,
                                                 std::string_view name) {
  auto it = FindParam(params, name);
  if (it == params.end()) return std::optional<uint32_t>();
  const std::string& text = it->second;
  uint32_t value = 0;
  if (!ParseDecimal(text, &value)) {
    return absl::InvalidArgumentError(
        StrCat(name, "='", text, "' is not a decimal integer in 0..4294967295"));
  }
  return std::optional<uint32_t>(value);
}

absl::StatusOr<std::optional<float>> ParamF32(const ProblemParams& params, std::string_view name) {
  auto it = FindParam(params, name);
  if (it == params.end()) return std::optional<float>();
  const std::string& text = it->second;
  float value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return absl::InvalidArgumentError(StrCat(name, "='", text, "' is not a finite number"));
  }
  return std::optional<float>(value);
}

absl::StatusOr<TraceResult> Family::Trace(GpuBackend&, std::string_view,
                                          const ProblemParams&) const {
  return absl::UnimplementedError(StrCat("the ", name(), " family has no trace"));
}

absl::StatusOr<std::unique_ptr<PerfSubject>> Family::PreparePerf(GpuBackend&, const PerfProblem&,
                                                                 std::string_view) const {
  return absl::UnimplementedError(StrCat("the ", name(), " family has no perf cases"));
}

int RotationCopies(const DeviceInfo& device, uint64_t bytes) {
  const uint64_t l2 = std::max<uint64_t>(device.l2_bytes, 50ull << 20);
  return static_cast<int>(std::clamp<uint64_t>(CeilDiv64(3 * l2, std::max<uint64_t>(bytes, 1)), 2, 64));
}

}  // namespace gpuops::ops
