// libFuzzer target: ParseNvInfo on arbitrary .nv.info section bytes.
#include <cstddef>
#include <cstdint>

#include "gpuops/runtime/kernel_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gpuops::metadata::ParseNvInfo(gpuops::metadata::Bytes(data, size), "fuzz");
  return 0;
}
