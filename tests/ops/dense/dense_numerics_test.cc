// The dense numerics suite (verify/dense_suite.h) per backend and variant: on the mock the host
// emulations execute (cases over GPUOPS_MOCK_MAC_BUDGET multiply-adds are skipped and counted);
// on CUDA every case runs on the GPU. Each case prints one line.
#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/dense/dense_gemm.h"
#include "tests/support/backends.h"
#include "verify/dense_suite.h"
#include "verify/random.h"

namespace gpuops::verify {
namespace {

using ops::dense::Variant;

uint64_t MockBudget() {
  if (const char* env = std::getenv("GPUOPS_MOCK_MAC_BUDGET"); env != nullptr && *env != '\0') {
    return std::strtoull(env, nullptr, 0);
  }
  return uint64_t{1} << 28;
}

class DenseNumerics : public ::testing::TestWithParam<std::tuple<std::string, Variant>> {};

TEST_P(DenseNumerics, EveryShapeMeetsTheVariantsContract) {
  const auto& [backend, variant] = GetParam();
  std::unique_ptr<GpuBackend> gpu;
  GPUOPS_CREATE_OR_SKIP(gpu, backend);
  DenseSuiteOptions options;
  options.shapes = ShapeSet::kFull;
  options.include = [v = variant](Variant x) { return x == v; };
  options.mac_budget = backend == "mock" ? MockBudget() : 0;
  options.seed = RunSeed();
  std::printf("seed %llu (rerun with GPUOPS_SEED=%llu)\n",
              static_cast<unsigned long long>(options.seed),
              static_cast<unsigned long long>(options.seed));
  int ran = 0;
  int skipped = 0;
  options.on_case = [&](const DenseCaseResult& r) {
    std::printf("  %s\n", r.Describe().c_str());
    std::fflush(stdout);
    (r.skipped.empty() ? ran : skipped)++;
    EXPECT_TRUE(r.pass()) << r.Describe();
  };
  auto results = RunDenseSuite(*gpu, options);
  ASSERT_TRUE(results.ok()) << results.status();
  std::printf("%s on %s: %d cases ran, %d over the budget\n",
              std::string(ops::dense::Spec(variant).name).c_str(), backend.c_str(), ran, skipped);
  EXPECT_GT(ran, 0);
}

std::vector<std::tuple<std::string, Variant>> Params() {
  std::vector<std::tuple<std::string, Variant>> out;
  for (const std::string& b : testing::KernelBackendNames()) {
    for (const auto& s : ops::dense::kVariants) out.emplace_back(b, s.variant);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Backends, DenseNumerics, ::testing::ValuesIn(Params()),
    [](const ::testing::TestParamInfo<std::tuple<std::string, Variant>>& info) {
      return std::get<0>(info.param) + "_" +
             std::string(ops::dense::Spec(std::get<1>(info.param)).name);
    });

}  // namespace
}  // namespace gpuops::verify
