// A team's own kernel and launcher, tested the way gpuops tests its own: on the recording mock,
// with no GPU. The kernel's compiled parameter list comes from its signatures line (what
// gpuops_sigtool writes from the real fatbin); the test checks the launch contract (grid, block,
// each argument) with gpuops' gMock matchers, and runs a host emulation of the kernel to catch
// a launcher whose grid does not cover the output.
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/typed_kernel.h"
#include "gtest/gtest.h"

namespace team {

using gpuops::DevicePtr;

// The team's kernel: y[i] = a * x[i] + y[i], 256 threads per block, N-element vectors.
constexpr std::string_view kSignatures = R"(arch sm_90a
team_axpy sm_90a y:0:8 x:8:8 a:16:4 n:20:4
)";
GPUOPS_KERNEL_ARGS(AxpyArgs, (DevicePtr, y), (DevicePtr, x), (float, a), (uint32_t, n));

// The team's launcher under test.
absl::Status Axpy(gpuops::GpuBackend& gpu, const gpuops::TypedKernel<AxpyArgs>& kernel, DevicePtr y,
                  DevicePtr x, float a, uint32_t n) {
  return kernel
      .Launch(gpu, {{gpuops::CeilDiv(n, 256), 1, 1}, {256, 1, 1}, 0},
              {.y = y, .x = x, .a = a, .n = n})
      .launch();
}

// What each block of the kernel computes, for the mock to execute.
absl::Status HostAxpy(const gpuops::HostLaunch& l, gpuops::HostMemory& mem) {
  auto args = l.Unpack<AxpyArgs>();
  if (!args.ok()) return args.status();
  auto y = mem.View<float>(args->y, args->n, gpuops::ArgLabel(&AxpyArgs::y));
  auto x = mem.View<float>(args->x, args->n, gpuops::ArgLabel(&AxpyArgs::x));
  if (!y.ok()) return y.status();
  if (!x.ok()) return x.status();
  for (uint64_t b = 0; b < l.grid().x; ++b) {
    for (uint64_t t = 0; t < l.block().x; ++t) {
      const uint64_t i = b * 256 + t;
      if (i < args->n) (*y)[i] = std::fma(args->a, (*x)[i], (*y)[i]);
    }
  }
  return absl::OkStatus();
}

class AxpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu_.RegisterHostKernel("team_axpy", HostAxpy);
    auto module = gpu_.LoadModule(gpuops::mock::DescribeModule("team", kSignatures));
    ASSERT_TRUE(module.ok()) << module.status();
    auto bound = gpuops::TypedKernel<AxpyArgs>::Bind(*gpu_.GetKernel(*module, "team_axpy"));
    ASSERT_TRUE(bound.ok()) << bound.status();
    kernel_ = *bound;
  }
  gpuops::mock::RecordingBackend gpu_;
  gpuops::TypedKernel<AxpyArgs> kernel_;
};

TEST_F(AxpyTest, LaunchesOneBlockPer256ElementsWithItsArgumentsInOrder) {
  auto y = gpuops::DeviceBuffer::FromHost<float>(gpu_, std::vector<float>(1000, 1.0f));
  auto x = gpuops::DeviceBuffer::FromHost<float>(gpu_, std::vector<float>(1000, 2.0f));
  ASSERT_TRUE(y.ok() && x.ok());
  ASSERT_TRUE(Axpy(gpu_, kernel_, y->ptr(), x->ptr(), 0.5f, 1000).ok());
  using namespace gpuops::mock;  // NOLINT: the matchers
  EXPECT_THAT(gpu_.launches(), ::testing::ElementsAre(Launch(
                                   KernelNamed("team_axpy"), GridIs(4, 1, 1), BlockIs(256, 1, 1),
                                   ArgPtrAt(0, y->ptr()), ArgPtrAt(1, x->ptr()), ArgF32At(2, 0.5f),
                                   ArgU32At(3, 1000))));
  // The mock ran the emulation: every element was written.
  EXPECT_THAT(*y->ToHost<float>(), ::testing::Each(2.0f));
}

TEST_F(AxpyTest, ALaunchThatDoesNotMatchTheCompiledKernelNeverRuns) {
  auto y = gpuops::DeviceBuffer::Allocate(gpu_, 64);
  ASSERT_TRUE(y.ok());
  absl::Status s = gpuops::KernelLaunch(gpu_, kernel_.handle())
                       .grid({1, 1, 1})
                       .block({256, 1, 1})
                       .arg_ptr(y->ptr())
                       .arg_ptr(y->ptr())
                       .arg_f32(1.0f)
                       .launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("missing #3 n, 4 bytes"));
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

}  // namespace team
