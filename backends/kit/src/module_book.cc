#include "gpuops/backends/module_book.h"

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops {

ModuleHandle ModuleBook::Add(std::string_view name, uint64_t native,
                             std::vector<KernelSignature> expected) {
  Module module;
  module.name = std::string(name);
  module.native = native;
  for (KernelSignature& k : expected) module.expected.emplace(k.kernel, std::move(k));
  MutexLock lock(&mu_);
  const uint64_t id = next_module_++;
  modules_.emplace(id, std::move(module));
  return ModuleHandle{id};
}

absl::StatusOr<std::pair<uint64_t, std::string>> ModuleBook::Unload(ModuleHandle handle) {
  MutexLock lock(&mu_);
  auto it = modules_.find(handle.id);
  if (it == modules_.end() || it->second.native == 0) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " UnloadModule: module ", handle.id, " is not loaded"));
  }
  for (auto& [name, kernel] : it->second.kernels) kernel->live = false;
  return std::make_pair(std::exchange(it->second.native, 0), it->second.name);
}

absl::StatusOr<KernelHandle> ModuleBook::GetKernel(ModuleHandle handle, std::string_view kernel,
                                                   Resolve resolve, CrossCheck cross_check) {
  MutexLock lock(&mu_);
  auto it = modules_.find(handle.id);
  if (it == modules_.end() || it->second.native == 0) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " GetKernel ", kernel, ": module ", handle.id, " is not loaded"));
  }
  Module& m = it->second;
  if (auto k = m.kernels.find(kernel); k != m.kernels.end()) return KernelHandle(k->second.get());
  GPUOPS_ASSIGN_OR_RETURN(std::optional<uint64_t> fn, resolve(m.native, std::string(kernel)));
  if (!fn.has_value()) {
    return absl::NotFoundError(StrCat(backend_, " GetKernel: module ", m.name,
                                      " does not ship kernel ", kernel, " for ", arch_));
  }
  auto expected = m.expected.find(kernel);
  if (expected == m.expected.end()) {
    return absl::FailedPreconditionError(StrCat(backend_, " GetKernel: kernel ", kernel,
                                                " of module ", m.name,
                                                " is not in its signatures.txt for ", arch_));
  }
  auto info = std::make_unique<BookKernel>();
  info->signature = expected->second;
  info->module = m.name;
  info->native = *fn;
  info->owner = owner_;
  GPUOPS_RETURN_IF_ERROR(cross_check(*info));
  KernelHandle out(info.get());
  m.kernels.emplace(std::string(kernel), std::move(info));
  return out;
}

absl::StatusOr<const BookKernel*> ModuleBook::ForLaunch(const LaunchRequest& request) const {
  const auto* kernel = static_cast<const BookKernel*>(request.kernel.info());
  if (kernel == nullptr || kernel->owner != owner_) {
    return absl::InvalidArgumentError(StrCat(backend_, " launch ", request.kernel.name(),
                                             ": the kernel handle is not from this backend"));
  }
  if (!kernel->live.load(std::memory_order_relaxed)) {
    return absl::FailedPreconditionError(StrCat(backend_, " launch ", kernel->name(),
                                                ": its module ", kernel->module, " was unloaded"));
  }
  // The runtime reads one value per compiled parameter: never hand it fewer.
  if (request.args.size() != kernel->signature.params.size()) {
    return absl::InternalError(StrCat(backend_, " launch ", kernel->name(), ": ",
                                      request.args.size(), " arguments, the kernel takes ",
                                      kernel->signature.params.size()));
  }
  return kernel;
}

std::vector<uint64_t> ModuleBook::LoadedModules() const {
  MutexLock lock(&mu_);
  std::vector<uint64_t> out;
  for (const auto& [id, m] : modules_) {
    if (m.native != 0) out.push_back(m.native);
  }
  return out;
}

absl::Status RaiseSharedMemory(const BookKernel& kernel, uint32_t bytes,
                               absl::FunctionRef<absl::Status()> set_attribute) {
  if (bytes <= kernel.shared_mem_allowed.load(std::memory_order_acquire)) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(kernel.opt_in_mu);
  if (bytes <= kernel.shared_mem_allowed.load(std::memory_order_relaxed)) return absl::OkStatus();
  GPUOPS_RETURN_IF_ERROR(set_attribute());
  kernel.shared_mem_allowed.store(bytes, std::memory_order_release);
  return absl::OkStatus();
}

}  // namespace gpuops
