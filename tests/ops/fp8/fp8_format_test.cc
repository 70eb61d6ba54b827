// The FP8 block-scaled weight on the host: the quantizer on hand-computed cases, Validate's
// refusals, and the dequantized values the references and the cuBLAS baseline use.
#include "ops/fp8/fp8_format.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/runtime/bf16.h"
#include "gtest/gtest.h"

namespace gpuops::ops::fp8 {
namespace {

using ::testing::HasSubstr;

// An [n, 128] BF16 weight whose row 0 holds `row0` (then zeros) and every other element `fill`.
std::vector<uint16_t> OneBlock(uint32_t n, const std::vector<float>& row0, float fill = 0.0f) {
  std::vector<uint16_t> out(uint64_t{n} * 128, FloatToBf16(fill));
  for (size_t i = 0; i < 128; ++i) out[i] = FloatToBf16(i < row0.size() ? row0[i] : 0.0f);
  return out;
}

TEST(QuantizeFp8BlockTest, AZeroBlockGetsScaleZeroAndZeroCodes) {
  auto w = QuantizeFp8Block(std::vector<uint16_t>(2 * 256, 0), 2, 256);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->block_scale, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(w->weight, std::vector<uint8_t>(2 * 256, 0));
}

TEST(QuantizeFp8BlockTest, TheBlockAmaxMapsTo448AndTheRestRoundToNearestEven) {
  // amax 448: scale 1, so the codes are plain E4M3 roundings of the values.
  auto w = QuantizeFp8Block(
      OneBlock(1, {448.0f, -448.0f, 1.0625f, 1.1875f, 0.001953125f, 0.0029296875f, 0.0009765625f,
                   240.0f}),
      1, 128);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->block_scale[0], 1.0f);
  EXPECT_EQ(w->weight[0], 0x7e) << "448";
  EXPECT_EQ(w->weight[1], 0xfe) << "-448";
  EXPECT_EQ(w->weight[2], 0x38) << "1.0625: tie between 1 and 1.125, even";
  EXPECT_EQ(w->weight[3], 0x3a) << "1.1875: tie between 1.125 and 1.25, even";
  EXPECT_EQ(w->weight[4], 0x01) << "2^-9: the smallest subnormal";
  EXPECT_EQ(w->weight[5], 0x02) << "3 * 2^-10: tie between 2^-9 and 2^-8, even";
  EXPECT_EQ(w->weight[6], 0x00) << "2^-10: tie between 0 and 2^-9, even";
  EXPECT_EQ(w->weight[7], 0x77) << "240 = 1.875 * 2^7";
}

TEST(QuantizeFp8BlockTest, ScalesAreBlockAmaxOver448) {
  // Block amax 2: scale 2 / 448; 1.0 -> 224 (0x76), 2.0 -> 448 (0x7e), -0.5 -> -112 (0xee).
  auto w = QuantizeFp8Block(OneBlock(1, {1.0f, 2.0f, -0.5f}), 1, 128);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->block_scale[0], 2.0f / 448.0f);
  EXPECT_EQ(w->weight[0], 0x76);
  EXPECT_EQ(w->weight[1], 0x7e);
  EXPECT_EQ(w->weight[2], 0xee);
  EXPECT_NEAR(Dequantized(*w, 0, 0), 1.0, 1e-7);
}

TEST(QuantizeFp8BlockTest, BlocksAre128By128AndTheLastBlockRowMayBeShort) {
  // n = 200: two scale rows (rows 0-127 and 128-199), k = 256: two scale columns.
  std::vector<uint16_t> x(200 * 256, FloatToBf16(1.0f));
  x[150 * 256 + 200] = FloatToBf16(-8.0f);  // block (1, 1)
  auto w = QuantizeFp8Block(x, 200, 256);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->block_scale.size(), 4u);
  EXPECT_EQ(w->block_scale[0], 1.0f / 448.0f);
  EXPECT_EQ(w->block_scale[1], 1.0f / 448.0f);
  EXPECT_EQ(w->block_scale[2], 1.0f / 448.0f);
  EXPECT_EQ(w->block_scale[3], 8.0f / 448.0f);
  EXPECT_EQ(BlockScale(*w, 150, 200), 8.0f / 448.0f);
  EXPECT_EQ(w->weight[150 * 256 + 200], 0xfe);
  EXPECT_EQ(w->weight[150 * 256 + 100], 0x7e) << "block (1, 0) has amax 1";
  EXPECT_EQ(w->weight[150 * 256 + 201], 0x66) << "1 / (8/448) = 56 = 1.75 * 2^5";
}

TEST(QuantizeFp8BlockTest, NanAndInfinityAreRefusedNamingTheElement) {
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    std::vector<uint16_t> x(2 * 128, FloatToBf16(1.0f));
    x[128 + 77] = FloatToBf16(bad);
    auto w = QuantizeFp8Block(x, 2, 128);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(w.status().message()), HasSubstr("[1, 77]")) << bad;
  }
}

TEST(QuantizeFp8BlockTest, RefusesShapesThatAreNotWhole128KBlocks) {
  EXPECT_FALSE(QuantizeFp8Block(std::vector<uint16_t>(100, 0), 1, 100).ok());
  EXPECT_FALSE(QuantizeFp8Block(std::vector<uint16_t>(0), 0, 128).ok());
  auto wrong_size = QuantizeFp8Block(std::vector<uint16_t>(127, 0), 1, 128);
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_THAT(std::string(wrong_size.status().message()), HasSubstr("127"));
}

TEST(Fp8ValidateTest, RefusesWrongSizesNanCodesAndBadScales) {
  auto good = QuantizeFp8Block(OneBlock(3, {1.0f}), 3, 128);
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(Validate(*good).ok());
  Fp8BlockWeight short_weight = *good;
  short_weight.weight.pop_back();
  EXPECT_THAT(std::string(Validate(short_weight).message()), HasSubstr("weight holds"));
  Fp8BlockWeight nan_code = *good;
  nan_code.weight[128 + 5] = 0x7f;
  EXPECT_THAT(std::string(Validate(nan_code).message()), HasSubstr("weight[1, 5]"));
  Fp8BlockWeight negative = *good;
  negative.block_scale[0] = -1.0f;
  EXPECT_THAT(std::string(Validate(negative).message()), HasSubstr("block_scale[0, 0]"));
  Fp8BlockWeight scales = *good;
  scales.block_scale.push_back(1.0f);
  EXPECT_THAT(std::string(Validate(scales).message()), HasSubstr("ceil(n/128)=1"));
}

TEST(Fp8DequantizeTest, ValuesAreCodeTimesScaleAndBf16RoundsOnce) {
  Fp8BlockWeight w{.n = 1, .k = 128, .weight = std::vector<uint8_t>(128, 0x38),  // 1.0
                   .block_scale = {1.0f + 3.0f / 1024}};
  EXPECT_EQ(Dequantized(w, 0, 5), 1.0 + 3.0 / 1024);
  EXPECT_EQ(DequantizeToBf16(w)[5], FloatToBf16(1.0f)) << "1.0029 is 1.0 in BF16";
}

}  // namespace
}  // namespace gpuops::ops::fp8
