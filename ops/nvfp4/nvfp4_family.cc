// The NVFP4 family as tools and suites see it (ops/family.h): its variants as ops, the check
// suite (nvfp4_checks.h), traces of the dispatcher or one variant, and perf subjects timed against
// cuBLAS on the dequantized BF16 weight.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "ops/nvfp4/nvfp4_checks.h"
#include "ops/nvfp4/nvfp4_format.h"
#include "ops/nvfp4/nvfp4_gemm.h"
#include "verify/random.h"

namespace gpuops::ops::nvfp4 {
namespace {

// A perf weight: random BF16 [N, K] quantized, prepared with the default stride, and dequantized
// back to BF16 for the cuBLAS baseline. Made once per (N, K) in a process: quantizing a
// vocab-sized weight takes seconds.
struct PerfWeight {
  Nvfp4PreparedWeight prepared;
  std::vector<uint16_t> bf16;  // dequantized, [N, K]
};

absl::StatusOr<std::shared_ptr<const PerfWeight>> GetPerfWeight(uint32_t n, uint32_t k) {
  static std::mutex mu;
  static auto* cache = new std::map<std::pair<uint32_t, uint32_t>, std::shared_ptr<PerfWeight>>();
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache->find({n, k}); it != cache->end()) return it->second;
  std::vector<uint16_t> source(uint64_t{n} * k);
  verify::FillRandomBf16(absl::MakeSpan(source), 2 + n);
  GPUOPS_ASSIGN_OR_RETURN(Nvfp4Weight w, QuantizeNvfp4(source, n, k));
  auto weight = std::make_shared<PerfWeight>();
  GPUOPS_ASSIGN_OR_RETURN(weight->prepared, Prepare(w));
  weight->bf16 = DequantizeToBf16(w);
  (*cache)[{n, k}] = weight;
  return weight;
}

// Our GEMM on one shape, the weight rotated over enough copies to exceed the L2 three times.
class Nvfp4PerfSubject final : public PerfSubject {
 public:
  static absl::StatusOr<std::unique_ptr<PerfSubject>> Make(GpuBackend& gpu, const PerfProblem& p,
                                                           std::optional<Variant> forced) {
    if (p.k % 16 != 0) {
      return absl::InvalidArgumentError(StrCat("nvfp4: k=", p.k, " is not a multiple of 16"));
    }
    auto s = std::unique_ptr<Nvfp4PerfSubject>(new Nvfp4PerfSubject(p));
    GPUOPS_ASSIGN_OR_RETURN(Nvfp4Gemm gemm, Nvfp4Gemm::Load(gpu));
    GPUOPS_ASSIGN_OR_RETURN(std::shared_ptr<const PerfWeight> weight, GetPerfWeight(p.n, p.k));
    std::vector<uint16_t> host_a(uint64_t{p.m} * p.k);
    verify::FillRandomBf16(absl::MakeSpan(host_a), 1 + p.m);
    GPUOPS_ASSIGN_OR_RETURN(s->a_, DeviceBuffer::FromHost<uint16_t>(gpu, host_a));
    GPUOPS_ASSIGN_OR_RETURN(s->c_, DeviceBuffer::Allocate(gpu, uint64_t{p.m} * p.n * 2));
    const uint64_t weight_bytes = weight->prepared.packed.size() + weight->prepared.scales.size();
    for (int i = 0; i < RotationCopies(gpu.device_info(), weight_bytes); ++i) {
      GPUOPS_ASSIGN_OR_RETURN(UploadedWeight w, UploadWeight(gpu, weight->prepared));
      s->weights_.push_back(std::move(w));
    }
    for (int i = 0; i < RotationCopies(gpu.device_info(), weight->bf16.size() * 2); ++i) {
      GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::FromHost<uint16_t>(gpu, weight->bf16));
      s->bf16_weights_.push_back(std::move(b));
    }
    GemmArgs args{.a = s->a_.span(), .w = s->weights_[0].view(), .c = s->c_.span(), .m = p.m};
    Variant variant;
    if (forced) {
      variant = *forced;
    } else {
      GPUOPS_ASSIGN_OR_RETURN(variant, gemm.Pick(args));
    }
    for (const UploadedWeight& w : s->weights_) {
      args.w = w.view();
      GPUOPS_ASSIGN_OR_RETURN(GemmPlan plan, gemm.Plan(variant, args));
      s->plans_.push_back(std::move(plan));
    }
    s->variant_ = std::string(kVariants[variant].name);
    s->gemm_.emplace(std::move(gemm));
    return std::unique_ptr<PerfSubject>(std::move(s));
  }

  std::string variant() const override { return variant_; }
  absl::Status Run(int i) override { return gemm_->Run(plans_[i % plans_.size()]); }
  double bytes() const override {
    const double m = p_.m, n = p_.n, k = p_.k;
    return 2.0 * m * k + n * k / 2 + n * k / 16 + 2.0 * m * n;
  }
  double flops() const override { return 2.0 * p_.m * p_.n * p_.k; }
  DevicePtr a() const override { return a_.ptr(); }
  DevicePtr b(int i) const override { return bf16_weights_[i % bf16_weights_.size()].ptr(); }
  DevicePtr c() const override { return c_.ptr(); }

 private:
  explicit Nvfp4PerfSubject(const PerfProblem& p) : p_(p) {}

  PerfProblem p_;
  std::optional<Nvfp4Gemm> gemm_;
  DeviceBuffer a_;
  DeviceBuffer c_;
  std::vector<UploadedWeight> weights_;
  std::vector<DeviceBuffer> bf16_weights_;
  std::vector<GemmPlan> plans_;
  std::string variant_;
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
    // Stand-in buffers: the mock records without executing, so each span states the extent the
    // problem needs over a small allocation.
    TraceResult result;
    const GemmExtents need = ExtentsOf(args);
    for (auto [span, name, bytes] :
         {std::tuple{&args.a, "a", need.a}, {&args.w.packed, "b_packed", need.packed},
          {&args.w.scales, "b_scale", need.scales}, {&args.c, "c", need.c}}) {
      GPUOPS_ASSIGN_OR_RETURN(DevicePtr ptr, gpu.Alloc(256));
      *span = DeviceSpan(ptr, bytes);
      result.buffers[ptr.address()] = name;
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
    return Nvfp4PerfSubject::Make(gpu, problem, variant);
  }
};

}  // namespace

const Family& Unit() {
  static const auto* family = new Nvfp4Family();
  return *family;
}

}  // namespace gpuops::ops::nvfp4
