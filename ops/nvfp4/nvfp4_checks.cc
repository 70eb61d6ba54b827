#include "ops/nvfp4/nvfp4_checks.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/common/common_ops.h"
#include "ops/nvfp4/nvfp4_format.h"
#include "ops/nvfp4/nvfp4_gemm.h"
#include "verify/check.h"
#include "verify/random.h"

namespace gpuops::ops::nvfp4 {
namespace {

using verify::CheckStats;
using verify::kGuardElements;

constexpr uint16_t kPoison = common::kBf16Poison;
constexpr uint64_t kFullReferenceMacs = uint64_t{1} << 26;
constexpr uint32_t kSampleColumns = 96;

// The weight of one (N, K, ldb) group: BF16 rows of magnitudes 2^-(row % 16), quantized.
absl::StatusOr<Nvfp4Weight> MakeWeight(uint32_t n, uint32_t k, uint64_t seed) {
  std::vector<uint16_t> bf16(uint64_t{n} * k);
  verify::FillRandomBf16(absl::MakeSpan(bf16), seed);
  for (uint64_t row = 0; row < n; ++row) {
    const float factor = std::ldexp(1.0f, -static_cast<int>(row % 16));
    for (uint64_t i = row * k; i < (row + 1) * k; ++i) {
      bf16[i] = FloatToBf16(Bf16ToFloat(bf16[i]) * factor);  // exact: a power of two
    }
  }
  return QuantizeNvfp4(bf16, n, k);
}

// The float64 reference of A (as given, or rounded to E4M3) times the dequantized weight over
// `cols`: value and Σ|a·w|, m x cols.size().
struct Reference {
  std::vector<double> value;
  std::vector<double> abs_sum;
};

Reference ComputeReference(absl::Span<const uint16_t> a, uint32_t m, const Nvfp4Weight& w,
                           absl::Span<const uint32_t> cols, bool fp8_activations) {
  std::vector<double> av(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const float x = Bf16ToFloat(a[i]);
    av[i] = fp8_activations ? E4m3ToFloat(FloatToE4m3(x)) : x;
  }
  const double global = w.global_scale;
  std::vector<double> wcol(w.k);
  Reference ref;
  ref.value.assign(size_t{m} * cols.size(), 0.0);
  ref.abs_sum.assign(ref.value.size(), 0.0);
  for (size_t j = 0; j < cols.size(); ++j) {
    for (uint32_t i = 0; i < w.k; ++i) {
      // e2m1 · e4m3 is exact in float; the global scale multiplies in double.
      wcol[i] = static_cast<double>(DequantizedUnscaled(w, cols[j], i)) * global;
    }
    for (uint32_t r = 0; r < m; ++r) {
      double sum = 0.0;
      double abs = 0.0;
      for (uint32_t i = 0; i < w.k; ++i) {
        const double p = av[size_t{r} * w.k + i] * wcol[i];
        sum += p;
        abs += std::fabs(p);
      }
      ref.value[r * cols.size() + j] = sum;
      ref.abs_sum[r * cols.size() + j] = abs;
    }
  }
  return ref;
}

struct CaseResult {
  Variant variant;
  CheckShape shape;
  CheckStats stats;
  absl::Status status;
  std::string skipped;
  bool columns_sampled = false;
  std::string identical_to;  // the variant this output was bit-identical to; empty if none

