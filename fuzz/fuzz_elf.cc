// libFuzzer target: ElfFile::Parse on arbitrary bytes.
#include <cstddef>
#include <cstdint>

#include "gpuops/runtime/kernel_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto elf = gpuops::metadata::ElfFile::Parse(gpuops::metadata::Bytes(data, size));
  if (elf.ok()) {
    size_t total = 0;
    for (const auto& s : elf->sections()) total += s.name.size() + s.data.size();
    (void)total;
  }
  return 0;
}
