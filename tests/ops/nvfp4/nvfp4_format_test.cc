// The NVFP4 element codes, the quantizer on hand-computed cases, and Prepare's round trip.
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/runtime/bf16.h"
#include "gtest/gtest.h"
#include "ops/nvfp4/nvfp4_format.h"
#include "verify/random.h"

namespace gpuops::ops::nvfp4 {
namespace {

using ::testing::HasSubstr;

TEST(E2m1Test, EveryCodeDecodesAndEncodesBack) {
  const float magnitudes[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint8_t code = 0; code < 16; ++code) {
    const float v = E2m1ToFloat(code);
    EXPECT_EQ(std::fabs(v), magnitudes[code & 7]) << int{code};
    if ((code & 7) != 0) {
      EXPECT_EQ(std::signbit(v), (code & 8) != 0);
      EXPECT_EQ(FloatToE2m1(v), code);
    }
  }
  EXPECT_EQ(FloatToE2m1(-0.0f), 0) << "zero is +0";
}

TEST(E2m1Test, ValuesBetweenTwoCodesRoundToNearestAndTiesToTheEvenCode) {
  struct Case {
    float x;
    uint8_t code;
  };
  for (const Case& c : std::vector<Case>{{0.25f, 0},     // 0 | 0.5: tie, even code 0
                                         {0.2500001f, 1},
                                         {0.75f, 2},     // 0.5 | 1: tie, even code 2 (1.0)
                                         {1.25f, 2},     // 1 | 1.5: tie, code 2
                                         {1.75f, 4},     // 1.5 | 2: tie, code 4 (2.0)
                                         {2.5f, 4},      // 2 | 3: tie, code 4
                                         {3.5f, 6},      // 3 | 4: tie, code 6 (4.0)
                                         {5.0f, 6},      // 4 | 6: tie, code 6
                                         {5.0001f, 7},
                                         {6.0f, 7},
                                         {100.0f, 7},    // saturates to 6
                                         {-5.0f, 0xe},
                                         {-0.1f, 0}}) {
    EXPECT_EQ(FloatToE2m1(c.x), c.code) << c.x;
  }
}

std::vector<uint16_t> Bf16Row(const std::vector<float>& values) {
  std::vector<uint16_t> out;
  for (float v : values) {
    const uint16_t b = FloatToBf16(v);
    EXPECT_EQ(Bf16ToFloat(b), v) << "a test value must be exact in BF16";
    out.push_back(b);
  }
  return out;
}

uint8_t Code(const Nvfp4Weight& w, uint32_t row, uint32_t col) {
  const uint64_t i = uint64_t{row} * w.k + col;
  return i % 2 == 0 ? w.packed[i / 2] & 0x0f : w.packed[i / 2] >> 4;
}

TEST(QuantizeTest, AllZerosGiveAZeroGlobalScaleAndZeroCodes) {
  auto w = QuantizeNvfp4(std::vector<uint16_t>(2 * 32, 0), 2, 32);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->global_scale, 0.0f);
  EXPECT_EQ(w->scales, std::vector<uint8_t>(4, 0));
  EXPECT_EQ(w->packed, std::vector<uint8_t>(32, 0));
  EXPECT_EQ(Dequantized(*w, 1, 31), 0.0f);
}

// One row, K = 48: block 0 sets amax = 2688 so that global = 2688 / (6 · 448) = 1 exactly; block 1
// (amax 6: scale 1, step 1) holds values exactly between two E2M1 points and ±6; block 2 is zero.
TEST(QuantizeTest, HandComputedBlocksTiesAndAZeroBlock) {
  std::vector<float> row(48, 0.0f);
  row[0] = 2688.0f;
  row[1] = -1344.0f;
  const float ties[16] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, -5.0f,
                          6.0f,  -6.0f, 0.5f,  -1.5f, 4.0f, 3.0f, 0.0f, -0.75f};
  for (int i = 0; i < 16; ++i) row[16 + i] = ties[i];
  auto w = QuantizeNvfp4(Bf16Row(row), 1, 48);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->global_scale, 1.0f);
  EXPECT_EQ(w->scales[0], 0x7e) << "2688 / 6 = 448";
  EXPECT_EQ(w->scales[1], 0x38) << "6 / 6 = 1";
  EXPECT_EQ(w->scales[2], 0x00) << "a block whose amax is 0";
  EXPECT_EQ(Code(*w, 0, 0), 7) << "2688 / 448 = 6";
  EXPECT_EQ(Code(*w, 0, 1), 0xd) << "-1344 / 448 = -3";
  const uint8_t want[16] = {0, 2, 2, 4, 4, 6, 6, 0xe, 7, 0xf, 1, 0xb, 6, 5, 0, 0xa};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(Code(*w, 0, 16 + i), want[i]) << ties[i];
  for (int i = 32; i < 48; ++i) EXPECT_EQ(Code(*w, 0, i), 0);
  EXPECT_EQ(Dequantized(*w, 0, 16 + 8), 6.0f);
  EXPECT_EQ(Dequantized(*w, 0, 16 + 6), 4.0f) << "5 rounded to 4";
}

TEST(QuantizeTest, SmallBlocksGetSubnormalE4m3Scales) {
  std::vector<float> row(32, 0.0f);
  row[0] = 2688.0f;  // global = 1
  row[16] = 0.03125f;  // block amax 2^-5: scale 2^-5 / 6 = 0.0052, E4M3 subnormal 3 · 2^-9
  row[17] = -0.015625f;
  auto w = QuantizeNvfp4(Bf16Row(row), 1, 32);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->scales[1], 0x03);
  // 2^-5 / (3 · 2^-9) = 5.33 -> 6; -2^-6 / (3 · 2^-9) = -2.67 -> -3.
  EXPECT_EQ(Code(*w, 0, 16), 7);
  EXPECT_EQ(Code(*w, 0, 17), 0xd);
  EXPECT_EQ(Dequantized(*w, 0, 16), 6 * 3 * std::ldexp(1.0f, -9));
}

