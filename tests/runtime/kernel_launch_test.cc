// KernelLaunch refuses, before the backend sees anything, every launch that does not match the
// compiled kernel or the device; the mock then records nothing.
#include "gpuops/runtime/kernel_launch.h"

#include <array>

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/device_span.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::string_view kSignatures = R"(
arch sm_90a
gemm sm_80,sm_90a a:0:8 b:8:8 c:16:8 m:24:4 n:28:4 k:32:4
with_map sm_90a map:0:128 n:128:4
)";

class KernelLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto module = gpu_.LoadModule(mock::DescribeModule("test", kSignatures));
    ASSERT_TRUE(module.ok()) << module.status();
    auto kernel = gpu_.GetKernel(*module, "gemm");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    gemm_ = *kernel;
    auto a = gpu_.Alloc(1024);
    ASSERT_TRUE(a.ok()) << a.status();
    buffer_ = *a;
  }

  // A launch of `gemm` that is valid in every respect.
  KernelLaunch ValidGemm() {
    KernelLaunch l(gpu_, gemm_);
    l.grid({4, 2, 1}).block({128, 1, 1}).arg_ptr(buffer_).arg_ptr(buffer_).arg_ptr(buffer_);
    l.arg_u32(16).arg_u32(256).arg_u32(64);
    return l;
  }

  mock::RecordingBackend gpu_{mock::RecordingBackend::Options{.execute_host_kernels = false}};
  KernelHandle gemm_;
  DevicePtr buffer_;
};

TEST_F(KernelLaunchTest, ValidLaunchIsRecordedExactlyAsBuilt) {
  ASSERT_TRUE(ValidGemm().shared_mem(512).launch().ok());
  using namespace mock;  // NOLINT: matchers
  EXPECT_THAT(gpu_.launches(),
              ::testing::ElementsAre(Launch(KernelNamed("gemm"), InModule("test"), GridIs(4, 2, 1),
                                            BlockIs(128, 1, 1), SharedMemIs(512), ArgCountIs(6),
                                            ArgPtrAt(0, buffer_), ArgU32At(3, 16), ArgU32At(4, 256),
                                            ArgU32At(5, 64))));
}

