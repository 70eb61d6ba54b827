// Host kernels: CPU implementations of device kernels, keyed by kernel name, that a backend
// without a GPU (the mock) runs in place of the device code. Ops register them here, so they need
// not know which backend executes them.
//
// A host kernel receives the launch exactly as recorded (grid, block, shared memory, arguments)
// and a HostMemory through which every device pointer is resolved to a bounds-checked view of its
// allocation. It should walk the recorded grid block by block and write only what each block of
// the device kernel would write, so that a launcher with a wrong grid leaves outputs unwritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/mutex.h"
#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

class HostLaunch {
 public:
  // `work_limit`: the most work (ChargeWork) the backend lets this emulation do.
  HostLaunch(std::string_view kernel, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes,
             absl::Span<const LaunchArg> args, uint64_t work_limit = UINT64_MAX)
      : kernel_(kernel),
        grid_(grid),
        block_(block),
        shared_mem_(shared_mem_bytes),
        args_(args),
        work_limit_(work_limit) {}

  std::string_view kernel() const { return kernel_; }
  Dim3 grid() const { return grid_; }
  Dim3 block() const { return block_; }
  uint32_t shared_mem_bytes() const { return shared_mem_; }
  size_t arg_count() const { return args_.size(); }

  // An emulation states up front the work it is about to do (multiply-adds, or elements
  // touched); kResourceExhausted naming the kernel when that exceeds the backend's bound, so a
  // huge problem is refused instead of running for hours.
  absl::Status ChargeWork(uint64_t work) const;

  // The launch's arguments as the struct they were packed from (GPUOPS_KERNEL_ARGS), read by
  // name; kInvalidArgument naming the kernel and argument when the count or a size differs.
  template <typename Args>
  absl::StatusOr<Args> Unpack() const {
    static constexpr auto kFields = ArgFields<Args>();
    if (absl::Status s = CheckArgs(Args::kName, kFields); !s.ok()) return s;
    Args out;
    size_t i = 0;
    Args::ForEachField([&](std::string_view, auto member) {
      std::memcpy(&(out.*member), args_[i++].data, sizeof(out.*member));
    });
    return out;
  }

 private:
  absl::Status CheckArgs(std::string_view list, absl::Span<const ArgField> fields) const;

  std::string_view kernel_;
  Dim3 grid_;
  Dim3 block_;
  uint32_t shared_mem_;
  absl::Span<const LaunchArg> args_;
  uint64_t work_limit_;
};

// Device memory as a host kernel sees it.
class HostMemory {
 public:
  virtual ~HostMemory() = default;
  // The `bytes` bytes at `ptr`, which must lie inside one live allocation. `what` names the
  // access in errors ("argument #2 (c)").
  virtual absl::StatusOr<absl::Span<std::byte>> Bytes(DevicePtr ptr, uint64_t bytes,
                                                      std::string_view what) = 0;

  template <typename T>
  absl::StatusOr<absl::Span<T>> View(DevicePtr ptr, uint64_t count, std::string_view what) {
    if (ptr.address() % alignof(T) != 0) {
      return absl::InvalidArgumentError(std::string(what) +
                                        ": address is not aligned for its type");
    }
    if (count > UINT64_MAX / sizeof(T)) {
      return absl::OutOfRangeError(std::string(what) + ": " + std::to_string(count) +
                                   " elements do not fit a 64-bit extent");
    }
    auto bytes = Bytes(ptr, count * sizeof(T), what);
    if (!bytes.ok()) return bytes.status();
    return absl::Span<T>(reinterpret_cast<T*>(bytes->data()), count);
  }
};

using HostKernelFn = std::function<absl::Status(const HostLaunch&, HostMemory&)>;

// Thread safety: every method may be called from several threads at once.
class HostKernelRegistry {
 public:
  // Replaces any earlier registration of `kernel`.
  void Register(std::string_view kernel, HostKernelFn fn);
  // Null when none is registered.
  std::shared_ptr<const HostKernelFn> Find(std::string_view kernel) const;
  // Every registered kernel name, sorted.
  std::vector<std::string> Names() const;

 private:
  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<const HostKernelFn>, std::less<>> kernels_
      ABSL_GUARDED_BY(mu_);
};

// The process-wide registry ops register into.
HostKernelRegistry& GlobalHostKernels();

}  // namespace gpuops