TEST(QuantizeTest, NanAndInfAreRefusedNamingTheElement) {
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    std::vector<uint16_t> v(2 * 16, FloatToBf16(1.0f));
    v[16 + 5] = FloatToBf16(bad);
    auto w = QuantizeNvfp4(v, 2, 16);
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(w.status().message()), HasSubstr("element (1, 5)"));
  }
}

TEST(QuantizeTest, ShapesThatDoNotFitAreRefused) {
  EXPECT_FALSE(QuantizeNvfp4(std::vector<uint16_t>(24, 0), 1, 24).ok()) << "k % 16";
  EXPECT_FALSE(QuantizeNvfp4(std::vector<uint16_t>(31, 0), 2, 16).ok()) << "size";
  EXPECT_FALSE(QuantizeNvfp4({}, 0, 16).ok()) << "n = 0";
}

TEST(QuantizeTest, RandomWeightsStayWithinHalfAStepOfTheirSource) {
  constexpr uint32_t n = 8, k = 64;
  std::vector<uint16_t> v(n * k);
  verify::FillRandomBf16(absl::MakeSpan(v), 7, -3.0f, 3.0f);
  auto w = QuantizeNvfp4(v, n, k);
  ASSERT_TRUE(w.ok()) << w.status();
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t c = 0; c < k; ++c) {
      const float step = E4m3ToFloat(w->scales[r * (k / 16) + c / 16]) * w->global_scale;
      // Within half the widest E2M1 gap (2) of the scaled value, plus the scale's own rounding.
      EXPECT_LE(std::fabs(Dequantized(*w, r, c) - Bf16ToFloat(v[r * k + c])), 1.1f * step)
          << r << ", " << c;
    }
  }
}

Nvfp4Weight RandomWeight(uint32_t n, uint32_t k, uint64_t seed) {
  std::vector<uint16_t> v(uint64_t{n} * k);
  verify::FillRandomBf16(absl::MakeSpan(v), seed);
  auto w = QuantizeNvfp4(v, n, k);
  EXPECT_TRUE(w.ok()) << w.status();
  return *std::move(w);
}

TEST(PrepareTest, DefaultStrideIsNOrNPaddedTo128) {
  EXPECT_EQ(DefaultLdb(4096), 4096u);
  EXPECT_EQ(DefaultLdb(64), 64u);
  EXPECT_EQ(DefaultLdb(200), 256u);
  EXPECT_EQ(DefaultLdb(151937), 152064u);
}

TEST(PrepareTest, RoundTripIsBitExactWithAndWithoutPadding) {
  for (auto [n, k, ldb] : {std::tuple{64u, 32u, 0u}, {37u, 48u, 0u}, {37u, 48u, 38u},
                           {256u, 16u, 512u}}) {
    const Nvfp4Weight w = RandomWeight(n, k, n * 31 + k);
    auto p = Prepare(w, ldb);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->ldb, ldb == 0 ? DefaultLdb(n) : ldb);
    auto back = Unprepare(*p);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, w) << "n=" << n << " k=" << k << " ldb=" << ldb;
  }
}

TEST(PrepareTest, KRowsHoldTheNValuesOfOneKAndPadColumnsAreZero) {
  const Nvfp4Weight w = RandomWeight(5, 32, 3);
  auto p = Prepare(w, 8);
  ASSERT_TRUE(p.ok()) << p.status();
  for (uint32_t k = 0; k < 32; ++k) {
    for (uint32_t n = 0; n < 8; ++n) {
      const uint8_t byte = p->packed[k * 4 + n / 2];
      const uint8_t got = n % 2 == 0 ? byte & 0x0f : byte >> 4;
      EXPECT_EQ(got, n < 5 ? Code(w, n, k) : 0) << "k=" << k << " n=" << n;
      if (k % 16 == 0) {
        EXPECT_EQ(p->scales[k / 16 * 8 + n], n < 5 ? w.scales[n * 2 + k / 16] : 0);
      }
    }
  }
}

TEST(PrepareTest, BadStridesAndPaddingAreRefused) {
  const Nvfp4Weight w = RandomWeight(37, 16, 5);
  EXPECT_FALSE(Prepare(w, 36).ok()) << "ldb < n";
  EXPECT_FALSE(Prepare(w, 39).ok()) << "odd ldb";
  auto p = Prepare(w, 40);
  ASSERT_TRUE(p.ok());
  p->packed[3 * 20 + 19] = 0x10;  // k-row 3, column 39: a pad column
  auto back = Unprepare(*p);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(back.status().message()), HasSubstr("pad column 39"));
}

TEST(PrepareTest, MalformedWeightsAreRefused) {
  Nvfp4Weight w = RandomWeight(4, 16, 9);
  Nvfp4Weight nan_scale = w;
  nan_scale.scales[2] = 0x7f;
  EXPECT_THAT(std::string(Prepare(nan_scale).status().message()), HasSubstr("E4M3 NaN"));
  Nvfp4Weight short_values = w;
  short_values.packed.pop_back();
  EXPECT_FALSE(Prepare(short_values).ok());
  Nvfp4Weight inf_global = w;
  inf_global.global_scale = INFINITY;
  EXPECT_FALSE(Prepare(inf_global).ok());
}

}  // namespace
}  // namespace gpuops::ops::nvfp4
