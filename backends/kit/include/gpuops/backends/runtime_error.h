// The Status of a failed vendor-runtime call, worded the same by every backend over a runtime:
// "cuLaunchKernel(dense_gemm_bf16_tc): CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access
// was encountered". The backend maps its error number to `code`.
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace gpuops {

// `name` and `text` are the runtime's words for `number` (null when it has none: `unnamed`
// stands in for the name, the text is left out); `kernel` is empty for calls about no kernel.
absl::Status RuntimeCallError(absl::StatusCode code, std::string_view call, std::string_view kernel,
                              int number, const char* name, std::string_view unnamed,
                              const char* text);

}  // namespace gpuops
