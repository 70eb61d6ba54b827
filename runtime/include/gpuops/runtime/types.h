// Value types shared by every layer: device addresses, launch dimensions, opaque handles and
// what a backend knows about its device. No vendor headers, no GPU needed.
#pragma once

#include <cstdint>
#include <string>

namespace gpuops {

// A device address. Strongly typed so a host pointer or a plain integer cannot be passed where
// device memory is expected; `offset` is the only arithmetic.
class DevicePtr {
 public:
  constexpr DevicePtr() = default;
  constexpr explicit DevicePtr(uint64_t address) : address_(address) {}

  constexpr uint64_t address() const { return address_; }
  constexpr bool is_null() const { return address_ == 0; }
  constexpr DevicePtr offset(uint64_t bytes) const { return DevicePtr(address_ + bytes); }

  friend constexpr bool operator==(DevicePtr, DevicePtr) = default;

 private:
  uint64_t address_ = 0;
};

// Grid or block extent. Defaults to 1 on every axis, as in CUDA.
struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;

  constexpr uint64_t volume() const { return uint64_t{x} * y * z; }
  friend constexpr bool operator==(const Dim3&, const Dim3&) = default;
};

std::string ToString(const Dim3& d);  // "(x, y, z)"

// Rounded-up quotients; exact for every a (the sum is formed in 64 bits, and a quotient of a
// 32-bit value fits 32 bits). b must be non-zero.
constexpr uint32_t CeilDiv(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>((uint64_t{a} + b - 1) / b);
}
constexpr uint64_t CeilDiv64(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
constexpr uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return CeilDiv64(value, alignment) * alignment;
}

// Opaque handles. Zero is "none" except for streams, where zero is the backend's default stream.
struct StreamHandle {
  uint64_t id = 0;
  friend constexpr bool operator==(StreamHandle, StreamHandle) = default;
};
struct EventHandle {
  uint64_t id = 0;
  friend constexpr bool operator==(EventHandle, EventHandle) = default;
};
struct ModuleHandle {
  uint64_t id = 0;
  friend constexpr bool operator==(ModuleHandle, ModuleHandle) = default;
};
// An instantiated, replayable graph of captured work.
struct GraphHandle {
  uint64_t id = 0;
  friend constexpr bool operator==(GraphHandle, GraphHandle) = default;
};

// What a backend reports about its device. Limits feed KernelLaunch's validation.
struct DeviceInfo {
  std::string name;
  // An AMD device's code-object target ("gfx90a"; its features such as ":sramecc+" left off);
  // empty on NVIDIA devices, whose architecture is arch_major / arch_minor.
  std::string amd_target;
  int arch_major = 0;
  int arch_minor = 0;
  // True when arch-specific features ("sm_90a": wgmma, setmaxnreg) are usable.
  bool arch_specific = false;
  int sm_count = 0;
  Dim3 max_grid{0x7fffffffu, 65535, 65535};
  Dim3 max_block{1024, 1024, 64};
  uint32_t max_threads_per_block = 1024;
  // Shared memory a block gets without opting in, and the most it may opt in to.
  uint32_t shared_mem_per_block = 48 * 1024;
  uint32_t shared_mem_per_block_optin = 48 * 1024;
  uint64_t total_memory_bytes = 0;
  uint64_t l2_bytes = 0;

  // "sm_90a", "sm_80", "gfx90a"; the spelling signatures.txt, fatbins and bundles use.
  std::string arch_name() const;
  bool is_amd() const { return !amd_target.empty(); }
};

}  // namespace gpuops
