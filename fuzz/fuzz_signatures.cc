// libFuzzer target: SignatureTable::Parse on arbitrary text, and Format/Parse round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuops/runtime/signature_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = gpuops::SignatureTable::Parse(text, "fuzz");
  if (!table.ok()) return 0;
  auto again = gpuops::SignatureTable::Parse(table->Format("fuzz"), "formatted");
  if (!again.ok() || again->kernels() != table->kernels()) std::abort();  // must round-trip
  return 0;
}
