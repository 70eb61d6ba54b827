// gpuops perf: our dispatcher (or one forced variant) against cuBLASLt on the same shapes in the
// same process. Each sample times --batch back-to-back launches between two CUDA events (1, the
// default, is the anchors' method; more hides each launch's latency behind the one before, as in
// an inference step), the weight rotated among enough copies to exceed 3x the L2; a timing is the
// median of >= 20 samples after warm-up, per launch. The read roof (a read-only streaming kernel
// over 4 GiB) is measured the same way in the same run.
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
#include "json_writer.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "perf_report.h"
#include "verify/random.h"

namespace gpuops::tools {
namespace {

constexpr int kWarmup = 5;

struct Shape {
  std::string name;
  uint32_t m, n, k;
  std::string variant;  // empty: the dispatcher
};

absl::StatusOr<std::vector<Shape>> ShapesFor(const PerfOptions& o) {
  std::vector<uint32_t> ms;
  std::vector<Shape> out;
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
    out = {{"sq4096", 4096, 4096, 4096, o.variant}, {"sq8192", 8192, 8192, 8192, o.variant}};
  } else if (o.shapes == "variants") {
    for (const auto& s : ops::dense::kVariants) {
      for (uint32_t m : {1u, 16u, 4096u}) out.push_back({"o", m, 4096, 4096, std::string(s.name)});
    }
  } else if (o.shapes != "none") {
    return absl::InvalidArgumentError(StrCat("unknown shape set '", o.shapes,
                                             "' (llama, decode, prefill, square, variants, none)"));
  }
  for (const auto& [name, nk] : llama) {
    for (uint32_t m : ms) out.push_back({name, m, nk.first, nk.second, o.variant});
  }
  for (const std::string& s : o.shape) {
    uint32_t m = 0, n = 0, k = 0;
    char extra = 0;
    if (std::sscanf(s.c_str(), "%u,%u,%u%c", &m, &n, &k, &extra) != 3 || m == 0 || n == 0 ||
        k == 0) {
      return absl::InvalidArgumentError(StrCat("--shape '", s, "' is not M,N,K with each >= 1"));
    }
    out.push_back({StrCat(m, "x", n, "x", k), m, n, k, o.variant});
  }
  return out;
}

double Median(std::vector<float> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Median milliseconds per call of fn(i): `samples` event-timed samples of `batch` back-to-back
// calls each, after kWarmup untimed calls.
absl::StatusOr<double> TimeMedian(GpuBackend& gpu, int samples, int batch,
                                  const std::function<absl::Status(int)>& fn) {
  GPUOPS_ASSIGN_OR_RETURN(OwnedEvent start, MakeEvent(gpu));
  GPUOPS_ASSIGN_OR_RETURN(OwnedEvent end, MakeEvent(gpu));
  int call = 0;
  for (; call < kWarmup; ++call) GPUOPS_RETURN_IF_ERROR(fn(call));
  GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
  std::vector<float> ms;
  for (int i = 0; i < samples; ++i) {
    GPUOPS_RETURN_IF_ERROR(gpu.RecordEvent(start.get()));
    for (int j = 0; j < batch; ++j) GPUOPS_RETURN_IF_ERROR(fn(call++));
    GPUOPS_RETURN_IF_ERROR(gpu.RecordEvent(end.get()));
    GPUOPS_ASSIGN_OR_RETURN(float t, gpu.ElapsedMs(start.get(), end.get()));
    ms.push_back(t / static_cast<float>(batch));
  }
  return Median(std::move(ms));
}

absl::StatusOr<double> ReadRoof(GpuBackend& gpu, const ops::common::CommonKernels& common,
                                int iterations, int batch) {
  const uint64_t bytes =
      std::min<uint64_t>(uint64_t{4} << 30, gpu.device_info().total_memory_bytes / 4);
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer src, DeviceBuffer::Allocate(gpu, bytes));
  GPUOPS_RETURN_IF_ERROR(gpu.Memset(src.ptr(), 0x5a, bytes));
  const uint32_t blocks = static_cast<uint32_t>(gpu.device_info().sm_count) * 8;
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer sink, DeviceBuffer::Allocate(gpu, blocks * 4));
  GPUOPS_ASSIGN_OR_RETURN(double ms, TimeMedian(gpu, iterations, batch, [&](int) {
                            return common.StreamRead(src.ptr(), bytes, blocks, sink.ptr());
                          }));
  return bytes / (ms * 1e-3) / 1e12;
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

absl::StatusOr<PerfRow> Measure(GpuBackend& gpu, const ops::dense::DenseGemm& dense,
                                CublasLt* cublas, DevicePtr cublas_workspace,
                                uint64_t cublas_workspace_bytes, const Shape& s, int iterations,
                                int batch, double roof) {
  PerfRow row{.name = s.name, .m = s.m, .n = s.n, .k = s.k};
  const uint64_t b_bytes = uint64_t{s.n} * s.k * 2;
  const uint64_t l2 = std::max<uint64_t>(gpu.device_info().l2_bytes, 50ull << 20);
  const int copies = static_cast<int>(std::clamp<uint64_t>(CeilDiv64(3 * l2, b_bytes), 2, 64));
  std::vector<uint16_t> host_a(uint64_t{s.m} * s.k);
  std::vector<uint16_t> host_b(uint64_t{s.n} * s.k);
  verify::FillRandomBf16(absl::MakeSpan(host_a), 1 + s.m);
  verify::FillRandomBf16(absl::MakeSpan(host_b), 2 + s.n);
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer a, DeviceBuffer::FromHost<uint16_t>(gpu, host_a));
  std::vector<DeviceBuffer> b;
  for (int i = 0; i < copies; ++i) {
    GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer copy, DeviceBuffer::FromHost<uint16_t>(gpu, host_b));
    b.push_back(std::move(copy));
  }
  const uint64_t c_elems = uint64_t{s.m} * s.n;
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer c_ours, DeviceBuffer::Allocate(gpu, c_elems * 2));
  GPUOPS_ASSIGN_OR_RETURN(DeviceBuffer c_cublas, DeviceBuffer::Allocate(gpu, c_elems * 2));

  ops::dense::GemmArgs args{
      .a = a.ptr(), .b = b[0].ptr(), .c = c_ours.ptr(), .m = s.m, .n = s.n, .k = s.k};
  ops::dense::Variant variant;
  DeviceBuffer workspace;
  if (s.variant.empty()) {
    // The dispatcher may split K when it is given the workspace for it.
    if (const uint64_t ws = dense.GemmWorkspaceBytes(args); ws > 0) {
      GPUOPS_ASSIGN_OR_RETURN(workspace, DeviceBuffer::Allocate(gpu, ws));
      args.workspace = workspace.ptr();
      args.workspace_bytes = ws;
    }
    GPUOPS_ASSIGN_OR_RETURN(variant, dense.Pick(args));
  } else {
    GPUOPS_ASSIGN_OR_RETURN(variant, ops::dense::ParseVariant(s.variant));
    if (ops::dense::Spec(variant).shape == ops::dense::ArgShape::kGemmLdb) args.ldb = s.k;
  }
  row.variant = std::string(ops::dense::Spec(variant).name);
  if (const uint64_t ws = dense.WorkspaceBytes(variant, args); ws > args.workspace_bytes) {
    GPUOPS_ASSIGN_OR_RETURN(workspace, DeviceBuffer::Allocate(gpu, ws));
    args.workspace = workspace.ptr();
    args.workspace_bytes = ws;
  }
  if (absl::Status can = dense.CanImplement(variant, args); !can.ok()) {
    row.note = StrCat("not run: ", can.message());
    return row;
  }
  GPUOPS_ASSIGN_OR_RETURN(double ours_ms, TimeMedian(gpu, iterations, batch, [&](int i) {
                            ops::dense::GemmArgs it = args;
                            it.b = b[i % copies].ptr();
                            return dense.Run(variant, it);
                          }));
  row.ours_us = ours_ms * 1e3;
  if (cublas != nullptr) {
    auto plan = cublas->Plan(s.m, s.n, s.k, s.k, cublas_workspace, cublas_workspace_bytes);
    if (plan.ok()) {
      GPUOPS_ASSIGN_OR_RETURN(double cublas_ms, TimeMedian(gpu, iterations, batch, [&](int i) {
                                return (*plan)->Run(a.ptr(), b[i % copies].ptr(), c_cublas.ptr(),
                                                    {});
                              }));
      row.cublas_us = cublas_ms * 1e3;
      // Both results from the same inputs must agree to BF16 accuracy.
      GPUOPS_RETURN_IF_ERROR(dense.Run(variant, args));
      GPUOPS_RETURN_IF_ERROR((*plan)->Run(a.ptr(), b[0].ptr(), c_cublas.ptr(), {}));
      GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
      const uint64_t sample = std::min<uint64_t>(c_elems, uint64_t{1} << 24);
      std::vector<uint16_t> ours(sample);
      std::vector<uint16_t> theirs(sample);
      GPUOPS_RETURN_IF_ERROR(gpu.CopyToHost(
          absl::MakeSpan(reinterpret_cast<std::byte*>(ours.data()), sample * 2), c_ours.ptr()));
      GPUOPS_RETURN_IF_ERROR(gpu.CopyToHost(
          absl::MakeSpan(reinterpret_cast<std::byte*>(theirs.data()), sample * 2), c_cublas.ptr()));
      row.agreement = RelativeFrobenius(ours, theirs);
    } else {
      row.note = StrCat("cuBLASLt: ", plan.status().message());
    }
  }
  const double flops = 2.0 * s.m * s.n * s.k;
  const double bytes = 2.0 * (static_cast<double>(s.m) * s.k + static_cast<double>(s.n) * s.k +
                              static_cast<double>(s.m) * s.n);
  row.tflops = flops / (row.ours_us * 1e-6) / 1e12;
  row.tbps = bytes / (row.ours_us * 1e-6) / 1e12;
  row.roof_fraction = roof > 0 ? row.tbps / roof : NAN;
  if (row.cublas_us > 0) {
    row.cublas_tflops = flops / (row.cublas_us * 1e-6) / 1e12;
    row.cublas_tbps = bytes / (row.cublas_us * 1e-6) / 1e12;
  }
  return row;
}

}  // namespace

