// The perf subject of a GEMM family whose weight is quantized (suites only: it draws random data
// through verify/). Traits name the family's pieces:
//
//   struct Traits {
//     using Gemm = ...;        // Load(gpu), Pick(args), Plan(variant, args), Run(plan)
//     using Variant = ...;
//     using HostWeight = ...;  // what Upload takes
//     using Uploaded = ...;    // owns device buffers; view() for GemmArgs
//     static constexpr std::string_view kFamily = "fp8";
//     static constexpr uint64_t kSeed = 3;  // of the weight's random BF16 source
//     static absl::Status CheckProblem(const PerfProblem& p);
//     // The quantized weight of BF16 [N, K] `source`, and its dequantized BF16 for cuBLAS.
//     static absl::Status Quantize(absl::Span<const uint16_t> source, uint32_t n, uint32_t k,
//                                  HostWeight& weight, std::vector<uint16_t>& bf16);
//     static uint64_t DeviceBytes(const HostWeight& w);
//     static absl::StatusOr<Uploaded> Upload(GpuBackend& gpu, const HostWeight& w);
//     static auto Args(DeviceSpan a, const Uploaded& w, DeviceSpan c, uint32_t m);
//     static double Bytes(const PerfProblem& p);  // the fewest bytes the op moves
//     static std::string_view Name(Variant v);
//   };
// Optional: `static GemmArgs ShapeArgs(const PerfProblem& p)`, the problem over stand-in spans
// (the caller vouches for them), lets a forced variant refuse the shape before its weight is
// quantized and uploaded, which for a large weight takes seconds.
// Where the family's GemmArgs has a `workspace`, the subject gives it the zero-filled workspace
// its variant needs (Gemm::WorkspaceBytes), or for the dispatcher Gemm::GemmWorkspaceBytes(args):
// a caller that offers the dispatcher its workspace.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "ops/family.h"
#include "verify/random.h"

namespace gpuops::ops {

template <typename Traits>
class QuantizedPerfSubject final : public PerfSubject {
 public:
  using Variant = typename Traits::Variant;

  // Our GEMM on `p` (the dispatcher's pick, or `forced`), the weight rotated over enough copies
  // to exceed the L2 three times, and its BF16 twin rotated likewise for cuBLAS.
  static absl::StatusOr<std::unique_ptr<PerfSubject>> Make(GpuBackend& gpu, const PerfProblem& p,
                                                           std::optional<Variant> forced) {
    GPUOPS_RETURN_IF_ERROR(Traits::CheckProblem(p));
    auto s = std::unique_ptr<QuantizedPerfSubject>(new QuantizedPerfSubject(p));
    GPUOPS_ASSIGN_OR_RETURN(auto gemm, Traits::Gemm::Load(gpu));
    if constexpr (requires { Traits::ShapeArgs(p); }) {
      if (forced) GPUOPS_RETURN_IF_ERROR(gemm.CanImplement(*forced, Traits::ShapeArgs(p)));
    }
    GPUOPS_ASSIGN_OR_RETURN(s->weight_, Shared(p.n, p.k));
    std::vector<uint16_t> host_a(uint64_t{p.m} * p.k);
    verify::FillRandomBf16(absl::MakeSpan(host_a), 1 + p.m);
    GPUOPS_ASSIGN_OR_RETURN(s->a_, DeviceBuffer::FromHost<uint16_t>(gpu, host_a));
    GPUOPS_ASSIGN_OR_RETURN(s->c_, DeviceBuffer::Allocate(gpu, uint64_t{p.m} * p.n * 2));
    const Weight& w = *s->weight_;
    for (int i = 0; i < RotationCopies(gpu.device_info(), Traits::DeviceBytes(w.host)); ++i) {
      GPUOPS_ASSIGN_OR_RETURN(typename Traits::Uploaded u, Traits::Upload(gpu, w.host));
      s->weights_.push_back(std::move(u));
    }
    for (int i = 0; i < RotationCopies(gpu.device_info(), w.bf16.size() * 2); ++i) {
      GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::FromHost<uint16_t>(gpu, w.bf16));
      s->bf16_weights_.push_back(std::move(b));
    }
    auto args = [&](const typename Traits::Uploaded& u) {
      auto a = Traits::Args(s->a_.span(), u, s->c_.span(), p.m);
      if constexpr (requires { a.workspace; }) a.workspace = s->workspace_.span();
      if constexpr (requires { a.weight_settled; }) a.weight_settled = p.weight_settled;
      return a;
    };
    if constexpr (requires { args(s->weights_[0]).workspace; }) {
      const auto probe = args(s->weights_[0]);
      const uint64_t ws =
          forced ? gemm.WorkspaceBytes(*forced, probe) : gemm.GemmWorkspaceBytes(probe);
      if (ws > 0) {
        GPUOPS_ASSIGN_OR_RETURN(s->workspace_, DeviceBuffer::Allocate(gpu, ws));
        GPUOPS_RETURN_IF_ERROR(gpu.Memset(s->workspace_.ptr(), 0, ws));
        GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
      }
    }
    Variant variant{};
    if (forced) {
      variant = *forced;
    } else {
      GPUOPS_ASSIGN_OR_RETURN(variant, gemm.Pick(args(s->weights_[0])));
    }
    for (const auto& u : s->weights_) {
      GPUOPS_ASSIGN_OR_RETURN(auto plan, gemm.Plan(variant, args(u)));
      s->plans_.push_back(std::move(plan));
    }
    s->variant_ = std::string(Traits::Name(variant));
    s->gemm_.emplace(std::move(gemm));
    return std::unique_ptr<PerfSubject>(std::move(s));
  }

