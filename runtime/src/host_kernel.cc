#include "gpuops/runtime/host_kernel.h"

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::Status HostLaunch::CheckArg(size_t i, uint32_t size) const {
  if (i >= args_.size()) {
    return absl::InvalidArgumentError(StrCat("host kernel ", kernel_, ": argument #", i,
                                             " requested, launch has ", args_.size()));
  }
  if (args_[i].size != size) {
    return absl::InvalidArgumentError(StrCat("host kernel ", kernel_, ": argument #", i, " is ",
                                             args_[i].size, " bytes, read as ", size));
  }
  return absl::OkStatus();
}

absl::StatusOr<DevicePtr> HostLaunch::ptr(size_t i) const {
  if (auto s = CheckArg(i, 8); !s.ok()) return s;
  return DevicePtr(Read<uint64_t>(i));
}
absl::StatusOr<uint32_t> HostLaunch::u32(size_t i) const {
  if (auto s = CheckArg(i, 4); !s.ok()) return s;
  return Read<uint32_t>(i);
}
absl::StatusOr<int32_t> HostLaunch::i32(size_t i) const {
  if (auto s = CheckArg(i, 4); !s.ok()) return s;
  return Read<int32_t>(i);
}
absl::StatusOr<uint64_t> HostLaunch::u64(size_t i) const {
  if (auto s = CheckArg(i, 8); !s.ok()) return s;
  return Read<uint64_t>(i);
}
absl::StatusOr<float> HostLaunch::f32(size_t i) const {
  if (auto s = CheckArg(i, 4); !s.ok()) return s;
  return Read<float>(i);
}
absl::StatusOr<TensorMapDesc> HostLaunch::tensor_map(size_t i) const {
  if (auto s = CheckArg(i, sizeof(TensorMapBytes)); !s.ok()) return s;
  TensorMapBytes bytes;
  std::memcpy(bytes.bytes.data(), args_[i].data, sizeof(bytes.bytes));
  return DecodeHostTensorMap(bytes);
}

void HostKernelRegistry::Register(std::string_view kernel, HostKernelFn fn) {
  absl::MutexLock lock(&mu_);
  kernels_[std::string(kernel)] = std::make_shared<const HostKernelFn>(std::move(fn));
}

std::shared_ptr<const HostKernelFn> HostKernelRegistry::Find(std::string_view kernel) const {
  absl::MutexLock lock(&mu_);
  auto it = kernels_.find(kernel);
  return it == kernels_.end() ? nullptr : it->second;
}

HostKernelRegistry& GlobalHostKernels() {
  static auto* registry = new HostKernelRegistry();
  return *registry;
}

}  // namespace gpuops
