// The parameter lists of the kernels a module image ships for one device, as a backend without
// a driver-side query (the mock) must establish them.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/kernel_signature.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

// The kernels `image` ships for `device`, with names from its signatures.txt.
// When the image carries a fatbin, parameter offsets and sizes come from the fatbin's cubin for
// the device's architecture and must agree with signatures.txt (kFailedPrecondition with a diff
// otherwise); without one, they come from signatures.txt, whose per-kernel architecture list
// decides which kernels the device gets. An AMD device (DeviceInfo::amd_target) reads the HIP
// section instead, checked the same way against the image's code-object bundle when it has one.
absl::StatusOr<std::vector<KernelSignature>> ResolveModuleSignatures(const ModuleImage& image,
                                                                     const DeviceInfo& device);

}  // namespace gpuops
