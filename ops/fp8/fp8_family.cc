// The FP8 W8A16 family as tools and suites see it (ops/family.h): its variants as ops, the check
// suite (fp8_checks.h), traces of the dispatcher or one variant, and perf subjects timed against
// cuBLAS on the dequantized BF16 weight.
#include <memory>
#include <tuple>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "ops/fp8/fp8_checks.h"
#include "ops/fp8/fp8_format.h"
#include "ops/fp8/fp8_gemm.h"
#include "ops/quantized_perf.h"

namespace gpuops::ops::fp8 {
namespace {

// Perf subjects: the quantized weight and its BF16 twin (ops/quantized_perf.h).
struct PerfTraits {
  using Gemm = Fp8Gemm;
  using Variant = fp8::Variant;
  using HostWeight = Fp8BlockWeight;
  using Uploaded = UploadedWeight;
  static constexpr uint64_t kSeed = 3;
  static absl::Status CheckProblem(const PerfProblem& p) {
    if (p.k % kBlock == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat("fp8: k=", p.k, " is not a multiple of 128"));
  }
  static absl::Status Quantize(absl::Span<const uint16_t> source, uint32_t n, uint32_t k,
                               Fp8BlockWeight& weight, std::vector<uint16_t>& bf16) {
    GPUOPS_ASSIGN_OR_RETURN(weight, QuantizeFp8Block(source, n, k));
    bf16 = DequantizeToBf16(weight);
    return absl::OkStatus();
  }
  static uint64_t DeviceBytes(const Fp8BlockWeight& w) {
    return w.weight.size() + w.block_scale.size() * 4;
  }
  static absl::StatusOr<UploadedWeight> Upload(GpuBackend& gpu, const Fp8BlockWeight& w) {
    return UploadWeight(gpu, w);
  }
  static GemmArgs Args(DeviceSpan a, const UploadedWeight& w, DeviceSpan c, uint32_t m) {
    return {.a = a, .w = w.view(), .c = c, .m = m};
  }
  static GemmArgs ShapeArgs(const PerfProblem& p) {
    const DeviceSpan stand_in = DeviceSpan::Unchecked(DevicePtr(uint64_t{1} << 40));
    return {.a = stand_in,
            .w = {.weight = stand_in, .block_scale = stand_in, .n = p.n, .k = p.k},
            .c = stand_in,
            .m = p.m,
            .workspace = stand_in};
  }
  static double Bytes(const PerfProblem& p) {
    const double m = p.m, n = p.n, k = p.k;
    return 2.0 * m * k + n * k + 4.0 * ScaleRows(p.n) * (p.k / kBlock) + 2.0 * m * n;
  }
  static std::string_view Name(Variant v) { return kVariants[v].name; }
};

class Fp8Family final : public Family {
 public:
  std::string_view name() const override { return "fp8"; }
  ModuleImage image() const override { return EmbeddedModuleImage(); }
  std::vector<std::string> ops() const override { return VariantOps(kVariants); }
  void RegisterHostKernels(HostKernelRegistry& registry) const override {
    fp8::RegisterHostKernels(registry);
  }

  absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const override {
    return RunChecks(gpu, options);
  }

  absl::StatusOr<size_t> CountChecks(GpuBackend& gpu, const CheckOptions& options) const override {
    GPUOPS_ASSIGN_OR_RETURN(Fp8Gemm gemm, Fp8Gemm::Load(gpu));
    return CountVariantChecks(
        kVariants, options, [&](Variant v) { return gemm.Ships(v); },
        [](ShapeSet set, Variant v) { return CheckShapes(set, v); });
  }

