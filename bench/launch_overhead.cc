// Host cost of validating and recording one launch on the mock (goal: <= 0.5 us).
#include <benchmark/benchmark.h>

#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/kernel_launch.h"

namespace gpuops {
namespace {

void BM_MockValidateAndRecord(benchmark::State& state) {
  mock::RecordingBackend gpu(mock::RecordingBackend::Options{.execute_host_kernels = false});
  auto module = gpu.LoadModule(mock::DescribeModule(
      "bench", "arch sm_90a\ndense_gemm_bf16_tc - a:0:8 b:8:8 c:16:8 m:24:4 n:28:4 k:32:4\n"));
  auto kernel = gpu.GetKernel(*module, "dense_gemm_bf16_tc");
  auto a = gpu.Alloc(1 << 20);
  auto b = gpu.Alloc(1 << 20);
  auto c = gpu.Alloc(1 << 20);
  if (!kernel.ok() || !a.ok() || !b.ok() || !c.ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  int64_t n = 0;
  for (auto _ : state) {
    absl::Status s = KernelLaunch(gpu, *kernel)
                         .grid({64, 1, 1})
                         .block({128, 1, 1})
                         .arg_ptr(*a)
                         .arg_ptr(*b)
                         .arg_ptr(*c)
                         .arg_u32(16)
                         .arg_u32(4096)
                         .arg_u32(4096)
                         .launch();
    benchmark::DoNotOptimize(s);
    if (++n % 65536 == 0) {
      state.PauseTiming();
      gpu.ClearLaunches();  // keep the record bounded
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MockValidateAndRecord);

void BM_ValidateOnly(benchmark::State& state) {
  mock::RecordingBackend gpu;
  auto module = gpu.LoadModule(mock::DescribeModule(
      "bench", "arch sm_90a\ndense_gemm_bf16_tc - a:0:8 b:8:8 c:16:8 m:24:4 n:28:4 k:32:4\n"));
  auto kernel = gpu.GetKernel(*module, "dense_gemm_bf16_tc");
  for (auto _ : state) {
    KernelLaunch l(gpu, *kernel);
    l.grid({64, 1, 1}).block({128, 1, 1}).arg_ptr(DevicePtr(1)).arg_ptr(DevicePtr(2));
    l.arg_ptr(DevicePtr(3)).arg_u32(16).arg_u32(4096).arg_u32(4096);
    absl::Status s = l.Validate();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ValidateOnly);

}  // namespace
}  // namespace gpuops

BENCHMARK_MAIN();
