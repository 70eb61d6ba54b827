// What an op family provides to the tools and test suites: its name and embedded image, its ops
// (variants), its host emulations, its check suite, and its trace and perf cases. AllFamilies()
// lists every family of the build (ops/families.inc, one line each); `gpuops info/check/trace/
// perf`, the numerics tests and the golden-trace test iterate it and name no family.
//
// A family's product library (gpuops_ops_<name>: kernels, variants, launchers, emulations) does
// not implement this interface; its suite library (gpuops_ops_<name>_suite) does, so the product
// libraries never link a check.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/device_span.h"
#include "gpuops/runtime/host_kernel.h"
#include "gpuops/runtime/str.h"

namespace gpuops::ops {

// --- Checks

enum class ShapeSet : uint8_t { kQuick, kFull };
absl::StatusOr<ShapeSet> ParseShapeSet(std::string_view name);  // "quick", "full"

// One case of a check run, as reported.
struct CheckReport {
  enum class Verdict : uint8_t { kPass, kFail, kSkip };
  std::string op;    // "dense.tc"
  std::string line;  // shape, figures and verdict, or why it was skipped
  Verdict verdict = Verdict::kFail;

  static Verdict VerdictOf(bool skipped, bool passed) {
    return skipped ? Verdict::kSkip : passed ? Verdict::kPass : Verdict::kFail;
  }
};

struct CheckOptions {
  ShapeSet shapes = ShapeSet::kFull;
  std::function<bool(std::string_view op)> include;  // over "family.op"; empty: every op
  uint64_t mac_budget = 0;  // skip cases with more multiply-adds than this (0: no limit)
  uint64_t seed = 0;
  std::function<void(const CheckReport&)> on_case;  // called for every finished case

  // Whether the run takes op "family.op".
  bool Includes(std::string_view op) const { return !include || include(op); }
};

// --- Traces

// A problem's parameters by name in the order given ({"m", "17"}, {"n", "4096"}, ...); a family
// takes the ones its op uses and refuses others and malformed ones.
using ProblemParams = std::vector<std::pair<std::string, std::string>>;

// Parameters an op does not take are refused (kInvalidArgument naming the op and what it takes).
absl::Status OnlyParams(const ProblemParams& params, std::string_view op,
                        std::initializer_list<std::string_view> known);
// A parameter as a plain decimal (no sign, base prefix or leading zero) or a finite number;
// nullopt when absent, kInvalidArgument naming it when malformed or out of range.
absl::StatusOr<std::optional<uint32_t>> ParamU32(const ProblemParams& params,
                                                 std::string_view name);
absl::StatusOr<std::optional<float>> ParamF32(const ProblemParams& params, std::string_view name);

struct TraceCase {
  std::string op;  // "dense" (the dispatcher) or "dense.<variant>"
  ProblemParams params;
};

// What a trace ran: its variant, its plan, and names for the buffers its launches point into.
struct TraceResult {
  std::string variant;
  std::string plan;                         // "splits 4, workspace 8388608 bytes"; may be empty
  std::map<uint64_t, std::string> buffers;  // allocation base address -> operand name
};

// A buffer of `bytes` for Family::Trace, named `name` in result.buffers. Allocated whole where
// the recording mock can hold it (it records without executing, so its shadow pages are never
// touched): every address a launch derives inside the span (a later slab's rows, a tensor map's
// start) then lies inside an allocation, as on the device. Where the host cannot map it, an
// unchecked span over a 256-byte stand-in (its extent the trace's word; launches that point past
// its first bytes are then refused by the mock).
absl::StatusOr<DeviceSpan> TraceBuffer(GpuBackend& gpu, uint64_t bytes, std::string name,
                                       TraceResult& result);

// --- Perf

// A GEMM-shaped problem C[M,N] = A[M,K] · B[N,K]ᵀ to time.
struct PerfProblem {
  std::string name;  // "qkv", "sq4096", "4096x4096x4096"
  uint32_t m = 0, n = 0, k = 0;
  // The weight is written once and never by a launch that may still run (perf --weight-settled):
  // a family whose GemmArgs has weight_settled passes it on.
  bool weight_settled = false;
};

// One prepared problem on the GPU, launched by the timing loop. The tool keeps a subject alive
// until the next one is prepared, so a family may share weights between consecutive problems of
// the same weight shape (the perf sweeps walk M with the weights fixed).
class PerfSubject {
 public:
  virtual ~PerfSubject() = default;
  virtual std::string variant() const = 0;
  // The i-th timed call; the weights rotate over copies whose total exceeds the L2.
  virtual absl::Status Run(int i) = 0;
  // The fewest bytes the op moves (each input once, the output once) and its FLOPs.
  virtual double bytes() const = 0;
  virtual double flops() const = 0;
  // The same problem in BF16 for the vendor baseline: A [M,K], B copies [N,K] (rotated like
  // ours), and where our BF16 output C [M,N] is after Run.
  virtual DevicePtr a() const = 0;
  virtual DevicePtr b(int i) const = 0;
  virtual DevicePtr c() const = 0;
};

// --- The family

class Family {
 public:
  virtual ~Family() = default;

