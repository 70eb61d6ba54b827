// The registry of every backend this build has: cuda (auto tries it first), hip, mock.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "gpuops/runtime/registry.h"

namespace gpuops {

const BackendRegistry& DefaultBackendRegistry();

// DefaultBackendRegistry().Create(name): "auto", "mock", "cuda", ...
absl::StatusOr<std::unique_ptr<GpuBackend>> CreateBackend(std::string_view name = "auto");

}  // namespace gpuops
