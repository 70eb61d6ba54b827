#include "ops/dense/dense_checks.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "ops/dense/dense_reference.h"
#include "verify/random.h"

namespace gpuops::ops::dense {
namespace {

using verify::CheckBitExactColumns;
using verify::CheckBitIdentical;
using verify::CheckStats;
using verify::CheckTensorCoreBound;
using verify::AllColumns;
using verify::CheckWrittenAndGuard;
using verify::FillRandomBf16;
using verify::kGuardElements;
using verify::SampleColumns;

constexpr uint16_t kPoison = common::kBf16Poison;
constexpr uint16_t kPadNan = 0x7fc3;  // pad columns of an ldb weight: reading one shows

// Device-side buffers and host copies for one suite run.
class Runner {
 public:
  Runner(GpuBackend& gpu, const DenseGemm& dense, const common::CommonKernels& common,
         const DenseCheckOptions& options)
      : gpu_(gpu), dense_(dense), common_(common), options_(options) {}

  absl::StatusOr<DeviceBuffer> Upload(absl::Span<const uint16_t> host) {
    return DeviceBuffer::FromHost(gpu_, host);
  }
  // `host` uploaded `offset` elements into a fresh buffer (its span starts at the buffer).
  absl::StatusOr<DeviceBuffer> UploadAt(absl::Span<const uint16_t> host, uint32_t offset) {
    if (offset == 0) return Upload(host);
    std::vector<uint16_t> shifted(offset, kPoison);
    shifted.insert(shifted.end(), host.begin(), host.end());
    return Upload(shifted);
  }
  absl::StatusOr<DeviceBuffer> Poisoned(uint64_t elems) {
    return Upload(std::vector<uint16_t>(elems + kGuardElements, kPoison));
  }

  // Runs `v` into a fresh poisoned output `offset` elements into its buffer and returns the
  // output and its guard; an element before the output that is no longer poison counts as guard
  // damage.
  absl::StatusOr<std::vector<uint16_t>> RunInto(Variant v, GemmArgs args, uint32_t offset,
                                                CheckStats* stats) {
    const uint64_t mn = uint64_t{args.m} * args.n;
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer c, Poisoned(offset + mn));
    GPUOPS_ASSIGN_OR_RETURN(args.c, c.span().Slice(uint64_t{offset} * 2, mn * 2));
    DeviceBuffer workspace;
    if (const uint64_t ws = dense_.WorkspaceBytes(v, args); ws > 0) {
      GPUOPS_ASSIGN_OR_RETURN(workspace, DeviceBuffer::Allocate(gpu_, ws));
      args.workspace = workspace.span();
    }
    GPUOPS_RETURN_IF_ERROR(dense_.Run(v, args));
    GPUOPS_RETURN_IF_ERROR(gpu_.Synchronize());
    GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> all, c.ToHost<uint16_t>());
    for (uint32_t i = 0; i < offset; ++i) {
      if (all[i] != kPoison && stats != nullptr) ++stats->guard_damage;
    }
    all.erase(all.begin(), all.begin() + offset);
    return all;
  }
  absl::StatusOr<std::vector<uint16_t>> RunInto(Variant v, GemmArgs args) {
    return RunInto(v, std::move(args), 0, nullptr);
  }

  GpuBackend& gpu_;
  const DenseGemm& dense_;
  const common::CommonKernels& common_;
  const DenseCheckOptions& options_;
};

// One (N, K, ldb, M) problem's inputs and lazily computed references.
struct Problem {
  DenseShape shape;
  const std::vector<uint16_t>* b = nullptr;  // host copy, N rows ldb apart
  std::vector<uint16_t> a;
  DeviceSpan a_dev;
  DeviceSpan b_dev;
  std::vector<uint32_t> cols;
  bool sampled = false;
  std::optional<std::pair<std::vector<double>, std::vector<double>>> f64;  // value, |a·b| sums
  std::optional<std::vector<uint16_t>> strict;
  std::optional<std::vector<uint16_t>> scalar_output;

