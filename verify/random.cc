#include "verify/random.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/str.h"

namespace gpuops::verify {

void FillRandomBf16(absl::Span<uint16_t> out, uint64_t seed, float lo, float hi) {
  constexpr size_t kBlock = 1 << 16;  // elements per independently seeded block
  const size_t blocks = (out.size() + kBlock - 1) / kBlock;
  auto fill = [&](size_t first_block, size_t stride) {
    for (size_t blk = first_block; blk < blocks; blk += stride) {
      Rng rng(seed ^ (0x5bd1e995ull * (blk + 1)));
      const size_t end = std::min(out.size(), (blk + 1) * kBlock);
      for (size_t i = blk * kBlock; i < end; ++i) out[i] = FloatToBf16(rng.Uniform(lo, hi));
    }
  };
  const size_t threads =
      std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), (blocks + 15) / 16);
  if (threads <= 1) {
    fill(0, 1);
    return;
  }
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(fill, t, threads);
  for (auto& th : pool) th.join();
}

absl::StatusOr<uint64_t> RunSeed() {
  if (const char* env = std::getenv("GPUOPS_SEED"); env != nullptr && *env != '\0') {
    uint64_t seed = 0;
    if (!ParseDecimal(std::string_view(env), &seed)) {
      return absl::InvalidArgumentError(
          StrCat("GPUOPS_SEED='", env, "' is not a decimal integer in 0..2^64-1"));
    }
    return seed;
  }
  std::random_device rd;
  return (uint64_t{rd()} << 32) ^ rd();
}

}  // namespace gpuops::verify
