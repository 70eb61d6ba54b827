#include "gpuops/runtime/owned.h"

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops {

absl::StatusOr<OwnedStream> MakeStream(GpuBackend& gpu) {
  GPUOPS_ASSIGN_OR_RETURN(StreamHandle stream, gpu.CreateStream());
  return OwnedStream(gpu, stream);
}

absl::StatusOr<OwnedEvent> MakeEvent(GpuBackend& gpu) {
  GPUOPS_ASSIGN_OR_RETURN(EventHandle event, gpu.CreateEvent());
  return OwnedEvent(gpu, event);
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(GpuBackend& gpu, uint64_t bytes) {
  GPUOPS_ASSIGN_OR_RETURN(DevicePtr ptr, gpu.Alloc(bytes));
  return DeviceBuffer(gpu, ptr, bytes);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    (void)Release();
    gpu_ = std::exchange(other.gpu_, nullptr);
    ptr_ = std::exchange(other.ptr_, {});
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

absl::Status DeviceBuffer::Release() {
  if (gpu_ == nullptr) return absl::OkStatus();
  GpuBackend* gpu = std::exchange(gpu_, nullptr);
  bytes_ = 0;
  return gpu->Free(std::exchange(ptr_, {}));
}

absl::Status DeviceBuffer::CopyIn(absl::Span<const std::byte> host) const {
  if (gpu_ == nullptr) return absl::FailedPreconditionError("DeviceBuffer::Upload: empty buffer");
  if (host.size() != bytes_) {
    return absl::InvalidArgumentError(StrCat("DeviceBuffer::Upload: buffer holds ", bytes_,
                                             " bytes, host data has ", host.size()));
  }
  return gpu_->CopyToDevice(ptr_, host);
}

absl::Status DeviceBuffer::CopyOut(absl::Span<std::byte> host) const {
  if (gpu_ == nullptr) {
    return absl::FailedPreconditionError("DeviceBuffer::Download: empty buffer");
  }
  if (host.size() != bytes_) {
    return absl::InvalidArgumentError(StrCat("DeviceBuffer::Download: buffer holds ", bytes_,
                                             " bytes, host span has ", host.size()));
  }
  return gpu_->CopyToHost(host, ptr_);
}

}  // namespace gpuops
