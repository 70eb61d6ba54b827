// libFuzzer target: ParseFatbin, then every ELF entry through ReadCubinKernels (the path a
// module load takes).
#include <cstddef>
#include <cstdint>

#include "gpuops/runtime/kernel_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuops::metadata;  // NOLINT
  auto entries = ParseFatbin(Bytes(data, size));
  if (!entries.ok()) return 0;
  for (const FatbinEntry& e : *entries) {
    if (e.kind == FatbinEntryKind::kElf && !e.compressed) (void)ReadCubinKernels(e.payload);
  }
  (void)SelectElf(*entries, "sm_90a");
  return 0;
}