  bool pass() const { return !skipped.empty() || (status.ok() && stats.ok(true)); }
  std::string Describe() const {
    char head[128];
    std::snprintf(head, sizeof(head), "%-14s m=%-4u n=%-6u k=%-4u ldb=%-6u",
                  std::string(kVariants[variant].name).c_str(), shape.m, shape.n, shape.k,
                  shape.ldb);
    if (!skipped.empty()) return StrCat(head, "  skipped: ", skipped);
    if (!status.ok()) return StrCat(head, "  ERROR ", status.message());
    char figures[160];
    std::snprintf(figures, sizeof(figures), "max err %.3g (bound %.3g) frob %.2e",
                  stats.max_abs_error, stats.max_bound, stats.rel_frobenius());
    return StrCat(head, "  ", figures, "  ", pass() ? "PASS" : "FAIL", " (", stats.checked,
                  " checked", columns_sampled ? ", sampled columns" : "",
                  identical_to.empty() ? "" : StrCat(", bit-identical to ", identical_to), ")",
                  pass() ? ""
                         : StrCat(": ", stats.unwritten, " unwritten, ", stats.guard_damage,
                                  " guard, ", stats.failures, " wrong; ", stats.first_failure));
  }
};

// One (N, K, ldb) weight on the device with what the cases of one M share.
class Group {
 public:
  Group(GpuBackend& gpu, const Nvfp4Gemm& gemm, CheckShape weight_shape, uint64_t seed)
      : gpu_(gpu), gemm_(gemm), shape_(weight_shape), seed_(seed) {}

  absl::Status Prepare() {
    GPUOPS_ASSIGN_OR_RETURN(weight_, MakeWeight(shape_.n, shape_.k, seed_));
    GPUOPS_ASSIGN_OR_RETURN(Nvfp4PreparedWeight prepared, nvfp4::Prepare(weight_, shape_.ldb));
    GPUOPS_ASSIGN_OR_RETURN(device_weight_, UploadWeight(gpu_, prepared));
    return absl::OkStatus();
  }

  // Starts the cases of `m` rows: fresh A, columns to check, no references yet.
  absl::Status StartRows(uint32_t m, uint64_t seed) {
    m_ = m;
    a_.assign(size_t{m} * shape_.k, 0);
    verify::FillRandomBf16(absl::MakeSpan(a_), seed);
    GPUOPS_ASSIGN_OR_RETURN(a_dev_, DeviceBuffer::FromHost<uint16_t>(gpu_, a_));
    const uint64_t macs = uint64_t{m} * shape_.n * shape_.k;
    sampled_ = macs > kFullReferenceMacs;
    cols_ = sampled_ ? verify::SampleColumns(shape_.n, kSampleColumns, seed ^ macs)
                     : verify::AllColumns(shape_.n);
    references_[0].reset();
    references_[1].reset();
    lossless_.reset();
    return absl::OkStatus();
  }

  absl::Status RunCase(Variant v, CaseResult& r) {
    const VariantSpec& spec = kVariants[v];
    const uint64_t mn = uint64_t{m_} * shape_.n;
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer c, DeviceBuffer::FromHost<uint16_t>(
                                                gpu_, std::vector<uint16_t>(mn + kGuardElements,
                                                                            kPoison)));
    const GemmArgs args{.a = a_dev_.span(),
                        .w = device_weight_.view(),
                        .c = DeviceSpan(c.ptr(), mn * 2),  // the guard lies past it
                        .m = m_};
    GPUOPS_RETURN_IF_ERROR(gemm_.Run(v, args));
    GPUOPS_RETURN_IF_ERROR(gpu_.Synchronize());
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> out, c.ToHost<uint16_t>());
    verify::CheckWrittenAndGuard(out, mn, kPoison, r.stats);
    const bool fp8 = spec.accuracy == Accuracy::kFp8Activations;
    std::optional<Reference>& ref = references_[fp8 ? 1 : 0];
    if (!ref) ref = ComputeReference(a_, m_, weight_, cols_, fp8);
    verify::CheckTensorCoreBound(out, m_, shape_.n, cols_, ref->value, ref->abs_sum, r.stats);
    r.columns_sampled = sampled_;
    if (IsLossless(spec)) {
      out.resize(mn);
      if (!lossless_) {
        lossless_.emplace(v, std::move(out));
      } else {
        verify::CheckBitIdentical(out, lossless_->second,
                                  StrCat(spec.name, " vs ", kVariants[lossless_->first].name),
                                  r.stats);
        r.identical_to = std::string(kVariants[lossless_->first].name);
      }
    }
    return absl::OkStatus();
  }

