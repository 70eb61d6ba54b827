// Fast, seeded random test data. Every run draws fresh data from a printed seed; the same seed
// reproduces it exactly, whatever the thread count.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace gpuops::verify {

// splitmix64: a tiny generator with good statistics, cheap enough for gigabytes of data.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  float Uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
  }

 private:
  uint64_t state_;
};

// BF16 values uniform in [lo, hi): element i depends only on (seed, i). Large spans are filled
// by several threads.
void FillRandomBf16(absl::Span<uint16_t> out, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// A seed for this run: GPUOPS_SEED when set (to reproduce a failure; a plain decimal, else
// kInvalidArgument), else fresh entropy.
absl::StatusOr<uint64_t> RunSeed();

}  // namespace gpuops::verify
