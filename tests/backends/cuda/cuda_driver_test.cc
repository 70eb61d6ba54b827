// Without a usable driver the CUDA backend is kUnavailable and says which paths it tried and why.
// GPUOPS_CUDA_DRIVER is set before anything loads the driver (the result is cached per process),
// so this is its own executable.
#include <cstdlib>

#include "gmock/gmock.h"
#include "gpuops/backends/default_registry.h"
#include "gpuops/cuda/cuda_backend.h"
#include "gpuops/cuda/driver_api.h"
#include "gtest/gtest.h"

namespace gpuops::cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudaDriverTest, MissingDriverIsUnavailableNamingThePathTried) {
  setenv(kDriverPathEnvVar, "/nonexistent/libcuda.so.1", 1);
  absl::Status probe = ProbeCuda();
  EXPECT_EQ(probe.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(probe.message(), HasSubstr("/nonexistent/libcuda.so.1: "));
  EXPECT_THAT(probe.message(), HasSubstr("No such file"));
  auto backend = CreateCudaBackend();
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kUnavailable);
  // `auto` then falls back to the mock.
  unsetenv("GPUOPS_BACKEND");
  auto resolved = DefaultBackendRegistry().ResolveAuto();
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, "mock");
}

}  // namespace
}  // namespace gpuops::cuda
