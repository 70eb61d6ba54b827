// gpuops perf: ops (each family's dispatcher, or named ops) against cuBLASLt on the same shapes in
// the same process. Each sample times --batch back-to-back launches between two CUDA events (1,
// the default, is the anchors' method; more hides each launch's latency behind the one before,
// as in an inference step), the weight rotated among enough copies to exceed 3x the L2 (one
// call counter across ours and cuBLAS's calls, so neither reads the copy the other just read). Our
// samples and cuBLAS's alternate (ours, cuBLAS, ours, ...) so that clocks, power and the L2 treat
// both alike; each timing is the median of its samples after warm-up, per launch, with how far
// the median moved between the first and second half of the samples. The read roof (a read-only
// streaming kernel over 4 GiB) is measured the same way in the same run, and so, per row, is the
// same-size read: that kernel over exactly the row's fewest bytes, its samples interleaved with
// ours and cuBLAS's (ours, cuBLAS, read, ours, ...), the most one launch of that size can do.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <tuple>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "commands.h"
#include "cublaslt.h"
#include "gpuops/backends/default_registry.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "ops/testkit/cuda/testkit_layout.h"
#include "ops/testkit/testkit.h"
#include "perf_report.h"
#include "perf_timing.h"
#include "sweep_shapes.h"

namespace gpuops::tools {
namespace {

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
  } else if (o.shapes == "batch") {
    ms = {17, 24, 32, 33, 48, 64};
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
        "unknown shape set '", o.shapes,
        "' (llama, decode, batch, prefill, square, variants, sweep, none)"));
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

// Blocks for testkit_stream_read over n16 16-byte words. Each block covers kStreamThreads *
// kStreamUnroll words per step of its grid-stride loop, so one block per such share means a small
// read launches no block without work; a large one is capped at 8 blocks per SM (two waves of
// 512-thread blocks), the best of the anchors' 2/4/8 per SM on large reads. The 4 GiB roof takes
// the cap.
uint32_t StreamBlocks(const DeviceInfo& device, uint64_t n16) {
  const uint64_t share = uint64_t{ops::testkit::kStreamThreads} * ops::testkit::kStreamUnroll;
  const uint64_t cap = uint64_t{static_cast<uint32_t>(std::max(device.sm_count, 1))} * 8;
  return static_cast<uint32_t>(std::clamp<uint64_t>(CeilDiv64(n16, share), 1, cap));
}

// How many copies of a `bytes` read rotate so that their total exceeds 3x the L2 (60 MB where the
// device does not say), as the subjects' weights do: each call then reads from HBM. At least 2.
// The copies lie in one buffer, so their total stays near max(3x L2, 2x bytes) however small
// `bytes` is.
uint64_t ReadCopies(const DeviceInfo& device, uint64_t bytes) {
  const uint64_t l2 = device.l2_bytes > 0 ? device.l2_bytes : uint64_t{60} << 20;
  return std::max<uint64_t>(2, CeilDiv64(3 * l2, AlignUp(std::max<uint64_t>(bytes, 1), 16)));
}

// testkit_stream_read over `copies` copies of `bytes` rounded up to 16, one after another in one
// buffer of a non-zero pattern; the i-th call reads copy i % copies. Freed with the object.
class StreamRead {
 public:
  static absl::StatusOr<StreamRead> Allocate(GpuBackend& gpu,
                                             const ops::testkit::TestKernels& testkit,
                                             uint64_t bytes, uint64_t copies) {
    StreamRead r;
    r.testkit_ = &testkit;
    r.copy_bytes_ = AlignUp(std::max<uint64_t>(bytes, 1), 16);
    r.copies_ = std::max<uint64_t>(copies, 1);
    r.blocks_ = StreamBlocks(gpu.device_info(), r.copy_bytes_ / 16);
    GPUOPS_ASSIGN_OR_RETURN(r.src_, DeviceBuffer::Allocate(gpu, r.copy_bytes_ * r.copies_));
    GPUOPS_RETURN_IF_ERROR(gpu.Memset(r.src_.ptr(), 0x5a, r.src_.bytes()));
    GPUOPS_ASSIGN_OR_RETURN(r.sink_, DeviceBuffer::Allocate(gpu, uint64_t{r.blocks_} * 4));
    return r;
  }

