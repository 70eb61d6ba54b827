// gMock matchers over the mock's LaunchRecord, for users' own tests:
//
//   EXPECT_THAT(mock.launches(),
//               ElementsAre(Launch(KernelNamed("dense_gemm_bf16_tc"),
//                                  GridIs(CeilDiv(n, 64), CeilDiv(m, 16), 1),
//                                  BlockIs(128, 1, 1), ArgU32At(3, m), ArgPtrAt(2, c))));
#pragma once

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/str.h"

namespace gpuops::mock {

// All of the given matchers hold for one launch record.
template <typename... M>
auto Launch(M&&... matchers) {
  return ::testing::AllOf(std::forward<M>(matchers)...);
}

MATCHER_P(KernelNamed, name, StrCat("kernel is ", ::testing::PrintToString(name))) {
  if (arg.kernel == name) return true;
  *result_listener << "kernel is " << arg.kernel;
  return false;
}

MATCHER_P(InModule, module, StrCat("module is ", ::testing::PrintToString(module))) {
  if (arg.module == module) return true;
  *result_listener << "module is " << arg.module;
  return false;
}

MATCHER_P3(GridIs, x, y, z, StrCat("grid is (", x, ", ", y, ", ", z, ")")) {
  if (arg.grid ==
      Dim3{static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z)}) {
    return true;
  }
  *result_listener << "grid is " << ::gpuops::ToString(arg.grid);
  return false;
}

MATCHER_P3(BlockIs, x, y, z, StrCat("block is (", x, ", ", y, ", ", z, ")")) {
  if (arg.block ==
      Dim3{static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z)}) {
    return true;
  }
  *result_listener << "block is " << ::gpuops::ToString(arg.block);
  return false;
}

MATCHER_P(SharedMemIs, bytes, StrCat("dynamic shared memory is ", bytes, " bytes")) {
  if (arg.shared_mem_bytes == static_cast<uint32_t>(bytes)) return true;
  *result_listener << "dynamic shared memory is " << arg.shared_mem_bytes << " bytes";
  return false;
}

MATCHER_P(OnStream, stream, StrCat("on stream ", stream.id)) {
  if (arg.stream == stream) return true;
  *result_listener << "on stream " << arg.stream.id;
  return false;
}

MATCHER_P(ArgCountIs, n, StrCat("has ", n, " arguments")) {
  if (arg.args.size() == static_cast<size_t>(n)) return true;
  *result_listener << "has " << arg.args.size() << " arguments";
  return false;
}

namespace internal {
// True when argument `i` exists with kind `kind`; explains otherwise.
inline bool HasArg(const LaunchRecord& r, size_t i, ArgKind kind,
                   ::testing::MatchResultListener* listener) {
  if (i >= r.args.size()) {
    *listener << "has only " << r.args.size() << " arguments";
    return false;
  }
  if (r.args[i].kind != kind) {
    *listener << "argument #" << i << " is " << ToString(r.args[i].kind);
    return false;
  }
  return true;
}
}  // namespace internal

MATCHER_P2(ArgU32At, i, value, StrCat("argument #", i, " is u32 ", value)) {
  if (!internal::HasArg(arg, i, ArgKind::kU32, result_listener)) return false;
  if (arg.args[i].u32() == static_cast<uint32_t>(value)) return true;
  *result_listener << "argument #" << i << " is u32 " << arg.args[i].u32();
  return false;
}

MATCHER_P2(ArgI32At, i, value, StrCat("argument #", i, " is i32 ", value)) {
  if (!internal::HasArg(arg, i, ArgKind::kI32, result_listener)) return false;
  if (arg.args[i].i32() == static_cast<int32_t>(value)) return true;
  *result_listener << "argument #" << i << " is i32 " << arg.args[i].i32();
  return false;
}

MATCHER_P2(ArgU64At, i, value, StrCat("argument #", i, " is u64 ", value)) {
  if (!internal::HasArg(arg, i, ArgKind::kU64, result_listener)) return false;
  if (arg.args[i].u64() == static_cast<uint64_t>(value)) return true;
  *result_listener << "argument #" << i << " is u64 " << arg.args[i].u64();
  return false;
}

MATCHER_P2(ArgF32At, i, value, StrCat("argument #", i, " is f32 ", value)) {
  if (!internal::HasArg(arg, i, ArgKind::kF32, result_listener)) return false;
  if (arg.args[i].f32() == static_cast<float>(value)) return true;
  *result_listener << "argument #" << i << " is f32 " << arg.args[i].f32();
  return false;
}

MATCHER_P2(ArgPtrAt, i, ptr, StrCat("argument #", i, " is ptr 0x", Hex(ptr.address()))) {
  if (!internal::HasArg(arg, i, ArgKind::kPtr, result_listener)) return false;
  if (arg.args[i].ptr() == ptr) return true;
  *result_listener << "argument #" << i << " is ptr 0x" << StrCat(Hex(arg.args[i].u64()));
  return false;
}

}  // namespace gpuops::mock
