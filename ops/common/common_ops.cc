#include "ops/common/common_ops.h"

#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/common/cuda/common_layout.h"
#include "ops/family_kit.h"

namespace gpuops::ops::common {
namespace {

// Each span holds n 16-bit elements at a 2-byte-aligned address.
absl::Status RequireElements(std::string_view kernel,
                             std::initializer_list<std::pair<std::string_view, DeviceSpan>> spans,
                             uint64_t n) {
  for (const auto& [name, span] : spans) {
    if (span.is_null()) return ArgumentError(kernel, StrCat(name, " is null"));
    GPUOPS_RETURN_IF_ERROR(RequireAligned(kernel, name, span.ptr(), 2, "16-bit elements"));
    GPUOPS_RETURN_IF_ERROR(
        RequireExtent(kernel, name, span, SaturatingMul(n, 2), StrCat("n=", n, " elements")));
  }
  return absl::OkStatus();
}

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

absl::Status CommonKernels::Bf16ScaledAdd(DeviceSpan out, DeviceSpan delta, float scale, uint64_t n,
                                          StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_RETURN_IF_ERROR(RequireElements(kScaledAddKernel, {{"out", out}, {"delta", delta}}, n));
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kScaledAddKernel, n));
  return scaled_add_
      .Launch(*gpu_, dims, {.out = out.ptr(), .delta = delta.ptr(), .scale = scale, .n = n})
      .launch(stream);
}

absl::Status CommonKernels::FillU16(DeviceSpan out, uint16_t value, uint64_t n,
                                    StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_RETURN_IF_ERROR(RequireElements(kFillKernel, {{"out", out}}, n));
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kFillKernel, n));
  return fill_.Launch(*gpu_, dims, {.out = out.ptr(), .value = value, .n = n}).launch(stream);
}

absl::Status CommonKernels::CopyBf16(DeviceSpan dst, DeviceSpan src, uint64_t n,
                                     StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_RETURN_IF_ERROR(RequireElements(kCopyKernel, {{"dst", dst}, {"src", src}}, n));
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kCopyKernel, n));
  return copy_.Launch(*gpu_, dims, {.dst = dst.ptr(), .src = src.ptr(), .n = n}).launch(stream);
}

}  // namespace gpuops::ops::common
