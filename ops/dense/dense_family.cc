// The dense family as tools and suites see it (ops/family.h): its variants as ops, the check
// suite (dense_checks.h), traces of the dispatcher or one variant, and perf subjects.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/dense/dense_checks.h"
#include "ops/dense/dense_gemm.h"
#include "ops/family.h"
#include "verify/random.h"

namespace gpuops::ops::dense {
namespace {

std::string DescribePlan(const GemmPlan& plan) {
  if (plan.splits <= 1 && plan.workspace_bytes == 0) return "";
  return StrCat("splits ", plan.splits, ", workspace ", plan.workspace_bytes, " bytes");
}

// Random BF16 weights [N, K] in enough copies to exceed the L2 three times, shared by the perf
// subjects of one weight shape that are alive at once (the tool keeps the last one until the
// next exists, so a walk over M makes them once).
struct PerfWeights {
  std::vector<DeviceBuffer> copies;
};

absl::StatusOr<std::shared_ptr<PerfWeights>> SharedWeights(GpuBackend& gpu, uint32_t n,
                                                           uint32_t k) {
  static std::mutex mu;
  static auto* cache =
      new std::map<std::tuple<GpuBackend*, uint32_t, uint32_t>, std::weak_ptr<PerfWeights>>();
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache->find({&gpu, n, k}); it != cache->end()) {
    if (std::shared_ptr<PerfWeights> alive = it->second.lock()) return alive;
  }
  std::vector<uint16_t> host_b(uint64_t{n} * k);
  verify::FillRandomBf16(absl::MakeSpan(host_b), 2 + n);
  auto weights = std::make_shared<PerfWeights>();
  for (int i = 0; i < RotationCopies(gpu.device_info(), host_b.size() * 2); ++i) {
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer copy, DeviceBuffer::FromHost<uint16_t>(gpu, host_b));
    weights->copies.push_back(std::move(copy));
  }
  (*cache)[{&gpu, n, k}] = weights;
  return weights;
}

// Our GEMM on one shape, over the shape's shared weights.
class DensePerfSubject final : public PerfSubject {
 public:
  static absl::StatusOr<std::unique_ptr<PerfSubject>> Make(GpuBackend& gpu, const PerfProblem& p,
                                                           std::optional<Variant> forced) {
    auto s = std::unique_ptr<DensePerfSubject>(new DensePerfSubject(p));
    GPUOPS_ASSIGN_OR_RETURN(DenseGemm dense, DenseGemm::Load(gpu));
    std::vector<uint16_t> host_a(uint64_t{p.m} * p.k);
    verify::FillRandomBf16(absl::MakeSpan(host_a), 1 + p.m);
    GPUOPS_ASSIGN_OR_RETURN(s->a_, DeviceBuffer::FromHost<uint16_t>(gpu, host_a));
    GPUOPS_ASSIGN_OR_RETURN(s->weights_, SharedWeights(gpu, p.n, p.k));
    GPUOPS_ASSIGN_OR_RETURN(s->c_, DeviceBuffer::Allocate(gpu, uint64_t{p.m} * p.n * 2));

    GemmArgs args{
        .a = s->a_.span(), .b = s->weights_->copies[0].span(), .c = s->c_.span(), .m = p.m, .n = p.n, .k = p.k};
    Variant variant;
    if (forced) {
      variant = *forced;
    } else {
      // The dispatcher may split K when it is given the workspace for it.
      if (const uint64_t ws = dense.GemmWorkspaceBytes(args); ws > 0) {
        GPUOPS_ASSIGN_OR_RETURN(s->workspace_, DeviceBuffer::Allocate(gpu, ws));
        args.workspace = s->workspace_.span();
      }
      GPUOPS_ASSIGN_OR_RETURN(variant, dense.Pick(args));
    }
    if (const uint64_t ws = dense.WorkspaceBytes(variant, args); ws > args.workspace.bytes()) {
      GPUOPS_ASSIGN_OR_RETURN(s->workspace_, DeviceBuffer::Allocate(gpu, ws));
      args.workspace = s->workspace_.span();
    }
    for (const DeviceBuffer& b : s->weights_->copies) {
      args.b = b.span();
      GPUOPS_ASSIGN_OR_RETURN(GemmPlan plan, dense.Plan(variant, args));
      s->plans_.push_back(std::move(plan));
    }
    s->variant_ = std::string(kVariants[variant].name);
    s->dense_.emplace(std::move(dense));
    return std::unique_ptr<PerfSubject>(std::move(s));
  }