  GemmArgs Args(const VariantSpec& spec) const {
    GemmArgs args;
    args.a = a_dev;
    args.b = b_dev;
    args.m = shape.m;
    args.n = shape.n;
    args.k = shape.k;
    args.ldb = TakesLdb(spec.shape) ? shape.ldb : 0;
    return args;
  }
  const std::pair<std::vector<double>, std::vector<double>>& Float64() {
    if (!f64) {
      std::vector<double> value(size_t{shape.m} * cols.size());
      std::vector<double> abs(value.size());
      ReferenceFloat64(a, *b, shape.m, shape.k, shape.ldb, cols, absl::MakeSpan(value),
                       absl::MakeSpan(abs));
      f64.emplace(std::move(value), std::move(abs));
    }
    return *f64;
  }
  const std::vector<uint16_t>& Strict() {
    if (!strict) {
      std::vector<uint16_t> compact(cols.size() * size_t{shape.k});
      for (size_t j = 0; j < cols.size(); ++j) {
        std::copy_n(b->begin() + static_cast<ptrdiff_t>(size_t{cols[j]} * shape.ldb), shape.k,
                    compact.begin() + static_cast<ptrdiff_t>(j * shape.k));
      }
      std::vector<uint16_t> out(size_t{shape.m} * cols.size());
      ReferenceStrict(a, compact, shape.m, static_cast<uint32_t>(cols.size()), shape.k, shape.k,
                      absl::MakeSpan(out));
      strict.emplace(std::move(out));
    }
    return *strict;
  }
};

absl::Status RunCase(Runner& run, Problem& p, Variant v, CheckStats& stats) {
  const VariantSpec& spec = kVariants[v];
  const uint64_t mn = uint64_t{p.shape.m} * p.shape.n;
  const GemmArgs args = p.Args(spec);
  switch (spec.accuracy) {
    case Accuracy::kStrictOrder: {
      GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> out, run.RunInto(v, args));
      CheckWrittenAndGuard(out, mn, kPoison, stats);
      CheckBitExactColumns(out, p.shape.m, p.shape.n, p.cols, p.Strict(), stats);
      if (v == Variant::kScalar)
        p.scalar_output = std::vector<uint16_t>(out.begin(), out.begin() + mn);
      if (v == Variant::kRouter && run.dense_.CanImplement(Variant::kScalar, args).ok()) {
        if (!p.scalar_output) {
          GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> scalar,
                                  run.RunInto(Variant::kScalar, args));
          p.scalar_output = std::vector<uint16_t>(scalar.begin(), scalar.begin() + mn);
        }
        CheckBitIdentical(absl::MakeConstSpan(out).first(mn), *p.scalar_output, "router vs scalar",
                          stats);
      }
      return absl::OkStatus();
    }
    case Accuracy::kTensorCore: {
      GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> out,
                              run.RunInto(v, args, p.shape.offset, &stats));
      CheckWrittenAndGuard(out, mn, kPoison, stats);
      const auto& [value, abs] = p.Float64();
      CheckTensorCoreBound(out, p.shape.m, p.shape.n, p.cols, value, abs, stats);
      if (!spec.second_kernel.empty()) {
        GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> again, run.RunInto(v, args));
        CheckBitIdentical(again, out, "split-K second run", stats);
      }
      return absl::OkStatus();
    }
    case Accuracy::kBitIdentical: {
      // Reference pair: tc into a scratch buffer, then the scaled add onto a copy of c.
      const float scale = 0.375f;
      std::vector<uint16_t> c0(mn + kGuardElements, kPoison);
      FillRandomBf16(absl::MakeSpan(c0).first(mn), run.options_.seed ^ 0xc0ffee, -2.0f, 2.0f);
      GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer scratch, run.Poisoned(mn));
      GemmArgs tc_args = args;
      tc_args.c = DeviceSpan(scratch.ptr(), mn * 2);
      GPUOPS_RETURN_IF_ERROR(run.dense_.Run(Variant::kTensorCore, tc_args));
      GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer expected, run.Upload(c0));
      GPUOPS_RETURN_IF_ERROR(run.common_.Bf16ScaledAdd(expected.span(), scratch.span(), scale, mn));
      GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer fused, run.Upload(c0));
      GemmArgs fused_args = args;
      fused_args.c = DeviceSpan(fused.ptr(), mn * 2);
      fused_args.scale = scale;
      GPUOPS_RETURN_IF_ERROR(run.dense_.Run(v, fused_args));
      GPUOPS_RETURN_IF_ERROR(run.gpu_.Synchronize());
      GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> want, expected.ToHost<uint16_t>());
      GPUOPS_ASSIGN_OR_RETURN(std::vector<uint16_t> got, fused.ToHost<uint16_t>());
      // The guard only: c starts written, so poison cannot show what the kernel skipped.
      CheckWrittenAndGuard(absl::MakeConstSpan(got).subspan(mn), 0, kPoison, stats);
      CheckBitIdentical(got, want, "fused vs tc + scaled add", stats);
      return absl::OkStatus();
    }
    case Accuracy::kFp8Activations:
      break;  // no dense variant rounds its activations
  }
  return absl::InternalError("unknown accuracy contract");
}

}  // namespace

