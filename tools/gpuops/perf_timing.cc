#include "perf_timing.h"

#include <algorithm>
#include <cstddef>

#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/status.h"

namespace gpuops::tools {
namespace {

double Median(std::vector<float> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

Timing Summarize(const std::vector<float>& samples) {
  const size_t half = samples.size() / 2;
  Timing t;
  t.ms = Median(samples);
  const double first = Median({samples.begin(), samples.begin() + static_cast<ptrdiff_t>(half)});
  const double second = Median({samples.begin() + static_cast<ptrdiff_t>(half), samples.end()});
  t.spread = t.ms > 0 ? std::fabs(first - second) / t.ms : NAN;
  return t;
}

absl::StatusOr<std::vector<Timing>> TimeInterleaved(
    GpuBackend& gpu, int samples, int batch,
    const std::vector<std::function<absl::Status(int)>>& fns) {
  GPUOPS_ASSIGN_OR_RETURN(OwnedEvent start, MakeEvent(gpu));
  GPUOPS_ASSIGN_OR_RETURN(OwnedEvent end, MakeEvent(gpu));
  int call = 0;
  for (const auto& fn : fns) {
    for (int j = 0; j < kWarmupCalls; ++j) GPUOPS_RETURN_IF_ERROR(fn(call++));
  }
  GPUOPS_RETURN_IF_ERROR(gpu.Synchronize());
  std::vector<std::vector<float>> ms(fns.size());
  for (int i = 0; i < samples; ++i) {
    for (size_t f = 0; f < fns.size(); ++f) {
      GPUOPS_RETURN_IF_ERROR(gpu.RecordEvent(start.get()));
      for (int j = 0; j < batch; ++j) GPUOPS_RETURN_IF_ERROR(fns[f](call++));
      GPUOPS_RETURN_IF_ERROR(gpu.RecordEvent(end.get()));
      GPUOPS_ASSIGN_OR_RETURN(float t, gpu.ElapsedMs(start.get(), end.get()));
      ms[f].push_back(t / static_cast<float>(batch));
    }
  }
  std::vector<Timing> out;
  for (const std::vector<float>& m : ms) out.push_back(Summarize(m));
  return out;
}

}  // namespace gpuops::tools
