// Where tests find the source tree: GPUOPS_SOURCE_DIR from the environment when set (a test run
// from a relocated build, as on the GPU machine), else the path this build was configured in.
#pragma once

#include <cstdlib>
#include <string>

namespace gpuops::testing {

inline std::string SourceDir() {
  const char* env = std::getenv("GPUOPS_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? env : GPUOPS_SOURCE_DIR;
}

}  // namespace gpuops::testing