std::vector<DenseShape> DenseShapes(ShapeSet set, Variant v) {
  const VariantSpec& spec = kVariants[v];
  const bool any_n = spec.n_multiple == 1;
  const bool ldb = spec.shape == ArgShape::kLdb || spec.shape == ArgShape::kShiftedA ||
                   spec.shape == ArgShape::kTmaRowClasses;
  // TMA variants read B's stride from the tensor map: odd N runs with padded rows, the rest packed.
  const bool tma = TakesTensorMaps(spec.shape);
  std::vector<uint32_t> ms;
  std::vector<uint32_t> ns;
  std::vector<uint32_t> ks;
  if (set == ShapeSet::kFull) {
    ms = {1, 15, 16, 17, 128, 300};
    ns = {64, 200, 4096};
    if (any_n) ns.push_back(151937);
    ks = {spec.k_multiple, 4096};
  } else {
    ms = {1, 17, 130};
    ns = {64, 200};
    if (any_n) ns.push_back(1001);
    ks = {spec.k_multiple, 264};
  }
  if (spec.max_m != 0) {
    // Small-M kernels: the edges of their row range instead.
    ms = {1, 3, spec.max_m - 1, spec.max_m};
    if (spec.max_m > 8) ms.insert(ms.begin() + 2, {8, 9});
    // Their warps take K in chunks of 256: a K past the last chunk, ending mid-step.
    if (set == ShapeSet::kFull) ks.push_back(4096 + spec.k_multiple);
  }
  if (spec.shape == ArgShape::kTmaSplitK && set == ShapeSet::kFull) {
    ks.push_back(4096 + spec.k_multiple);  // 65 k-blocks over the splits, the last one partial
  }
  // The variants that take any alignment: ragged K, and on alternate shapes an odd B stride
  // (where the kernel takes one) or operands one element past a 16-byte boundary.
  const bool any_alignment = spec.extra.any_alignment;
  if (any_alignment) {
    ks = {1, 37, set == ShapeSet::kFull ? 4099u : 263u};
    ns.insert(ns.begin(), 5);  // fewer rows than the gemv's row classes
  }
  std::vector<DenseShape> out;
  for (uint32_t k : ks) {
    for (uint32_t n : ns) {
      for (uint32_t m : ms) {
        if (any_alignment) {
          const bool odd = (m + n) % 2 == 1;
          out.push_back({m, n, k, ldb && odd ? k + 3 : k, odd ? 0u : 1u});
        } else {
          out.push_back({m, n, k, ldb || (tma && n % 2 == 1) ? k + 8 : k});
        }
      }
    }
  }
  if (spec.shape == ArgShape::kTmaTail) {
    // More tiles than a 132-SM wave, so whole waves and a split tail run together: 2 x 67
    // tiles (tail 2, split 2 ways over 8 k-blocks; the second m-block one row).
    out.push_back({129, 67 * spec.tile_n + 8, 512, 512});
    if (set == ShapeSet::kFull) {
      // Odd N (padded B rows), 3 x 46 tiles: tail 6 split 4 ways over 16 k-blocks.
      out.push_back({257, 45 * spec.tile_n + 3, 1024, 1032});
    }
  }
  return out;
}

bool DenseCaseResult::pass() const {
  if (!skipped.empty()) return true;
  return status.ok() && stats.ok(kVariants[variant].accuracy == Accuracy::kTensorCore);
}

std::string DenseCaseResult::Describe() const {
  const VariantSpec& spec = kVariants[variant];
  char head[160];
  std::snprintf(head, sizeof(head), "%-14s m=%-4u n=%-6u k=%-4u ldb=%-4u%s",
                std::string(spec.name).c_str(), shape.m, shape.n, shape.k, shape.ldb,
                shape.offset != 0 ? StrCat(" offset=", shape.offset).c_str() : "");
  if (!skipped.empty()) return StrCat(head, "  skipped: ", skipped);
  if (!status.ok()) return StrCat(head, "  ERROR ", status.message());
  char figures[160];
  if (spec.accuracy == Accuracy::kTensorCore) {
    std::snprintf(figures, sizeof(figures), "max err %.3g (bound %.3g) frob %.2e",
                  stats.max_abs_error, stats.max_bound, stats.rel_frobenius());
  } else {
    std::snprintf(figures, sizeof(figures), "max err %.3g (bound 0, bit-exact)",
                  stats.max_abs_error);
  }
  return StrCat(head, "  ", figures, "  ", pass() ? "PASS" : "FAIL", " (", stats.checked,
                " checked", columns_sampled ? ", sampled columns" : "", ")",
                pass() ? ""
                       : StrCat(": ", stats.unwritten, " unwritten, ", stats.guard_damage,
                                " guard, ", stats.failures, " wrong; ", stats.first_failure));
}

