// The host E4M3 codec (gpuops/runtime/e4m3.h): every byte round-trips, rounding and saturation.
#include "gpuops/runtime/e4m3.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuops {
namespace {

TEST(E4m3Test, EveryByteDecodesAndEncodesBack) {
  for (int b = 0; b < 256; ++b) {
    const auto byte = static_cast<uint8_t>(b);
    const float v = E4m3ToFloat(byte);
    if ((byte & 0x7f) == 0x7f) {
      EXPECT_TRUE(std::isnan(v)) << b;
      continue;
    }
    EXPECT_EQ(FloatToE4m3(v), byte) << b << " = " << v;
  }
  EXPECT_EQ(E4m3ToFloat(0x7e), 448.0f);
  EXPECT_EQ(E4m3ToFloat(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(E4m3ToFloat(0x08), std::ldexp(1.0f, -6));  // the smallest normal
}

TEST(E4m3Test, RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(FloatToE4m3(500.0f), 0x7e);
  EXPECT_EQ(FloatToE4m3(-1e30f), 0xfe);
  EXPECT_EQ(FloatToE4m3(INFINITY), 0x7e);
  EXPECT_EQ(FloatToE4m3(NAN), 0x7f);
  EXPECT_EQ(FloatToE4m3(std::ldexp(1.0f, -10)), 0x00) << "tie between 0 and 2^-9: even";
  EXPECT_EQ(FloatToE4m3(std::ldexp(3.0f, -10)), 0x02) << "tie between 2^-9 and 2^-8: even";
  EXPECT_EQ(FloatToE4m3(1.0625f), 0x38) << "tie between 1 and 1.125: even";
  EXPECT_EQ(FloatToE4m3(1.1875f), 0x3a) << "tie between 1.125 and 1.25: even";
  EXPECT_EQ(FloatToE4m3(1.07f), 0x39);
}

}  // namespace
}  // namespace gpuops
