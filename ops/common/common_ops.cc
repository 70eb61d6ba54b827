#include "ops/common/common_ops.h"

#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/common/cuda/common_layout.h"
#include "ops/family_kit.h"

namespace gpuops::ops::common {
namespace {

// Grid and block of the element-wise kernels for n elements (see cuda/common_layout.h).
absl::StatusOr<LaunchDims> ElementwiseDims(std::string_view kernel, uint64_t n) {
  const uint64_t blocks = CeilDiv64(n, kElementsPerBlock);
  if (blocks > 0x7fffffffu) {
    return absl::InvalidArgumentError(
        StrCat(kernel, ": n=", n, " needs ", blocks, " blocks, over the grid limit 2^31-1"));
  }
  return LaunchDims{{static_cast<uint32_t>(blocks), 1, 1}, {kThreads, 1, 1}, 0};
}

}  // namespace

absl::StatusOr<CommonKernels> CommonKernels::Load(GpuBackend& gpu) {
  CommonKernels k;
  k.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(k.module_,
                          LoadFamilyModule(gpu, EmbeddedModuleImage(), &RegisterHostKernels));
  GPUOPS_ASSIGN_OR_RETURN(k.scaled_add_,
                          RequireKernel<ScaledAddArgs>(k.module_, "common", kScaledAddKernel));
  GPUOPS_ASSIGN_OR_RETURN(k.fill_, RequireKernel<FillArgs>(k.module_, "common", kFillKernel));
  GPUOPS_ASSIGN_OR_RETURN(k.copy_, RequireKernel<CopyArgs>(k.module_, "common", kCopyKernel));
  return k;
}

absl::Status CommonKernels::Bf16ScaledAdd(DevicePtr out, DevicePtr delta, float scale, uint64_t n,
                                          StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kScaledAddKernel, n));
  return scaled_add_.Launch(*gpu_, dims, {.out = out, .delta = delta, .scale = scale, .n = n})
      .launch(stream);
}

absl::Status CommonKernels::FillU16(DevicePtr out, uint16_t value, uint64_t n,
                                    StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kFillKernel, n));
  return fill_.Launch(*gpu_, dims, {.out = out, .value = value, .n = n}).launch(stream);
}

absl::Status CommonKernels::CopyBf16(DevicePtr dst, DevicePtr src, uint64_t n,
                                     StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kCopyKernel, n));
  return copy_.Launch(*gpu_, dims, {.dst = dst, .src = src, .n = n}).launch(stream);
}

}  // namespace gpuops::ops::common
