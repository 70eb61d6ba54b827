// DeviceSpan: device memory an op reads or writes, as a pointer and the bytes behind it. Ops take
// every operand and workspace as a span and check its extent against what the problem needs
// before anything launches, on every backend: on a GPU a kernel that runs past a buffer writes
// into its neighbour or faults, and only the mock would catch it.
//
//   DeviceSpan a = buffer.span();                 // a whole DeviceBuffer
//   DeviceSpan w(ptr, bytes);                     // memory the caller owns
//   DeviceSpan raw = DeviceSpan::Unchecked(ptr);  // the escape hatch: the caller vouches for the
//                                                 // extent, and no check can catch an overrun
#pragma once

#include <cstdint>
#include <limits>

#include "absl/status/statusor.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

class DeviceSpan {
 public:
  constexpr DeviceSpan() = default;
  constexpr DeviceSpan(DevicePtr ptr, uint64_t bytes) : ptr_(ptr), bytes_(bytes) {}

  // A pointer whose extent is not known here: ops accept any extent through it. For memory an
  // engine manages itself (a slice of an arena, a tensor from another library) when its size
  // cannot be passed along; prefer a sized span.
  static constexpr DeviceSpan Unchecked(DevicePtr ptr) {
    DeviceSpan span(ptr, std::numeric_limits<uint64_t>::max());
    span.unchecked_ = true;
    return span;
  }

  constexpr DevicePtr ptr() const { return ptr_; }
  constexpr uint64_t address() const { return ptr_.address(); }
  // Bytes from ptr() on; for an unchecked span, the largest value (any extent fits).
  constexpr uint64_t bytes() const { return bytes_; }
  constexpr bool unchecked() const { return unchecked_; }
  constexpr bool is_null() const { return ptr_.is_null(); }

  // The `bytes` bytes at `offset` into this span; kOutOfRange when they do not lie inside it.
  absl::StatusOr<DeviceSpan> Slice(uint64_t offset, uint64_t bytes) const;

  friend constexpr bool operator==(const DeviceSpan&, const DeviceSpan&) = default;

 private:
  DevicePtr ptr_;
  uint64_t bytes_ = 0;
  bool unchecked_ = false;
};

}  // namespace gpuops