  std::string variant() const override { return variant_; }
  absl::Status Run(int i) override { return dense_->Run(plans_[i % plans_.size()]); }
  double bytes() const override {
    const double m = p_.m, n = p_.n, k = p_.k;
    return 2.0 * (m * k + n * k + m * n);
  }
  double flops() const override { return 2.0 * p_.m * p_.n * p_.k; }
  DevicePtr a() const override { return a_.ptr(); }
  DevicePtr b(int i) const override {
    return weights_->copies[i % weights_->copies.size()].ptr();
  }
  DevicePtr c() const override { return c_.ptr(); }

 private:
  explicit DensePerfSubject(const PerfProblem& p) : p_(p) {}

  PerfProblem p_;
  std::optional<DenseGemm> dense_;
  DeviceBuffer a_;
  std::shared_ptr<PerfWeights> weights_;
  DeviceBuffer c_;
  DeviceBuffer workspace_;
  std::vector<GemmPlan> plans_;
  std::string variant_;
};

class DenseFamily final : public Family {
 public:
  std::string_view name() const override { return "dense"; }
  ModuleImage image() const override { return EmbeddedModuleImage(); }
  std::vector<std::string> ops() const override { return VariantOps(kVariants); }
  void RegisterHostKernels(HostKernelRegistry& registry) const override {
    dense::RegisterHostKernels(registry);
  }

  absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const override {
    DenseCheckOptions o;
    o.shapes = options.shapes;
    o.include = [&](Variant v) { return Included(options, v); };
    o.mac_budget = options.mac_budget;
    o.seed = options.seed;
    o.on_case = [&](const DenseCaseResult& r) {
      if (!options.on_case) return;
      options.on_case({.op = StrCat("dense.", kVariants[r.variant].name),
                       .line = r.Describe(),
                       .verdict = CheckReport::VerdictOf(!r.skipped.empty(), r.pass())});
    };
    return RunDenseChecks(gpu, o).status();
  }

  absl::StatusOr<size_t> CountChecks(GpuBackend& gpu, const CheckOptions& options) const override {
    GPUOPS_ASSIGN_OR_RETURN(DenseGemm dense, DenseGemm::Load(gpu));
    return CountVariantChecks(
        kVariants, options, [&](Variant v) { return dense.Ships(v); },
        [](ShapeSet set, Variant v) { return DenseShapes(set, v); });
  }

