// BF16 on the host: FP32 with the low 16 bits dropped after round-to-nearest-even; NaN stays NaN.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpuops {

inline float Bf16ToFloat(uint16_t bits) {
  const uint32_t u = uint32_t{bits} << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline uint16_t FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // quiet
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

inline bool Bf16IsNan(uint16_t bits) { return (bits & 0x7fffu) > 0x7f80u; }

// The distance between `x` (a BF16 value, as float) and the next BF16 value away from zero.
inline float Bf16Ulp(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  const uint32_t exponent = (u >> 23) & 0xffu;
  // BF16 keeps 7 mantissa bits: one ulp is 2^(e - 127 - 7); subnormals share the smallest one.
  const int e = exponent == 0 ? 1 : static_cast<int>(exponent);
  return std::ldexp(1.0f, e - 127 - 7);
}

}  // namespace gpuops
