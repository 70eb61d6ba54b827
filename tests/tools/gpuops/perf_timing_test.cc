// `gpuops perf`'s TimeInterleaved on the mock: every call gets its own copy index across all the
// interleaved functions (so ours and cuBLAS, which share weight copies, never read the copy the
// other just read), the functions' samples alternate, and an error stops the timing.
#include "perf_timing.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gtest/gtest.h"

namespace gpuops::tools {
namespace {

using ::testing::HasSubstr;

struct Call {
  int fn;
  int index;
};

TEST(PerfTimingTest, EveryCallReadsADifferentCopyAcrossTheInterleavedFunctions) {
  mock::RecordingBackend gpu;
  std::vector<Call> calls;
  std::vector<std::function<absl::Status(int)>> fns;
  for (int f = 0; f < 3; ++f) {
    fns.push_back([&calls, f](int i) {
      calls.push_back({f, i});
      return absl::OkStatus();
    });
  }
  constexpr int kSamples = 4;
  constexpr int kBatch = 2;
  auto timings = TimeInterleaved(gpu, kSamples, kBatch, fns);
  ASSERT_TRUE(timings.ok()) << timings.status();
  ASSERT_EQ(timings->size(), 3u);
  for (const Timing& t : *timings) EXPECT_FALSE(std::isnan(t.ms));

  ASSERT_EQ(calls.size(), size_t{3} * (kWarmupCalls + kSamples * kBatch));
  // One counter: the indices run 0, 1, 2, ... in call order, whichever function makes the call,
  // so no call reads the copy the call before it (another function's) read.
  for (size_t c = 0; c < calls.size(); ++c) EXPECT_EQ(calls[c].index, static_cast<int>(c));
  // Warm-up: kWarmupCalls of each function in turn.
  for (int c = 0; c < 3 * kWarmupCalls; ++c) EXPECT_EQ(calls[c].fn, c / kWarmupCalls);
  // Samples: kBatch calls of fns[0], then of fns[1], then fns[2], repeated.
  for (size_t c = 3 * kWarmupCalls; c < calls.size(); ++c) {
    EXPECT_EQ(calls[c].fn, static_cast<int>((c - 3 * kWarmupCalls) / kBatch % 3)) << "call " << c;
  }
}

TEST(PerfTimingTest, AFunctionsErrorIsReturnedAndStopsTheTiming) {
  mock::RecordingBackend gpu;
  int calls_after_error = 0;
  bool failed = false;
  std::vector<std::function<absl::Status(int)>> fns = {
      [&](int) {
        if (failed) ++calls_after_error;
        return absl::OkStatus();
      },
      [&](int i) {
        if (i == kWarmupCalls + 1) {
          failed = true;
          return absl::InternalError("cuBLASLt matmul: launch failed");
        }
        return absl::OkStatus();
      }};
  auto timings = TimeInterleaved(gpu, 10, 1, fns);
  ASSERT_FALSE(timings.ok());
  EXPECT_THAT(timings.status().message(), HasSubstr("cuBLASLt matmul"));
  EXPECT_EQ(calls_after_error, 0);
}

TEST(PerfTimingTest, SummarizeTakesTheMedianAndTheSpreadOfTheHalves) {
  // Halves {1, 2, 3} and {5, 6, 7}: median of all 4, of the halves 2 and 6, spread |2 - 6| / 4.
  const Timing t = Summarize({1, 2, 3, 5, 6, 7});
  EXPECT_DOUBLE_EQ(t.ms, 4.0);
  EXPECT_DOUBLE_EQ(t.spread, 1.0);
  EXPECT_TRUE(std::isnan(Summarize({}).ms));
}

}  // namespace
}  // namespace gpuops::tools
