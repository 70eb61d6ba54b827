// Argument structs (kernel_args.h) and kernels bound to them (typed_kernel.h): fields in order
// with their names and sizes, binding checked against the compiled parameters, launches packing
// the fields in order, host emulations unpacking them by name. Misuse fails to compile (see
// tests/compile_fail/typed_kernel_misuse.cc, driven by check_compile_fail.cmake).
#include "gpuops/runtime/typed_kernel.h"

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/host_kernel.h"
#include "gpuops/runtime/kernel_args.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

GPUOPS_KERNEL_ARGS(ScaleArgs, (DevicePtr, out), (DevicePtr, in), (uint32_t, n), (float, s));
GPUOPS_KERNEL_ARGS(MapArgs, (TensorMapBytes, map), (uint64_t, count), (int32_t, bias));

TEST(KernelArgsTest, FieldsKeepTheirOrderNamesKindsAndSizes) {
  EXPECT_EQ(ArgCount<ScaleArgs>(), 4u);
  EXPECT_THAT(ArgFields<ScaleArgs>(),
              ElementsAre(ArgField{"out", ArgKind::kPtr, 8}, ArgField{"in", ArgKind::kPtr, 8},
                          ArgField{"n", ArgKind::kU32, 4}, ArgField{"s", ArgKind::kF32, 4}));
  EXPECT_THAT(ArgFields<MapArgs>(),
              ElementsAre(ArgField{"map", ArgKind::kBytes, 128},
                          ArgField{"count", ArgKind::kU64, 8}, ArgField{"bias", ArgKind::kI32, 4}));
  EXPECT_EQ(ScaleArgs::kName, "ScaleArgs");
  EXPECT_EQ(ArgLabel(&ScaleArgs::n), "argument #2 (n)");
  EXPECT_EQ(ArgLabel(&MapArgs::bias), "argument #2 (bias)");
}

class TypedKernelTest : public ::testing::Test {
 protected:
  KernelHandle Kernel(std::string_view signature_line) {
    auto module =
        gpu_.LoadModule(mock::DescribeModule("m", StrCat("arch sm_90a\n", signature_line, "\n")));
    EXPECT_TRUE(module.ok()) << module.status();
    auto kernel = gpu_.GetKernel(*module, signature_line.substr(0, signature_line.find(' ')));
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    return kernel.ok() ? *kernel : KernelHandle();
  }

  mock::RecordingBackend gpu_{mock::RecordingBackend::Options{.execute_host_kernels = false}};
};

TEST_F(TypedKernelTest, BindsAKernelWhoseParametersAreTheFields) {
  auto scale = TypedKernel<ScaleArgs>::Bind(Kernel("scale - out:0:8 in:8:8 n:16:4 s:20:4"));
  ASSERT_TRUE(scale.ok()) << scale.status();
  EXPECT_FALSE(scale->is_null());
  EXPECT_EQ(scale->name(), "scale");
}

TEST_F(TypedKernelTest, ANullHandleBindsToANullKernel) {
  auto none = TypedKernel<ScaleArgs>::Bind(KernelHandle());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->is_null());
}

TEST_F(TypedKernelTest, RefusesAKernelWithAnotherParameterList) {
  struct Case {
    std::string line;
    std::string why;
  };
  for (const Case& c :
       {Case{"scale - out:0:8 in:8:8 n:16:4 s:20:4 t:24:4", "5 parameters, 4 fields"},
        Case{"scale - out:0:8 in:8:8 n:16:8 s:24:4", "#2 n is 8 bytes, field n 4"},
        Case{"scale - out:0:8 in:8:8 s:16:4 n:20:4",
             "#2 is named s in the kernel, n in the list"}}) {
    auto bound = TypedKernel<ScaleArgs>::Bind(Kernel(c.line));
    EXPECT_EQ(bound.status().code(), absl::StatusCode::kFailedPrecondition) << c.line;
    EXPECT_THAT(bound.status().message(),
                AllOf(HasSubstr("scale: the compiled parameters ("),
                      HasSubstr("differ from the argument list ScaleArgs (out:8, in:8, n:4, s:4)"),
                      HasSubstr(c.why)))
        << c.line;
  }
}

TEST_F(TypedKernelTest, ParametersWithoutSourceNamesAreCheckedBySizeOnly) {
  EXPECT_TRUE(TypedKernel<ScaleArgs>::Bind(Kernel("scale - #0:0:8 #1:8:8 #2:16:4 #3:20:4")).ok());
}

TEST_F(TypedKernelTest, LaunchPacksTheFieldsInOrder) {
  auto scale = TypedKernel<ScaleArgs>::Bind(Kernel("scale - out:0:8 in:8:8 n:16:4 s:20:4"));
  auto buf = gpu_.Alloc(64);
  ASSERT_TRUE(scale.ok() && buf.ok());
  ASSERT_TRUE(scale
                  ->Launch(gpu_, {.grid = {2, 1, 1}, .block = {64, 1, 1}},
                           {.out = *buf, .in = buf->offset(8), .n = 16, .s = 0.5f})
                  .launch()
                  .ok());
  using namespace mock;  // NOLINT: matchers
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(Launch(KernelNamed("scale"), GridIs(2, 1, 1), ArgCountIs(4), ArgPtrAt(0, *buf),
                         ArgPtrAt(1, buf->offset(8)), ArgU32At(2, 16), ArgF32At(3, 0.5f))));
}

TEST(HostLaunchTest, UnpackReadsTheFieldsBackByName) {
  const DevicePtr out(0x1000);
  const DevicePtr in(0x2000);
  const uint32_t n = 7;
  const float s = -2.0f;
  const std::array<LaunchArg, 4> args{{{ArgKind::kPtr, 8, &out},
                                       {ArgKind::kPtr, 8, &in},
                                       {ArgKind::kU32, 4, &n},
                                       {ArgKind::kF32, 4, &s}}};
  HostLaunch launch("scale", {1, 1, 1}, {1, 1, 1}, 0, args);
  auto unpacked = launch.Unpack<ScaleArgs>();
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  EXPECT_EQ(unpacked->out, out);
  EXPECT_EQ(unpacked->in, in);
  EXPECT_EQ(unpacked->n, 7u);
  EXPECT_EQ(unpacked->s, -2.0f);

  HostLaunch short_launch("scale", {1, 1, 1}, {1, 1, 1}, 0, absl::MakeConstSpan(args).first(3));
  EXPECT_THAT(short_launch.Unpack<ScaleArgs>().status().message(),
              HasSubstr("host kernel scale: launched with 3 arguments, ScaleArgs has 4"));
  const std::array<LaunchArg, 4> wide{{args[0], args[1], {ArgKind::kU64, 8, &out}, args[3]}};
  HostLaunch wide_launch("scale", {1, 1, 1}, {1, 1, 1}, 0, wide);
  EXPECT_THAT(wide_launch.Unpack<ScaleArgs>().status().message(),
              HasSubstr("argument #2 (n) is 8 bytes, ScaleArgs reads 4"));
}

}  // namespace
}  // namespace gpuops
