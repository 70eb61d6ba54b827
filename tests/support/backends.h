// Backends for tests that run once per backend: "mock" always; "cuda" where a driver and GPU
// exist (otherwise the test skips, printing why); "hip" through the runtime GPUOPS_HIP_RUNTIME
// names, which test builds point at the stand-in runtime (tests/backends/hip/standin) unless it
// is set already (a machine with an AMD GPU sets it to its libamdhip64.so). Tests that launch our
// kernels take KernelBackendNames: "cuda" only in builds that embed fatbins (GPUOPS_HAS_FATBINS,
// the cuda preset), so a build without them has no CUDA kernel tests instead of ones that skip on a
// GPU.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gpuops/cuda/cuda_backend.h"
#include "gpuops/hip/hip_backend.h"
#include "gpuops/hip/runtime_api.h"
#include "gpuops/mock/recording_backend.h"
#include "gtest/gtest.h"

namespace gpuops::testing {

inline std::vector<std::string> AllBackendNames() { return {"mock", "cuda", "hip"}; }

// The HIP runtime tests load: GPUOPS_HIP_RUNTIME when set, else the stand-in this build made.
inline void UseHipStandInUnlessSet() {
#ifdef GPUOPS_HIP_STANDIN
  setenv(hip::kRuntimePathEnvVar, GPUOPS_HIP_STANDIN, /*overwrite=*/0);
#endif
}

inline std::vector<std::string> KernelBackendNames() {
#ifdef GPUOPS_HAS_FATBINS
  return {"mock", "cuda"};
#else
  return {"mock"};
#endif
}

inline absl::StatusOr<std::unique_ptr<GpuBackend>> MakeBackend(const std::string& name) {
  if (name == "mock") return std::unique_ptr<GpuBackend>(new mock::RecordingBackend());
  if (name == "cuda") return cuda::CreateCudaBackend(0);
  if (name == "hip") {
    UseHipStandInUnlessSet();
    return hip::CreateHipBackend(0);
  }
  return absl::NotFoundError("unknown backend " + name);
}

// In a fixture's SetUp: `GPUOPS_CREATE_OR_SKIP(gpu_, GetParam());`
#define GPUOPS_CREATE_OR_SKIP(target, name)                                                        \
  do {                                                                                             \
    auto gpuops_made_ = ::gpuops::testing::MakeBackend(name);                                      \
    if (!gpuops_made_.ok() && gpuops_made_.status().code() == absl::StatusCode::kUnavailable) {    \
      GTEST_SKIP() << "backend " << (name) << " unavailable: " << gpuops_made_.status().message(); \
    }                                                                                              \
    ASSERT_TRUE(gpuops_made_.ok()) << gpuops_made_.status();                                       \
    target = *std::move(gpuops_made_);                                                             \
  } while (false)

// A mock that records and validates launches without executing them (contract tests).
inline mock::RecordingBackend::Options RecordOnly() {
  mock::RecordingBackend::Options o;
  o.execute_host_kernels = false;
  return o;
}

inline std::string BackendParamName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace gpuops::testing
