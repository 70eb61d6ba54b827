// A kernel's argument list, written once as a named struct:
//
//   GPUOPS_KERNEL_ARGS(GemmArgs, (DevicePtr, a), (DevicePtr, b), (DevicePtr, c),
//                      (uint32_t, m), (uint32_t, n), (uint32_t, k));
//
// declares the aggregate `struct GemmArgs { DevicePtr a{}; ...; uint32_t k{}; }` (designated
// initializers work: GemmArgs{.a = x, .m = 4}) that also knows its fields' names and order.
// KernelLaunch::args(GemmArgs{...}) appends the fields in order, a host emulation reads them back
// by name with HostLaunch::Unpack<GemmArgs>(), and TypedKernel<GemmArgs>::Bind checks a compiled
// kernel's parameter list against them (count, each size, each name). Field types are the kinds a
// launch carries: DevicePtr, uint32_t, int32_t, uint64_t, float and TensorMapBytes; any other type
// does not compile.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

// The launch kind and size of each type a kernel argument may have.
template <typename T>
struct ArgTraits;  // no definition: an argument of any other type does not compile
template <>
struct ArgTraits<DevicePtr> {
  static constexpr ArgKind kKind = ArgKind::kPtr;
};
template <>
struct ArgTraits<uint32_t> {
  static constexpr ArgKind kKind = ArgKind::kU32;
};
template <>
struct ArgTraits<int32_t> {
  static constexpr ArgKind kKind = ArgKind::kI32;
};
template <>
struct ArgTraits<uint64_t> {
  static constexpr ArgKind kKind = ArgKind::kU64;
};
template <>
struct ArgTraits<float> {
  static constexpr ArgKind kKind = ArgKind::kF32;
};
template <>
struct ArgTraits<TensorMapBytes> {
  static constexpr ArgKind kKind = ArgKind::kBytes;
};

// One field of an argument struct as checks and messages see it.
struct ArgField {
  std::string_view name;
  ArgKind kind;
  uint32_t size;
  friend constexpr bool operator==(const ArgField&, const ArgField&) = default;
};

// The fields of `Args` in order.
template <typename Args>
constexpr size_t ArgCount() {
  size_t n = 0;
  Args::ForEachField([&n](std::string_view, auto) { ++n; });
  return n;
}

template <typename Args>
constexpr std::array<ArgField, ArgCount<Args>()> ArgFields() {
  std::array<ArgField, ArgCount<Args>()> fields{};
  size_t i = 0;
  Args::ForEachField([&](std::string_view name, auto member) {
    using T = std::remove_cvref_t<decltype(std::declval<Args>().*member)>;
    fields[i++] = {name, ArgTraits<T>::kKind, static_cast<uint32_t>(sizeof(T))};
  });
  return fields;
}

// "argument #2 (c)" for &GemmArgs::c: how host emulations name an argument in errors.
template <typename Args, typename T>
std::string ArgLabel(T Args::*member) {
  size_t i = 0;
  size_t index = 0;
  std::string_view name;
  Args::ForEachField([&](std::string_view field, auto candidate) {
    if constexpr (std::is_same_v<decltype(candidate), T Args::*>) {
      if (candidate == member && name.empty()) {
        index = i;
        name = field;
      }
    }
    ++i;
  });
  return "argument #" + std::to_string(index) + " (" + std::string(name) + ")";
}

// kFailedPrecondition unless `signature` has exactly `fields`: the same count, and each parameter
// the same size and (where the signature knows it) the same name. `list` names the struct.
absl::Status CheckSignatureMatches(const KernelSignature& signature, std::string_view list,
                                   absl::Span<const ArgField> fields);

// An argument list with no fields, for kernels that take none.
struct NoArgs {
  static constexpr std::string_view kName = "NoArgs";
  template <typename Visitor>
  static constexpr void ForEachField(Visitor&&) {}
};

}  // namespace gpuops

// --- GPUOPS_KERNEL_ARGS(Name, (type, field)...): up to 16 fields.
#define GPUOPS_ARGS_APPLY(macro, pair) macro pair
#define GPUOPS_ARGS_MEMBER(type, field) type field{};
#define GPUOPS_ARGS_VISIT(type, field) visitor(std::string_view(#field), &Self::field);

#define GPUOPS_ARGS_EACH_1(m, x) GPUOPS_ARGS_APPLY(m, x)
#define GPUOPS_ARGS_EACH_2(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_1(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_3(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_2(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_4(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_3(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_5(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_4(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_6(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_5(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_7(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_6(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_8(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_7(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_9(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_8(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_10(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_9(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_11(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_10(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_12(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_11(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_13(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_12(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_14(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_13(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_15(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_14(m, __VA_ARGS__)
#define GPUOPS_ARGS_EACH_16(m, x, ...) GPUOPS_ARGS_APPLY(m, x) GPUOPS_ARGS_EACH_15(m, __VA_ARGS__)
#define GPUOPS_ARGS_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, \
                         ...)                                                                      \
  N
#define GPUOPS_ARGS_EACH(m, ...)                                                                   \
  GPUOPS_ARGS_PICK(__VA_ARGS__, GPUOPS_ARGS_EACH_16, GPUOPS_ARGS_EACH_15, GPUOPS_ARGS_EACH_14,     \
                   GPUOPS_ARGS_EACH_13, GPUOPS_ARGS_EACH_12, GPUOPS_ARGS_EACH_11,                  \
                   GPUOPS_ARGS_EACH_10, GPUOPS_ARGS_EACH_9, GPUOPS_ARGS_EACH_8,                    \
                   GPUOPS_ARGS_EACH_7, GPUOPS_ARGS_EACH_6, GPUOPS_ARGS_EACH_5, GPUOPS_ARGS_EACH_4, \
                   GPUOPS_ARGS_EACH_3, GPUOPS_ARGS_EACH_2, GPUOPS_ARGS_EACH_1)                     \
  (m, __VA_ARGS__)

#define GPUOPS_KERNEL_ARGS(Name, ...)                       \
  struct Name {                                             \
    GPUOPS_ARGS_EACH(GPUOPS_ARGS_MEMBER, __VA_ARGS__)       \
    static constexpr std::string_view kName = #Name;        \
    template <typename Visitor>                             \
    static constexpr void ForEachField(Visitor&& visitor) { \
      using Self = Name;                                    \
      GPUOPS_ARGS_EACH(GPUOPS_ARGS_VISIT, __VA_ARGS__)      \
    }                                                       \
  }
