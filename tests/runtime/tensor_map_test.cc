#include "gpuops/runtime/tensor_map.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

TensorMapDesc Valid() {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kBF16;
  d.rank = 2;
  d.global_address = DevicePtr(0x7f0000000000);
  d.global_dims = {4096, 1024};
  d.global_strides = {0, 4096 * 2};
  d.box_dims = {64, 128};
  d.swizzle = TensorMapSwizzle::k128B;
  return d;
}

TEST(TensorMapTest, ValidDescriptorPassesAndRoundTripsThroughHostForm) {
  ASSERT_TRUE(ValidateTensorMapDesc(Valid()).ok());
  auto back = DecodeHostTensorMap(EncodeHostTensorMap(Valid()));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->global_address, Valid().global_address);
  EXPECT_EQ(back->global_dims, Valid().global_dims);
  EXPECT_EQ(back->global_strides[1], Valid().global_strides[1]);
  EXPECT_EQ(back->box_dims, Valid().box_dims);
  EXPECT_EQ(back->swizzle, TensorMapSwizzle::k128B);
}

TEST(TensorMapTest, RejectsWhatTheHardwareCannotDo) {
  auto expect_error = [](TensorMapDesc d, std::string_view what) {
    absl::Status s = ValidateTensorMapDesc(d);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << what;
    EXPECT_THAT(s.message(), ::testing::HasSubstr(what));
  };
  TensorMapDesc d = Valid();
  d.global_address = DevicePtr(0x7f0000000008);
  expect_error(d, "not 16-byte aligned");
  d = Valid();
  d.global_strides[1] = 8190;
  expect_error(d, "global_strides[1]");
  d = Valid();
  d.box_dims[1] = 257;
  expect_error(d, "box_dims[1] = 257");
  d = Valid();
  d.box_dims[0] = 128;  // 256 bytes: over the 128-byte swizzle span
  expect_error(d, "over the 128-byte swizzle span");
  d = Valid();
  d.rank = 0;
  expect_error(d, "rank 0");
}

TEST(TensorMapTest, DecodingForeignBytesFails) {
  TensorMapBytes junk;
  junk.bytes[0] = std::byte{1};
  EXPECT_EQ(DecodeHostTensorMap(junk).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gpuops