  absl::Status Run(int i) const {
    const uint64_t copy = static_cast<uint64_t>(i) % copies_;
    return testkit_->StreamRead(DeviceSpan(src_.ptr().offset(copy * copy_bytes_), copy_bytes_),
                                blocks_, sink_.span());
  }
  uint64_t copy_bytes() const { return copy_bytes_; }

 private:
  const ops::testkit::TestKernels* testkit_ = nullptr;
  DeviceBuffer src_;
  DeviceBuffer sink_;
  uint64_t copy_bytes_ = 0;
  uint64_t copies_ = 1;
  uint32_t blocks_ = 1;
};

// TB/s of one read of 4 GiB (or a quarter of the device memory), which exceeds any L2 alone.
absl::StatusOr<double> ReadRoof(GpuBackend& gpu, const ops::testkit::TestKernels& testkit,
                                int iterations, int batch) {
  const uint64_t bytes =
      std::min<uint64_t>(uint64_t{4} << 30, gpu.device_info().total_memory_bytes / 4);
  GPUOPS_ASSIGN_OR_RETURN(StreamRead read, StreamRead::Allocate(gpu, testkit, bytes, 1));
  GPUOPS_ASSIGN_OR_RETURN(
      std::vector<Timing> t,
      TimeInterleaved(gpu, iterations, batch, {[&](int i) { return read.Run(i); }}));
  return read.copy_bytes() / (t[0].ms * 1e-3) / 1e12;
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

// What every row is measured with.
struct PerfContext {
  GpuBackend& gpu;
  CublasLt* cublas;  // nullptr: ours only
  DevicePtr cublas_workspace;
  uint64_t cublas_workspace_bytes;
  const ops::testkit::TestKernels* same_size_read;  // nullptr: no same-size read (--no-read)
  const ops::Family* versus;  // --versus: timed on each row's shape; or nullptr
  std::string versus_op;      // its op ("": its dispatcher)
  int iterations;
  int batch;
  double roof;  // TB/s
};

// The relative Frobenius distance between our C and cuBLAS's, each run once on the same inputs
// (up to 2^24 elements compared).
absl::StatusOr<double> Agreement(GpuBackend& gpu, ops::PerfSubject& subject, CublasLtGemm& plan,
                                 DevicePtr c_cublas, uint64_t c_elems) {
  GPUOPS_RETURN_IF_ERROR(subject.Run(0));
  GPUOPS_RETURN_IF_ERROR(plan.Run(subject.a(), subject.b(0), c_cublas, {}));
  GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
  const uint64_t sample = std::min<uint64_t>(c_elems, uint64_t{1} << 24);
  std::vector<uint16_t> ours(sample);
  std::vector<uint16_t> theirs(sample);
  GPUOPS_RETURN_IF_ERROR(gpu.CopyToHost(
      absl::MakeSpan(reinterpret_cast<std::byte*>(ours.data()), sample * 2), subject.c()));
  GPUOPS_RETURN_IF_ERROR(gpu.CopyToHost(
      absl::MakeSpan(reinterpret_cast<std::byte*>(theirs.data()), sample * 2), c_cublas));
  return RelativeFrobenius(ours, theirs);
}

// The row's rates from its times and the subject's FLOPs and bytes.
void FillRates(const ops::PerfSubject& subject, double roof, PerfRow& row) {
  const double flops = subject.flops();
  const double bytes = subject.bytes();
  row.tflops = flops / (row.ours_us * 1e-6) / 1e12;
  row.tbps = bytes / (row.ours_us * 1e-6) / 1e12;
  row.roof_fraction = roof > 0 ? row.tbps / roof : NAN;
  if (row.cublas_us > 0) {
    row.cublas_tflops = flops / (row.cublas_us * 1e-6) / 1e12;
    row.cublas_tbps = bytes / (row.cublas_us * 1e-6) / 1e12;
  }
}

// The row of `job`; nullopt when its family has no perf cases.
absl::StatusOr<std::optional<PerfRow>> Measure(const PerfContext& ctx, const Job& job,
                                               std::unique_ptr<ops::PerfSubject>& last_subject) {
  GpuBackend& gpu = ctx.gpu;
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
  if (ctx.cublas != nullptr) {
    GPUOPS_ASSIGN_OR_RETURN(c_cublas, DeviceBuffer::Allocate(gpu, c_elems * 2));
    auto planned =
        ctx.cublas->Plan(p.m, p.n, p.k, p.k, ctx.cublas_workspace, ctx.cublas_workspace_bytes);
    if (planned.ok()) {
      plan = *std::move(planned);
      fns.push_back([&](int i) { return plan->Run(subject.a(), subject.b(i), c_cublas.ptr(), {}); });
    } else {
      row.note = StrCat("cuBLASLt: ", planned.status().message());
    }
  }
  // --versus: the other family's dispatcher (or the op it names) on the same problem (its own
  // operands), interleaved; freed with this row.
  std::unique_ptr<ops::PerfSubject> versus;
  size_t versus_index = 0;
  if (ctx.versus != nullptr) {
    row.versus_family = std::string(ctx.versus->name());
    auto other = ctx.versus->PreparePerf(gpu, p, ctx.versus_op);
    if (other.ok()) {
      versus = *std::move(other);
      row.versus_variant = versus->variant();
      versus_index = fns.size();
      fns.push_back([&](int i) { return versus->Run(i); });
    } else if (absl::IsInternal(other.status()) || absl::IsResourceExhausted(other.status())) {
      return other.status();
    } else {
      row.note = StrCat(row.note, row.note.empty() ? "" : "; ", row.versus_family,
                        " not run: ", other.status().message());
    }
  }
  // The same-size read, last of the interleaved functions; freed with this row.
  std::optional<StreamRead> read;
  const uint64_t bytes = static_cast<uint64_t>(std::ceil(subject.bytes()));
  if (ctx.same_size_read != nullptr && bytes > 0) {
    GPUOPS_ASSIGN_OR_RETURN(read, StreamRead::Allocate(gpu, *ctx.same_size_read, bytes,
                                                       ReadCopies(gpu.device_info(), bytes)));
    fns.push_back([&](int i) { return read->Run(i); });
  }
  GPUOPS_ASSIGN_OR_RETURN(std::vector<Timing> t,
                          TimeInterleaved(gpu, ctx.iterations, ctx.batch, fns));
  row.ours_us = t[0].ms * 1e3;
  row.ours_spread = t[0].spread;
  if (read.has_value()) {
    row.read_us = t.back().ms * 1e3;
    row.read_spread = t.back().spread;
  }
  if (versus != nullptr) {
    row.versus_us = t[versus_index].ms * 1e3;
    row.versus_spread = t[versus_index].spread;
  }
  if (plan != nullptr) {
    row.cublas_us = t[1].ms * 1e3;
    row.cublas_spread = t[1].spread;
    // Both results from the same inputs must agree to BF16 accuracy.
    GPUOPS_ASSIGN_OR_RETURN(row.agreement, Agreement(gpu, subject, *plan, c_cublas.ptr(), c_elems));
  }
  FillRates(subject, ctx.roof, row);
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
  std::vector<bool> problem_selected;
  for (const ops::PerfProblem& p : *problems) {
    problem_selected.push_back(std::regex_search(p.name, *only));
  }
  std::vector<Job> jobs;
  for (const auto& [op, problem] : MeasureOrder(selected.size(), problem_selected)) {
    jobs.push_back({selected[op].first, selected[op].second, (*problems)[problem]});
    jobs.back().problem.weight_settled = o.weight_settled;
  }
  if (jobs.empty()) {
    std::fprintf(stderr, "gpuops perf: no shape matches --only '%s'\n", o.only.c_str());
    return kExitUsage;
  }
  // --versus <family> (its dispatcher) or <family>.<op> (that op, e.g. to time two variants of
  // one family in the same row, their samples interleaved).
  const std::string versus_family = o.versus.substr(0, o.versus.find('.'));
  const std::string versus_op =
      o.versus.find('.') == std::string::npos ? "" : o.versus.substr(o.versus.find('.') + 1);
  const ops::Family* versus = o.versus.empty() ? nullptr : ops::FindFamily(versus_family);
  if (!o.versus.empty() && versus == nullptr) {
    std::fprintf(stderr, "gpuops perf: --versus '%s' is not a family (%s)\n", o.versus.c_str(),
                 ops::FamilyNames().c_str());
    return kExitUsage;
  }
  if (versus != nullptr && o.versus.find('.') != std::string::npos) {
    const std::vector<std::string> ops = versus->ops();
    if (std::find(ops.begin(), ops.end(), versus_op) == ops.end()) {
      std::fprintf(stderr, "gpuops perf: --versus '%s': %s has no op '%s' (%s)\n",
                   o.versus.c_str(), versus_family.c_str(), versus_op.c_str(),
                   StrJoin(ops, ", ").c_str());
      return kExitUsage;
    }
  }
  if (o.backend == "mock") {
    std::fprintf(stderr,
                 "gpuops perf: the mock has no device time to measure; use --backend cuda\n");
    return kExitUsage;
  }
  // Every output path is opened (without truncating it) before anything is measured, so one
  // that cannot be written fails now and not after a ten-minute sweep. The CSV then gets its
  // header when measuring starts and each row as it is measured: a run cut short by a timeout or
  // Ctrl-C keeps the rows it measured. JSON and the SVGs need every row: written at the end.
  auto cannot_write = [](const char* flag, const std::string& path) {
    std::fprintf(stderr, "gpuops perf: cannot write %s '%s'%s%s\n", flag, path.c_str(),
                 errno != 0 ? ": " : "", errno != 0 ? std::strerror(errno) : "");
  };
  // A file this check creates is removed again if the run ends before measuring anything.
  std::vector<std::string> created;
  absl::Cleanup remove_created = [&created] {
    std::error_code ignored;
    for (const std::string& path : created) std::filesystem::remove(path, ignored);
  };
  for (const auto& [flag, path] : {std::pair{"--csv", o.csv},
                                   {"--json", o.json},
                                   {"--plot", o.plot},
                                   {"--heatmap", o.heatmap}}) {
    if (path.empty()) continue;
    std::error_code ignored;
    const bool existed = std::filesystem::exists(path, ignored);
    errno = 0;
    if (!std::ofstream(path, std::ios::app)) {
      cannot_write(flag, path);
      return kExitUsage;
    }
    if (!existed) created.push_back(path);
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
  report.weight_settled = o.weight_settled;
  std::printf(
      "gpuops perf: %s, read roof %.2f TB/s (stream-read of 4 GiB); %s; each figure the median "
      "of %d samples of %d back-to-back launch(es)%s, interleaved; cuBLASLt %s\n",
      report.device.c_str(), *roof,
      o.no_read ? "no same-size read (--no-read)"
                : "read = the same stream-read over each row's fewest bytes",
      samples, launches,
      o.weight_settled ? " (weights settled: launches may overlap the one before)" : "",
      report.cublas.c_str());
  int status = kExitOk;
  std::move(remove_created).Cancel();  // measuring starts: the outputs are the run's now
  std::ofstream csv;
  if (!o.csv.empty()) {
    errno = 0;
    csv.open(o.csv, std::ios::trunc);
    csv << PerfReport::CsvHeader() << std::flush;
    if (!csv) {
      cannot_write("--csv", o.csv);
      return kExitFailed;
    }
  }
  const PerfContext context{.gpu = *gpu,
                            .cublas = cublas.ok() ? cublas->get() : nullptr,
                            .cublas_workspace = ws->ptr(),
                            .cublas_workspace_bytes = kCublasWorkspace,
                            .same_size_read = o.no_read ? nullptr : &*testkit,
                            .versus = versus,
                            .versus_op = versus_op,
                            .iterations = samples,
                            .batch = launches,
                            .roof = *roof};
  std::unique_ptr<ops::PerfSubject> last_subject;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    auto row = Measure(context, job, last_subject);
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
    if (csv.is_open()) csv << report.CsvRow(report.rows.back()) << std::flush;
  }
  std::printf("\n%s\n%s\n", FormatTable(report).c_str(), report.Summary().c_str());
  auto say_written = [&](const char* flag, const std::string& path, const std::ofstream& out) {
    if (!out) {
      cannot_write(flag, path);
      status = kExitFailed;
    } else {
      std::printf("wrote %s\n", path.c_str());
    }
  };
  if (csv.is_open()) {
    errno = 0;
    csv.close();  // every row is in it already
    say_written("--csv", o.csv, csv);
  }
  for (const auto& [flag, path, text] : {std::tuple{"--json", o.json, report.Json()},
                                         {"--plot", o.plot, report.Svg()},
                                         {"--heatmap", o.heatmap, report.Heatmap()}}) {
    if (path.empty()) continue;
    errno = 0;
    std::ofstream out(path, std::ios::trunc);
    out << text;
    out.close();
    say_written(flag, path, out);
  }
  return status;
}

}  // namespace gpuops::tools
