// gpuops perf: ops (each family's dispatcher, or named ops) against cuBLASLt on the same shapes in
// the same process. Each sample times --batch back-to-back launches between two CUDA events (1,
// the default, is the anchors' method; more hides each launch's latency behind the one before,
// as in an inference step), the weight rotated among enough copies to exceed 3x the L2. Our
// samples and cuBLAS's alternate (ours, cuBLAS, ours, ...) so that clocks, power and the L2 treat
// both alike; each timing is the median of its samples after warm-up, per launch, with how far
// the median moved between the first and second half of the samples. The read roof (a read-only
// streaming kernel over 4 GiB) is measured the same way in the same run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>

#include "commands.h"
#include "cublaslt.h"
#include "gpuops/backends/default_registry.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "ops/testkit/testkit.h"
#include "perf_report.h"
#include "sweep_shapes.h"

namespace gpuops::tools {
namespace {

constexpr int kWarmup = 5;

// One row to measure: an op of a family ("" for its dispatcher) on one problem.
struct Job {
  const ops::Family* family;
  std::string op;
  ops::PerfProblem problem;
};

absl::StatusOr<std::vector<ops::PerfProblem>> ProblemsFor(const PerfOptions& o) {
  std::vector<uint32_t> ms;
  std::vector<ops::PerfProblem> out;
  const std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> llama = {
      {"qkv", {6144, 4096}},
      {"o", {4096, 4096}},
      {"gate_up", {28672, 4096}},
      {"down", {4096, 14336}},
      {"lm_head", {151937, 4096}}};
  if (o.shapes == "llama") {
    ms = {1, 16, 128, 1024, 4096};
  } else if (o.shapes == "decode") {
    ms = {1, 16};
  } else if (o.shapes == "prefill") {
    ms = {1024, 4096};
  } else if (o.shapes == "square") {
    out = {{"sq4096", 4096, 4096, 4096}, {"sq8192", 8192, 8192, 8192}};
  } else if (o.shapes == "variants") {
    for (uint32_t m : {1u, 16u, 4096u}) out.push_back({"o", m, 4096, 4096});
  } else if (o.shapes == "sweep") {
    for (const SweepShape& s : kSweepShapes) {
      for (uint32_t m : kSweepMs) out.push_back({StrCat(s.model, ".", s.layer), m, s.n, s.k});
    }
  } else if (o.shapes != "none") {
    return absl::InvalidArgumentError(StrCat(
        "unknown shape set '", o.shapes, "' (llama, decode, prefill, square, variants, sweep, none)"));
  }
  for (const auto& [name, nk] : llama) {
    for (uint32_t m : ms) out.push_back({name, m, nk.first, nk.second});
  }
  for (const std::string& s : o.shape) {
    const std::vector<std::string_view> parts = StrSplit(s, ',');
    uint32_t mnk[3] = {0, 0, 0};
    bool ok = parts.size() == 3;
    for (size_t i = 0; ok && i < 3; ++i) ok = ParseDecimal(parts[i], &mnk[i]) && mnk[i] >= 1;
    if (!ok) {
      return absl::InvalidArgumentError(
          StrCat("--shape '", s, "' is not M,N,K with each a decimal integer >= 1"));
    }
    out.push_back({StrCat(mnk[0], "x", mnk[1], "x", mnk[2]), mnk[0], mnk[1], mnk[2]});
  }
  return out;
}

// The ops to time: --op full-matched against "family" (its dispatcher) and "family.op"; without
// --op, every family's dispatcher (with --shapes variants, every op of every family).
std::vector<std::pair<const ops::Family*, std::string>> OpsFor(const PerfOptions& o,
                                                               const std::regex* filter) {
  std::vector<std::pair<const ops::Family*, std::string>> out;
  for (const ops::Family* family : ops::AllFamilies()) {
    const std::string name(family->name());
    if (filter == nullptr ? o.shapes != "variants" : std::regex_match(name, *filter)) {
      out.emplace_back(family, "");
    }
    for (const std::string& op : family->ops()) {
      if (filter == nullptr ? o.shapes == "variants"
                            : std::regex_match(StrCat(name, ".", op), *filter)) {
        out.emplace_back(family, op);
      }
    }
  }
  return out;
}

double Median(std::vector<float> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// A timing: the median milliseconds per call, and how far the median of the first half of the
// samples lies from the second half's, relative to the median.
struct Timing {
  double ms = NAN;
  double spread = NAN;
};

Timing Summarize(const std::vector<float>& samples) {
  const size_t half = samples.size() / 2;
  Timing t;
  t.ms = Median(samples);
  const double first = Median({samples.begin(), samples.begin() + static_cast<ptrdiff_t>(half)});
  const double second = Median({samples.begin() + static_cast<ptrdiff_t>(half), samples.end()});
  t.spread = t.ms > 0 ? std::fabs(first - second) / t.ms : NAN;
  return t;
}

// Times each of `fns` (fn(i) makes the i-th call) over `samples` event-timed samples of `batch`
// back-to-back calls each, the functions' samples interleaved (fns[0], fns[1], fns[0], ...),
// after kWarmup untimed calls of each. Per call.
absl::StatusOr<std::vector<Timing>> TimeInterleaved(
    GpuBackend& gpu, int samples, int batch,
    const std::vector<std::function<absl::Status(int)>>& fns) {
  GPUOPS_ASSIGN_OR_RETURN(OwnedEvent start, MakeEvent(gpu));
  GPUOPS_ASSIGN_OR_RETURN(OwnedEvent end, MakeEvent(gpu));
  std::vector<int> calls(fns.size(), 0);
  for (size_t f = 0; f < fns.size(); ++f) {
    for (; calls[f] < kWarmup; ++calls[f]) GPUOPS_RETURN_IF_ERROR(fns[f](calls[f]));
  }
  GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
  std::vector<std::vector<float>> ms(fns.size());
  for (int i = 0; i < samples; ++i) {
    for (size_t f = 0; f < fns.size(); ++f) {
      GPUOPS_RETURN_IF_ERROR(gpu.RecordEvent(start.get()));
      for (int j = 0; j < batch; ++j) GPUOPS_RETURN_IF_ERROR(fns[f](calls[f]++));
      GPUOPS_RETURN_IF_ERROR(gpu.RecordEvent(end.get()));
      GPUOPS_ASSIGN_OR_RETURN(float t, gpu.ElapsedMs(start.get(), end.get()));
      ms[f].push_back(t / static_cast<float>(batch));
    }
  }
  std::vector<Timing> out;
  for (const std::vector<float>& m : ms) out.push_back(Summarize(m));
  return out;
}

absl::StatusOr<double> ReadRoof(GpuBackend& gpu, const ops::testkit::TestKernels& testkit,
                                int iterations, int batch) {
  const uint64_t bytes =
      std::min<uint64_t>(uint64_t{4} << 30, gpu.device_info().total_memory_bytes / 4);
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer src, DeviceBuffer::Allocate(gpu, bytes));
  GPUOPS_RETURN_IF_ERROR(gpu.Memset(src.ptr(), 0x5a, bytes));
  const uint32_t blocks = static_cast<uint32_t>(gpu.device_info().sm_count) * 8;
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer sink, DeviceBuffer::Allocate(gpu, blocks * 4));
  GPUOPS_ASSIGN_OR_RETURN(std::vector<Timing> t,
                          TimeInterleaved(gpu, iterations, batch, {[&](int) {
                                            return testkit.StreamRead(src.span(), blocks,
                                                                      sink.span());
                                          }}));
  return bytes / (t[0].ms * 1e-3) / 1e12;
}

double RelativeFrobenius(const std::vector<uint16_t>& got, const std::vector<uint16_t>& want) {
  double err = 0;
  double ref = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = Bf16ToFloat(got[i]);
    const double w = Bf16ToFloat(want[i]);
    err += (g - w) * (g - w);
    ref += w * w;
  }
  return ref > 0 ? std::sqrt(err / ref) : std::sqrt(err);
}

