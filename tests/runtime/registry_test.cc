#include "gpuops/runtime/registry.h"

#include <cstdlib>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

using ::testing::HasSubstr;

BackendFactory Factory(std::string name, absl::Status availability, int priority) {
  return BackendFactory{
      .name = name,
      .probe = [availability] { return availability; },
      .create = [availability]() -> absl::StatusOr<std::unique_ptr<GpuBackend>> {
        if (!availability.ok()) return availability;
        return std::make_unique<mock::RecordingBackend>();
      },
      .auto_priority = priority,
  };
}

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv(std::string(kBackendEnvVar).c_str());
    ASSERT_TRUE(registry_.Register(Factory("mock", absl::OkStatus(), 100)).ok());
    ASSERT_TRUE(
        registry_.Register(Factory("cuda", absl::UnavailableError("no libcuda.so.1"), 0)).ok());
  }
  void TearDown() override { unsetenv(std::string(kBackendEnvVar).c_str()); }
  BackendRegistry registry_;
};

TEST(RegistryServedTest, AutoPassesOverABackendThisBuildCannotServeAndSaysWhy) {
  unsetenv(std::string(kBackendEnvVar).c_str());
  BackendRegistry registry;
  BackendFactory gpu = Factory("cuda", absl::OkStatus(), 0);
  gpu.served = [] { return absl::FailedPreconditionError("this build embeds no CUDA kernels"); };
  ASSERT_TRUE(registry.Register(std::move(gpu)).ok());
  ASSERT_TRUE(registry.Register(Factory("mock", absl::OkStatus(), 100)).ok());
  std::vector<std::string> passed_over;
  auto name = registry.ResolveAuto(&passed_over);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "mock");
  EXPECT_THAT(passed_over, ::testing::ElementsAre("cuda: this build embeds no CUDA kernels"));
  EXPECT_TRUE(registry.Probe("cuda").ok()) << "the backend itself is available";
  EXPECT_EQ(registry.Served("cuda").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(registry.Create("cuda").ok()) << "naming it still creates it";
  EXPECT_TRUE(registry.Served("mock").ok());
}

TEST_F(RegistryTest, AutoSkipsUnavailableBackendsInPriorityOrder) {
  auto name = registry_.ResolveAuto();
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "mock");
  auto gpu = registry_.Create("auto");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ((*gpu)->name(), "mock");
}

TEST_F(RegistryTest, AutoPicksTheFirstAvailable) {
  BackendRegistry r;
  ASSERT_TRUE(r.Register(Factory("mock", absl::OkStatus(), 100)).ok());
  ASSERT_TRUE(r.Register(Factory("fast", absl::OkStatus(), 0)).ok());
  EXPECT_EQ(*r.ResolveAuto(), "fast");
}

TEST_F(RegistryTest, EnvironmentOverridesAuto) {
  setenv(std::string(kBackendEnvVar).c_str(), "cuda", 1);
  EXPECT_EQ(*registry_.ResolveAuto(), "cuda");
  auto gpu = registry_.Create("auto");
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(gpu.status().message(), HasSubstr("no libcuda.so.1"));
}

TEST_F(RegistryTest, EnvironmentNamingNoBackendIsAnError) {
  setenv(std::string(kBackendEnvVar).c_str(), "tpu", 1);
  auto name = registry_.ResolveAuto();
  EXPECT_EQ(name.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(name.status().message(), HasSubstr("GPUOPS_BACKEND=tpu names no backend"));
}

TEST_F(RegistryTest, UnknownNameIsNotFoundAndListsKnownOnes) {
  auto gpu = registry_.Create("opencl");
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(gpu.status().message(), HasSubstr("known: cuda, mock, auto"));
}

TEST_F(RegistryTest, DuplicateAndReservedNamesAreRefused) {
  EXPECT_EQ(registry_.Register(Factory("mock", absl::OkStatus(), 1)).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry_.Register(Factory("auto", absl::OkStatus(), 1)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(RegistryTest, NoAvailableBackendSaysWhy) {
  BackendRegistry r;
  ASSERT_TRUE(r.Register(Factory("cuda", absl::UnavailableError("no driver"), 0)).ok());
  auto name = r.ResolveAuto();
  EXPECT_EQ(name.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(name.status().message(), HasSubstr("cuda: no driver"));
}

}  // namespace
}  // namespace gpuops

namespace gpuops {
namespace {

// The registry's const methods from several threads at once, each thread then using the backend
// it created (registry.h's contract).
TEST(RegistryConcurrencyTest, SeveralThreadsResolveCreateAndUseBackendsAtOnce) {
  BackendRegistry registry;
  ASSERT_TRUE(
      registry
          .Register(BackendFactory{.name = "mock",
                                   .probe = [] { return absl::OkStatus(); },
                                   .create = []() -> absl::StatusOr<std::unique_ptr<GpuBackend>> {
                                     return std::make_unique<mock::RecordingBackend>();
                                   }})
          .ok());
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> created(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto name = registry.ResolveAuto();
        auto gpu = registry.Create("auto");
        if (!name.ok() || *name != "mock" || !gpu.ok() || !registry.Probe("mock").ok()) return;
        if (!(*gpu)->Alloc(64).ok()) return;
        ++created[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_THAT(created, ::testing::Each(50));
}

}  // namespace
}  // namespace gpuops
