#include "ops/fp8/fp8_checks.h"

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
#include "ops/fp8/fp8_format.h"
#include "ops/fp8/fp8_gemm.h"
#include "verify/check.h"
#include "verify/random.h"

namespace gpuops::ops::fp8 {
namespace {

using verify::CheckStats;
using verify::kGuardElements;

constexpr uint16_t kPoison = common::kBf16Poison;
constexpr uint64_t kFullReferenceMacs = uint64_t{1} << 26;
constexpr uint32_t kSampleColumns = 96;

absl::StatusOr<Fp8BlockWeight> MakeWeight(uint32_t n, uint32_t k, uint64_t seed) {
  std::vector<uint16_t> bf16(uint64_t{n} * k);
  verify::FillRandomBf16(absl::MakeSpan(bf16), seed);
  for (uint64_t row = 0; row < n; ++row) {
    const float factor =
        std::ldexp(1.0f + static_cast<float>(row / 7 % 5) / 7.0f, -static_cast<int>(row % 16));
    for (uint64_t i = row * k; i < (row + 1) * k; ++i) {
      bf16[i] = FloatToBf16(Bf16ToFloat(bf16[i]) * factor);
    }
  }
  return QuantizeFp8Block(bf16, n, k);
}

struct CaseResult {
  Variant variant;
  CheckShape shape;
  CheckStats stats;
  absl::Status status;
  std::string skipped;
  bool columns_sampled = false;

  bool pass() const { return !skipped.empty() || (status.ok() && stats.ok(true)); }
  std::string Describe() const {
    char head[128];
    std::snprintf(head, sizeof(head), "%-12s m=%-4u n=%-5u k=%-4u lda=%-4u ldc=%-5u",
                  std::string(kVariants[variant].name).c_str(), shape.m, shape.n, shape.k,
                  shape.lda, shape.ldc);
    if (!skipped.empty()) return StrCat(head, "  skipped: ", skipped);
    if (!status.ok()) return StrCat(head, "  ERROR ", status.message());
    char figures[160];
    std::snprintf(figures, sizeof(figures), "max err %.3g (bound %.3g) frob %.2e",
                  stats.max_abs_error, stats.max_bound, stats.rel_frobenius());
    return StrCat(head, "  ", figures, "  ", pass() ? "PASS" : "FAIL", " (", stats.checked,
                  " checked", columns_sampled ? ", sampled columns" : "", ")",
                  pass() ? ""
                         : StrCat(": ", stats.unwritten, " unwritten, ", stats.guard_damage,
                                  " gap or guard, ", stats.failures, " wrong; ",
                                  stats.first_failure));
  }
};

// One (N, K) weight on the device with what the cases of one (M, lda) share.
class Group {
 public:
  Group(GpuBackend& gpu, const Fp8Gemm& gemm, uint32_t n, uint32_t k, uint64_t seed)
      : gpu_(gpu), gemm_(gemm), n_(n), k_(k), seed_(seed) {}

  absl::Status Prepare() {
    GPUOPS_ASSIGN_OR_RETURN(weight_, MakeWeight(n_, k_, seed_));
    GPUOPS_ASSIGN_OR_RETURN(device_weight_, UploadWeight(gpu_, weight_));
    return absl::OkStatus();
  }

  // Starts the cases of `m` rows of A at pitch `lda`: fresh A, columns to check, no references.
  absl::Status StartRows(uint32_t m, uint32_t lda, uint64_t seed) {
    m_ = m;
    lda_ = lda;
    a_.assign(size_t{m} * lda, 0);
    verify::FillRandomBf16(absl::MakeSpan(a_), seed);
    GPUOPS_ASSIGN_OR_RETURN(a_dev_, DeviceBuffer::FromHost<uint16_t>(gpu_, a_));
    const uint64_t macs = uint64_t{m} * n_ * k_;
    sampled_ = macs > kFullReferenceMacs;
    cols_ = sampled_ ? verify::SampleColumns(n_, kSampleColumns, seed ^ macs)
                     : verify::AllColumns(n_);
    reference_.reset();
    strict_.reset();
    return absl::OkStatus();
  }