// The row of `job`; nullopt when its family has no perf cases.
absl::StatusOr<std::optional<PerfRow>> Measure(GpuBackend& gpu, CublasLt* cublas,
                                               DevicePtr cublas_workspace,
                                               uint64_t cublas_workspace_bytes, const Job& job,
                                               int iterations, int batch, double roof,
                                               std::unique_ptr<ops::PerfSubject>& last_subject) {
  const ops::PerfProblem& p = job.problem;
  PerfRow row{
      .name = p.name, .family = std::string(job.family->name()), .m = p.m, .n = p.n, .k = p.k};
  auto prepared = job.family->PreparePerf(gpu, p, job.op);
  if (absl::IsUnimplemented(prepared.status())) return std::optional<PerfRow>();
  if (!prepared.ok()) {
    if (absl::IsInternal(prepared.status()) || absl::IsResourceExhausted(prepared.status())) {
      return prepared.status();
    }
    row.variant = job.op;
    row.note = StrCat("not run: ", prepared.status().message());
    return std::optional<PerfRow>(std::move(row));
  }
  ops::PerfSubject& subject = **prepared;
  row.variant = subject.variant();
  const uint64_t c_elems = uint64_t{p.m} * p.n;
  std::vector<std::function<absl::Status(int)>> fns = {[&](int i) { return subject.Run(i); }};
  DeviceBuffer c_cublas;
  std::unique_ptr<CublasLtGemm> plan;
  if (cublas != nullptr) {
    GPUOPS_ASSIGN_OR_RETURN(c_cublas, DeviceBuffer::Allocate(gpu, c_elems * 2));
    auto planned = cublas->Plan(p.m, p.n, p.k, p.k, cublas_workspace, cublas_workspace_bytes);
    if (planned.ok()) {
      plan = *std::move(planned);
      fns.push_back([&](int i) { return plan->Run(subject.a(), subject.b(i), c_cublas.ptr(), {}); });
    } else {
      row.note = StrCat("cuBLASLt: ", planned.status().message());
    }
  }
  GPUOPS_ASSIGN_OR_RETURN(std::vector<Timing> t, TimeInterleaved(gpu, iterations, batch, fns));
  row.ours_us = t[0].ms * 1e3;
  row.ours_spread = t[0].spread;
  if (plan != nullptr) {
    row.cublas_us = t[1].ms * 1e3;
    row.cublas_spread = t[1].spread;
    // Both results from the same inputs must agree to BF16 accuracy.
    GPUOPS_RETURN_IF_ERROR(subject.Run(0));
    GPUOPS_RETURN_IF_ERROR(plan->Run(subject.a(), subject.b(0), c_cublas.ptr(), {}));
    GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
    const uint64_t sample = std::min<uint64_t>(c_elems, uint64_t{1} << 24);
    std::vector<uint16_t> ours(sample);
    std::vector<uint16_t> theirs(sample);
    GPUOPS_RETURN_IF_ERROR(gpu.CopyToHost(
        absl::MakeSpan(reinterpret_cast<std::byte*>(ours.data()), sample * 2), subject.c()));
    GPUOPS_RETURN_IF_ERROR(gpu.CopyToHost(
        absl::MakeSpan(reinterpret_cast<std::byte*>(theirs.data()), sample * 2), c_cublas.ptr()));
    row.agreement = RelativeFrobenius(ours, theirs);
  }
  const double flops = subject.flops();
  const double bytes = subject.bytes();
  row.tflops = flops / (row.ours_us * 1e-6) / 1e12;
  row.tbps = bytes / (row.ours_us * 1e-6) / 1e12;
  row.roof_fraction = roof > 0 ? row.tbps / roof : NAN;
  if (row.cublas_us > 0) {
    row.cublas_tflops = flops / (row.cublas_us * 1e-6) / 1e12;
    row.cublas_tbps = bytes / (row.cublas_us * 1e-6) / 1e12;
  }
  // Kept until the next subject exists: consecutive problems on the same weight shape share it.
  last_subject = *std::move(prepared);
  return std::optional<PerfRow>(std::move(row));
}

}  // namespace

