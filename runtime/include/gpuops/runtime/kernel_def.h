// Typed kernel definitions: a launch with the wrong number or types of arguments does not compile.
//
//   using GemmKernel = KernelDef<param::Ptr, param::Ptr, param::Ptr,
//                                param::U32, param::U32, param::U32>;
//   GemmKernel{"dense_gemm_bf16"}.Launch(gpu, kernel, dims, stream, a, b, c, m, n, k);
//
// Argument types must match exactly (a `int` where a `uint32_t` is declared does not compile), so
// a value cannot silently change width or signedness. KernelLaunch still checks the result
// against the kernel's compiled signature at run time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops {
namespace param {

struct Ptr {
  using type = DevicePtr;
  static constexpr uint32_t kSize = 8;
  static void Append(KernelLaunch& l, DevicePtr v) { l.arg_ptr(v); }
};
struct U32 {
  using type = uint32_t;
  static constexpr uint32_t kSize = 4;
  static void Append(KernelLaunch& l, uint32_t v) { l.arg_u32(v); }
};
struct I32 {
  using type = int32_t;
  static constexpr uint32_t kSize = 4;
  static void Append(KernelLaunch& l, int32_t v) { l.arg_i32(v); }
};
struct U64 {
  using type = uint64_t;
  static constexpr uint32_t kSize = 8;
  static void Append(KernelLaunch& l, uint64_t v) { l.arg_u64(v); }
};
struct F32 {
  using type = float;
  static constexpr uint32_t kSize = 4;
  static void Append(KernelLaunch& l, float v) { l.arg_f32(v); }
};
struct TensorMap {
  using type = TensorMapBytes;
  static constexpr uint32_t kSize = 128;
  static void Append(KernelLaunch& l, const TensorMapBytes& v) { l.arg_tensor_map(v); }
};

}  // namespace param

// Grid, block and dynamic shared memory of one launch.
struct LaunchDims {
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem_bytes = 0;
};

template <typename... Params>
class KernelDef {
 public:
  static constexpr size_t kArity = sizeof...(Params);
  static constexpr std::array<uint32_t, kArity> kParamSizes{Params::kSize...};

  constexpr explicit KernelDef(std::string_view name) : name_(name) {}
  constexpr std::string_view name() const { return name_; }

  // Appends `args` to `launch`. Compiles only with one argument of each declared type, in order.
  template <typename... Args>
  KernelLaunch& Bind(KernelLaunch& launch, const Args&... args) const {
    static_assert(sizeof...(Args) == kArity,
                  "KernelDef: the number of arguments differs from the kernel's parameter count");
    if constexpr (sizeof...(Args) == kArity) {
      static_assert((std::is_same_v<std::remove_cvref_t<Args>, typename Params::type> && ...),
                    "KernelDef: an argument's type differs from its parameter's declared type");
      (Params::Append(launch, args), ...);
    }
    return launch;
  }

  // Builds, validates and launches in one call.
  template <typename... Args>
  absl::Status Launch(GpuBackend& gpu, KernelHandle kernel, const LaunchDims& dims,
                      StreamHandle stream, const Args&... args) const {
    KernelLaunch launch(gpu, kernel);
    launch.grid(dims.grid).block(dims.block).shared_mem(dims.shared_mem_bytes);
    return Bind(launch, args...).launch(stream);
  }

 private:
  std::string_view name_;
};

}  // namespace gpuops
