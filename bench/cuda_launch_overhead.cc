// Host time per launch of the same empty kernel: raw cuLaunchKernel against KernelLaunch
// (validation + the backend's checks), and the device time per node of a replayed CUDA graph.
// Goal: KernelLaunch costs <= 0.2 us more than the raw call. Needs a GPU and the cuda preset.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "gpuops/cuda/cuda_backend.h"
#include "gpuops/cuda/driver_api.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "ops/testkit/testkit.h"

namespace gpuops {
namespace {

constexpr int kBatch = 256;  // launches per timed batch; the queue is drained outside the timing

struct Fixture {
  std::unique_ptr<GpuBackend> gpu;
  std::optional<ops::testkit::TestKernels> testkit;
  const cuda::DriverApi* api = nullptr;
  absl::Status status;
};

Fixture& Get() {
  static Fixture* f = [] {
    auto* f = new Fixture();
    auto gpu = cuda::CreateCudaBackend();
    if (!gpu.ok()) {
      f->status = gpu.status();
      return f;
    }
    f->gpu = *std::move(gpu);
    auto testkit = ops::testkit::TestKernels::Load(*f->gpu);
    if (!testkit.ok()) {
      f->status = testkit.status();
      return f;
    }
    f->testkit.emplace(*std::move(testkit));
    f->api = *cuda::LoadDriver();
    return f;
  }();
  return *f;
}

void BM_RawCuLaunchKernel(benchmark::State& state) {
  Fixture& f = Get();
  if (!f.status.ok()) return state.SkipWithError(std::string(f.status.message()).c_str());
  auto fn = reinterpret_cast<cuda::CUfunction>(f.testkit->noop_kernel().info()->native);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      f.api->cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
    }
    state.PauseTiming();
    f.api->cuCtxSynchronize();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["us_per_launch"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBatch),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RawCuLaunchKernel)->UseRealTime();

void BM_KernelLaunch(benchmark::State& state) {
  Fixture& f = Get();
  if (!f.status.ok()) return state.SkipWithError(std::string(f.status.message()).c_str());
  const KernelHandle noop = f.testkit->noop_kernel();
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      absl::Status s = KernelLaunch(*f.gpu, noop).grid({1, 1, 1}).block({32, 1, 1}).launch();
      benchmark::DoNotOptimize(s);
    }
    state.PauseTiming();
    (void)f.gpu->Synchronize();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["us_per_launch"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBatch),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_KernelLaunch)->UseRealTime();

// Device time per node: a graph of 100 empty launches replayed, timed with events.
void BM_GraphNode(benchmark::State& state) {
  Fixture& f = Get();
  if (!f.status.ok()) return state.SkipWithError(std::string(f.status.message()).c_str());
  constexpr int kNodes = 100;
  auto stream = MakeStream(*f.gpu);
  auto start = MakeEvent(*f.gpu);
  auto end = MakeEvent(*f.gpu);
  if (!stream.ok() || !start.ok() || !end.ok()) return state.SkipWithError("setup failed");
  (void)f.gpu->BeginCapture(stream->get());
  for (int i = 0; i < kNodes; ++i) (void)f.testkit->Noop(stream->get());
  auto graph = f.gpu->EndCapture(stream->get());
  if (!graph.ok()) return state.SkipWithError(std::string(graph.status().message()).c_str());
  OwnedGraph owned(*f.gpu, *graph);
  (void)f.gpu->LaunchGraph(*graph, stream->get());  // warm-up
  for (auto _ : state) {
    (void)f.gpu->RecordEvent(start->get(), stream->get());
    (void)f.gpu->LaunchGraph(*graph, stream->get());
    (void)f.gpu->RecordEvent(end->get(), stream->get());
    auto ms = f.gpu->ElapsedMs(start->get(), end->get());
    state.SetIterationTime(ms.ok() ? *ms / 1e3 : 0.0);
  }
  state.counters["us_per_node"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kNodes),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GraphNode)->UseManualTime();

}  // namespace
}  // namespace gpuops

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (absl::Status s = gpuops::cuda::ProbeCuda(); !s.ok()) {
    std::printf("cuda_launch_overhead: skipped, CUDA unavailable: %s\n",
                std::string(s.message()).c_str());
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
