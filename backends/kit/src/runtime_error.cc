#include "gpuops/backends/runtime_error.h"

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::Status RuntimeCallError(absl::StatusCode code, std::string_view call, std::string_view kernel,
                              int number, const char* name, std::string_view unnamed,
                              const char* text) {
  return absl::Status(
      code, StrCat(call, kernel.empty() ? "" : "(", kernel, kernel.empty() ? "" : ")", ": ",
                   name != nullptr ? std::string_view(name) : unnamed, " (", number, ")",
                   text != nullptr ? ": " : "", text != nullptr ? text : ""));
}

}  // namespace gpuops