int RunPerf(const PerfOptions& o) {
  if (o.iterations < 20) {
    std::fprintf(stderr, "gpuops perf: --iterations %d: medians are taken over >= 20 samples\n",
                 o.iterations);
    return kExitUsage;
  }
  if (o.batch < 1 || o.batch > 1000) {
    std::fprintf(stderr, "gpuops perf: --batch %d is outside 1..1000\n", o.batch);
    return kExitUsage;
  }
  const std::optional<std::regex> filter = CompileFilter("perf", "--op", o.op);
  if (!filter) return kExitUsage;
  auto all_shapes = ShapesFor(o);
  if (!all_shapes.ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n", std::string(all_shapes.status().message()).c_str());
    return kExitUsage;
  }
  std::vector<Shape> shapes;
  for (const Shape& s : *all_shapes) {
    if (std::regex_search(s.name, *filter)) shapes.push_back(s);
  }
  if (shapes.empty()) {
    std::fprintf(stderr, "gpuops perf: no shape matches --op '%s'\n", o.op.c_str());
    return kExitUsage;
  }
  if (!o.variant.empty() && !ops::dense::ParseVariant(o.variant).ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n",
                 std::string(ops::dense::ParseVariant(o.variant).status().message()).c_str());
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
  auto dense = ops::dense::DenseGemm::Load(*gpu);
  auto common = ops::common::CommonKernels::Load(*gpu);
  if (!dense.ok() || !common.ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n",
                 std::string((dense.ok() ? common.status() : dense.status()).message()).c_str());
    return kExitFailed;
  }
  auto cublas = CublasLt::Load();
  if (!cublas.ok()) {
    std::fprintf(stderr, "gpuops perf: %s; measuring ours only\n",
                 std::string(cublas.status().message()).c_str());
  }
  constexpr uint64_t kCublasWorkspace = 32ull << 20;
  auto ws = DeviceBuffer::Allocate(*gpu, kCublasWorkspace);
  auto roof = ReadRoof(*gpu, *common, o.iterations, o.batch);
  if (!ws.ok() || !roof.ok()) {
    std::fprintf(stderr, "gpuops perf: %s\n",
                 std::string((ws.ok() ? roof.status() : ws.status()).message()).c_str());
    return kExitFailed;
  }
  PerfReport report;
  report.device = gpu->device_info().name;
  report.read_roof_tbps = *roof;
  report.cublas = cublas.ok() ? (*cublas)->library() : "unavailable";
  report.batch = o.batch;
  std::printf(
      "gpuops perf: %s, read roof %.2f TB/s (stream-read of 4 GiB); each figure the median of "
      "%d samples of %d back-to-back launch(es); cuBLASLt %s\n",
      report.device.c_str(), *roof, o.iterations, o.batch, report.cublas.c_str());
  int status = kExitOk;
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto row = Measure(*gpu, *dense, cublas.ok() ? cublas->get() : nullptr, ws->ptr(),
                       kCublasWorkspace, shapes[i], o.iterations, o.batch, *roof);
    if (!row.ok()) {
      std::fprintf(stderr, "gpuops perf: %s m=%u: %s\n", shapes[i].name.c_str(), shapes[i].m,
                   std::string(row.status().message()).c_str());
      status = kExitFailed;
      if (absl::IsInternal(row.status())) break;  // a device fault: nothing later is measurable
      continue;
    }
    std::printf("[%zu/%zu] %s\n", i + 1, shapes.size(), FormatRow(*row).c_str());
    std::fflush(stdout);
    report.rows.push_back(*std::move(row));
  }
  std::printf("\n%s", FormatTable(report).c_str());
  for (const auto& [path, text] :
       {std::pair{o.csv, report.Csv()}, {o.json, report.Json()}, {o.plot, report.Svg()}}) {
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
