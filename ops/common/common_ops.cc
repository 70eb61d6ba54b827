#include "ops/common/common_ops.h"

#include <mutex>

#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "ops/common/cuda/common_layout.h"

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

absl::StatusOr<KernelHandle> Required(const LoadedModule& module, std::string_view name) {
  GPUOPS_ASSIGN_OR_RETURN(KernelHandle k, module.KernelOrNull(name));
  if (k.is_null()) {
    return absl::FailedPreconditionError(
        StrCat("common family: this build ships no ", name, " for the device"));
  }
  return k;
}

}  // namespace

absl::StatusOr<CommonKernels> CommonKernels::Load(GpuBackend& gpu) {
  static std::once_flag registered;
  std::call_once(registered, [] { RegisterHostKernels(GlobalHostKernels()); });
  CommonKernels k;
  k.gpu_ = &gpu;
  GPUOPS_ASSIGN_OR_RETURN(k.module_, LoadedModule::Load(gpu, EmbeddedModuleImage()));
  GPUOPS_ASSIGN_OR_RETURN(k.scaled_add_, Required(k.module_, kBf16ScaledAdd.name()));
  GPUOPS_ASSIGN_OR_RETURN(k.fill_, Required(k.module_, kFillU16.name()));
  GPUOPS_ASSIGN_OR_RETURN(k.copy_, Required(k.module_, kCopyBf16.name()));
  GPUOPS_ASSIGN_OR_RETURN(k.store_, Required(k.module_, kStoreU64.name()));
  GPUOPS_ASSIGN_OR_RETURN(k.noop_, Required(k.module_, kNoop.name()));
  GPUOPS_ASSIGN_OR_RETURN(k.stream_read_, Required(k.module_, kStreamRead.name()));
  return k;
}

absl::Status CommonKernels::Bf16ScaledAdd(DevicePtr out, DevicePtr delta, float scale, uint64_t n,
                                          StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kBf16ScaledAdd.name(), n));
  return kBf16ScaledAdd.Launch(*gpu_, scaled_add_, dims, stream, out, delta, scale, n);
}

absl::Status CommonKernels::FillU16(DevicePtr out, uint16_t value, uint64_t n,
                                    StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kFillU16.name(), n));
  return kFillU16.Launch(*gpu_, fill_, dims, stream, out, uint32_t{value}, n);
}

absl::Status CommonKernels::CopyBf16(DevicePtr dst, DevicePtr src, uint64_t n,
                                     StreamHandle stream) const {
  if (n == 0) return absl::OkStatus();
  GPUOPS_ASSIGN_OR_RETURN(LaunchDims dims, ElementwiseDims(kCopyBf16.name(), n));
  return kCopyBf16.Launch(*gpu_, copy_, dims, stream, dst, src, n);
}

absl::Status CommonKernels::StoreU64(DevicePtr dst, uint64_t value, StreamHandle stream) const {
  return kStoreU64.Launch(*gpu_, store_, {{1, 1, 1}, {32, 1, 1}, 0}, stream, dst, value);
}

absl::Status CommonKernels::Noop(StreamHandle stream) const {
  return kNoop.Launch(*gpu_, noop_, {{1, 1, 1}, {32, 1, 1}, 0}, stream);
}

absl::Status CommonKernels::StreamRead(DevicePtr src, uint64_t bytes, uint32_t blocks,
                                       DevicePtr sink, StreamHandle stream) const {
  if (bytes % 16 != 0) {
    return absl::InvalidArgumentError(
        StrCat(kStreamRead.name(), ": bytes=", bytes, " is not a multiple of 16"));
  }
  return kStreamRead.Launch(*gpu_, stream_read_, {{blocks, 1, 1}, {kStreamThreads, 1, 1}, 0},
                            stream, src, bytes / 16, uint32_t{0x9e3779b9u}, sink);
}

}  // namespace gpuops::ops::common
