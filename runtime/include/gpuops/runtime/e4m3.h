// FP8 E4M3 (fn) on the host: 1 sign, 4 exponent (bias 7) and 3 mantissa bits; largest finite 448,
// subnormals down to 2^-9, no infinity, 0x7F / 0xFF NaN. Every value is exact in BF16 and float.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gpuops {

inline constexpr float kE4m3Max = 448.0f;

inline bool E4m3IsNan(uint8_t byte) { return (byte & 0x7f) == 0x7f; }

inline float E4m3ToFloat(uint8_t byte) {
  if (E4m3IsNan(byte)) return std::nanf("");
  const uint32_t exponent = (byte >> 3) & 0xf;
  const uint32_t mantissa = byte & 7;
  const float magnitude = exponent == 0
                              ? std::ldexp(static_cast<float>(mantissa), -9)
                              : std::ldexp(1.0f + mantissa / 8.0f, static_cast<int>(exponent) - 7);
  return (byte & 0x80) != 0 ? -magnitude : magnitude;
}

// The nearest E4M3 value to `x`, ties to even; magnitudes beyond 448 (and infinities) saturate
// to ±448, NaN gives 0x7F.
inline uint8_t FloatToE4m3(float x) {
  if (std::isnan(x)) return 0x7f;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const float a = std::fabs(x);
  if (a >= kE4m3Max) return sign | 0x7e;
  // The spacing of E4M3 values around `a`: 2^(e - 3) in binade [2^e, 2^(e+1)), 2^-9 below 2^-6.
  int e = 0;
  std::frexp(a, &e);
  const int binade = std::max(e - 1, -6);
  const float quantum = std::ldexp(1.0f, binade - 3);
  const float r = std::nearbyint(a / quantum) * quantum;  // ties to even; exact division
  if (r == 0.0f) return sign;
  std::frexp(r, &e);
  if (e - 1 < -6) return sign | static_cast<uint8_t>(std::ldexp(r, 9));  // subnormal
  const int exponent = e - 1;
  const auto mantissa = static_cast<uint8_t>((std::ldexp(r, -exponent) - 1.0f) * 8.0f);
  return sign | static_cast<uint8_t>((exponent + 7) << 3) | mantissa;
}

}  // namespace gpuops
