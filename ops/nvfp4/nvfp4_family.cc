// The NVFP4 family as tools and suites see it (ops/family.h): its variants as ops, the check
// suite (nvfp4_checks.h), traces of the dispatcher or one variant, and perf subjects timed against
// cuBLAS on the dequantized BF16 weight.
#include <algorithm>
#include <memory>
#include <tuple>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "ops/nvfp4/nvfp4_checks.h"
#include "ops/nvfp4/nvfp4_format.h"
#include "ops/nvfp4/nvfp4_gemm.h"
#include "ops/quantized_perf.h"

namespace gpuops::ops::nvfp4 {
namespace {

// Perf subjects: the prepared weight and its dequantized BF16 twin (ops/quantized_perf.h).
struct PerfTraits {
  using Gemm = Nvfp4Gemm;
  using Variant = nvfp4::Variant;
  using HostWeight = Nvfp4PreparedWeight;
  using Uploaded = UploadedWeight;
  static constexpr uint64_t kSeed = 2;
  static absl::Status CheckProblem(const PerfProblem& p) {
    if (p.k % 16 == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat("nvfp4: k=", p.k, " is not a multiple of 16"));
  }
  static absl::Status Quantize(absl::Span<const uint16_t> source, uint32_t n, uint32_t k,
                               Nvfp4PreparedWeight& weight, std::vector<uint16_t>& bf16) {
    GPUOPS_ASSIGN_OR_RETURN(Nvfp4Weight w, QuantizeNvfp4(source, n, k));
    GPUOPS_ASSIGN_OR_RETURN(weight, Prepare(w));  // the default stride
    bf16 = DequantizeToBf16(w);
    return absl::OkStatus();
  }
  static uint64_t DeviceBytes(const Nvfp4PreparedWeight& w) {
    return w.packed.size() + w.scales.size();
  }
  static absl::StatusOr<UploadedWeight> Upload(GpuBackend& gpu, const Nvfp4PreparedWeight& w) {
    return UploadWeight(gpu, w);
  }
  static GemmArgs Args(DeviceSpan a, const UploadedWeight& w, DeviceSpan c, uint32_t m) {
    return {.a = a, .w = w.view(), .c = c, .m = m};
  }
  static double Bytes(const PerfProblem& p) {
    const double m = p.m, n = p.n, k = p.k;
    return 2.0 * m * k + n * k / 2 + n * k / 16 + 2.0 * m * n;
  }
  static std::string_view Name(Variant v) { return kVariants[v].name; }
};

class Nvfp4Family final : public Family {
 public:
  std::string_view name() const override { return "nvfp4"; }
  ModuleImage image() const override { return EmbeddedModuleImage(); }
  std::vector<std::string> ops() const override { return VariantOps(kVariants); }
  void RegisterHostKernels(HostKernelRegistry& registry) const override {
    nvfp4::RegisterHostKernels(registry);
  }

  absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const override {
    return RunChecks(gpu, options);
  }

  absl::StatusOr<size_t> CountChecks(GpuBackend& gpu, const CheckOptions& options) const override {
    GPUOPS_ASSIGN_OR_RETURN(Nvfp4Gemm gemm, Nvfp4Gemm::Load(gpu));
    return CountVariantChecks(
        kVariants, options, [&](Variant v) { return gemm.Ships(v); },
        [](ShapeSet set, Variant v) { return CheckShapes(set, v); });
  }

  // Params m, n, k and ldb (the weight's row stride; default Prepare's, DefaultLdb(n)).
  absl::StatusOr<TraceResult> Trace(GpuBackend& gpu, std::string_view op,
                                    const ProblemParams& params) const override {
    GPUOPS_ASSIGN_OR_RETURN(std::optional<Variant> variant, ParseVariantOp(kVariants, op));
    const std::string op_name = op.empty() ? "nvfp4" : StrCat("nvfp4.", op);
    GPUOPS_RETURN_IF_ERROR(OnlyParams(params, op_name, {"m", "n", "k", "ldb"}));
    GemmArgs args;
    for (auto [field, name] : {std::pair{&args.m, "m"}, {&args.w.n, "n"}, {&args.w.k, "k"}}) {
      GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> value, ParamU32(params, name));
      if (!value) return absl::InvalidArgumentError(StrCat(op_name, " needs ", name));
      *field = *value;
    }
    GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> ldb, ParamU32(params, "ldb"));
    args.w.ldb = ldb.value_or(DefaultLdb(args.w.n));
    args.w.global_scale = 1.0f;
    GPUOPS_ASSIGN_OR_RETURN(Nvfp4Gemm gemm, Nvfp4Gemm::Load(gpu));
    TraceResult result;
    const GemmExtents need = ExtentsOf(args);
    for (auto [span, name, bytes] :
         {std::tuple{&args.a, "a", need.a}, {&args.w.packed, "b_packed", need.packed},
          {&args.w.scales, "b_scale", need.scales}, {&args.c, "c", need.c}}) {
      GPUOPS_ASSIGN_OR_RETURN(*span, TraceBuffer(gpu, bytes, name, result));
    }
    GPUOPS_ASSIGN_OR_RETURN(GemmPlan plan, variant ? gemm.Plan(*variant, args) : gemm.Plan(args));
    GPUOPS_RETURN_IF_ERROR(gemm.Run(plan));
    result.variant = std::string(plan.variant_name);
    return result;
  }

  std::vector<TraceCase> GoldenTraces() const override {
    auto trace = [](std::string op, uint32_t m, uint32_t n, uint32_t k) {
      return TraceCase{.op = std::move(op),
                       .params = {{"m", StrCat(m)}, {"n", StrCat(n)}, {"k", StrCat(k)}}};
    };
    std::vector<TraceCase> cases;
    for (const VariantSpec& s : kVariants.rows()) {
      const std::string op = StrCat("nvfp4.", s.name);
      cases.push_back(trace(op, 1, 4096, 4096));
      cases.push_back(trace(op, 300, 28672, 4096));  // N != M: a swapped grid shows
      if (s.extra.takes_padded) cases.push_back(trace(op, 300, 151937, 4096));
    }
    for (auto [m, n] : {std::pair{1u, 4096u}, {16u, 28672u}, {1024u, 28672u}, {300u, 151937u}}) {
      cases.push_back(trace("nvfp4", m, n, 4096));
    }
    return cases;
  }

  absl::StatusOr<std::unique_ptr<PerfSubject>> PreparePerf(GpuBackend& gpu,
                                                           const PerfProblem& problem,
                                                           std::string_view op) const override {
    GPUOPS_ASSIGN_OR_RETURN(std::optional<Variant> variant, ParseVariantOp(kVariants, op));
    return QuantizedPerfSubject<PerfTraits>::Make(gpu, problem, variant);
  }
};

}  // namespace

const Family& Unit() {
  static const auto* family = new Nvfp4Family();
  return *family;
}

}  // namespace gpuops::ops::nvfp4
