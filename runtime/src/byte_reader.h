// Bounds-checked reads of untrusted bytes, shared by the metadata readers (private to runtime/).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "gpuops/runtime/kernel_metadata.h"

namespace gpuops::metadata::internal {

// Little-endian read of a T at `offset`; false when it does not fit in `bytes`.
template <typename T>
bool Read(Bytes bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || sizeof(T) > bytes.size() - offset) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

// True when [offset, offset + size) lies inside a buffer of `total` bytes (overflow-safe).
inline bool Fits(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}

inline absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(std::string(what));
}

}  // namespace gpuops::metadata::internal
