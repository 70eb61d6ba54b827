// The modules and kernels a backend over a vendor runtime (CUDA, HIP) has loaded, written once:
// each module's expected parameter lists (ResolveModuleSignatures), its kernels looked up once
// and kept until the backend goes (a stale handle never dangles, it reads "was unloaded"), and
// the checks a launch passes before it reaches the runtime. Thread-safe; messages start with
// the backend's name.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/mutex.h"

namespace gpuops {

struct BookKernel : KernelInfo {
  std::atomic<bool> live{true};
  // The dynamic shared memory the function is already allowed (an opt-in attribute). Read
  // without a lock; raised only under opt_in_mu, to the largest size any launch asked for, so
  // two threads raising it at once cannot leave the attribute below the cached value.
  mutable std::atomic<uint32_t> shared_mem_allowed{48 * 1024};
  mutable std::mutex opt_in_mu;
};

class ModuleBook {
 public:
  // `owner`: the backend whose handles these are; `arch`: the device's, for messages.
  ModuleBook(std::string backend, const GpuBackend* owner, std::string arch)
      : backend_(std::move(backend)), owner_(owner), arch_(std::move(arch)) {}

  // A loaded module: its runtime handle and the parameter lists its image promises here.
  ModuleHandle Add(std::string_view name, uint64_t native, std::vector<KernelSignature> expected);

  // Marks the module's kernels unloaded and returns its runtime handle and name for the
  // runtime's unload; kInvalidArgument when it is not loaded.
  absl::StatusOr<std::pair<uint64_t, std::string>> Unload(ModuleHandle module);

  // The runtime's function for a kernel of a native module; nullopt when the module lacks it.
  using Resolve = absl::FunctionRef<absl::StatusOr<std::optional<uint64_t>>(
      uint64_t native_module, const std::string& kernel)>;
  // The runtime's own view of a kernel checked against what the image promised.
  using CrossCheck = absl::FunctionRef<absl::Status(const BookKernel& kernel)>;
  // The kernel, looked up once: kNotFound when the image does not ship it for the device,
  // kFailedPrecondition when it ships one signatures.txt does not list.
  absl::StatusOr<KernelHandle> GetKernel(ModuleHandle module, std::string_view kernel,
                                         Resolve resolve, CrossCheck cross_check);

  // The request's kernel when it may be launched: from this backend, its module loaded, and one
  // argument per compiled parameter.
  absl::StatusOr<const BookKernel*> ForLaunch(const LaunchRequest& request) const;

  // Runtime handles of the modules still loaded, for the backend's destructor.
  std::vector<uint64_t> LoadedModules() const;

 private:
  struct Module {
    std::string name;
    uint64_t native = 0;  // 0 once unloaded
    std::map<std::string, KernelSignature, std::less<>> expected;
    std::map<std::string, std::unique_ptr<BookKernel>, std::less<>> kernels;
  };

  const std::string backend_;
  const GpuBackend* const owner_;
  const std::string arch_;
  mutable Mutex mu_;
  std::map<uint64_t, Module> modules_ ABSL_GUARDED_BY(mu_);
  uint64_t next_module_ ABSL_GUARDED_BY(mu_) = 1;
};

// Raises `kernel`'s dynamic shared-memory allowance to `bytes` when a launch asks for more than
// it has: `set_attribute` sets the runtime's attribute, once per new maximum.
absl::Status RaiseSharedMemory(const BookKernel& kernel, uint32_t bytes,
                               absl::FunctionRef<absl::Status()> set_attribute);

}  // namespace gpuops
