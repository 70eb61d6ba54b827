// The HIP backend: the HIP runtime loaded at run time (see runtime_api.h), the family's AMD code
// objects loaded from its embedded offload bundle, launches validated by KernelLaunch against
// signatures.txt's HIP section before they reach hipModuleLaunchKernel, streams, events and
// graphs. Sticky device faults (illegal address, launch failure) poison the backend: every later
// call fails fast with the original error.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"

namespace gpuops::hip {

// OK when a HIP runtime loads and reports at least one device; otherwise kUnavailable saying
// why (every library path tried, the hipInit error, ...).
absl::Status ProbeHip();

// A backend on device `ordinal`.
absl::StatusOr<std::unique_ptr<GpuBackend>> CreateHipBackend(int ordinal = 0);

}  // namespace gpuops::hip
