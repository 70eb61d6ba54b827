// The common family on the mock: a launch against the real compiled parameter list is refused
// when short, and the host emulations compute what the kernels do.
#include "ops/common/common_ops.h"

#include <random>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/signature_table.h"
#include "gtest/gtest.h"
#include "tests/support/device_data.h"

namespace gpuops::ops::common {
namespace {

using ::testing::HasSubstr;

class CommonOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto k = CommonKernels::Load(gpu_);
    ASSERT_TRUE(k.ok()) << k.status();
    kernels_.emplace(*std::move(k));
  }

  template <typename T>
  DeviceBuffer Upload(const std::vector<T>& host) {
    return ::gpuops::testing::UploadVector(gpu_, host);
  }
  template <typename T>
  std::vector<T> Download(const DeviceBuffer& b) {
    return ::gpuops::testing::DownloadVector<T>(b);
  }

  mock::RecordingBackend gpu_;
  std::optional<CommonKernels> kernels_;
};

TEST_F(CommonOpsTest, LaunchOneArgumentShortOfTheCompiledKernelIsRefused) {
  auto module = gpu_.LoadModule(EmbeddedModuleImage());
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = gpu_.GetKernel(*module, "common_bf16_scaled_add");
  ASSERT_TRUE(kernel.ok());
  DeviceBuffer buf = Upload(std::vector<uint16_t>(64));
  absl::Status s = KernelLaunch(gpu_, *kernel)
                       .grid({1, 1, 1})
                       .block({256, 1, 1})
                       .arg_ptr(buf.ptr())
                       .arg_ptr(buf.ptr())
                       .arg_f32(1.0f)
                       .launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "launch common_bf16_scaled_add: 3 arguments given, compiled kernel takes 4 "
            "(missing #3 n, 8 bytes)");
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

TEST_F(CommonOpsTest, ScaledAddComputesFmaThenRoundsToBf16) {
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  constexpr uint64_t kN = 5000;  // not a multiple of the 2048 elements a block covers
  std::vector<uint16_t> out(kN);
  std::vector<uint16_t> delta(kN);
  for (uint64_t i = 0; i < kN; ++i) {
    out[i] = FloatToBf16(dist(rng));
    delta[i] = FloatToBf16(dist(rng));
  }
  DeviceBuffer d_out = Upload(out);
  DeviceBuffer d_delta = Upload(delta);
  ASSERT_TRUE(kernels_->Bf16ScaledAdd(d_out.span(), d_delta.span(), 0.375f, kN).ok());
  const auto got = Download<uint16_t>(d_out);
  for (uint64_t i = 0; i < kN; ++i) {
    const uint16_t want = FloatToBf16(std::fma(0.375f, Bf16ToFloat(delta[i]), Bf16ToFloat(out[i])));
    ASSERT_EQ(got[i], want) << "element " << i;
  }
  EXPECT_EQ(gpu_.launches().at(0).grid, (Dim3{3, 1, 1}));
}

TEST_F(CommonOpsTest, FillAndCopyWriteEveryElement) {
  constexpr uint64_t kN = 4099;
  DeviceBuffer a = Upload(std::vector<uint16_t>(kN, 1));
  DeviceBuffer b = Upload(std::vector<uint16_t>(kN, 2));
  ASSERT_TRUE(kernels_->FillU16(a.span(), kBf16Poison, kN).ok());
  EXPECT_THAT(Download<uint16_t>(a), ::testing::Each(kBf16Poison));
  ASSERT_TRUE(kernels_->CopyBf16(a.span(), b.span(), kN).ok());
  EXPECT_THAT(Download<uint16_t>(a), ::testing::Each(uint16_t{2}));
}

TEST_F(CommonOpsTest, ZeroElementsLaunchNothing) {
  DeviceBuffer a = Upload(std::vector<uint16_t>(8));
  ASSERT_TRUE(kernels_->FillU16(a.span(), 1, 0).ok());
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

TEST_F(CommonOpsTest, ElementCountBeyondTheSpanIsRefusedBeforeTheLaunch) {
  const std::vector<uint16_t> ones(100, 1);
  DeviceBuffer a = Upload(ones);
  absl::Status s = kernels_->FillU16(a.span(), 2, 101);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("common_fill_u16: out holds 200 bytes, n=101 elements need 202"));
  EXPECT_EQ(gpu_.launch_count(), 0u);
  EXPECT_EQ(Download<uint16_t>(a), ones);
}

TEST_F(CommonOpsTest, ElementCountBeyondTheBufferBehindAnUncheckedSpanIsCaughtByTheMock) {
  DeviceBuffer a = Upload(std::vector<uint16_t>(100));
  absl::Status s = kernels_->FillU16(DeviceSpan::Unchecked(a.ptr()), 1, 101);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("common_fill_u16 argument #0 (out)"));
}

TEST_F(CommonOpsTest, MisalignedOrNullSpansAreRefused) {
  DeviceBuffer a = Upload(std::vector<uint16_t>(100));
  EXPECT_THAT(kernels_->CopyBf16(*a.span().Slice(1, 10), a.span(), 4).message(),
              HasSubstr("dst at 0x"));
  EXPECT_THAT(kernels_->Bf16ScaledAdd(a.span(), DeviceSpan(), 1.0f, 4).message(),
              HasSubstr("delta is null"));
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

}  // namespace
}  // namespace gpuops::ops::common
