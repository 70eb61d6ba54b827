// Kernel parameter names from CUDA sources: the cubin records offsets and sizes but no names, so
// gpuops_sigtool reads them from each `__global__` function's declaration.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace gpuops::sigtool {

// Kernel name -> parameter names, for every `__global__` function defined in `source`.
// `origin` names the file in errors.
absl::StatusOr<std::map<std::string, std::vector<std::string>>> ParseKernelParamNames(
    std::string_view source, std::string_view origin);

}  // namespace gpuops::sigtool
