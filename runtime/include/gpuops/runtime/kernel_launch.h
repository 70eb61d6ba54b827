// KernelLaunch: the builder every op launches through.
//
//   GPUOPS_RETURN_IF_ERROR(KernelLaunch(gpu, kernel)
//       .grid({CeilDiv(n, 64), CeilDiv(m, 16), 1}).block({128, 1, 1})
//       .arg_ptr(a).arg_ptr(b).arg_ptr(c).arg_u32(m).arg_u32(n).arg_u32(k)
//       .launch(stream));
//
// or, with the argument list as a named struct (kernel_args.h) and a kernel bound to it
// (typed_kernel.h): `gemm.Launch(gpu, dims, GemmArgs{.a = a, ...}).launch(stream)`.
//
// `launch` validates before the backend sees anything: the handle is not null; the argument count
// and each argument's size equal the kernel's compiled signature; grid and block are non-zero and
// within the device's limits; shared memory is within the opt-in limit. Argument values are
// copied into the builder, so temporaries are safe, and a built launch can be kept and launched
// again (an op's plan holds its launches this way).
//
// Thread safety: building is one thread's; a built launch (const) may be launched from several
// threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/kernel_signature.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

// Grid, block and dynamic shared memory of one launch.
struct LaunchDims {
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem_bytes = 0;
  friend bool operator==(const LaunchDims&, const LaunchDims&) = default;
};

class KernelLaunch {
 public:
  KernelLaunch(GpuBackend& gpu, KernelHandle kernel) : gpu_(&gpu), kernel_(kernel) {}

  KernelLaunch& grid(Dim3 grid) {
    grid_ = grid;
    return *this;
  }
  KernelLaunch& block(Dim3 block) {
    block_ = block;
    return *this;
  }
  KernelLaunch& shared_mem(uint32_t bytes) {
    shared_mem_bytes_ = bytes;
    return *this;
  }
  KernelLaunch& dims(const LaunchDims& d) {
    return grid(d.grid).block(d.block).shared_mem(d.shared_mem_bytes);
  }
  // Only for a kernel that waits, in the kernel, for the previous launch on its stream before it
  // reads anything that launch writes (griddepcontrol.wait on sm_90): the backend may then start
  // it while that launch finishes (CUDA on sm_90+: programmatic dependent launch), hiding the
  // launch gap. Elsewhere the launch keeps plain stream order.
  KernelLaunch& overlap_previous(bool on = true) {
    overlaps_previous_ = on;
    return *this;
  }

  KernelLaunch& arg_ptr(DevicePtr ptr) { return Append(ArgKind::kPtr, ptr.address()); }
  KernelLaunch& arg_u32(uint32_t value) { return Append(ArgKind::kU32, value); }
  KernelLaunch& arg_i32(int32_t value) { return Append(ArgKind::kI32, value); }
  KernelLaunch& arg_u64(uint64_t value) { return Append(ArgKind::kU64, value); }
  KernelLaunch& arg_f32(float value) { return Append(ArgKind::kF32, value); }
  // A by-value struct, e.g. a 128-byte tensor map.
  KernelLaunch& arg_bytes(absl::Span<const std::byte> bytes);
  KernelLaunch& arg_tensor_map(const TensorMapBytes& map) {
    return arg_bytes(absl::MakeConstSpan(map.bytes));
  }
  // Every field of an argument struct (GPUOPS_KERNEL_ARGS), in order.
  template <typename Args>
  KernelLaunch& args(const Args& a) {
    Args::ForEachField([&](std::string_view, auto member) { arg(a.*member); });
    return *this;
  }

  // Validates (see above), then hands the launch to the backend.
  absl::Status launch(StreamHandle stream = {}) const;
  // The validation `launch` runs, without launching.
  absl::Status Validate() const;

  // What the launch holds, for plans and traces.
  KernelHandle kernel() const { return kernel_; }
  LaunchDims launch_dims() const { return {grid_, block_, shared_mem_bytes_}; }
  bool overlaps_previous() const { return overlaps_previous_; }
  size_t arg_count() const { return slots_.size(); }
  ArgKind arg_kind(size_t i) const { return slots_[i].kind; }
  absl::Span<const std::byte> arg_bytes(size_t i) const {
    return {reinterpret_cast<const std::byte*>(&words_[slots_[i].word]), slots_[i].size};
  }

 private:
  struct Slot {
    ArgKind kind;
    uint32_t size;
    uint32_t word;  // first 8-byte word of the value in words_
  };

  KernelLaunch& arg(DevicePtr v) { return arg_ptr(v); }
  KernelLaunch& arg(uint32_t v) { return arg_u32(v); }
  KernelLaunch& arg(int32_t v) { return arg_i32(v); }
  KernelLaunch& arg(uint64_t v) { return arg_u64(v); }
  KernelLaunch& arg(float v) { return arg_f32(v); }
  KernelLaunch& arg(const TensorMapBytes& v) { return arg_tensor_map(v); }

  template <typename T>
  KernelLaunch& Append(ArgKind kind, T value) {
    static_assert(sizeof(T) <= sizeof(uint64_t));
    uint64_t word = 0;
    std::memcpy(&word, &value, sizeof(T));
    slots_.push_back(
        {kind, static_cast<uint32_t>(sizeof(T)), static_cast<uint32_t>(words_.size())});
    words_.push_back(word);
    return *this;
  }

  absl::Status ValidateArguments(const KernelInfo& info) const;
  absl::Status ValidateDimensions(const KernelInfo& info) const;

  GpuBackend* gpu_;
  KernelHandle kernel_;
  Dim3 grid_{0, 0, 0};  // unset: rejected as a zero grid
  Dim3 block_{0, 0, 0};
  uint32_t shared_mem_bytes_ = 0;
  bool overlaps_previous_ = false;
  absl::InlinedVector<Slot, 16> slots_;
  absl::InlinedVector<uint64_t, 32> words_;  // argument values, 8-byte aligned
};

}  // namespace gpuops
