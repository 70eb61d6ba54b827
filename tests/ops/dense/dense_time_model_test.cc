// The dispatcher's time model (ops/dense/dense_time_model.h): which variants it covers, that its
// predictions follow the H200's times where they were measured, and how they move with the shape.
#include "ops/dense/dense_time_model.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace gpuops::ops::dense {
namespace {

constexpr uint32_t kSms = 132;

TEST(DenseTimeModelTest, CoversTheWgmmaTilesSplitAndTailVariantsAndGemvM16) {
  size_t modeled = 0;
  for (const VariantSpec& spec : kVariants.rows()) {
    // 112's ping-pong form is forced only: no row predicts where it wins.
    const bool unfitted = spec.variant == Variant::kWgmma128x112PingPong;
    const bool covered = (spec.shape == ArgShape::kTma || spec.shape == ArgShape::kTmaSplitK ||
                          spec.shape == ArgShape::kTmaTail || spec.variant == Variant::kGemvM16) &&
                         !unfitted;
    EXPECT_EQ(Modeled(spec.variant), covered) << spec.name;
    // 512 x 3584: one wave of 112-wide tiles (the only shapes that row predicts).
    EXPECT_EQ(PredictMicros(spec.variant, 512, 3584, 4096, 1, kSms).has_value(), covered)
        << spec.name;
    modeled += Modeled(spec.variant);
  }
  EXPECT_EQ(modeled, kModeledVariants);
  EXPECT_FALSE(PredictMicros(static_cast<Variant>(200), 128, 4096, 4096, 1, kSms).has_value());
}

// The 96-, 144-, 160- and 176-wide tiles were fitted at M >= 128 and on last m-blocks of more
// than 64 rows only: off those shapes they predict nothing (so the dispatcher leaves them out), and neither
// do their ping-pong forms.
TEST(DenseTimeModelTest, PredictsNothingOffTheShapesItsFitSaw) {
  for (Variant v : {Variant::kWgmma128x144, Variant::kWgmma128x96, Variant::kWgmma128x144PingPong,
                    Variant::kWgmma128x96PingPong, Variant::kWgmma128x160, Variant::kWgmma128x176,
                    Variant::kWgmma128x160PingPong, Variant::kWgmma128x176PingPong}) {
    EXPECT_FALSE(PredictMicros(v, 127, 4096, 4096, 1, kSms).has_value()) << kVariants[v].name;
    EXPECT_TRUE(PredictMicros(v, 128, 4096, 4096, 1, kSms).has_value()) << kVariants[v].name;
    EXPECT_FALSE(PredictMicros(v, 160, 4096, 4096, 1, kSms).has_value()) << "32 last rows";
    EXPECT_FALSE(PredictMicros(v, 192, 4096, 4096, 1, kSms).has_value()) << "64 last rows";
    EXPECT_TRUE(PredictMicros(v, 193, 4096, 4096, 1, kSms).has_value()) << "65 last rows";
    EXPECT_TRUE(PredictMicros(v, 1024, 4096, 4096, 1, kSms).has_value()) << "whole m-blocks";
    EXPECT_TRUE(Modeled(v)) << kVariants[v].name;
  }
  EXPECT_TRUE(PredictMicros(Variant::kWgmma128x128, 16, 4096, 4096, 1, kSms).has_value());
  // The 160- and 176-wide tiles: at most 16 waves (4096 x 5120: 32 x 32 = 1024 tiles of 160,
  // 8 waves; 4096 x 55296: 11072 tiles, 84 waves).
  for (Variant v : {Variant::kWgmma128x160, Variant::kWgmma128x160PingPong}) {
    EXPECT_TRUE(PredictMicros(v, 4096, 5120, 5120, 1, kSms).has_value()) << kVariants[v].name;
    EXPECT_FALSE(PredictMicros(v, 4096, 55296, 5120, 1, kSms).has_value()) << kVariants[v].name;
  }
  EXPECT_TRUE(PredictMicros(Variant::kWgmma128x256, 4096, 55296, 5120, 1, kSms).has_value());
  // The 112-wide tiles: one wave (512 x 3584: 128 tiles; 384 x 4928: 132; 512 x 3808: 136) at
  // M <= 512 (640 x 2816: 130 tiles).
  EXPECT_TRUE(PredictMicros(Variant::kWgmma128x112, 512, 3584, 18944, 1, kSms).has_value());
  EXPECT_TRUE(PredictMicros(Variant::kWgmma128x112, 384, 4928, 4096, 1, kSms).has_value());
  EXPECT_FALSE(PredictMicros(Variant::kWgmma128x112, 512, 3808, 4096, 1, kSms).has_value());
  EXPECT_FALSE(PredictMicros(Variant::kWgmma128x112, 640, 2816, 19712, 1, kSms).has_value());
  EXPECT_FALSE(PredictMicros(Variant::kWgmma128x112, 192, 3584, 4096, 1, kSms).has_value())
      << "64 last rows";
}

// Measured on the H200 (bench/results/2026-12-03-s18-grid-*.csv and -m9-16-forced.csv, forced
// variants).
TEST(DenseTimeModelTest, FollowsTheMeasuredTimes) {
  struct Case {
    Variant variant;
    uint32_t m, n, k, splits;
    double measured_us;
  };
  const Case cases[] = {
      {Variant::kWgmma128x256, 4096, 4096, 4096, 1, 181.7},
      {Variant::kWgmma192x192, 768, 6144, 4096, 1, 54.7},
      {Variant::kWgmma192x128, 192, 16384, 2048, 1, 28.8},
      {Variant::kWgmma64x64, 128, 3072, 2048, 1, 13.9},
      {Variant::kWgmma128x128SplitK, 128, 4096, 14336, 4, 42.9},
      {Variant::kWgmma64x128SplitK, 24, 4096, 14336, 4, 40.7},
      {Variant::kWgmma128x256SplitK, 384, 3584, 18944, 3, 83.3},
      {Variant::kGemvM16, 12, 8192, 28672, 1, 135.9},
      {Variant::kGemvM16, 16, 4096, 4096, 1, 19.0},
      // Session 28 on an H100, times x 0.9796 (the calibration of their rows).
      {Variant::kWgmma128x160, 1024, 5120, 4096, 1, 60.82 * 0.9796},
      {Variant::kWgmma128x176, 768, 3584, 14336, 1, 106.96 * 0.9796},
  };
  for (const Case& c : cases) {
    const double predicted = *PredictMicros(c.variant, c.m, c.n, c.k, c.splits, kSms);
    EXPECT_NEAR(predicted / c.measured_us, 1.0, 0.10)
        << kVariants[c.variant].name << " " << c.m << "x" << c.n << "x" << c.k;
  }
}

// Only the rows fitted off the H200 or loosely (the 160-, 176- and 112-wide tiles, the 192 x 128
// split and tail variants) must beat the others' predictions by a margin before the dispatcher
// takes them.
TEST(DenseTimeModelTest, PickMarginsOnlyForTheLooselyFittedTiles) {
  size_t with_margin = 0;
  for (const VariantSpec& spec : kVariants.rows()) {
    const double margin = PickMargin(spec.variant);
    EXPECT_TRUE(margin == 0.0 || margin == kPickMargin) << spec.name;
    with_margin += margin > 0.0;
  }
  // 128x160, 128x176 and their ping-pong forms; 192x128_splitk and 192x128_tail (its own
  // margin, where its tile has none); 128x112 (its ping-pong form has no row).
  EXPECT_EQ(with_margin, 7u);
  EXPECT_EQ(PickMargin(Variant::kWgmma128x176PingPong), kPickMargin);
  EXPECT_EQ(PickMargin(Variant::kWgmma192x128Tail), kPickMargin);
  EXPECT_EQ(PickMargin(Variant::kWgmma192x128), 0.0);
  EXPECT_EQ(PickMargin(Variant::kWgmma128x192PingPong), 0.0);
}

TEST(DenseTimeModelTest, GrowsWithTheWorkAndTheSplitsPartials) {
  for (const VariantSpec& spec : kVariants.rows()) {
    // 128x112 predicts one wave only (below).
    if (!Modeled(spec.variant) || spec.variant == Variant::kWgmma128x112) continue;
    const double base = *PredictMicros(spec.variant, 512, 4096, 4096, 1, kSms);
    EXPECT_GT(base, 0.0) << spec.name;
    EXPECT_GT(*PredictMicros(spec.variant, 512, 4096, 8192, 1, kSms), base) << spec.name;
    EXPECT_GT(*PredictMicros(spec.variant, 4096, 4096, 4096, 1, kSms), base) << spec.name;
    // Fewer SMs: more waves of the same tiles.
    EXPECT_GT(*PredictMicros(spec.variant, 4096, 4096, 4096, 1, 66),
              *PredictMicros(spec.variant, 4096, 4096, 4096, 1, kSms))
        << spec.name;
  }
  // Within its one wave, 128x112 grows with K and with M (64 tiles of 256 x 3584, 128 of 512).
  const double one_wave = *PredictMicros(Variant::kWgmma128x112, 256, 3584, 4096, 1, kSms);
  EXPECT_GT(*PredictMicros(Variant::kWgmma128x112, 256, 3584, 8192, 1, kSms), one_wave);
  EXPECT_GT(*PredictMicros(Variant::kWgmma128x112, 512, 3584, 4096, 1, kSms), one_wave);
  // A split variant on few tiles: 8 splits write twice the partials of 4, in half the k each.
  const double four = *PredictMicros(Variant::kWgmma128x128SplitK, 128, 2048, 16384, 4, kSms);
  const double eight = *PredictMicros(Variant::kWgmma128x128SplitK, 128, 2048, 16384, 8, kSms);
  EXPECT_LT(eight, four) << "16 tiles: 128 units still fit one wave";
  EXPECT_GT(*PredictMicros(Variant::kWgmma128x128SplitK, 128, 2048, 16384, 16, kSms), eight)
      << "256 units: two waves";
  // A tail variant: 216 tiles of 128 x 192 (1024 x 5120) on 132 SMs leave 84 for a second
  // wave; split 3 ways they take two rounds of a third of K, so the call is predicted faster
  // than the unsplit tile, and equal to it (no partials) where the tiles fill whole waves.
  const double whole = *PredictMicros(Variant::kWgmma128x192, 1024, 5120, 14336, 1, kSms);
  EXPECT_LT(*PredictMicros(Variant::kWgmma128x192Tail, 1024, 5120, 14336, 3, kSms), whole);
  EXPECT_DOUBLE_EQ(*PredictMicros(Variant::kWgmma128x192Tail, 1024, 6336, 14336, 1, kSms),
                   *PredictMicros(Variant::kWgmma128x192, 1024, 6336, 14336, 1, kSms));
  // A ping-pong variant: its tile's prediction, a little slower on one wave (one warpgroup a
  // tile), faster by the same amount each wave after the first (an epilogue hidden), and none
  // for a split count (it has no splits).
  const double tile_one = *PredictMicros(Variant::kWgmma128x128, 512, 4096, 4096, 1, kSms);
  EXPECT_GT(*PredictMicros(Variant::kWgmma128x128PingPong, 512, 4096, 4096, 1, kSms), tile_one)
      << "128 tiles: one wave";
  const auto saved = [](uint32_t m) {
    return *PredictMicros(Variant::kWgmma128x192, m, 6144, 4096, 1, kSms) -
           *PredictMicros(Variant::kWgmma128x192PingPong, m, 6144, 4096, 1, kSms);
  };
  EXPECT_GT(saved(1024), 0.0) << "256 tiles: two waves";
  EXPECT_NEAR(saved(4096), 7 * saved(1024), 1e-9) << "1024 tiles: eight waves";
  EXPECT_FALSE(PredictMicros(Variant::kWgmma128x192PingPong, 1024, 6144, 4096, 2, kSms));
  // Zero SMs or splits are taken as one, not divided by.
  EXPECT_TRUE(PredictMicros(Variant::kWgmma128x256, 1, 1, 1, 0, 0).has_value());
}

}  // namespace
}  // namespace gpuops::ops::dense
