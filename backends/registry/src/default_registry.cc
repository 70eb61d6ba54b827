#include "gpuops/backends/default_registry.h"

#include "gpuops/cuda/cuda_backend.h"
#include "gpuops/hip/hip_backend.h"
#include "gpuops/mock/recording_backend.h"

namespace gpuops {
namespace {

BackendRegistry* BuildRegistry() {
  auto* registry = new BackendRegistry();
  (void)registry->Register(BackendFactory{
      .name = "cuda",
      .probe = [] { return cuda::ProbeCuda(); },
      .create = [] { return cuda::CreateCudaBackend(0); },
      .auto_priority = 0,
      .served = []() -> absl::Status {
        if (GPUOPS_CUDA_KERNELS_EMBEDDED) return absl::OkStatus();
        return absl::FailedPreconditionError(
            "this build embeds no CUDA kernels (build the cuda preset to run ops on the GPU)");
      },
  });
  (void)registry->Register(BackendFactory{
      .name = "hip",
      .probe = [] { return hip::ProbeHip(); },
      .create = [] { return hip::CreateHipBackend(0); },
      .auto_priority = 10,
      .served = []() -> absl::Status {
        if (GPUOPS_HIP_KERNELS_EMBEDDED) return absl::OkStatus();
        return absl::FailedPreconditionError(
            "this build embeds no HIP kernels (build the hip preset to run ops on an AMD GPU)");
      },
  });
  (void)registry->Register(BackendFactory{
      .name = "mock",
      .probe = [] { return absl::OkStatus(); },
      .create = []() -> absl::StatusOr<std::unique_ptr<GpuBackend>> {
        return std::make_unique<mock::RecordingBackend>();
      },
      .auto_priority = 100,
  });
  return registry;
}

}  // namespace

const BackendRegistry& DefaultBackendRegistry() {
  static const BackendRegistry* registry = BuildRegistry();
  return *registry;
}

absl::StatusOr<std::unique_ptr<GpuBackend>> CreateBackend(std::string_view name) {
  return DefaultBackendRegistry().Create(name);
}

}  // namespace gpuops
