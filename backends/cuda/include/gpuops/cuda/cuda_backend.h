// The CUDA backend: the driver API loaded at run time (see driver_api.h), launches validated by
// KernelLaunch before they reach cuLaunchKernel, streams, events and graphs. Sticky device faults
// (illegal address, launch failure) poison the backend: every later call fails fast with the
// original error.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"

namespace gpuops::cuda {

// OK when a driver loads and reports at least one device; otherwise kUnavailable saying why
// (every library path tried, the cuInit error, ...).
absl::Status ProbeCuda();

// A backend on device `ordinal`, using its primary context.
absl::StatusOr<std::unique_ptr<GpuBackend>> CreateCudaBackend(int ordinal = 0);

}  // namespace gpuops::cuda
