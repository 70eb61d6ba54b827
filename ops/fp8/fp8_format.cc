#include "ops/fp8/fp8_format.h"

#include <cmath>
#include <new>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::ops::fp8 {
namespace {

absl::Status ValidateShape(uint32_t n, uint32_t k) {
  if (n == 0 || k == 0 || k % kBlock != 0) {
    return absl::InvalidArgumentError(StrCat("fp8 weight: n=", n, " k=", k,
                                             ": n must be positive and k a positive multiple "
                                             "of ", kBlock, " (the block-scale granularity)"));
  }
  return absl::OkStatus();
}

// `v` resized to `size` elements; kResourceExhausted instead of an exception when the host
// cannot hold it.
template <typename T>
absl::Status Resize(std::vector<T>& v, uint64_t size, std::string_view what) {
  try {
    v.resize(size);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        StrCat("fp8 weight: cannot hold ", size, " elements of ", what, " on the host"));
  } catch (const std::length_error&) {
    return absl::ResourceExhaustedError(
        StrCat("fp8 weight: cannot hold ", size, " elements of ", what, " on the host"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Validate(const Fp8BlockWeight& w) {
  GPUOPS_RETURN_IF_ERROR(ValidateShape(w.n, w.k));
  const uint64_t elements = uint64_t{w.n} * w.k;
  const uint64_t scales = uint64_t{ScaleRows(w.n)} * (w.k / kBlock);
  if (w.weight.size() != elements) {
    return absl::InvalidArgumentError(StrCat("fp8 weight: weight holds ", w.weight.size(),
                                             " bytes, n=", w.n, " x k=", w.k, " needs ",
                                             elements));
  }
  if (w.block_scale.size() != scales) {
    return absl::InvalidArgumentError(StrCat("fp8 weight: block_scale holds ",
                                             w.block_scale.size(), " floats, ceil(n/128)=",
                                             ScaleRows(w.n), " x k/128=", w.k / kBlock,
                                             " needs ", scales));
  }
  for (uint64_t i = 0; i < elements; ++i) {
    if (E4m3IsNan(w.weight[i])) {
      return absl::InvalidArgumentError(StrCat("fp8 weight: weight[", i / w.k, ", ", i % w.k,
                                               "] is the E4M3 NaN code 0x",
                                               Hex(w.weight[i])));
    }
  }
  for (uint64_t i = 0; i < scales; ++i) {
    if (!std::isfinite(w.block_scale[i]) || w.block_scale[i] < 0) {
      return absl::InvalidArgumentError(StrCat("fp8 weight: block_scale[", i / (w.k / kBlock),
                                               ", ", i % (w.k / kBlock), "] = ",
                                               w.block_scale[i],
                                               " is not a finite non-negative scale"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Fp8BlockWeight> QuantizeFp8Block(absl::Span<const uint16_t> bf16, uint32_t n,
                                                uint32_t k) {
  GPUOPS_RETURN_IF_ERROR(ValidateShape(n, k));
  const uint64_t elements = uint64_t{n} * k;
  if (bf16.size() != elements) {
    return absl::InvalidArgumentError(StrCat("QuantizeFp8Block: ", bf16.size(),
                                             " BF16 values given, n=", n, " x k=", k,
                                             " needs ", elements));
  }
  for (uint64_t i = 0; i < elements; ++i) {
    if (!std::isfinite(Bf16ToFloat(bf16[i]))) {
      return absl::InvalidArgumentError(StrCat("QuantizeFp8Block: element [", i / k, ", ",
                                               i % k, "] is ", Bf16ToFloat(bf16[i]),
                                               ": only finite values quantize"));
    }
  }
  Fp8BlockWeight w{.n = n, .k = k};
  GPUOPS_RETURN_IF_ERROR(Resize(w.weight, elements, "E4M3 weight"));
  const uint32_t kblocks = k / kBlock;
  GPUOPS_RETURN_IF_ERROR(Resize(w.block_scale, uint64_t{ScaleRows(n)} * kblocks, "scales"));
  for (uint32_t br = 0; br < ScaleRows(n); ++br) {
    const uint32_t row0 = br * kBlock;
    const uint32_t rows = std::min(kBlock, n - row0);
    for (uint32_t bc = 0; bc < kblocks; ++bc) {
      float amax = 0.0f;
      for (uint32_t r = row0; r < row0 + rows; ++r) {
        for (uint32_t c = bc * kBlock; c < (bc + 1) * kBlock; ++c) {
          amax = std::max(amax, std::fabs(Bf16ToFloat(bf16[uint64_t{r} * k + c])));
        }
      }
      const float scale = amax / kE4m3Max;
      w.block_scale[uint64_t{br} * kblocks + bc] = scale;
      if (scale == 0.0f) continue;  // codes stay zero
      for (uint32_t r = row0; r < row0 + rows; ++r) {
        for (uint32_t c = bc * kBlock; c < (bc + 1) * kBlock; ++c) {
          const uint64_t i = uint64_t{r} * k + c;
          w.weight[i] = FloatToE4m3(Bf16ToFloat(bf16[i]) / scale);
        }
      }
    }
  }
  return w;
}

float BlockScale(const Fp8BlockWeight& w, uint32_t row, uint32_t col) {
  return w.block_scale[uint64_t{row / kBlock} * (w.k / kBlock) + col / kBlock];
}

double Dequantized(const Fp8BlockWeight& w, uint32_t row, uint32_t col) {
  return static_cast<double>(E4m3ToFloat(w.weight[uint64_t{row} * w.k + col])) *
         static_cast<double>(BlockScale(w, row, col));
}

std::vector<uint16_t> DequantizeToBf16(const Fp8BlockWeight& w) {
  std::vector<uint16_t> out(uint64_t{w.n} * w.k);
  for (uint32_t r = 0; r < w.n; ++r) {
    for (uint32_t c = 0; c < w.k; ++c) {
      out[uint64_t{r} * w.k + c] = FloatToBf16(static_cast<float>(Dequantized(w, r, c)));
    }
  }
  return out;
}

}  // namespace gpuops::ops::fp8
