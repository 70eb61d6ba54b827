#include "ops/example/example_scale.h"

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/status.h"

namespace gpuops::ops::example {

absl::StatusOr<ExampleScale> ExampleScale::Load(GpuBackend& gpu) {
  ExampleScale op;
  op.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(op.module_,
                          LoadFamilyModule(gpu, EmbeddedModuleImage(), &RegisterHostKernels));
  GPUOPS_ASSIGN_OR_RETURN(op.scale_, RequireKernel<ScaleArgs>(op.module_, "example", kScaleKernel));
  return op;
}

absl::StatusOr<ScalePlan> ExampleScale::Plan(DevicePtr y, DevicePtr x, float alpha,
                                             uint32_t n) const {
  if (n == 0) return ArgumentError(kScaleKernel, "n=0: nothing to scale");
  if (y.is_null() || x.is_null()) return ArgumentError(kScaleKernel, "x and y must be non-null");
  ScalePlan plan;
  plan.variant_name = "scale";
  plan.launches.push_back(scale_.Launch(*gpu_, {{CeilDiv(n, kThreads), 1, 1}, {kThreads, 1, 1}, 0},
                                        {.y = y, .x = x, .alpha = alpha, .n = n}));
  return plan;
}

absl::Status ExampleScale::Run(DevicePtr y, DevicePtr x, float alpha, uint32_t n,
                               StreamHandle stream) const {
  GPUOPS_ASSIGN_OR_RETURN(ScalePlan plan, Plan(y, x, alpha, n));
  return RunLaunches(plan.launches, stream);
}

void RegisterHostKernels(HostKernelRegistry& registry) {
  registry.Register(kScaleKernel, [](const HostLaunch& l, HostMemory& mem) -> absl::Status {
    GPUOPS_RETURN_IF_ERROR(RequireBlock(l, {kThreads, 1, 1}));
    GPUOPS_ASSIGN_OR_RETURN(ScaleArgs args, l.Unpack<ScaleArgs>());
    GPUOPS_ASSIGN_OR_RETURN(auto y, mem.View<uint16_t>(args.y, args.n, ArgLabel(&ScaleArgs::y)));
    GPUOPS_ASSIGN_OR_RETURN(auto x, mem.View<uint16_t>(args.x, args.n, ArgLabel(&ScaleArgs::x)));
    for (uint64_t b = 0; b < l.grid().x; ++b) {
      for (uint64_t t = 0; t < kThreads; ++t) {
        const uint64_t i = b * kThreads + t;
        if (i < args.n) y[i] = FloatToBf16(args.alpha * Bf16ToFloat(x[i]));
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace gpuops::ops::example
