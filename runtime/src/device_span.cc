#include "gpuops/runtime/device_span.h"

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::StatusOr<DeviceSpan> DeviceSpan::Slice(uint64_t offset, uint64_t bytes) const {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    return absl::OutOfRangeError(StrCat("DeviceSpan::Slice: ", bytes, " bytes at offset ", offset,
                                        " do not lie inside the ", bytes_, "-byte span at 0x",
                                        Hex(ptr_.address())));
  }
  if (unchecked_) return Unchecked(ptr_.offset(offset));
  return DeviceSpan(ptr_.offset(offset), bytes);
}

}  // namespace gpuops