absl::StatusOr<std::vector<DenseCaseResult>> RunDenseChecks(GpuBackend& gpu,
                                                            const DenseCheckOptions& options) {
  GPUOPS_ASSIGN_OR_RETURN(DenseGemm dense, DenseGemm::Load(gpu));
  GPUOPS_ASSIGN_OR_RETURN(common::CommonKernels common, common::CommonKernels::Load(gpu));
  Runner run(gpu, dense, common, options);

  // Cases grouped by weight (N, K, ldb), then M, so each input is made and uploaded once.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>,
           std::map<uint32_t, std::vector<Variant>>>
      groups;
  for (const VariantSpec& spec : kVariants.rows()) {
    if (options.include && !options.include(spec.variant)) continue;
    if (!dense.Ships(spec.variant)) continue;
    for (const DenseShape& s : DenseShapes(options.shapes, spec.variant)) {
      groups[{s.n, s.k, s.ldb, s.offset}][s.m].push_back(spec.variant);
    }
  }
  std::vector<DenseCaseResult> results;
  auto finish = [&](DenseCaseResult r) {
    if (options.on_case) options.on_case(r);
    results.push_back(std::move(r));
  };
  for (const auto& [nkl, by_m] : groups) {
    const auto [n, k, ldb, offset] = nkl;
    const uint64_t nk = uint64_t{n} * k;
    const bool any_runs = std::any_of(by_m.begin(), by_m.end(), [&](const auto& e) {
      return options.mac_budget == 0 || e.first * nk <= options.mac_budget;
    });
    std::vector<uint16_t> b;
    DeviceBuffer b_dev;
    absl::Status group_status = absl::OkStatus();
    if (any_runs) {
      b.assign(size_t{n} * ldb, kPadNan);
      FillRandomBf16(absl::MakeSpan(b),
                     options.seed ^ (uint64_t{n} << 32) ^ (uint64_t{k} << 8) ^ ldb);
      for (uint32_t row = 0; row < n; ++row) {
        std::fill_n(b.begin() + static_cast<ptrdiff_t>(size_t{row} * ldb + k), ldb - k, kPadNan);
      }
      auto uploaded = run.UploadAt(b, offset);
      if (uploaded.ok()) {
        b_dev = *std::move(uploaded);
      } else {
        group_status = uploaded.status();
      }
    }
    for (const auto& [m, variants] : by_m) {
      const DenseShape shape{m, n, k, ldb, offset};
      const uint64_t macs = uint64_t{m} * n * k;
      Problem p;
      p.shape = shape;
      p.b = &b;
      DeviceBuffer a_dev;
      absl::Status status = group_status;
      const bool runs = options.mac_budget == 0 || macs <= options.mac_budget;
      if (runs && status.ok()) {
        p.a.resize(size_t{m} * k);
        FillRandomBf16(absl::MakeSpan(p.a),
                       options.seed ^ (uint64_t{m} * 0x9e3779b1) ^ n ^ (uint64_t{k} << 20));
        auto uploaded = run.UploadAt(p.a, offset);
        if (uploaded.ok()) {
          a_dev = *std::move(uploaded);
          p.a_dev = *a_dev.span().Slice(uint64_t{offset} * 2, p.a.size() * 2);
          p.b_dev = *b_dev.span().Slice(uint64_t{offset} * 2, b.size() * 2);
        } else {
          status = uploaded.status();
        }
        p.sampled = macs > options.full_reference_macs;
        p.cols = p.sampled ? SampleColumns(n, options.sample_columns, options.seed ^ macs)
                           : AllColumns(n);
      }
      for (Variant v : variants) {
        DenseCaseResult r{.variant = v, .shape = shape};
        if (!runs) {
          r.skipped =
              StrCat(macs, " multiply-adds exceed this backend's budget of ", options.mac_budget);
          finish(std::move(r));
          continue;
        }
        r.columns_sampled = p.sampled;
        r.status = status.ok() ? RunCase(run, p, v, r.stats) : status;
        finish(std::move(r));
      }
    }
  }
  return results;
}

}  // namespace gpuops::ops::dense