  virtual std::string_view name() const = 0;
  virtual ModuleImage image() const = 0;
  // Test and bench families ship with the tools, never in the product libraries.
  virtual bool test_only() const { return false; }
  // The ops `check` runs and `trace` / `perf` take after "family.": variants, or kernels.
  virtual std::vector<std::string> ops() const = 0;
  // Registers the host emulation of every kernel of the image.
  virtual void RegisterHostKernels(HostKernelRegistry& registry) const = 0;

  // Checks every included op against its CPU reference on `gpu`, reporting each case through
  // options.on_case. An error only when the suite itself cannot run.
  virtual absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const = 0;
  // How many cases Check would report (for progress).
  virtual absl::StatusOr<size_t> CountChecks(GpuBackend& gpu,
                                             const CheckOptions& options) const = 0;

  // Runs `op` ("" for the dispatcher, else an op name) for `params` on `gpu` (a recording mock)
  // over TraceBuffer's buffers. kUnimplemented where the family has no trace.
  virtual absl::StatusOr<TraceResult> Trace(GpuBackend& gpu, std::string_view op,
                                            const ProblemParams& params) const;
  // The cases of the family's golden launch traces (tests/ops/<family>/golden/).
  virtual std::vector<TraceCase> GoldenTraces() const { return {}; }

  // `problem` prepared for timing `op` ("" for the dispatcher). kUnimplemented where the family
  // has no perf cases; kInvalidArgument when the op cannot run the problem.
  virtual absl::StatusOr<std::unique_ptr<PerfSubject>> PreparePerf(GpuBackend& gpu,
                                                                   const PerfProblem& problem,
                                                                   std::string_view op) const;
};

// --- Helpers for families whose ops are the rows of a variants table (family_kit.h)

// The table's variant names, as the family's ops.
template <typename Table>
std::vector<std::string> VariantOps(const Table& table) {
  std::vector<std::string> out;
  for (const auto& row : table.rows()) out.emplace_back(row.name);
  return out;
}

// An op as trace and perf name it: "" is the dispatcher (nullopt), else a variant's name.
template <typename Table>
absl::StatusOr<std::optional<typename Table::Variant>> ParseVariantOp(const Table& table,
                                                                      std::string_view op) {
  if (op.empty()) return std::optional<typename Table::Variant>();
  absl::StatusOr<typename Table::Variant> v = table.Parse(op);
  if (!v.ok()) return v.status();
  return std::optional<typename Table::Variant>(*v);
}

// How many check cases a family of variants runs: shapes(options.shapes, v).size() summed over
// the variants that options.include admits (as "<family>.<name>") and that ships(v) says this
// build and device ship.
template <typename Table, typename ShipsFn, typename ShapesFn>
size_t CountVariantChecks(const Table& table, const CheckOptions& options, ShipsFn ships,
                          ShapesFn shapes) {
  size_t total = 0;
  for (const auto& row : table.rows()) {
    if (!options.Includes(StrCat(table.family(), ".", row.name))) continue;
    if (ships(row.variant)) total += shapes(options.shapes, row.variant).size();
  }
  return total;
}

// How many copies of a perf subject's `bytes` of weights to rotate over so that together they
// exceed the L2 three times (2..64): each timed call then reads its weights from memory.
int RotationCopies(const DeviceInfo& device, uint64_t bytes);

// Every family of this build, in registration order (ops/families.inc).
absl::Span<const Family* const> AllFamilies();
// The family called `name`, or null.
const Family* FindFamily(std::string_view name);
// Every family's name, ", "-separated (for messages that list the choices).
std::string FamilyNames();

}  // namespace gpuops::ops
