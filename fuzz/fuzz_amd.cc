// libFuzzer target: the AMD code-object readers on arbitrary bytes (an offload bundle, a code
// object, or bare msgpack).
#include <cstddef>
#include <cstdint>

#include "gpuops/runtime/amd_code_object.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuops::metadata;  // NOLINT
  const Bytes bytes(data, size);
  if (auto bundle = ParseOffloadBundle(bytes); bundle.ok()) {
    for (const OffloadBundleEntry& e : *bundle) (void)ReadAmdKernels(e.payload);
    (void)SelectCodeObject(*bundle, "gfx90a");
  }
  if (auto kernels = ReadAmdKernels(bytes); kernels.ok()) {
    size_t total = 0;
    for (const AmdKernel& k : *kernels) total += k.params.size() + k.name.size();
    (void)total;
  }
  (void)ParseMsgpack(bytes);
  return 0;
}