 private:
  GpuBackend& gpu_;
  const Nvfp4Gemm& gemm_;
  CheckShape shape_;
  uint64_t seed_;
  Nvfp4Weight weight_;
  UploadedWeight device_weight_;
  uint32_t m_ = 0;
  std::vector<uint16_t> a_;
  DeviceBuffer a_dev_;
  bool sampled_ = false;
  std::vector<uint32_t> cols_;
  std::optional<Reference> references_[2];                             // lossless, FP8
  std::optional<std::pair<Variant, std::vector<uint16_t>>> lossless_;  // the first lossless output
};

}  // namespace

std::string OpName(Variant v) { return StrCat("nvfp4.", kVariants[v].name); }

std::vector<CheckShape> CheckShapes(ShapeSet set, Variant v) {
  const VariantSpec& spec = kVariants[v];
  std::vector<uint32_t> ms, ns, ks;
  std::vector<uint32_t> padded_ns;
  if (set == ShapeSet::kFull) {
    ms = {1, 15, 17, 128, 300};
    ns = {64, 256, 4096};
    ks = {16, 272, 4096};
    padded_ns = {200, 151937};
  } else {
    ms = {1, 17, 130};
    ns = {64, 256};
    ks = {16, 272};
    padded_ns = {200};
  }
  std::vector<CheckShape> out;
  for (uint32_t k : ks) {
    for (uint32_t n : ns) {
      for (uint32_t m : ms) out.push_back({m, n, k, n});
    }
    if (!spec.extra.takes_padded) continue;
    for (uint32_t n : padded_ns) {
      for (uint32_t m : ms) {
        // The vocab-sized weight: its own M set, rows at the edges of the M tiles.
        if (n > 100000 && m != 1 && m != 17 && m != 300) continue;
        out.push_back({m, n, k, DefaultLdb(n)});
      }
    }
  }
  return out;
}

absl::Status RunChecks(GpuBackend& gpu, const CheckOptions& options) {
  GPUOPS_ASSIGN_OR_RETURN(Nvfp4Gemm gemm, Nvfp4Gemm::Load(gpu));
  // Cases grouped by weight, then M, so each input is made and uploaded once; variants in table
  // order, so base is the first lossless output where it runs.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::map<uint32_t, std::vector<Variant>>>
      groups;
  for (const VariantSpec& spec : kVariants.rows()) {
    if (!options.Includes(OpName(spec.variant)) || !gemm.Ships(spec.variant)) continue;
    for (const CheckShape& s : CheckShapes(options.shapes, spec.variant)) {
      groups[{s.n, s.k, s.ldb}][s.m].push_back(spec.variant);
    }
  }
  for (const auto& [nkl, by_m] : groups) {
    const auto [n, k, ldb] = nkl;
    const uint64_t nk = uint64_t{n} * k;
    auto within_budget = [&](uint32_t m) {
      return options.mac_budget == 0 || m * nk <= options.mac_budget;
    };
    Group group(gpu, gemm, {0, n, k, ldb},
                options.seed ^ (uint64_t{n} << 32) ^ (uint64_t{k} << 8) ^ ldb);
    absl::Status group_status = absl::OkStatus();
    if (std::any_of(by_m.begin(), by_m.end(), [&](const auto& e) { return within_budget(e.first); })) {
      group_status = group.Prepare();
    }
    for (const auto& [m, variants] : by_m) {
      absl::Status rows_status = group_status;
      const bool runs = within_budget(m);
      if (runs && rows_status.ok()) {
        rows_status = group.StartRows(m, options.seed ^ (uint64_t{m} * 0x9e3779b1) ^ n ^ (nk << 4));
      }
      for (Variant v : variants) {
        CaseResult r{.variant = v, .shape = {m, n, k, ldb}};
        if (!runs) {
          r.skipped = StrCat(uint64_t{m} * nk, " multiply-adds exceed this backend's budget of ",
                             options.mac_budget);
        } else {
          r.status = rows_status.ok() ? group.RunCase(v, r) : rows_status;
        }
        if (options.on_case) {
          options.on_case({.op = OpName(v),
                           .line = r.Describe(),
                           .verdict = CheckReport::VerdictOf(!r.skipped.empty(), r.pass())});
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace gpuops::ops::nvfp4
