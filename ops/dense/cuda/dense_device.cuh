// The dense kernels' device helpers: those every family shares (ops/device/mma_kit.cuh), under
// the dense kernels' namespace.
#pragma once

#include "device/mma_kit.cuh"

namespace dense_device {
using namespace device_kit;  // NOLINT(google-build-using-namespace): the shared helpers
}  // namespace dense_device

// The element type of every dense kernel's signature.
using dense_device::bf16;