int RunPerf(const PerfOptions& o) {
  // Medians are taken over at least 10 samples (30 by default; the sweep runs with fewer).
  const std::optional<uint64_t> iterations =
      ParseFlag("perf", "--iterations", o.iterations, 10, 100000);
  const std::optional<uint64_t> batch = ParseFlag("perf", "--batch", o.batch, 1, 1000);
  if (!iterations || !batch) return kExitUsage;
  const std::optional<std::regex> only = CompileFilter("perf", "--only", o.only);
  if (!only) return kExitUsage;
  std::optional<std::regex> op_filter;
  if (!o.op.empty()) {
    op_filter = CompileFilter("perf", "--op", o.op);
    if (!op_filter) return kExitUsage;
  }
  auto problems = ProblemsFor(o);
  if (!problems.ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n", std::string(problems.status().message()).c_str());
    return kExitUsage;
  }
  const auto selected = OpsFor(o, op_filter ? &*op_filter : nullptr);
  if (selected.empty()) {
    std::fprintf(stderr,
                 "gpuops perf: no op matches --op '%s' (ops are <family> and "
                 "<family>.<op>; see gpuops info)\n",
                 o.op.c_str());
    return kExitUsage;
  }
  std::vector<Job> jobs;
  for (const auto& [family, op] : selected) {
    for (const ops::PerfProblem& p : *problems) {
      if (std::regex_search(p.name, *only)) jobs.push_back({family, op, p});
    }
  }
  if (jobs.empty()) {
    std::fprintf(stderr, "gpuops perf: no shape matches --only '%s'\n", o.only.c_str());
    return kExitUsage;
  }
  if (o.backend == "mock") {
    std::fprintf(stderr,
                 "gpuops perf: the mock has no device time to measure; use --backend cuda\n");
    return kExitUsage;
  }
  int exit_code = kExitOk;
  std::unique_ptr<GpuBackend> gpu = CreateBackendOrReport("perf", o.backend, &exit_code);
  if (gpu == nullptr) return exit_code;
  auto testkit = ops::testkit::TestKernels::Load(*gpu);
  if (!testkit.ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n", std::string(testkit.status().message()).c_str());
    return kExitFailed;
  }
  auto cublas = CublasLt::Load();
  if (!cublas.ok()) {
    std::fprintf(stderr, "gpuops perf: %s; measuring ours only\n",
                 std::string(cublas.status().message()).c_str());
  }
  constexpr uint64_t kCublasWorkspace = 32ull << 20;
  auto ws = DeviceBuffer::Allocate(*gpu, kCublasWorkspace);
  const int samples = static_cast<int>(*iterations);
  const int launches = static_cast<int>(*batch);
  auto roof = ReadRoof(*gpu, *testkit, samples, launches);
  if (!ws.ok() || !roof.ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n",
                 std::string((ws.ok() ? roof.status() : ws.status()).message()).c_str());
    return kExitFailed;
  }
  PerfReport report;
  report.device = gpu->device_info().name;
  report.read_roof_tbps = *roof;
  report.cublas = cublas.ok() ? (*cublas)->library() : "unavailable";
  report.batch = launches;
  std::printf(
      "gpuops perf: %s, read roof %.2f TB/s (stream-read of 4 GiB); each figure the median of "
      "%d samples of %d back-to-back launch(es), ours and cuBLAS's interleaved; cuBLASLt %s\n",
      report.device.c_str(), *roof, samples, launches, report.cublas.c_str());
  int status = kExitOk;
  std::unique_ptr<ops::PerfSubject> last_subject;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    auto row = Measure(*gpu, cublas.ok() ? cublas->get() : nullptr, ws->ptr(), kCublasWorkspace,
                       job, samples, launches, *roof, last_subject);
    if (!row.ok()) {
      std::fprintf(stderr, "gpuops perf: %s %s m=%u: %s\n", std::string(job.family->name()).c_str(),
                   job.problem.name.c_str(), job.problem.m,
                   std::string(row.status().message()).c_str());
      status = kExitFailed;
      if (absl::IsInternal(row.status())) break;  // a device fault: nothing later is measurable
      continue;
    }
    if (!row->has_value()) continue;
    std::printf("[%zu/%zu] %s\n", i + 1, jobs.size(), FormatRow(**row).c_str());
    std::fflush(stdout);
    report.rows.push_back(**std::move(row));
  }
  std::printf("\n%s\n%s\n", FormatTable(report).c_str(), report.Summary().c_str());
  for (const auto& [path, text] : {std::pair{o.csv, report.Csv()},
                                   {o.json, report.Json()},
                                   {o.plot, report.Svg()},
                                   {o.heatmap, report.Heatmap()}}) {
    if (path.empty()) continue;
    std::ofstream out(path);
    out << text;
    if (!out) {
      std::fprintf(stderr, "gpuops perf: cannot write %s\n", path.c_str());
      status = kExitFailed;
    } else {
      std::printf("wrote %s\n", path.c_str());
    }
  }
  return status;
}

}  // namespace gpuops::tools
