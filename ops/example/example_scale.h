// The example family: y = bf16(alpha * x) over n BF16 elements, one kernel (example_scale_bf16,
// 256 threads per block, grid ceil(n / 256)).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/host_kernel.h"
#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/module.h"
#include "gpuops/runtime/typed_kernel.h"
#include "ops/family_kit.h"

namespace gpuops::ops::example {

ModuleImage EmbeddedModuleImage();

GPUOPS_KERNEL_ARGS(ScaleArgs, (DevicePtr, y), (DevicePtr, x), (float, alpha), (uint32_t, n));

inline constexpr std::string_view kScaleKernel = "example_scale_bf16";
inline constexpr uint32_t kThreads = 256;

using ScalePlan = Plan<int>;

class ExampleScale {
 public:
  static absl::StatusOr<ExampleScale> Load(GpuBackend& gpu);
  // The launch for n elements; kInvalidArgument for n = 0 or a null pointer.
  absl::StatusOr<ScalePlan> Plan(DevicePtr y, DevicePtr x, float alpha, uint32_t n) const;
  absl::Status Run(DevicePtr y, DevicePtr x, float alpha, uint32_t n,
                   StreamHandle stream = {}) const;

 private:
  GpuBackend* gpu_ = nullptr;
  LoadedModule module_;
  TypedKernel<ScaleArgs> scale_;
};

void RegisterHostKernels(HostKernelRegistry& registry);

}  // namespace gpuops::ops::example