  // Params m, n, k, lda / ldc (A's and C's row pitches in elements; default k and n) and
  // weight_settled (0 or 1, GemmArgs::weight_settled; default 0).
  absl::StatusOr<TraceResult> Trace(GpuBackend& gpu, std::string_view op,
                                    const ProblemParams& params) const override {
    GPUOPS_ASSIGN_OR_RETURN(std::optional<Variant> variant, ParseVariantOp(kVariants, op));
    const std::string op_name = op.empty() ? "fp8" : StrCat("fp8.", op);
    GPUOPS_RETURN_IF_ERROR(
        OnlyParams(params, op_name, {"m", "n", "k", "lda", "ldc", "weight_settled"}));
    GemmArgs args;
    for (auto [field, name] : {std::pair{&args.m, "m"}, {&args.w.n, "n"}, {&args.w.k, "k"}}) {
      GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> value, ParamU32(params, name));
      if (!value) return absl::InvalidArgumentError(StrCat(op_name, " needs ", name));
      *field = *value;
    }
    for (auto [field, name] : {std::pair{&args.lda, "lda"}, {&args.ldc, "ldc"}}) {
      GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> value, ParamU32(params, name));
      *field = value.value_or(0);
    }
    GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> settled, ParamU32(params, "weight_settled"));
    if (settled.value_or(0) > 1) {
      return absl::InvalidArgumentError(
          StrCat(op_name, " takes weight_settled 0 or 1, got ", *settled));
    }
    args.weight_settled = settled.value_or(0) == 1;
    GPUOPS_ASSIGN_OR_RETURN(Fp8Gemm gemm, Fp8Gemm::Load(gpu));
    TraceResult result;
    const GemmExtents need = ExtentsOf(args);
    for (auto [span, name, bytes] :
         {std::tuple{&args.a, "input", need.a}, {&args.w.weight, "weight", need.weight},
          {&args.w.block_scale, "block_scale", need.block_scale}, {&args.c, "output", need.c}}) {
      GPUOPS_ASSIGN_OR_RETURN(*span, TraceBuffer(gpu, bytes, name, result));
    }
    // Traced as a caller that offers the workspace the variant (or the dispatcher) asks for.
    if (const uint64_t ws =
            variant ? gemm.WorkspaceBytes(*variant, args) : gemm.GemmWorkspaceBytes(args);
        ws > 0) {
      GPUOPS_ASSIGN_OR_RETURN(args.workspace, TraceBuffer(gpu, ws, "workspace", result));
    }
    GPUOPS_ASSIGN_OR_RETURN(GemmPlan plan, variant ? gemm.Plan(*variant, args) : gemm.Plan(args));
    GPUOPS_RETURN_IF_ERROR(gemm.Run(plan));
    result.variant = std::string(plan.variant_name);
    return result;
  }

  std::vector<TraceCase> GoldenTraces() const override {
    auto trace = [](std::string op, uint32_t m, uint32_t n, uint32_t k, uint32_t lda = 0,
                    uint32_t ldc = 0) {
      TraceCase c{.op = std::move(op),
                  .params = {{"m", StrCat(m)}, {"n", StrCat(n)}, {"k", StrCat(k)}}};
      if (lda != 0) c.params.push_back({"lda", StrCat(lda)});
      if (ldc != 0) c.params.push_back({"ldc", StrCat(ldc)});
      return c;
    };
    std::vector<TraceCase> cases;
    for (const VariantSpec& s : kVariants.rows()) {
      const std::string op = StrCat("fp8.", s.name);
      cases.push_back(trace(op, 1, 4096, 4096));
      cases.push_back(trace(op, LaunchRows(s, 16), 28672, 4096));  // N tiles on grid.x
      if (s.shape == ArgShape::kStrided) {
        // The K slot of a packed [m, 4096 | 1024 | 1024] QKV row buffer.
        cases.push_back(trace(op, 16, 1024, 4096, 4096, 6144));
      }
      if (s.extra.row_slabs) cases.push_back(trace(op, 100, 4096, 4096));  // two slabs
      if (s.max_m == 0) {  // M tiles: 300 rows, the last tile shifted to end at row 300
        cases.push_back(trace(op, 300, 4096, 4096));
        cases.push_back(trace(op, 300, 1024, 4096, 4096, 6144));  // a packed QKV slot
      }
      if (s.extra.stages_f16_rows) {  // the most rows its warps stage at K = 4096; down's K
        cases.push_back(trace(op, 5, 28672, 4096));
        cases.push_back(trace(op, 1, 4096, 14336));
      }
    }
    for (auto [m, n] : {std::pair{1u, 4096u}, {16u, 28672u}, {33u, 4096u}, {300u, 151937u}}) {
      cases.push_back(trace("fp8", m, n, 4096));
    }
    // A settled weight: the dispatcher's decode picks launched overlapping the previous launch.
    for (auto [m, n] : {std::pair{1u, 4096u}, {8u, 6144u}, {1u, 28672u}, {16u, 4096u}}) {
      cases.push_back(trace("fp8", m, n, 4096));
      cases.back().params.push_back({"weight_settled", "1"});
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
  static const auto* family = new Fp8Family();
  return *family;
}

}  // namespace gpuops::ops::fp8