TEST_F(KernelLaunchTest, LaunchRejectsNullHandle) {
  absl::Status s = KernelLaunch(gpu_, KernelHandle()).grid({1, 1, 1}).block({1, 1, 1}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("kernel handle is null"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsTooFewArguments) {
  KernelLaunch l(gpu_, gemm_);
  l.grid({1, 1, 1}).block({128, 1, 1}).arg_ptr(buffer_).arg_ptr(buffer_).arg_ptr(buffer_);
  l.arg_u32(1).arg_u32(2);
  absl::Status s = l.launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "launch gemm: 5 arguments given, compiled kernel takes 6 (missing #5 k, 4 bytes)");
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsTooManyArguments) {
  absl::Status s = ValidGemm().arg_f32(1.0f).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "launch gemm: 7 arguments given, compiled kernel takes 6 (extra #6, 4 bytes f32)");
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsWrongSizeAtIndex) {
  KernelLaunch l(gpu_, gemm_);
  l.grid({1, 1, 1}).block({128, 1, 1}).arg_ptr(buffer_).arg_ptr(buffer_).arg_ptr(buffer_);
  l.arg_u64(16).arg_u32(256).arg_u32(64);
  absl::Status s = l.launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "launch gemm: argument #3 (m) is 8 bytes (u64), compiled parameter takes 4 bytes");
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsZeroGrid) {
  absl::Status s = ValidGemm().grid({0, 1, 1}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "launch gemm: grid (0, 1, 1) has a zero dimension");
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsUnsetGridAndBlock) {
  KernelLaunch l(gpu_, gemm_);
  l.arg_ptr(buffer_).arg_ptr(buffer_).arg_ptr(buffer_).arg_u32(1).arg_u32(1).arg_u32(1);
  absl::Status s = l.launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("grid (0, 0, 0) has a zero dimension"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsGridYOverLimit) {
  absl::Status s = ValidGemm().grid({1, 65536, 1}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "launch gemm: grid (1, 65536, 1): grid.y = 65536 exceeds the device limit 65535");
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsGridXAtTwoToThe31) {
  absl::Status s = ValidGemm().grid({0x80000000u, 1, 1}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("grid.x = 2147483648 exceeds the device limit 2147483647"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejects1025Threads) {
  absl::Status s = ValidGemm().block({1025, 1, 1}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("block.x = 1025 exceeds the device limit 1024"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsTooManyThreadsAcrossAxes) {
  absl::Status s = ValidGemm().block({32, 33, 1}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "launch gemm: block (32, 33, 1) has 1056 threads, the device allows 1024");
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsBlockZOverAxisLimit) {
  absl::Status s = ValidGemm().block({1, 1, 65}).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("block.z = 65 exceeds the device limit 64"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, LaunchRejectsSharedMemoryOverLimit) {
  const uint32_t limit = gpu_.device_info().shared_mem_per_block_optin;
  absl::Status s = ValidGemm().shared_mem(limit + 1).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), StrCat("launch gemm: ", limit + 1,
                                " bytes of dynamic shared memory requested, the device "
                                "allows at most ",
                                limit, " per block"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(KernelLaunchTest, SharedMemoryAtLimitIsAccepted) {
  EXPECT_TRUE(ValidGemm().shared_mem(gpu_.device_info().shared_mem_per_block_optin).launch().ok());
  EXPECT_EQ(gpu_.launch_count(), 1u);
}

TEST_F(KernelLaunchTest, ArgumentValuesAreCopiedIntoTheBuilder) {
  KernelLaunch l(gpu_, gemm_);
  {
    uint32_t m = 7;
    l.grid({1, 1, 1}).block({32, 1, 1}).arg_ptr(buffer_).arg_ptr(buffer_).arg_ptr(buffer_);
    l.arg_u32(m).arg_u32(8).arg_u32(9);
    m = 100;  // changing the source after the append changes nothing
  }
  ASSERT_TRUE(l.launch().ok());
  using namespace mock;  // NOLINT: matchers
  EXPECT_THAT(gpu_.launches(), ::testing::ElementsAre(ArgU32At(3, 7)));
}

TEST_F(KernelLaunchTest, ByValueStructArgumentIsPassedWhole) {
  auto kernel = gpu_.GetKernel(ModuleHandle{1}, "with_map");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::array<std::byte, 128> map{};
  for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<std::byte>(i);
  ASSERT_TRUE(KernelLaunch(gpu_, *kernel)
                  .grid({1, 1, 1})
                  .block({1, 1, 1})
                  .arg_bytes(map)
                  .arg_u32(3)
                  .launch()
                  .ok());
  const auto records = gpu_.launches();
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].args[0].bytes.size(), 128u);
  EXPECT_TRUE(std::equal(map.begin(), map.end(), records[0].args[0].bytes.begin()));
  EXPECT_EQ(records[0].args[1].u32(), 3u);
}

TEST_F(KernelLaunchTest, PointerOutsideAnyAllocationIsRefusedByTheMock) {
  KernelLaunch l(gpu_, gemm_);
  l.grid({1, 1, 1}).block({32, 1, 1}).arg_ptr(buffer_).arg_ptr(DevicePtr(0x1234)).arg_ptr(buffer_);
  l.arg_u32(1).arg_u32(1).arg_u32(1);
  absl::Status s = l.launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("launch gemm argument #1 (b)"),
                                 HasSubstr("0x1234 is not inside any allocation")));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

}  // namespace
}  // namespace gpuops

namespace gpuops {
namespace {

TEST(ArithmeticTest, CeilDivIsExactForEveryThirtyTwoBitValue) {
  EXPECT_EQ(CeilDiv(0xFFFFFFFFu, 16), 0x10000000u);
  EXPECT_EQ(CeilDiv(0xFFFFFFFFu, 1), 0xFFFFFFFFu);
  EXPECT_EQ(CeilDiv(0xFFFFFFF1u, 0xFFFFFFF0u), 2u);
  EXPECT_EQ(CeilDiv(0u, 7), 0u);
  EXPECT_EQ(CeilDiv64(UINT64_MAX, 2), uint64_t{1} << 63);
  EXPECT_EQ(AlignUp(17, 16), 32u);
}

TEST(StrictParseTest, ParseDecimalTakesPlainDecimalsOnly) {
  uint32_t v = 0;
  EXPECT_TRUE(ParseDecimal(std::string_view("4096"), &v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(ParseDecimal(std::string_view("0"), &v));
  for (std::string_view bad : {"010", "0x10", "-5", "+5", "12abc", "", " 1", "4294967296"}) {
    EXPECT_FALSE(ParseDecimal(bad, &v)) << bad;
  }
}

TEST(DeviceSpanTest, SlicesStayInsideTheSpanAndUncheckedSpansStayUnchecked) {
  const DeviceSpan span(DevicePtr(0x1000), 256);
  auto slice = span.Slice(16, 64);
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(*slice, DeviceSpan(DevicePtr(0x1010), 64));
  EXPECT_EQ(span.Slice(200, 64).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(span.Slice(UINT64_MAX, 2).status().code(), absl::StatusCode::kOutOfRange);
  auto unchecked = DeviceSpan::Unchecked(DevicePtr(0x2000)).Slice(8, 4);
  ASSERT_TRUE(unchecked.ok());
  EXPECT_TRUE(unchecked->unchecked());
  EXPECT_EQ(unchecked->ptr(), DevicePtr(0x2008));
}

}  // namespace
}  // namespace gpuops
