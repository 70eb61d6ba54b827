// Typed kernel definitions bind exactly their declared arguments; misuse fails to compile (see
// tests/compile_fail/kernel_def_misuse.cc, driven by check_compile_fail.cmake).
#include "gpuops/runtime/kernel_def.h"

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

using GemmDef = KernelDef<param::Ptr, param::Ptr, param::U32, param::F32>;
inline constexpr GemmDef kScale{"scale"};

TEST(KernelDefTest, DeclaresArityAndParameterSizes) {
  EXPECT_EQ(GemmDef::kArity, 4u);
  EXPECT_THAT(GemmDef::kParamSizes, ::testing::ElementsAre(8u, 8u, 4u, 4u));
  EXPECT_EQ(kScale.name(), "scale");
  EXPECT_EQ((KernelDef<param::TensorMap, param::U64, param::I32>::kParamSizes),
            (std::array<uint32_t, 3>{128, 8, 4}));
}

TEST(KernelDefTest, LaunchBindsArgumentsInOrder) {
  mock::RecordingBackend gpu;
  auto module = gpu.LoadModule(
      mock::DescribeModule("m", "arch sm_90a\nscale - out:0:8 in:8:8 n:16:4 s:20:4\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = gpu.GetKernel(*module, "scale");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = gpu.Alloc(64);
  ASSERT_TRUE(buf.ok());
  ASSERT_TRUE(kScale
                  .Launch(gpu, *kernel, {.grid = {2, 1, 1}, .block = {64, 1, 1}}, {}, *buf, *buf,
                          uint32_t{16}, 0.5f)
                  .ok());
  using namespace mock;  // NOLINT: matchers
  EXPECT_THAT(gpu.launches(), ::testing::ElementsAre(Launch(KernelNamed("scale"), GridIs(2, 1, 1),
                                                            ArgPtrAt(0, *buf), ArgPtrAt(1, *buf),
                                                            ArgU32At(2, 16), ArgF32At(3, 0.5f))));
}

TEST(KernelDefTest, RuntimeCheckStillAppliesWhenTheDefinitionDisagreesWithTheBinary) {
  mock::RecordingBackend gpu;
  // The compiled kernel takes one more parameter than the definition declares.
  auto module = gpu.LoadModule(
      mock::DescribeModule("m", "arch sm_90a\nscale - out:0:8 in:8:8 n:16:4 s:20:4 t:24:4\n"));
  ASSERT_TRUE(module.ok());
  auto kernel = gpu.GetKernel(*module, "scale");
  auto buf = gpu.Alloc(64);
  ASSERT_TRUE(kernel.ok() && buf.ok());
  absl::Status s = kScale.Launch(gpu, *kernel, {.grid = {1, 1, 1}, .block = {1, 1, 1}}, {}, *buf,
                                 *buf, uint32_t{16}, 0.5f);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("missing #4 t, 4 bytes"));
  EXPECT_EQ(gpu.launch_count(), 0u);
}

}  // namespace
}  // namespace gpuops