  // A stream-K workspace after a launch: its flags zero again.
  absl::Status RequireWorkspaceReady(const DeviceBuffer& workspace, Variant v,
                                     const GemmArgs& args) const {
    if (workspace.bytes() == 0) return absl::OkStatus();
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint32_t> words, workspace.ToHost<uint32_t>());
    const auto flags = gemm_.WorkspaceFlags(v, args);
    for (uint64_t i = 0; i < flags && i < words.size(); ++i) {
      if (words[i] != 0) {
        return absl::DataLossError(StrCat(kVariants[v].kernel, ": workspace flag ", i, " left at ",
                                          words[i], " after the launch"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status RunCase(Variant v, uint32_t ldc, CaseResult& r) {
    const VariantSpec& spec = kVariants[v];
    const uint64_t span = (uint64_t{m_} - 1) * ldc + n_;
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer c,
                            DeviceBuffer::FromHost<uint16_t>(
                                gpu_, std::vector<uint16_t>(span + kGuardElements, kPoison)));
    GemmArgs args{.a = DeviceSpan(a_dev_.ptr(), ((uint64_t{m_} - 1) * lda_ + k_) * 2),
                  .w = device_weight_.view(),
                  .c = DeviceSpan(c.ptr(), span * 2),  // the guard lies past it
                  .m = m_,
                  .lda = lda_,
                  .ldc = ldc};
    // A zero-filled workspace where the variant takes one.
    DeviceBuffer workspace;
    const uint64_t ws = gemm_.WorkspaceBytes(v, args);
    if (ws > 0) {
      GPUOPS_ASSIGN_OR_RETURN(workspace, DeviceBuffer::Allocate(gpu_, ws));
      GPUOPS_RETURN_IF_ERROR(gpu_.Memset(workspace.ptr(), 0, ws));
      args.workspace = workspace.span();
    }
    GPUOPS_RETURN_IF_ERROR(gemm_.Run(v, args));
    GPUOPS_RETURN_IF_ERROR(gpu_.Synchronize());
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> pitched, c.ToHost<uint16_t>());
    if (ws > 0) {
      // The launch leaves the workspace ready for the next: run again on it, into the same C;
      // the result must not change (the partials are added in a fixed order).
      GPUOPS_RETURN_IF_ERROR(gemm_.Run(v, args));
      GPUOPS_RETURN_IF_ERROR(gpu_.Synchronize());
      GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> again, c.ToHost<uint16_t>());
      if (again != pitched) {
        return absl::DataLossError(StrCat(kVariants[v].kernel,
                                          ": a second launch on the same workspace changed the "
                                          "output (flags left set, or a partial added out of "
                                          "order)"));
      }
    }
    GPUOPS_RETURN_IF_ERROR(RequireWorkspaceReady(workspace, v, args));
    // [m, n] outputs, then the gaps between rows and the guard, which must keep the poison.
    std::vector<uint16_t> out(size_t{m_} * n_ + kGuardElements, kPoison);
    for (uint32_t row = 0; row < m_; ++row) {
      for (uint32_t col = 0; col < ldc; ++col) {
        const uint64_t at = uint64_t{row} * ldc + col;
        if (at >= span) break;
        if (col < n_) {
          out[size_t{row} * n_ + col] = pitched[at];
        } else if (pitched[at] != kPoison) {
          ++r.stats.guard_damage;
        }
      }
    }
    std::copy(pitched.begin() + static_cast<ptrdiff_t>(span), pitched.end(),
              out.begin() + static_cast<ptrdiff_t>(size_t{m_} * n_));
    verify::CheckWrittenAndGuard(out, uint64_t{m_} * n_, kPoison, r.stats);
    r.columns_sampled = sampled_;
    if (spec.accuracy == Accuracy::kStrictOrder) {
      if (!strict_) strict_ = StrictReference();
      verify::CheckBitExactColumns(out, m_, n_, cols_, *strict_, r.stats);
    } else {
      if (!reference_) reference_ = FloatReference();
      verify::CheckTensorCoreBound(out, m_, n_, cols_, reference_->first, reference_->second,
                                   r.stats);
    }
    return absl::OkStatus();
  }

 private:
  // The float64 reference of A times the dequantized weight over cols_: value and Σ|a·w|.
  std::pair<std::vector<double>, std::vector<double>> FloatReference() const {
    std::vector<double> value(size_t{m_} * cols_.size()), abs_sum(value.size());
    std::vector<double> w(k_);
    for (size_t j = 0; j < cols_.size(); ++j) {
      for (uint32_t i = 0; i < k_; ++i) w[i] = Dequantized(weight_, cols_[j], i);
      for (uint32_t r = 0; r < m_; ++r) {
        double sum = 0, abs = 0;
        for (uint32_t i = 0; i < k_; ++i) {
          const double p = static_cast<double>(Bf16ToFloat(a_[size_t{r} * lda_ + i])) * w[i];
          sum += p;
          abs += std::fabs(p);
        }
        value[r * cols_.size() + j] = sum;
        abs_sum[r * cols_.size() + j] = abs;
      }
    }
    return {std::move(value), std::move(abs_sum)};
  }

  // The scalar kernels' exact result over cols_, m x cols_.size().
  std::vector<uint16_t> StrictReference() const {
    std::vector<uint16_t> full(size_t{m_} * n_, kPoison);
    const StridedView view{.a = a_,
                           .weight = weight_.weight,
                           .block_scale = weight_.block_scale,
                           .c = absl::MakeSpan(full),
                           .n = n_,
                           .k = k_,
                           .lda = lda_,
                           .ldc = n_};
    for (uint32_t col : cols_) StrictOrderGemm(view, m_, col, 1);
    std::vector<uint16_t> out(size_t{m_} * cols_.size());
    for (uint32_t r = 0; r < m_; ++r) {
      for (size_t j = 0; j < cols_.size(); ++j) out[r * cols_.size() + j] = full[size_t{r} * n_ + cols_[j]];
    }
    return out;
  }

  GpuBackend& gpu_;
  const Fp8Gemm& gemm_;
  uint32_t n_, k_;
  uint64_t seed_;
  Fp8BlockWeight weight_;
  UploadedWeight device_weight_;
  uint32_t m_ = 0, lda_ = 0;
  std::vector<uint16_t> a_;
  DeviceBuffer a_dev_;
  bool sampled_ = false;
  std::vector<uint32_t> cols_;
  std::optional<std::pair<std::vector<double>, std::vector<double>>> reference_;
  std::optional<std::vector<uint16_t>> strict_;
};

}  // namespace

std::string OpName(Variant v) { return StrCat("fp8.", kVariants[v].name); }

std::vector<CheckShape> CheckShapes(ShapeSet set, Variant v) {
  const VariantSpec& spec = kVariants[v];
  const bool full = set == ShapeSet::kFull;
  std::vector<uint32_t> ms;
  if (spec.extra.row_slabs) {
    ms = full ? std::vector<uint32_t>{1, 16, 17, 33, 64, 100} : std::vector<uint32_t>{17, 64, 70};
  } else if (spec.max_m == 0) {  // wg_m128: one M tile, whole tiles, a shifted last tile
    ms = full ? std::vector<uint32_t>{1, 17, 65, 128, 129, 200, 300}
              : std::vector<uint32_t>{70, 129, 300};
  } else {
    ms = full ? std::vector<uint32_t>{1, 2, 8, 9, 15, 16} : std::vector<uint32_t>{1, 9, 16};
    if (spec.max_m > 16) {  // tc_m32, tc_m64: the upper half of their rows, and the last
      const uint32_t half = spec.max_m / 2 + 1;
      for (uint32_t m : full ? std::vector<uint32_t>{half, spec.max_m - 1, spec.max_m}
                             : std::vector<uint32_t>{half, spec.max_m}) {
        ms.push_back(m);
      }
    }
  }
  std::erase_if(ms, [&](uint32_t m) {
    return spec.max_m != 0 && !spec.extra.row_slabs && m > spec.max_m;
  });
  const std::vector<uint32_t> ns = full ? std::vector<uint32_t>{32, 200, 4096}
                                        : std::vector<uint32_t>{32, 200};
  const std::vector<uint32_t> ks = full ? std::vector<uint32_t>{128, 384, 4096}
                                        : std::vector<uint32_t>{128, 384};
  // Row pitches past k and n where the kernel takes them (the wgmma kernels' activation tensor
  // map included).
  const bool strided = spec.shape == ArgShape::kStrided || spec.shape == ArgShape::kWgmma ||
                       spec.shape == ArgShape::kStreamK;
  std::vector<CheckShape> out;
  for (uint32_t k : ks) {
    for (uint32_t n : ns) {
      for (uint32_t m : ms) {
        // tc_m8_f16 refuses rows its warps cannot stage; it runs K = 14336 at M = 1 instead.
        if (spec.extra.stages_f16_rows && !TcM8F16Tile::StagesFit(m, k)) continue;
        out.push_back({m, n, k, strided ? k + 24 : k, strided ? n + 5 : n});
      }
    }
  }
  if (spec.extra.stages_f16_rows && full) {
    for (uint32_t n : ns) out.push_back({1, n, 14336, 14336, n});
  }
  return out;
}

absl::Status RunChecks(GpuBackend& gpu, const CheckOptions& options) {
  GPUOPS_ASSIGN_OR_RETURN(Fp8Gemm gemm, Fp8Gemm::Load(gpu));
  // Cases grouped by weight, then (M, lda), so each input is made and uploaded once.
  std::map<std::pair<uint32_t, uint32_t>,
           std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<Variant, uint32_t>>>>
      groups;
  for (const VariantSpec& spec : kVariants.rows()) {
    if (!options.Includes(OpName(spec.variant)) || !gemm.Ships(spec.variant)) continue;
    for (const CheckShape& s : CheckShapes(options.shapes, spec.variant)) {
      groups[{s.n, s.k}][{s.m, s.lda}].push_back({spec.variant, s.ldc});
    }
  }
  for (const auto& [nk, by_rows] : groups) {
    const auto [n, k] = nk;
    const uint64_t macs_per_row = uint64_t{n} * k;
    auto within_budget = [&](uint32_t m) {
      return options.mac_budget == 0 || m * macs_per_row <= options.mac_budget;
    };
    Group group(gpu, gemm, n, k, options.seed ^ (uint64_t{n} << 32) ^ (uint64_t{k} << 8));
    absl::Status group_status = absl::OkStatus();
    if (std::any_of(by_rows.begin(), by_rows.end(),
                    [&](const auto& e) { return within_budget(e.first.first); })) {
      group_status = group.Prepare();
    }
    for (const auto& [rows, cases] : by_rows) {
      const auto [m, lda] = rows;
      absl::Status rows_status = group_status;
      const bool runs = within_budget(m);
      if (runs && rows_status.ok()) {
        rows_status = group.StartRows(m, lda, options.seed ^ (uint64_t{m} * 0x9e3779b1) ^ n ^
                                                  (macs_per_row << 4) ^ lda);
      }
      for (const auto& [v, ldc] : cases) {
        CaseResult r{.variant = v, .shape = {m, n, k, lda, ldc}};
        if (!runs) {
          r.skipped = StrCat(m * macs_per_row, " multiply-adds exceed this backend's budget of ",
                             options.mac_budget);
        } else {
          r.status = rows_status.ok() ? group.RunCase(v, ldc, r) : rows_status;
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

}  // namespace gpuops::ops::fp8
