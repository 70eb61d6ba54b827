#include "ops/nvfp4/nvfp4_format.h"

#include <cmath>
#include <new>

#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/e4m3.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::ops::nvfp4 {
namespace {

constexpr float kE2m1Magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
constexpr float kE2m1Max = 6.0f;

// `v` resized to `size` zeros; kResourceExhausted instead of an exception when the host cannot
// hold it.
absl::Status ZeroFill(std::vector<uint8_t>& v, uint64_t size, std::string_view what) {
  try {
    v.assign(size, 0);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        StrCat("nvfp4: ", what, " needs ", size, " bytes of host memory, which are not available"));
  }
  return absl::OkStatus();
}

uint8_t Nibble(absl::Span<const uint8_t> packed, uint64_t index) {
  const uint8_t byte = packed[index / 2];
  return index % 2 == 0 ? byte & 0x0f : byte >> 4;
}

void SetNibble(absl::Span<uint8_t> packed, uint64_t index, uint8_t nibble) {
  uint8_t& byte = packed[index / 2];
  byte = index % 2 == 0 ? (byte & 0xf0) | nibble : (byte & 0x0f) | (nibble << 4);
}

absl::Status ValidateShape(std::string_view what, uint32_t n, uint32_t k) {
  if (n == 0 || k == 0 || k % 16 != 0) {
    return absl::InvalidArgumentError(StrCat("nvfp4: ", what, " of n=", n, " k=", k,
                                             ": needs n >= 1 and k a positive multiple of 16 "
                                             "(one scale per 16 k)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateCommon(std::string_view what, absl::Span<const uint8_t> packed,
                            uint64_t packed_bytes, absl::Span<const uint8_t> scales,
                            uint64_t scale_bytes, float global_scale) {
  if (packed.size() != packed_bytes) {
    return absl::InvalidArgumentError(StrCat("nvfp4: ", what, " packed values hold ",
                                             packed.size(), " bytes, expected ", packed_bytes));
  }
  if (scales.size() != scale_bytes) {
    return absl::InvalidArgumentError(StrCat("nvfp4: ", what, " scales hold ", scales.size(),
                                             " bytes, expected ", scale_bytes));
  }
  if (!std::isfinite(global_scale)) {
    return absl::InvalidArgumentError(
        StrCat("nvfp4: ", what, " global scale ", global_scale, " is not finite"));
  }
  for (uint64_t i = 0; i < scales.size(); ++i) {
    if (E4m3IsNan(scales[i])) {
      return absl::InvalidArgumentError(StrCat("nvfp4: ", what, " scale byte ", i, " is 0x",
                                               Hex(scales[i]), ", an E4M3 NaN"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

float E2m1ToFloat(uint8_t nibble) {
  const float magnitude = kE2m1Magnitudes[nibble & 7];
  return (nibble & 8) != 0 ? -magnitude : magnitude;
}

uint8_t FloatToE2m1(float x) {
  const float a = std::fabs(x);
  uint8_t code = 7;
  for (uint8_t i = 0; i < 7; ++i) {
    const float mid = 0.5f * (kE2m1Magnitudes[i] + kE2m1Magnitudes[i + 1]);
    if (a < mid) {
      code = i;
      break;
    }
    if (a == mid) {
      code = i % 2 == 0 ? i : i + 1;  // ties to the even code
      break;
    }
  }
  if (code == 0) return 0;
  return std::signbit(x) ? code | 8 : code;
}

absl::Status Validate(const Nvfp4Weight& w) {
  GPUOPS_RETURN_IF_ERROR(ValidateShape("weight", w.n, w.k));
  return ValidateCommon("weight", w.packed, uint64_t{w.n} * w.k / 2, w.scales,
                        uint64_t{w.n} * (w.k / 16), w.global_scale);
}

absl::Status Validate(const Nvfp4PreparedWeight& w) {
  GPUOPS_RETURN_IF_ERROR(ValidateShape("prepared weight", w.n, w.k));
  if (w.ldb < w.n || w.ldb % 2 != 0) {
    return absl::InvalidArgumentError(StrCat("nvfp4: prepared weight ldb=", w.ldb,
                                             " must be even (two values a byte) and >= n=", w.n));
  }
  return ValidateCommon("prepared weight", w.packed, uint64_t{w.k} * (w.ldb / 2), w.scales,
                        uint64_t{w.k / 16} * w.ldb, w.global_scale);
}

uint32_t DefaultLdb(uint32_t n) {
  if (n % 32 == 0) return n;
  return static_cast<uint32_t>(std::min<uint64_t>((uint64_t{n} + 127) / 128 * 128, UINT32_MAX - 1));
}

absl::StatusOr<Nvfp4PreparedWeight> Prepare(const Nvfp4Weight& w, uint32_t ldb) {
  GPUOPS_RETURN_IF_ERROR(Validate(w));
  if (ldb == 0) ldb = DefaultLdb(w.n);
  if (ldb < w.n || ldb % 2 != 0) {
    return absl::InvalidArgumentError(StrCat("nvfp4: Prepare: ldb=", ldb,
                                             " must be even (two values a byte) and >= n=", w.n));
  }
  Nvfp4PreparedWeight p{.n = w.n, .k = w.k, .ldb = ldb, .global_scale = w.global_scale};
  const uint32_t groups = w.k / 16;
  GPUOPS_RETURN_IF_ERROR(ZeroFill(p.packed, uint64_t{w.k} * (ldb / 2), "Prepare's values"));
  GPUOPS_RETURN_IF_ERROR(ZeroFill(p.scales, uint64_t{groups} * ldb, "Prepare's scales"));
  for (uint64_t row = 0; row < w.n; ++row) {
    for (uint64_t col = 0; col < w.k; ++col) {
      SetNibble(absl::MakeSpan(p.packed), col * ldb + row, Nibble(w.packed, row * w.k + col));
    }
    for (uint64_t g = 0; g < groups; ++g) p.scales[g * ldb + row] = w.scales[row * groups + g];
  }
  return p;
}

absl::StatusOr<Nvfp4Weight> Unprepare(const Nvfp4PreparedWeight& p) {
  GPUOPS_RETURN_IF_ERROR(Validate(p));
  const uint32_t groups = p.k / 16;
  for (uint64_t col = 0; col < p.k; ++col) {
    for (uint64_t row = p.n; row < p.ldb; ++row) {
      if (Nibble(p.packed, col * p.ldb + row) != 0 ||
          (col % 16 == 0 && p.scales[col / 16 * p.ldb + row] != 0)) {
        return absl::InvalidArgumentError(StrCat("nvfp4: Unprepare: pad column ", row, " of k-row ",
                                                 col, " is not zero (ldb=", p.ldb, ", n=", p.n,
                                                 ")"));
      }
    }
  }
  Nvfp4Weight w{.n = p.n, .k = p.k, .global_scale = p.global_scale};
  GPUOPS_RETURN_IF_ERROR(ZeroFill(w.packed, uint64_t{p.n} * p.k / 2, "Unprepare's values"));
  GPUOPS_RETURN_IF_ERROR(ZeroFill(w.scales, uint64_t{p.n} * groups, "Unprepare's scales"));
  for (uint64_t row = 0; row < p.n; ++row) {
    for (uint64_t col = 0; col < p.k; ++col) {
      SetNibble(absl::MakeSpan(w.packed), row * p.k + col, Nibble(p.packed, col * p.ldb + row));
    }
    for (uint64_t g = 0; g < groups; ++g) w.scales[row * groups + g] = p.scales[g * p.ldb + row];
  }
  return w;
}

absl::StatusOr<Nvfp4Weight> QuantizeNvfp4(absl::Span<const uint16_t> bf16, uint32_t n,
                                          uint32_t k) {
  GPUOPS_RETURN_IF_ERROR(ValidateShape("QuantizeNvfp4", n, k));
  if (bf16.size() != uint64_t{n} * k) {
    return absl::InvalidArgumentError(StrCat("nvfp4: QuantizeNvfp4: input holds ", bf16.size(),
                                             " values, expected n=", n, " x k=", k));
  }
  float amax = 0.0f;
  for (uint64_t i = 0; i < bf16.size(); ++i) {
    const float x = Bf16ToFloat(bf16[i]);
    if (!std::isfinite(x)) {
      return absl::InvalidArgumentError(StrCat("nvfp4: QuantizeNvfp4: element (", i / k, ", ",
                                               i % k, ") is ", x, "; only finite values quantize"));
    }
    amax = std::max(amax, std::fabs(x));
  }
  Nvfp4Weight w{.n = n, .k = k, .global_scale = amax / (kE2m1Max * kE4m3Max)};
  const uint32_t groups = k / 16;
  GPUOPS_RETURN_IF_ERROR(ZeroFill(w.packed, uint64_t{n} * k / 2, "QuantizeNvfp4's values"));
  GPUOPS_RETURN_IF_ERROR(ZeroFill(w.scales, uint64_t{n} * groups, "QuantizeNvfp4's scales"));
  if (w.global_scale == 0.0f) return w;  // all zeros (or too small for an FP32 global scale)
  for (uint64_t row = 0; row < n; ++row) {
    for (uint64_t g = 0; g < groups; ++g) {
      const uint64_t first = row * k + g * 16;
      float block_amax = 0.0f;
      for (uint64_t i = first; i < first + 16; ++i) {
        block_amax = std::max(block_amax, std::fabs(Bf16ToFloat(bf16[i])));
      }
      const uint8_t scale = FloatToE4m3(block_amax / (kE2m1Max * w.global_scale));
      w.scales[row * groups + g] = scale;
      const float step = E4m3ToFloat(scale) * w.global_scale;
      if (step == 0.0f) continue;  // the block rounds to zero
      for (uint64_t i = first; i < first + 16; ++i) {
        SetNibble(absl::MakeSpan(w.packed), i, FloatToE2m1(Bf16ToFloat(bf16[i]) / step));
      }
    }
  }
  return w;
}

float DequantizedUnscaled(const Nvfp4Weight& w, uint32_t row, uint32_t col) {
  const uint64_t i = uint64_t{row} * w.k + col;
  return E2m1ToFloat(Nibble(w.packed, i)) *
         E4m3ToFloat(w.scales[uint64_t{row} * (w.k / 16) + col / 16]);
}

float Dequantized(const Nvfp4Weight& w, uint32_t row, uint32_t col) {
  return DequantizedUnscaled(w, row, col) * w.global_scale;
}

std::vector<uint16_t> DequantizeToBf16(const Nvfp4Weight& w) {
  std::vector<uint16_t> out(uint64_t{w.n} * w.k);
  for (uint32_t row = 0; row < w.n; ++row) {
    for (uint32_t col = 0; col < w.k; ++col) {
      out[uint64_t{row} * w.k + col] = FloatToBf16(Dequantized(w, row, col));
    }
  }
  return out;
}

}  // namespace gpuops::ops::nvfp4
