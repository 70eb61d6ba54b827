// The example family's launch contract on the mock: one block per 256 elements.
#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gtest/gtest.h"
#include "ops/example/example_scale.h"

namespace gpuops::ops::example {
namespace {

TEST(ExampleScaleTest, LaunchesOneBlockPer256Elements) {
  mock::RecordingBackend gpu(mock::RecordingBackend::Options{.execute_host_kernels = false});
  auto op = ExampleScale::Load(gpu);
  auto buf = gpu.Alloc(4096);
  ASSERT_TRUE(op.ok() && buf.ok()) << op.status();
  ASSERT_TRUE(op->Run(*buf, *buf, 2.0f, 1000).ok());
  using namespace mock;  // NOLINT: matchers
  EXPECT_THAT(gpu.launches(), ::testing::ElementsAre(Launch(KernelNamed("example_scale_bf16"),
                                                            GridIs(4, 1, 1), BlockIs(256, 1, 1),
                                                            ArgF32At(2, 2.0f), ArgU32At(3, 1000))));
  EXPECT_EQ(op->Run(*buf, *buf, 2.0f, 0).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpuops::ops::example
