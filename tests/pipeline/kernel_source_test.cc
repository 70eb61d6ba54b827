// gpuops_sigtool's reading of parameter names from CUDA sources.
#include "kernel_source.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuops::sigtool {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(KernelSourceTest, ReadsNamesThroughAttributesTemplatesAndComments) {
  constexpr std::string_view kSource = R"(
#include <cstdint>
#define UNUSED(x) (void)x
// extern "C" __global__ void commented_out(int a) {}
/* __global__ void also_commented(int b) {} */
template <int N> __device__ void helper(int x) {}
extern "C" __global__ void __launch_bounds__(128, 1)
    first(const float* __restrict__ a, Tile<64, 32> tile, unsigned int n,
          const __grid_constant__ CUtensorMap map, float s[4]) {
  helper<1>(n);
}
extern "C" __global__ void none() {}
extern "C" __global__ void void_params(void) {}
__global__ void declared_only(int q);
)";
  auto kernels = ParseKernelParamNames(kSource, "x.cu");
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  EXPECT_THAT(*kernels,
              ElementsAre(Pair("first", ElementsAre("a", "tile", "n", "map", "s")),
                          Pair("none", ElementsAre()), Pair("void_params", ElementsAre())));
}

TEST(KernelSourceTest, UnnamedParameterIsAnErrorWithItsLine) {
  auto kernels = ParseKernelParamNames("\n\n__global__ void k(int a, float) {}\n", "y.cu");
  EXPECT_EQ(kernels.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kernels.status().message(),
              HasSubstr("y.cu:3: __global__ function: k: parameter #1 has no name"));
}

}  // namespace
}  // namespace gpuops::sigtool