  std::string variant() const override { return variant_; }
  absl::Status Run(int i) override { return gemm_->Run(plans_[i % plans_.size()]); }
  double bytes() const override { return Traits::Bytes(p_); }
  double flops() const override { return 2.0 * p_.m * p_.n * p_.k; }
  DevicePtr a() const override { return a_.ptr(); }
  DevicePtr b(int i) const override { return bf16_weights_[i % bf16_weights_.size()].ptr(); }
  DevicePtr c() const override { return c_.ptr(); }

 private:
  struct Weight {
    typename Traits::HostWeight host;
    std::vector<uint16_t> bf16;
  };

  explicit QuantizedPerfSubject(const PerfProblem& p) : p_(p) {}

  // The weight of (N, K), made once while any subject holds it: quantizing a vocab-sized
  // weight takes seconds, and consecutive problems share their weight shape.
  static absl::StatusOr<std::shared_ptr<const Weight>> Shared(uint32_t n, uint32_t k) {
    static std::mutex mu;
    static auto* cache = new std::map<std::pair<uint32_t, uint32_t>, std::weak_ptr<Weight>>();
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache->find({n, k}); it != cache->end()) {
      if (std::shared_ptr<Weight> kept = it->second.lock()) return kept;
    }
    std::vector<uint16_t> source(uint64_t{n} * k);
    verify::FillRandomBf16(absl::MakeSpan(source), Traits::kSeed + n);
    auto weight = std::make_shared<Weight>();
    GPUOPS_RETURN_IF_ERROR(Traits::Quantize(source, n, k, weight->host, weight->bf16));
    (*cache)[{n, k}] = weight;
    return weight;
  }

  PerfProblem p_;
  std::shared_ptr<const Weight> weight_;
  std::optional<typename Traits::Gemm> gemm_;
  DeviceBuffer a_;
  DeviceBuffer c_;
  DeviceBuffer workspace_;  // one for every plan: they run one after another on one stream
  std::vector<typename Traits::Uploaded> weights_;
  std::vector<DeviceBuffer> bf16_weights_;
  std::vector<typename Traits::Gemm::OpPlan> plans_;
  std::string variant_;
};

}  // namespace gpuops::ops
