// The helpers every family's CanImplement shares (ops/family_kit.h).
#include "ops/family_kit.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuops::ops {
namespace {

using ::testing::HasSubstr;

OperandBytes Rows(uint64_t address, uint64_t rows, uint64_t row_bytes, uint64_t pitch) {
  return OperandBytes{"x", address, rows, row_bytes, pitch};
}
OperandBytes Range(uint64_t address, uint64_t bytes) { return Rows(address, 1, bytes, bytes); }

TEST(OperandsMeetTest, ContiguousRangesMeetWhenTheyShareAByte) {
  EXPECT_TRUE(OperandsMeet(Range(1000, 100), Range(1099, 10)));
  EXPECT_FALSE(OperandsMeet(Range(1000, 100), Range(1100, 10))) << "adjacent";
  EXPECT_FALSE(OperandsMeet(Range(1100, 10), Range(1000, 100))) << "adjacent, swapped";
  EXPECT_TRUE(OperandsMeet(Range(1000, 100), Range(900, 1000))) << "one inside the other";
  EXPECT_FALSE(OperandsMeet(Range(1000, 0), Range(1000, 10))) << "no bytes";
  EXPECT_FALSE(OperandsMeet(OperandBytes{}, Range(0, 10))) << "no rows";
}

// fp8's strided QKV: one [m, q | k | v] BF16 buffer, rows of 6144 elements; the Q slot holds
// columns 0..4095, K 4096..5119, V 5120..6143.
TEST(OperandsMeetTest, SlotsOfOnePackedRowBufferDoNotMeet) {
  constexpr uint64_t kBase = 1 << 20, kPitch = 6144 * 2, kRows = 16;
  const OperandBytes q = Rows(kBase, kRows, 4096 * 2, kPitch);
  const OperandBytes k = Rows(kBase + 4096 * 2, kRows, 1024 * 2, kPitch);
  const OperandBytes v = Rows(kBase + 5120 * 2, kRows, 1024 * 2, kPitch);
  EXPECT_FALSE(OperandsMeet(q, k));
  EXPECT_FALSE(OperandsMeet(k, q));
  EXPECT_FALSE(OperandsMeet(k, v));
  EXPECT_FALSE(OperandsMeet(q, v));
  EXPECT_FALSE(OperandsMeet(v, q)) << "V's row r ends where Q's row r + 1 starts";
  // A K slot one element too wide reaches into V's columns; one row down, into Q's next row.
  EXPECT_TRUE(OperandsMeet(Rows(kBase + 4096 * 2, kRows, 1025 * 2, kPitch), v));
  EXPECT_TRUE(OperandsMeet(Rows(kBase + 5120 * 2, kRows, 1025 * 2, kPitch), q));
  // ...but not past Q's last row.
  EXPECT_FALSE(OperandsMeet(Rows(kBase + 5120 * 2, 1, 1025 * 2, kPitch), Rows(kBase, 1, 4096 * 2, kPitch)));
  // Rows shifted by whole rows: Q's rows 8..15 are another operand's rows 0..7.
  EXPECT_TRUE(OperandsMeet(q, Rows(kBase + 8 * kPitch + 100, 8, 2, kPitch)));
  EXPECT_FALSE(OperandsMeet(q, Rows(kBase + 16 * kPitch, 8, 4096 * 2, kPitch))) << "after Q";
  EXPECT_FALSE(OperandsMeet(Rows(kBase + 16 * kPitch, 8, 4096 * 2, kPitch), q)) << "swapped";
}

TEST(OperandsMeetTest, DifferentPitchesCompareBoundingRanges) {
  // Interleaved in fact, but with pitches 256 and 512 the test is conservative: they meet.
  EXPECT_TRUE(OperandsMeet(Rows(0, 4, 128, 256), Rows(128, 2, 128, 512)));
  EXPECT_FALSE(OperandsMeet(Rows(0, 4, 128, 256), Rows(1024, 2, 128, 512))) << "apart";
  // A contiguous range wider than the other's pitch: bounding ranges too.
  EXPECT_TRUE(OperandsMeet(Rows(0, 4, 128, 256), Range(128, 512)));
}

TEST(OperandsMeetTest, ExtentsNearTheTopOfTheAddressSpaceDoNotWrap) {
  const uint64_t top = ~uint64_t{0} - 4096;
  EXPECT_TRUE(OperandsMeet(Range(top, 4096), Range(top + 4095, 1)));
  EXPECT_FALSE(OperandsMeet(Rows(top - 2 * 8192, 3, 4096, 8192), Range(100, 10)));
}

TEST(RequireDisjointTest, NamesBothOperandsAndWhy) {
  const OperandBytes c{"c", 4096, 16, 128, 128};
  const OperandBytes a{"a", 4096 + 15 * 128, 16, 128, 128};
  const absl::Status s = RequireDisjoint("k", {c}, {a});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("c (0x1000, 16 rows of 128 bytes, 128 apart) overlaps a (0x1780"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("the kernel would read a while writing c"));
  const OperandBytes ws{"workspace", 4096 + 100, 1, 8, 8};
  EXPECT_THAT(std::string(RequireDisjoint("k", {c, ws}, {}).message()), HasSubstr("both are written"));
  EXPECT_TRUE(RequireDisjoint("k", {c}, {OperandBytes{"a", 4096 + 16 * 128, 16, 128, 128}}).ok());
  EXPECT_TRUE(RequireDisjoint("k", {c}, {OperandBytesOf("a", DeviceSpan::Unchecked(DevicePtr(4096)), 16, 128, 128)}).ok())
      << "an unchecked span's extent is the caller's word";
}

}  // namespace
}  // namespace gpuops::ops
