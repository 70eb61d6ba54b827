// `gpuops perf`'s timing: event-timed samples of several functions, interleaved, and their
// medians.
#pragma once

#include <cmath>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"

namespace gpuops::tools {

// Untimed calls of each function before its samples.
inline constexpr int kWarmupCalls = 5;

// A timing: the median milliseconds per call, and how far the median of the first half of the
// samples lies from the second half's, relative to the median.
struct Timing {
  double ms = NAN;
  double spread = NAN;
};

// The median of `samples` and its spread; NaN for no samples.
Timing Summarize(const std::vector<float>& samples);

// Times each of `fns` over `samples` event-timed samples of `batch` back-to-back calls each, the
// functions' samples interleaved (fns[0], fns[1], fns[0], ...), after kWarmupCalls untimed calls
// of each. Per call. fn(i) makes a call that reads the weight copy i % copies.
// One call counter runs across all the functions, so each i is passed once: the functions that
// share weight copies (ours and cuBLAS) never read the copy another has just read. With a counter
// per function, cuBLAS's i-th call read the copy ours had read one call before, still in the L2
// wherever the weight fits there (on an H100 the same kernel timed second in its row ran up to
// 1.4x faster than timed first: bench/NOTES.md, session 31).
absl::StatusOr<std::vector<Timing>> TimeInterleaved(
    GpuBackend& gpu, int samples, int batch,
    const std::vector<std::function<absl::Status(int)>>& fns);

}  // namespace gpuops::tools
