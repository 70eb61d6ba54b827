// The example family as tools and suites see it: one op, checked bit-exact against its host
// formula, with a trace and golden traces.
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/example/example_scale.h"
#include "ops/family.h"
#include "verify/check.h"
#include "verify/random.h"

namespace gpuops::ops::example {
namespace {

absl::Status CheckScale(GpuBackend& gpu, uint32_t n, uint64_t seed, verify::CheckStats& stats) {
  GPUOPS_ASSIGN_OR_RETURN(ExampleScale op, ExampleScale::Load(gpu));
  std::vector<uint16_t> x(n);
  verify::FillRandomBf16(absl::MakeSpan(x), seed);
  std::vector<uint16_t> y0(n + verify::kGuardElements, 0x7fa5);
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer dx, DeviceBuffer::FromHost<uint16_t>(gpu, x));
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer dy, DeviceBuffer::FromHost<uint16_t>(gpu, y0));
  const float alpha = -1.75f;
  GPUOPS_RETURN_IF_ERROR(op.Run(dy.ptr(), dx.ptr(), alpha, n));
  GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> got, dy.ToHost<uint16_t>());
  std::vector<uint16_t> want(n);
  for (uint32_t i = 0; i < n; ++i) want[i] = FloatToBf16(alpha * Bf16ToFloat(x[i]));
  verify::CheckWrittenAndGuard(got, n, 0x7fa5, stats);
  verify::CheckBitIdentical(absl::MakeConstSpan(got).first(n), want, "scale", stats);
  return absl::OkStatus();
}

class ExampleFamily final : public Family {
 public:
  std::string_view name() const override { return "example"; }
  ModuleImage image() const override { return EmbeddedModuleImage(); }
  std::vector<std::string> ops() const override { return {"scale"}; }
  void RegisterHostKernels(HostKernelRegistry& registry) const override {
    example::RegisterHostKernels(registry);
  }

  absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const override {
    if (options.include && !options.include("example.scale")) return absl::OkStatus();
    for (uint32_t n : {1u, 255u, 257u, 100003u}) {
      verify::CheckStats stats;
      absl::Status s = CheckScale(gpu, n, options.seed ^ n, stats);
      const bool pass = s.ok() && stats.ok(false);
      if (options.on_case) {
        options.on_case(
            {.op = "example.scale",
             .line = StrCat("scale n=", n, "  ", s.ok() ? "" : s.message(),
                            pass ? "PASS" : StrCat("FAIL ", stats.first_failure)),
             .verdict = pass ? CheckReport::Verdict::kPass : CheckReport::Verdict::kFail});
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<size_t> CountChecks(GpuBackend&, const CheckOptions& options) const override {
    return !options.include || options.include("example.scale") ? 4 : 0;
  }

  absl::StatusOr<TraceResult> Trace(GpuBackend& gpu, std::string_view op,
                                    const ProblemParams& params) const override {
    GPUOPS_RETURN_IF_ERROR(OnlyParams(params, "example.scale", {"n"}));
    GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> n, ParamU32(params, "n"));
    if (!n) return absl::InvalidArgumentError("example.scale needs n");
    GPUOPS_ASSIGN_OR_RETURN(ExampleScale scale, ExampleScale::Load(gpu));
    TraceResult result{.variant = "scale"};
    GPUOPS_ASSIGN_OR_RETURN(DevicePtr y, gpu.Alloc(256));
    GPUOPS_ASSIGN_OR_RETURN(DevicePtr x, gpu.Alloc(256));
    result.buffers = {{y.address(), "y"}, {x.address(), "x"}};
    GPUOPS_RETURN_IF_ERROR(scale.Run(y, x, 0.5f, *n));
    return result;
  }

  std::vector<TraceCase> GoldenTraces() const override {
    return {{.op = "example.scale", .params = {{"n", "1000"}}}};
  }
};

}  // namespace

const Family& Unit() {
  static const auto* family = new ExampleFamily();
  return *family;
}

}  // namespace gpuops::ops::example
