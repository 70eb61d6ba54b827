// A module loaded on one backend, unloaded when the owner goes away.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/owned.h"

namespace gpuops {

class LoadedModule {
 public:
  LoadedModule() = default;
  static absl::StatusOr<LoadedModule> Load(GpuBackend& gpu, const ModuleImage& image);

  // The kernel, or a null handle when the image does not ship it for this device; other
  // failures are errors.
  absl::StatusOr<KernelHandle> KernelOrNull(std::string_view name) const;
  ModuleHandle handle() const { return module_.get(); }

 private:
  LoadedModule(GpuBackend& gpu, ModuleHandle module) : gpu_(&gpu), module_(gpu, module) {}
  GpuBackend* gpu_ = nullptr;
  OwnedModule module_;
};

}  // namespace gpuops
