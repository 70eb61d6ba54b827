#include "gpuops/runtime/host_kernel.h"

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::Status HostLaunch::ChargeWork(uint64_t work) const {
  if (work <= work_limit_) return absl::OkStatus();
  return absl::ResourceExhaustedError(StrCat("host kernel ", kernel_, ": ", work,
                                             " operations, over the ", work_limit_,
                                             " an emulated launch may do here"));
}

absl::Status HostLaunch::CheckArgs(std::string_view list, absl::Span<const ArgField> fields) const {
  if (args_.size() != fields.size()) {
    return absl::InvalidArgumentError(StrCat("host kernel ", kernel_, ": launched with ",
                                             args_.size(), " arguments, ", list, " has ",
                                             fields.size()));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (args_[i].size != fields[i].size) {
      return absl::InvalidArgumentError(StrCat("host kernel ", kernel_, ": argument #", i, " (",
                                               fields[i].name, ") is ", args_[i].size, " bytes, ",
                                               list, " reads ", fields[i].size));
    }
  }
  return absl::OkStatus();
}

void HostKernelRegistry::Register(std::string_view kernel, HostKernelFn fn) {
  MutexLock lock(&mu_);
  kernels_[std::string(kernel)] = std::make_shared<const HostKernelFn>(std::move(fn));
}

std::shared_ptr<const HostKernelFn> HostKernelRegistry::Find(std::string_view kernel) const {
  MutexLock lock(&mu_);
  auto it = kernels_.find(kernel);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> HostKernelRegistry::Names() const {
  MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, fn] : kernels_) names.push_back(name);
  return names;
}

HostKernelRegistry& GlobalHostKernels() {
  static auto* registry = new HostKernelRegistry();
  return *registry;
}

}  // namespace gpuops