  absl::StatusOr<TraceResult> Trace(GpuBackend& gpu, std::string_view op,
                                    const ProblemParams& params) const override {
    GPUOPS_ASSIGN_OR_RETURN(std::optional<Variant> variant, ParseVariantOp(kVariants, op));
    const std::string op_name = op.empty() ? "dense" : StrCat("dense.", op);
    GPUOPS_RETURN_IF_ERROR(OnlyParams(params, op_name, {"m", "n", "k", "ldb", "scale", "splits"}));
    GemmArgs args;
    for (auto [field, name] : {std::pair{&args.m, "m"}, {&args.n, "n"}, {&args.k, "k"}}) {
      GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> value, ParamU32(params, name));
      if (!value) return absl::InvalidArgumentError(StrCat(op_name, " needs ", name));
      *field = *value;
    }
    GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> ldb, ParamU32(params, "ldb"));
    GPUOPS_ASSIGN_OR_RETURN(std::optional<uint32_t> splits, ParamU32(params, "splits"));
    GPUOPS_ASSIGN_OR_RETURN(std::optional<float> scale, ParamF32(params, "scale"));
    args.ldb = ldb.value_or(0);
    args.splits = splits.value_or(0);
    args.scale = scale.value_or(1.0f);
    GPUOPS_ASSIGN_OR_RETURN(DenseGemm dense, DenseGemm::Load(gpu));
    TraceResult result;
    const GemmExtents need = ExtentsOf(args);
    for (auto [span, name, bytes] :
         {std::tuple{&args.a, "a", need.a}, {&args.b, "b", need.b}, {&args.c, "c", need.c}}) {
      GPUOPS_ASSIGN_OR_RETURN(*span, TraceBuffer(gpu, bytes, name, result));
    }
    // Traced as a caller that passes the workspace the dispatcher asks for (or, for a split-K
    // variant or given splits, the workspace that needs).
    uint64_t ws_bytes = dense.GemmWorkspaceBytes(args);
    if (variant) ws_bytes = std::max(ws_bytes, dense.WorkspaceBytes(*variant, args));
    if (args.splits != 0) {
      for (Variant v : {Variant::kWgmma64x128SplitK, Variant::kWgmma128x128SplitK,
                        Variant::kWgmma128x256SplitK, Variant::kSplitK}) {
        ws_bytes = std::max(ws_bytes, dense.WorkspaceBytes(v, args));
      }
    }
    GPUOPS_ASSIGN_OR_RETURN(args.workspace, TraceBuffer(gpu, ws_bytes, "workspace", result));
    GPUOPS_ASSIGN_OR_RETURN(GemmPlan plan, variant ? dense.Plan(*variant, args) : dense.Plan(args));
    GPUOPS_RETURN_IF_ERROR(dense.Run(plan));
    result.variant = std::string(plan.variant_name);
    result.plan = DescribePlan(plan);
    return result;
  }

  std::vector<TraceCase> GoldenTraces() const override {
    std::vector<TraceCase> cases;
    for (const VariantSpec& s : kVariants.rows()) {
      for (auto [m, n, k] :
           {std::tuple{1u, 4096u, 4096u}, {17u, 200u, 64u}, {300u, 151937u, 4096u}}) {
        TraceCase c{.op = StrCat("dense.", s.name),
                    .params = {{"m", StrCat(m)}, {"n", StrCat(n)}, {"k", StrCat(k)}}};
        if (s.shape == ArgShape::kLdb || s.shape == ArgShape::kShiftedA) {
          c.params.emplace_back("ldb", StrCat(k + 8));
        }
        // B rows 2-byte aligned: eight row classes with shifts 0, 3, 6, 1, 4, 7, 2, 5.
        if (s.shape == ArgShape::kTmaRowClasses) c.params.emplace_back("ldb", StrCat(k + 3));
        if (s.shape == ArgShape::kScaledAcc) c.params.emplace_back("scale", "0.5");
        cases.push_back(std::move(c));
      }
      if (s.shape == ArgShape::kTmaTail) {
        // Long K past one wave: the last wave's tiles split (the three problems above run
        // unsplit), with the splits given so that each variant's trace shows its split launch.
        cases.push_back({.op = StrCat("dense.", s.name),
                         .params = {{"m", "1024"}, {"n", "5120"}, {"k", "27648"}}});
        cases.push_back({.op = StrCat("dense.", s.name),
                         .params = {{"m", "1100"}, {"n", "5000"}, {"k", "4104"}, {"splits", "3"}}});
      }
    }
    return cases;
  }

  absl::StatusOr<std::unique_ptr<PerfSubject>> PreparePerf(GpuBackend& gpu,
                                                           const PerfProblem& problem,
                                                           std::string_view op) const override {
    GPUOPS_ASSIGN_OR_RETURN(std::optional<Variant> variant, ParseVariantOp(kVariants, op));
    return DensePerfSubject::Make(gpu, problem, variant);
  }

 private:
  static bool Included(const CheckOptions& options, Variant v) {
    return options.Includes(StrCat("dense.", kVariants[v].name));
  }
};

}  // namespace

const Family& Unit() {
  static const auto* family = new DenseFamily();
  return *family;
}

}  // namespace gpuops::ops::dense
