// A faulting kernel poisons the CUDA backend: the fault surfaces as kInternal and every later
// call reports the poisoned state instead of a cascade of unrelated errors. Its own executable:
// the fault ruins the process's CUDA context for anything that runs after it.
#include "gmock/gmock.h"
#include "gpuops/cuda/cuda_backend.h"
#include "gtest/gtest.h"
#include "ops/testkit/testkit.h"
#include "tests/support/backends.h"

namespace gpuops::cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudaFaultTest, IllegalAddressIsInternalAndPoisonsTheBackend) {
  std::unique_ptr<GpuBackend> gpu;
  GPUOPS_CREATE_OR_SKIP(gpu, "cuda");
  auto testkit = ops::testkit::TestKernels::Load(*gpu);
  ASSERT_TRUE(testkit.ok()) << testkit.status();
  // An address no allocation covers: the store faults on the device.
  ASSERT_TRUE(testkit->StoreU64(DeviceSpan::Unchecked(DevicePtr(0x10)), 1).ok())
      << "launches are asynchronous";
  absl::Status fault = gpu->Synchronize();
  EXPECT_EQ(fault.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(fault.message(), HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS (700)"));
  std::printf("fault: %s\n", std::string(fault.message()).c_str());

  auto alloc = gpu->Alloc(64);
  EXPECT_EQ(alloc.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(alloc.status().message(), HasSubstr("poisoned by an earlier device fault"));
  EXPECT_THAT(alloc.status().message(), HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS"));
  absl::Status launch = testkit->Noop();
  EXPECT_EQ(launch.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(launch.message(), HasSubstr("poisoned"));
  std::printf("next call: %s\n", std::string(alloc.status().message()).c_str());
}

}  // namespace
}  // namespace gpuops::cuda
