#include "gpuops/runtime/module.h"

#include "gpuops/runtime/status.h"

namespace gpuops {

absl::StatusOr<LoadedModule> LoadedModule::Load(GpuBackend& gpu, const ModuleImage& image) {
  GPUOPS_ASSIGN_OR_RETURN(ModuleHandle module, gpu.LoadModule(image));
  return LoadedModule(gpu, module);
}

absl::StatusOr<KernelHandle> LoadedModule::KernelOrNull(std::string_view name) const {
  if (gpu_ == nullptr) return absl::FailedPreconditionError("LoadedModule: no module loaded");
  absl::StatusOr<KernelHandle> kernel = gpu_->GetKernel(module_.get(), name);
  if (kernel.status().code() == absl::StatusCode::kNotFound) return KernelHandle();
  return kernel;
}

}  // namespace gpuops
