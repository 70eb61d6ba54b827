// Move-only owners over the raw backend calls: a DeviceBuffer frees its allocation, an
// Owned<StreamHandle> destroys its stream, and so on, so user code cannot leak or double-free by
// accident. Errors on release in a destructor are dropped; call Release() to see them.
//
// Thread safety: an owner is not synchronized (like a std::unique_ptr): one thread moves or
// releases it at a time. The handle it holds may be used from any thread (backend.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/device_span.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

template <typename Handle, absl::Status (GpuBackend::*kRelease)(Handle)>
class Owned {
 public:
  Owned() = default;
  Owned(GpuBackend& gpu, Handle handle) : gpu_(&gpu), handle_(handle) {}
  Owned(Owned&& other) noexcept
      : gpu_(std::exchange(other.gpu_, nullptr)), handle_(std::exchange(other.handle_, {})) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      (void)Release();
      gpu_ = std::exchange(other.gpu_, nullptr);
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { (void)Release(); }

  Handle get() const { return handle_; }
  bool owns() const { return gpu_ != nullptr; }

  absl::Status Release() {
    if (gpu_ == nullptr) return absl::OkStatus();
    GpuBackend* gpu = std::exchange(gpu_, nullptr);
    return (gpu->*kRelease)(std::exchange(handle_, {}));
  }

 private:
  GpuBackend* gpu_ = nullptr;
  Handle handle_{};
};

using OwnedStream = Owned<StreamHandle, &GpuBackend::DestroyStream>;
using OwnedEvent = Owned<EventHandle, &GpuBackend::DestroyEvent>;
using OwnedModule = Owned<ModuleHandle, &GpuBackend::UnloadModule>;
using OwnedGraph = Owned<GraphHandle, &GpuBackend::DestroyGraph>;

absl::StatusOr<OwnedStream> MakeStream(GpuBackend& gpu);
absl::StatusOr<OwnedEvent> MakeEvent(GpuBackend& gpu);

// Device memory that frees itself.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static absl::StatusOr<DeviceBuffer> Allocate(GpuBackend& gpu, uint64_t bytes);
  // A new buffer holding a copy of `host`.
  template <typename T>
  static absl::StatusOr<DeviceBuffer> FromHost(GpuBackend& gpu, absl::Span<const T> host) {
    absl::StatusOr<DeviceBuffer> b = Allocate(gpu, host.size() * sizeof(T));
    if (!b.ok()) return b.status();
    if (absl::Status s = b->Upload(host); !s.ok()) return s;
    return b;
  }

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : gpu_(std::exchange(other.gpu_, nullptr)),
        ptr_(std::exchange(other.ptr_, {})),
        bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { (void)Release(); }

  DevicePtr ptr() const { return ptr_; }
  uint64_t bytes() const { return bytes_; }
  // The whole buffer as an op operand.
  DeviceSpan span() const { return DeviceSpan(ptr_, bytes_); }
  absl::Status Release();

  // Whole-buffer typed copies; kInvalidArgument when the sizes differ.
  template <typename T>
  absl::Status Upload(absl::Span<const T> host) const {
    return CopyIn(absl::MakeConstSpan(reinterpret_cast<const std::byte*>(host.data()),
                                      host.size() * sizeof(T)));
  }
  template <typename T>
  absl::Status Download(absl::Span<T> host) const {
    return CopyOut(
        absl::MakeSpan(reinterpret_cast<std::byte*>(host.data()), host.size() * sizeof(T)));
  }
  // The whole buffer as host values (bytes() / sizeof(T) of them).
  template <typename T>
  absl::StatusOr<std::vector<T>> ToHost() const {
    std::vector<T> host(bytes_ / sizeof(T));
    if (absl::Status s = Download(absl::MakeSpan(host)); !s.ok()) return s;
    return host;
  }

 private:
  DeviceBuffer(GpuBackend& gpu, DevicePtr ptr, uint64_t bytes)
      : gpu_(&gpu), ptr_(ptr), bytes_(bytes) {}
  absl::Status CopyIn(absl::Span<const std::byte> host) const;
  absl::Status CopyOut(absl::Span<std::byte> host) const;

  GpuBackend* gpu_ = nullptr;
  DevicePtr ptr_;
  uint64_t bytes_ = 0;
};

}  // namespace gpuops
