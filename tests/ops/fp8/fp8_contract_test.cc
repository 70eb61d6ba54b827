// Launch contracts of the FP8 W8A16 family on the mock: each seed kernel's grid, block and
// arguments, the seed's guards as CanImplement refusals (nothing launched), m64's row slabs, the
// dispatcher's picks; and executing, on the mock and on a GPU where there is one: the packed QKV
// buffer filled by three strided launches with the gaps untouched, a raw m16 launch with 17 rows
// leaving row 16 unwritten, and the FP32 scale fold against folding the scale into BF16 weights.
// (The golden launch traces and the numerics of every variant: tests/ops/family_test.cc.)
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"
#include "ops/common/common_ops.h"
#include "ops/fp8/fp8_gemm.h"
#include "tests/support/backends.h"
#include "tests/support/device_data.h"
#include "verify/check.h"
#include "verify/random.h"

namespace gpuops::ops::fp8 {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace ::gpuops::mock;  // NOLINT: matchers

// The tensor map of an [n, k] E4M3 weight at `weight` with a box of 128 k x box_rows rows, as the
// TMA kernels take it.
absl::StatusOr<TensorMapBytes> WeightMap(GpuBackend& gpu, DevicePtr weight, uint32_t n, uint32_t k,
                                         uint32_t box_rows) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kU8;
  d.rank = 2;
  d.global_address = weight;
  d.global_dims = {k, n};
  d.global_strides = {0, k};
  d.box_dims = {128, box_rows};
  d.swizzle = TensorMapSwizzle::k128B;
  return gpu.EncodeTensorMap(d);
}

// The tensor map of m BF16 activation rows of k at `input`, `pitch` elements apart, with a box of
// 64 k x box_rows rows, as the wgmma kernels take it.
absl::StatusOr<TensorMapBytes> InputMap(GpuBackend& gpu, DevicePtr input, uint32_t m, uint32_t k,
                                        uint32_t pitch, uint32_t box_rows) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kBF16;
  d.rank = 2;
  d.global_address = input;
  d.global_dims = {k, m};
  d.global_strides = {0, uint64_t{pitch} * 2};
  d.box_dims = {64, box_rows};
  d.swizzle = TensorMapSwizzle::k128B;
  return gpu.EncodeTensorMap(d);
}

// A wgmma kernel's argument list (Fp8WgmmaArgs, or Fp8StreamKArgs less its workspace) for a raw
// launch with every operand in `buf`.
template <typename Args = Fp8WgmmaArgs>
Args WgmmaList(const TensorMapBytes& weight_map, const TensorMapBytes& input_map, DevicePtr buf,
               uint32_t m, uint32_t n, uint32_t k, uint32_t lda, uint32_t ldc) {
  Args a;
  a.weight_map = weight_map;
  a.input_map = input_map;
  a.input = a.block_scale = a.output = buf;
  a.m = m;
  a.n = n;
  a.k = k;
  a.a_row_stride = lda;
  a.c_row_stride = ldc;
  return a;
}

// A loaded family on a mock that records without executing, with stand-in operands.
class Fp8ContractTest : public ::testing::Test {
 protected:
  Fp8ContractTest() : gpu_(testing::RecordOnly()) {}
  void SetUp() override {
    auto g = Fp8Gemm::Load(gpu_);
    ASSERT_TRUE(g.ok()) << g.status();
    gemm_.emplace(*std::move(g));
    for (DevicePtr* p : {&a_, &weight_, &scales_, &c_}) {
      auto buf = gpu_.Alloc(1 << 20);  // room for m64's second slab
      ASSERT_TRUE(buf.ok());
      *p = *buf;
    }
  }
  GemmArgs Args(uint32_t m, uint32_t n, uint32_t k, uint32_t lda = 0, uint32_t ldc = 0) const {
    return GemmArgs{.a = DeviceSpan::Unchecked(a_),
                    .w = {.weight = DeviceSpan::Unchecked(weight_),
                          .block_scale = DeviceSpan::Unchecked(scales_),
                          .n = n,
                          .k = k},
                    .c = DeviceSpan::Unchecked(c_),
                    .m = m,
                    .lda = lda,
                    .ldc = ldc};
  }
  std::string Pick(uint32_t m, uint32_t n, uint32_t lda = 0, uint32_t ldc = 0) {
    auto v = gemm_->Pick(Args(m, n, 4096, lda, ldc));
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? std::string(kVariants[*v].name) : std::string();
  }
  mock::RecordingBackend gpu_;
  std::optional<Fp8Gemm> gemm_;
  DevicePtr a_, weight_, scales_, c_;
};

TEST_F(Fp8ContractTest, M16LaunchesNOver32BlocksOf128ThreadsWithTheSeedsSevenArguments) {
  ASSERT_TRUE(gemm_->Run(Variant::kM16, Args(5, 1000, 256)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(AllOf(KernelNamed("w8a16_gemm_m16"), GridIs(32, 1, 1), BlockIs(128, 1, 1),
                                SharedMemIs(M16Tile::kSharedBytes), ArgCountIs(7), ArgPtrAt(0, a_),
                                ArgPtrAt(1, weight_), ArgPtrAt(2, scales_), ArgPtrAt(3, c_),
                                ArgU32At(4, 5), ArgU32At(5, 1000), ArgU32At(6, 256))));
}

TEST_F(Fp8ContractTest, N64HalvesTheBlocksWithTheSameArguments) {
  ASSERT_TRUE(gemm_->Run(Variant::kM16N64, Args(16, 1000, 256)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(AllOf(KernelNamed("w8a16_gemm_m16_n64"), GridIs(16, 1, 1),
                                BlockIs(128, 1, 1), ArgCountIs(7), ArgU32At(4, 16))));
}

TEST_F(Fp8ContractTest, StridedPassesBothRowPitchesLast) {
  ASSERT_TRUE(gemm_->Run(Variant::kM16Strided, Args(3, 1024, 4096, 4104, 6144)).ok());
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(AllOf(KernelNamed("w8a16_gemm_m16_strided"), GridIs(32, 1, 1), BlockIs(128, 1, 1),
                        ArgCountIs(9), ArgU32At(4, 3), ArgU32At(5, 1024), ArgU32At(6, 4096),
                        ArgU32At(7, 4104), ArgU32At(8, 6144))));
  gpu_.ClearLaunches();
  ASSERT_TRUE(gemm_->Run(Variant::kM16Strided, Args(3, 1024, 4096)).ok());
  EXPECT_THAT(gpu_.launches(), ElementsAre(AllOf(ArgU32At(7, 4096), ArgU32At(8, 1024))))
      << "pitch 0 means contiguous";
}

TEST_F(Fp8ContractTest, OnlyASettledWeightLetsTheDecodeKernelsOverlapThePreviousLaunch) {
  // The variants table says which kernels wait for the previous launch before touching A and C.
  std::vector<std::string> overlapping;
  for (const VariantSpec& s : kVariants.rows()) {
    if (s.extra.overlaps_previous) overlapping.push_back(std::string(s.name));
  }
  EXPECT_THAT(overlapping,
              ElementsAre("tc_m8", "tc_m16", "tc_m8_ldg", "tc_m8_f16", "tc_m8_ldg_w4",
                          "tc_m16_ldg", "tc_m16_ldg_w4"));
  size_t ran = 0;
  for (const VariantSpec& s : kVariants.rows()) {
    for (const bool settled : {false, true}) {
      GemmArgs args = Args(s.max_m == 0 ? 128 : std::min<uint32_t>(s.max_m, 8), 4096, 4096);
      args.weight_settled = settled;
      if (const uint64_t ws = gemm_->WorkspaceBytes(s.variant, args); ws > 0) {
        args.workspace = DeviceSpan::Unchecked(a_);
      }
      if (!gemm_->CanImplement(s.variant, args).ok()) continue;
      gpu_.ClearLaunches();
      const absl::Status run = gemm_->Run(s.variant, args);
      ASSERT_TRUE(run.ok()) << s.name << ": " << run;
      ASSERT_FALSE(gpu_.launches().empty()) << s.name;
      ++ran;
      for (const auto& launch : gpu_.launches()) {
        EXPECT_EQ(launch.overlaps_previous, settled && s.extra.overlaps_previous)
            << s.name << (settled ? " with" : " without") << " a settled weight";
      }
    }
  }
  EXPECT_GE(ran, 2 * (kVariants.size() - 4)) << "most variants take M = 8 (or 128) x 4096 x 4096";
  // The dispatcher's pick carries it too (o at M = 1: tc_m8_ldg).
  GemmArgs o = Args(1, 4096, 4096);
  o.weight_settled = true;
  gpu_.ClearLaunches();
  ASSERT_TRUE(gemm_->Gemm(o).ok());
  ASSERT_THAT(gpu_.launches(), ElementsAre(KernelNamed("w8a16_gemv_tc_m8_ldg")));
  EXPECT_TRUE(gpu_.launches()[0].overlaps_previous);
}

TEST_F(Fp8ContractTest, M64RunsLargerMIn64RowSlabs) {
  const absl::Status s = gemm_->Run(Variant::kM64, Args(100, 512, 256, 264, 520));
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(AllOf(KernelNamed("w8a16_gemm_m64"), GridIs(8, 1, 1), ArgPtrAt(0, a_),
                        ArgPtrAt(3, c_), ArgU32At(4, 64)),
                  AllOf(KernelNamed("w8a16_gemm_m64"), GridIs(8, 1, 1),
                        ArgPtrAt(0, a_.offset(64 * 264 * 2)), ArgPtrAt(3, c_.offset(64 * 520 * 2)),
                        ArgU32At(4, 36), ArgU32At(7, 264), ArgU32At(8, 520))));
}

TEST_F(Fp8ContractTest, TheSeedsGuardsAreRefusalsNamingArgumentAndValue) {
  struct Row {
    const char* what;
    Variant variant;
    GemmArgs args;
    const char* fragment;
  };
  GemmArgs short_scales = Args(1, 300, 256);
  short_scales.w.block_scale = DeviceSpan(scales_, 3 * 2 * 4 - 4);  // ceil(300/128) = 3 rows
  GemmArgs short_c = Args(2, 256, 128, 0, 300);
  short_c.c = DeviceSpan(c_, (300 + 256) * 2 - 2);
  GemmArgs misaligned = Args(1, 256, 128);
  misaligned.a = DeviceSpan::Unchecked(a_.offset(8));
  GemmArgs null_weight = Args(1, 256, 128);
  null_weight.w.weight = DeviceSpan();
  // Sized spans in one buffer: C's 2 rows of 256 BF16 reach into A's rows (pitch 512 both).
  GemmArgs c_over_a = Args(2, 256, 128, 512, 512);
  c_over_a.a = DeviceSpan(c_, 4096);
  c_over_a.c = DeviceSpan(c_.offset(128), 4096);
  GemmArgs c_over_scales = Args(1, 256, 128);
  c_over_scales.w.block_scale = DeviceSpan(c_, 8);
  c_over_scales.c = DeviceSpan(c_, 512);
  for (const Row& row : std::vector<Row>{
           {"m = 17", Variant::kM16, Args(17, 256, 128), "m=17 outside 1..16"},
           {"m = 0", Variant::kM16Strided, Args(0, 256, 128), "empty problem"},
           {"m = 17, gemv", Variant::kGemv, Args(17, 256, 128), "m=17 outside 1..16"},
           {"k % 128", Variant::kM16N64, Args(1, 256, 200), "k=200"},
           {"k % 128, m64", Variant::kM64, Args(20, 256, 64), "block-scale granularity"},
           {"a pitch < k", Variant::kM16Strided, Args(1, 256, 256, 128, 0),
            "row pitches (a=128, c=256) must cover the used extents (k=256, n=256)"},
           {"c pitch < n", Variant::kM16Strided, Args(1, 256, 256, 0, 255), "c=255"},
           {"a pitch % 8", Variant::kM16Strided, Args(1, 256, 256, 260, 0), "a_row_stride=260"},
           {"pitch on a contiguous kernel", Variant::kM16, Args(1, 256, 256, 264, 0),
            "contiguous rows"},
           {"scales short of n", Variant::kM16Strided, short_scales, "must cover n=300"},
           {"short c", Variant::kM16Strided, short_c, "c"},
           {"misaligned a", Variant::kM16, misaligned, "16-byte"},
           {"null weight", Variant::kM16W8, null_weight, "non-null"},
           {"c over a", Variant::kM16Strided, c_over_a,
            "2 rows of 512 bytes, 1024 apart) overlaps a ("},
           {"c over the scales", Variant::kM16, c_over_scales,
            "the kernel would read w.block_scale while writing c"},
       }) {
    const absl::Status s = gemm_->Run(row.variant, row.args);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << row.what << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(row.fragment)) << row.what;
    EXPECT_THAT(std::string(s.message()), HasSubstr(kVariants[row.variant].kernel)) << row.what;
  }
  gpu_.ClearLaunches();
  EXPECT_TRUE(gemm_->Run(Variant::kGemvStrided, Args(1, 256, 256, 261, 0)).ok())
      << "the scalar kernel reads A element by element: an odd pitch is fine";
  EXPECT_EQ(gpu_.launch_count(), 1u);
  gpu_.ClearLaunches();
  EXPECT_FALSE(gemm_->Run(static_cast<Variant>(99), Args(1, 256, 128)).ok());
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

TEST_F(Fp8ContractTest, TcM8LaunchesAPersistentGridWithTheWeightAsATensorMap) {
  ASSERT_TRUE(gemm_->Run(Variant::kTcM8, Args(3, 28672, 4096, 4104, 28680)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kTcM16, Args(16, 1000, 256)).ok());
  const auto records = gpu_.launches();
  // 28672 / 16 = 1792 tiles over 3 blocks x 132 SMs; 1000 columns: 63 tiles, one block each.
  EXPECT_THAT(records, ElementsAre(AllOf(KernelNamed("w8a16_gemv_tc_m8"), GridIs(396, 1, 1),
                                         BlockIs(256, 1, 1), SharedMemIs(TcM8Tile::kSharedBytes),
                                         ArgCountIs(9), ArgPtrAt(1, a_), ArgPtrAt(2, scales_),
                                         ArgPtrAt(3, c_), ArgU32At(4, 3), ArgU32At(5, 28672),
                                         ArgU32At(6, 4096), ArgU32At(7, 4104), ArgU32At(8, 28680)),
                                   AllOf(KernelNamed("w8a16_gemv_tc_m16"), GridIs(63, 1, 1),
                                         SharedMemIs(TcM16Tile::kSharedBytes), ArgU32At(4, 16))));
  // The map describes the [N, K] E4M3 weight: box 16 rows x 128 k, 128-byte swizzle.
  TensorMapBytes bytes;
  std::memcpy(bytes.bytes.data(), records[0].args[0].bytes.data(), 128);
  auto map = DecodeHostTensorMap(bytes);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->global_address, weight_);
  EXPECT_EQ(map->data_type, TensorMapDataType::kU8);
  EXPECT_EQ(map->global_dims[0], 4096u);
  EXPECT_EQ(map->global_dims[1], 28672u);
  EXPECT_EQ(map->global_strides[1], 4096u);
  EXPECT_EQ(map->box_dims[0], 128u);
  EXPECT_EQ(map->box_dims[1], 16u);
  EXPECT_EQ(map->swizzle, TensorMapSwizzle::k128B);
}

TEST_F(Fp8ContractTest, TcM8F16LaunchesTwoBlocksAnSmAndRefusesRowsItsWarpsCannotStage) {
  ASSERT_TRUE(gemm_->Run(Variant::kTcM8F16, Args(2, 28672, 4096)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(AllOf(KernelNamed("w8a16_gemv_tc_m8_f16"), GridIs(264, 1, 1),
                                BlockIs(256, 1, 1), SharedMemIs(TcM8F16Tile::kTotalSharedBytes),
                                ArgCountIs(9), ArgU32At(4, 2), ArgU32At(6, 4096))));
  // Each of the 8 warps stages m rows of ceil(K / 1024) 128-k blocks: at most 2560 elements.
  EXPECT_TRUE(gemm_->Run(Variant::kTcM8F16, Args(1, 4096, 14336)).ok()) << "down: 1792";
  EXPECT_TRUE(gemm_->Run(Variant::kTcM8F16, Args(1, 4096, 20480)).ok()) << "2560";
  EXPECT_TRUE(gemm_->Run(Variant::kTcM8F16, Args(5, 4096, 4096)).ok()) << "5 x 512";
  EXPECT_TRUE(gemm_->Run(Variant::kTcM8F16, Args(8, 4096, 2048)).ok()) << "8 x 256";
  EXPECT_EQ(gpu_.launch_count(), 5u);
  const absl::Status rows = gemm_->Run(Variant::kTcM8F16, Args(9, 28672, 1024));
  EXPECT_THAT(std::string(rows.message()), HasSubstr("m=9 outside 1..8"));
  for (const auto& [m, k, need] : {std::tuple{1u, 20608u, 2688u}, std::tuple{2u, 14336u, 3584u},
                                   std::tuple{6u, 4096u, 3072u}}) {
    const absl::Status s = gemm_->Run(Variant::kTcM8F16, Args(m, 4096, k));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << m << " x " << k;
    EXPECT_THAT(std::string(s.message()),
                HasSubstr(StrCat("w8a16_gemv_tc_m8_f16: m=", m, " rows of k=", k, " need ", need,
                                 " staged F16 elements a warp (8 warps split k), more than its "
                                 "2560")));
  }
  EXPECT_EQ(gpu_.launch_count(), 5u) << "a refused launch reaches no GPU";
}

// tc_m32 and tc_m64 take M = 17..64 in one launch: tc_m8's arguments, 2 and 1 blocks an SM.
TEST_F(Fp8ContractTest, TcM32AndTcM64TakeUpTo64RowsInOneLaunch) {
  ASSERT_TRUE(gemm_->Run(Variant::kTcM32, Args(17, 4096, 4096)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kTcM64, Args(64, 28672, 4096, 4104, 28680)).ok());
  // 4096 / 16 = 256 tiles under 2 x 132 blocks; 1792 tiles over 1 x 132.
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(AllOf(KernelNamed("w8a16_gemm_tc_m32"), GridIs(256, 1, 1),
                                BlockIs(256, 1, 1), SharedMemIs(TcM32Tile::kSharedBytes),
                                ArgCountIs(9), ArgU32At(4, 17), ArgU32At(7, 4096)),
                          AllOf(KernelNamed("w8a16_gemm_tc_m64"), GridIs(132, 1, 1),
                                BlockIs(256, 1, 1), SharedMemIs(TcM64Tile::kSharedBytes),
                                ArgCountIs(9), ArgU32At(4, 64), ArgU32At(7, 4104),
                                ArgU32At(8, 28680))));
  const absl::Status m33 = gemm_->Run(Variant::kTcM32, Args(33, 4096, 4096));
  EXPECT_THAT(std::string(m33.message()), HasSubstr("m=33 outside 1..32"));
  const absl::Status m65 = gemm_->Run(Variant::kTcM64, Args(65, 4096, 4096));
  EXPECT_THAT(std::string(m65.message()), HasSubstr("m=65 outside 1..64"));
  EXPECT_EQ(gpu_.launch_count(), 2u);
}

TEST_F(Fp8ContractTest, WgM32AndWgM64WalkWeightTilesOf128RowsOnThreeWarpgroups) {
  ASSERT_TRUE(gemm_->Run(Variant::kWgM32, Args(17, 4096, 4096)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kWgM64, Args(64, 28672, 4096, 4104, 28680)).ok());
  // 4096 / 128 = 32 tiles: one block each; 224 tiles over 132 persistent blocks.
  const auto records = gpu_.launches();
  EXPECT_THAT(
      records,
      ElementsAre(AllOf(KernelNamed("w8a16_gemm_wg_m32"), GridIs(32, 1, 1), BlockIs(384, 1, 1),
                        SharedMemIs(WgM32Tile::kSharedBytes), ArgCountIs(10), ArgPtrAt(2, a_),
                        ArgPtrAt(3, scales_), ArgPtrAt(4, c_), ArgU32At(5, 17), ArgU32At(6, 4096),
                        ArgU32At(8, 4096), ArgU32At(9, 4096)),
                  AllOf(KernelNamed("w8a16_gemm_wg_m64"), GridIs(132, 1, 1), BlockIs(384, 1, 1),
                        SharedMemIs(WgM64Tile::kSharedBytes), ArgCountIs(10), ArgU32At(5, 64),
                        ArgU32At(8, 4104), ArgU32At(9, 28680))));
  // input_map describes the same activation rows as input and a_row_stride: [m, k] BF16 at the
  // row pitch, box 64 k x the launch's m rows up to the kernel's M tile (17 of wg_m32's 32),
  // 128-byte swizzle.
  for (const auto& [record, m, pitch, tile] :
       {std::tuple{records[0], 17u, 4096u, 17u}, std::tuple{records[1], 64u, 4104u, 64u}}) {
    TensorMapBytes bytes;
    std::memcpy(bytes.bytes.data(), record.args[1].bytes.data(), 128);
    auto map = DecodeHostTensorMap(bytes);
    ASSERT_TRUE(map.ok()) << map.status();
    EXPECT_EQ(map->global_address, a_);
    EXPECT_EQ(map->data_type, TensorMapDataType::kBF16);
    EXPECT_EQ(map->global_dims[0], 4096u);
    EXPECT_EQ(map->global_dims[1], m);
    EXPECT_EQ(map->global_strides[1], uint64_t{pitch} * 2);
    EXPECT_EQ(map->box_dims[0], 64u);
    EXPECT_EQ(map->box_dims[1], tile);
    EXPECT_EQ(map->swizzle, TensorMapSwizzle::k128B);
  }
  const absl::Status m33 = gemm_->Run(Variant::kWgM32, Args(33, 4096, 4096));
  EXPECT_THAT(std::string(m33.message()), HasSubstr("m=33 outside 1..32"));
  const absl::Status m65 = gemm_->Run(Variant::kWgM64, Args(65, 4096, 4096));
  EXPECT_THAT(std::string(m65.message()), HasSubstr("m=65 outside 1..64"));
  const absl::Status odd_pitch = gemm_->Run(Variant::kWgM64, Args(40, 4096, 4096, 4100, 0));
  EXPECT_THAT(std::string(odd_pitch.message()), HasSubstr("a_row_stride=4100"));
  EXPECT_EQ(gpu_.launch_count(), 2u);
}

TEST_F(Fp8ContractTest, WgM128WalksTilesOf128WeightRowsBy128ActivationRowsInOneLaunch) {
  ASSERT_TRUE(gemm_->Run(Variant::kWgM128, Args(64, 4096, 4096)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kWgM128, Args(129, 1024, 4096)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kWgM128, Args(300, 28672, 4096, 4104, 28680)).ok());
  // 32 x 1 tiles: one block each; 8 x 2; 224 x 3 over 132 persistent blocks. One launch each,
  // every row: m is the launch's, not a slab's.
  const auto records = gpu_.launches();
  EXPECT_THAT(
      records,
      ElementsAre(AllOf(KernelNamed("w8a16_gemm_wg_m128"), GridIs(32, 1, 1), BlockIs(384, 1, 1),
                        SharedMemIs(WgM128Tile::kSharedBytes), ArgCountIs(10), ArgPtrAt(2, a_),
                        ArgPtrAt(4, c_), ArgU32At(5, 64)),
                  AllOf(KernelNamed("w8a16_gemm_wg_m128"), GridIs(16, 1, 1), ArgU32At(5, 129)),
                  AllOf(KernelNamed("w8a16_gemm_wg_m128"), GridIs(132, 1, 1), ArgU32At(5, 300),
                        ArgU32At(6, 28672), ArgU32At(8, 4104), ArgU32At(9, 28680))));
  // input_map: all m rows at the row pitch, its box up to the 128-row M tile.
  for (const auto& [record, m, pitch, box] :
       {std::tuple{records[0], 64u, 4096u, 64u}, std::tuple{records[1], 129u, 4096u, 128u},
        std::tuple{records[2], 300u, 4104u, 128u}}) {
    TensorMapBytes bytes;
    std::memcpy(bytes.bytes.data(), record.args[1].bytes.data(), 128);
    auto map = DecodeHostTensorMap(bytes);
    ASSERT_TRUE(map.ok()) << map.status();
    EXPECT_EQ(map->global_dims[1], m);
    EXPECT_EQ(map->global_strides[1], uint64_t{pitch} * 2);
    EXPECT_EQ(map->box_dims[1], box);
  }
  const absl::Status odd_pitch = gemm_->Run(Variant::kWgM128, Args(300, 4096, 4096, 4100, 0));
  EXPECT_THAT(std::string(odd_pitch.message()), HasSubstr("a_row_stride=4100"));
  const absl::Status k100 = gemm_->Run(Variant::kWgM128, Args(300, 4096, 100));
  EXPECT_THAT(std::string(k100.message()), HasSubstr("k=100"));
  const absl::Status huge = gemm_->Run(Variant::kWgM128, Args(1u << 31, 4096, 4096));
  EXPECT_THAT(std::string(huge.message()), HasSubstr("w8a16_gemm_wg_m128"));
  EXPECT_THAT(std::string(huge.message()), HasSubstr("m=2147483648"));
  EXPECT_EQ(gpu_.launch_count(), 3u);
}

// wg_m128's walk (WgmmaTileAt) visits every (weight tile, M tile) once, in groups of
// kGroupTiles weight tiles; each row of C has one writer (WgmmaTileFirstRow: a last M tile past m
// starts at m - 128 and stores only its own rows), and every tile's box lies inside A.
TEST(Fp8WgM128Test, TheWalkVisitsEveryTileOnceAndEveryRowHasOneWriter) {
  for (auto [n_tiles, m_tiles] : {std::pair{1u, 1u}, {32u, 1u}, {224u, 3u}, {17u, 5u},
                                  {1187u, 32u}, {16u, 2u}, {3u, 7u}}) {
    SCOPED_TRACE(StrCat(n_tiles, " weight tiles x ", m_tiles, " M tiles"));
    std::vector<int> seen(uint64_t{n_tiles} * m_tiles, 0);
    for (uint32_t w = 0; w < n_tiles * m_tiles; ++w) {
      const WgmmaTile t = WgmmaTileAt(w, n_tiles, m_tiles);
      ASSERT_LT(t.n_tile, n_tiles);
      ASSERT_LT(t.m_tile, m_tiles);
      ++seen[uint64_t{t.m_tile} * n_tiles + t.n_tile];
      EXPECT_EQ(t.n_tile / kGroupTiles, w / (kGroupTiles * m_tiles)) << "item " << w;
      if (m_tiles == 1) {
        EXPECT_EQ(t.n_tile, w) << "one M tile: the plain N order";
      }
    }
    for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "tile " << i;
  }
  for (uint32_t m : {1u, 64u, 127u, 128u, 129u, 200u, 256u, 300u, 4095u, 4096u}) {
    SCOPED_TRACE(StrCat("m=", m));
    std::vector<int> writers(m, 0);
    const uint32_t rows = std::min(m, 128u);
    for (uint32_t mt = 0; mt < (m + 127) / 128; ++mt) {
      const uint32_t first = WgmmaTileFirstRow(mt, 128, m);
      ASSERT_LE(first + rows, m) << "M tile " << mt << "'s box reaches past m";
      for (uint32_t r = 0; r < rows; ++r) {
        if (first + r >= mt * 128) ++writers[first + r];  // the kernel's store rule
      }
    }
    for (uint32_t r = 0; r < m; ++r) ASSERT_EQ(writers[r], 1) << "row " << r;
  }
}

TEST_F(Fp8ContractTest, Split2KernelsLaunchAClusterOfTwoBlocksA64RowTile) {
  ASSERT_TRUE(gemm_->Run(Variant::kWgM32N64Split2, Args(20, 6144, 4096)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kWgM64N64Split2, Args(64, 4100, 256, 264, 4104)).ok());
  // 6144 / 64 = 96 tiles x 2 blocks; ceil(4100 / 64) = 65 tiles x 2.
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(AllOf(KernelNamed("w8a16_gemm_wg_m32_n64_split2"), GridIs(192, 1, 1),
                                BlockIs(256, 1, 1), SharedMemIs(WgM32N64Split2Tile::kSharedBytes),
                                ArgCountIs(10), ArgU32At(5, 20), ArgU32At(6, 6144)),
                          AllOf(KernelNamed("w8a16_gemm_wg_m64_n64_split2"), GridIs(130, 1, 1),
                                BlockIs(256, 1, 1), SharedMemIs(WgM64N64Split2Tile::kSharedBytes),
                                ArgCountIs(10), ArgU32At(5, 64), ArgU32At(6, 4100),
                                ArgU32At(8, 264), ArgU32At(9, 4104))));
  const absl::Status m33 = gemm_->Run(Variant::kWgM32N64Split2, Args(33, 4096, 4096));
  EXPECT_THAT(std::string(m33.message()), HasSubstr("m=33 outside 1..32"));
  const absl::Status m65 = gemm_->Run(Variant::kWgM64N64Split2, Args(65, 4096, 4096));
  EXPECT_THAT(std::string(m65.message()), HasSubstr("m=65 outside 1..64"));
  EXPECT_EQ(gpu_.launch_count(), 2u);
}

TEST_F(Fp8ContractTest, StreamKKernelsShareAllTilesKBlocksOverOneBlockAnSmWithAWorkspace) {
  auto buf = gpu_.Alloc(1 << 20);
  ASSERT_TRUE(buf.ok());
  const DevicePtr ws = *buf;
  // qkv: 48 tiles x 32 k blocks = 1536 units over 132 blocks; 2 tiles x 3 = 6 units, 6 blocks.
  GemmArgs qkv = Args(24, 6144, 4096);
  GemmArgs small = Args(40, 200, 384, 392, 0);
  const uint64_t qkv_bytes = gemm_->WorkspaceBytes(Variant::kWgM32StreamK, qkv);
  const uint64_t small_bytes = gemm_->WorkspaceBytes(Variant::kWgM64StreamK, small);
  EXPECT_EQ(qkv_bytes, 1280 + 132 * 2 * 16 * 128 * 4) << "264 flags in 1280 bytes, partials";
  EXPECT_EQ(small_bytes, 256 + 6 * 2 * 32 * 128 * 4);
  EXPECT_EQ(gemm_->WorkspaceFlags(Variant::kWgM32StreamK, qkv), 264u);
  EXPECT_EQ(gemm_->WorkspaceFlags(Variant::kWgM32, qkv), 0u);
  EXPECT_EQ(gemm_->WorkspaceBytes(Variant::kWgM64N64Split2, qkv), 0u);
  qkv.workspace = DeviceSpan(ws, qkv_bytes);
  small.workspace = DeviceSpan(ws, small_bytes);
  ASSERT_TRUE(gemm_->Run(Variant::kWgM32StreamK, qkv).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kWgM64StreamK, small).ok());
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(
          AllOf(KernelNamed("w8a16_gemm_wg_m32_streamk"), GridIs(132, 1, 1), BlockIs(384, 1, 1),
                SharedMemIs(WgM32StreamKTile::kSharedBytes), ArgCountIs(11), ArgU32At(5, 24),
                ArgU32At(6, 6144), ArgU32At(7, 4096), ArgPtrAt(10, ws)),
          AllOf(KernelNamed("w8a16_gemm_wg_m64_streamk"), GridIs(6, 1, 1), BlockIs(384, 1, 1),
                SharedMemIs(WgM64StreamKTile::kSharedBytes), ArgCountIs(11), ArgU32At(5, 40),
                ArgU32At(8, 392), ArgU32At(9, 200), ArgPtrAt(10, ws))));
  // Refused, nothing launched: no workspace, a short one, a misaligned one, m past the tile.
  const absl::Status none = gemm_->Run(Variant::kWgM32StreamK, Args(24, 6144, 4096));
  EXPECT_EQ(none.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(none.message()),
              HasSubstr(StrCat("w8a16_gemm_wg_m32_streamk: workspace is null; it needs ", qkv_bytes,
                               " zero-filled bytes")));
  GemmArgs short_ws = qkv;
  short_ws.workspace = DeviceSpan(ws, qkv_bytes - 4);
  EXPECT_THAT(
      std::string(gemm_->Run(Variant::kWgM32StreamK, short_ws).message()),
      HasSubstr(StrCat("workspace holds ", qkv_bytes - 4,
                       " bytes, the flags and FP32 partials of its 132 blocks need ", qkv_bytes)));
  GemmArgs odd_ws = qkv;
  odd_ws.workspace = DeviceSpan(ws.offset(4), qkv_bytes);
  EXPECT_THAT(std::string(gemm_->Run(Variant::kWgM32StreamK, odd_ws).message()),
              HasSubstr("workspace at 0x"));
  GemmArgs m33 = qkv;
  m33.m = 33;
  EXPECT_THAT(std::string(gemm_->Run(Variant::kWgM32StreamK, m33).message()),
              HasSubstr("m=33 outside 1..32"));
  EXPECT_EQ(gpu_.launch_count(), 2u);
}

// wg_m128_streamk deals the units of every (weight tile, M tile): at M = 300, N = 1024 8 x 3
// tiles x 32 k blocks = 768 units over 132 blocks; at M = 129, N = 200, K = 384 2 x 2 x 3 = 12
// units, 12 blocks. Each consumer's partial is 64 FP32 a thread.
TEST_F(Fp8ContractTest, WgM128StreamKSharesTheKBlocksOfEveryMTileToo) {
  auto buf = gpu_.Alloc(1 << 24);
  ASSERT_TRUE(buf.ok());
  GemmArgs slot = Args(300, 1024, 4096, 4096, 6144);
  GemmArgs small = Args(129, 200, 384, 392, 0);
  const uint64_t slot_bytes = gemm_->WorkspaceBytes(Variant::kWgM128StreamK, slot);
  const uint64_t small_bytes = gemm_->WorkspaceBytes(Variant::kWgM128StreamK, small);
  EXPECT_EQ(slot_bytes, 1280 + 132 * 2 * 64 * 128 * 4);
  EXPECT_EQ(small_bytes, 256 + 12 * 2 * 64 * 128 * 4);
  EXPECT_EQ(gemm_->WorkspaceBytes(Variant::kWgM128, slot), 0u);
  slot.workspace = DeviceSpan(*buf, slot_bytes);
  small.workspace = DeviceSpan(*buf, small_bytes);
  ASSERT_TRUE(gemm_->Run(Variant::kWgM128StreamK, slot).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kWgM128StreamK, small).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(AllOf(KernelNamed("w8a16_gemm_wg_m128_streamk"), GridIs(132, 1, 1),
                                BlockIs(384, 1, 1), SharedMemIs(WgM128StreamKTile::kSharedBytes),
                                ArgCountIs(11), ArgU32At(5, 300), ArgU32At(6, 1024),
                                ArgU32At(9, 6144), ArgPtrAt(10, *buf)),
                          AllOf(KernelNamed("w8a16_gemm_wg_m128_streamk"), GridIs(12, 1, 1),
                                ArgU32At(5, 129), ArgU32At(8, 392))));
  const absl::Status none = gemm_->Run(Variant::kWgM128StreamK, Args(300, 1024, 4096));
  EXPECT_THAT(std::string(none.message()),
              HasSubstr("w8a16_gemm_wg_m128_streamk: workspace is null"));
  EXPECT_EQ(gpu_.launch_count(), 2u);
}

// The stream-K deal, as the kernels run it (StreamKUnits, StreamKSegmentAt, StreamKHeld): every
// (tile, k block) unit is computed by exactly one block; every partial (a block's first segment
// starting past k block 0) is added by exactly one owner, the block holding that tile's first k
// block, which walks only lower-numbered blocks; and each owner's walk covers its tile's k blocks
// exactly.
TEST(Fp8StreamKTest, EveryUnitRunsOnceAndEveryPartialHasOneOwnerThatWaitsOnlyOnLowerBlocks) {
  struct Case {
    uint32_t tiles, kblocks, grid;
  };
  for (const Case c : {Case{48, 32, 132}, Case{32, 32, 132}, Case{32, 112, 132}, Case{2, 3, 6},
                       Case{2, 32, 64}, Case{1, 1, 1}, Case{1187, 32, 132}, Case{5, 7, 33},
                       Case{3, 128, 131}, Case{224, 32, 132}}) {
    SCOPED_TRACE(StrCat(c.tiles, " tiles x ", c.kblocks, " k blocks over ", c.grid, " blocks"));
    const uint64_t units = uint64_t{c.tiles} * c.kblocks;
    ASSERT_LE(c.grid, units);
    std::vector<int> runs(units, 0);
    std::vector<int> partial_added(c.grid, 0);
    std::vector<bool> writes_partial(c.grid, false);
    for (uint32_t b = 0; b < c.grid; ++b) {
      const StreamKRange range = StreamKUnits(b, c.grid, units);
      ASSERT_LT(range.begin, range.end) << "block " << b << " has no work";
      bool first = true;
      for (uint64_t u = range.begin; u < range.end; first = false) {
        const StreamKSegment seg = StreamKSegmentAt(u, range.end, c.kblocks);
        ASSERT_LT(seg.kb_begin, seg.kb_end);
        for (uint32_t kb = seg.kb_begin; kb < seg.kb_end; ++kb) {
          ++runs[uint64_t{seg.tile} * c.kblocks + kb];
        }
        u += seg.kb_end - seg.kb_begin;
        if (seg.kb_begin > 0) {
          EXPECT_TRUE(first) << "block " << b << ": only a first segment starts mid-tile";
          writes_partial[b] = true;
          continue;
        }
        if (seg.kb_end < c.kblocks) {
          EXPECT_EQ(u, range.end) << "block " << b << ": only a last segment ends mid-tile";
          uint32_t other = b;
          for (uint32_t covered = seg.kb_end; covered < c.kblocks;) {
            ASSERT_GT(other, 0u) << "block " << b << " would wait on a block that is not there";
            --other;
            const StreamKRange next = StreamKUnits(other, c.grid, units);
            EXPECT_EQ(next.begin, uint64_t{seg.tile} * c.kblocks + covered)
                << "block " << other << " does not continue tile " << seg.tile;
            covered += StreamKHeld(other, c.grid, units, c.kblocks, covered);
            ++partial_added[other];
          }
        }
      }
    }
    for (uint64_t u = 0; u < units; ++u) ASSERT_EQ(runs[u], 1) << "unit " << u;
    for (uint32_t b = 0; b < c.grid; ++b) {
      EXPECT_EQ(partial_added[b], writes_partial[b] ? 1 : 0) << "block " << b;
    }
  }
}

// A raw stream-K launch: the grid must not exceed the units, and the workspace's flags must be
// zero (a flag left set would hand a stale partial to a tile's owner).
TEST(Fp8EmulationTest, AStreamKLaunchWithTooManyBlocksOrAFlagSetIsRefused) {
  mock::RecordingBackend gpu;
  auto gemm = Fp8Gemm::Load(gpu);
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  auto kernel = TypedKernel<Fp8StreamKArgs>::Bind(gemm->kernel(Variant::kWgM32StreamK));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = DeviceBuffer::Allocate(gpu, 1 << 18);
  auto ws = DeviceBuffer::Allocate(gpu, 1 << 20);
  ASSERT_TRUE(buf.ok() && ws.ok());
  ASSERT_TRUE(gpu.Memset(ws->ptr(), 0, ws->bytes()).ok());
  auto map = WeightMap(gpu, buf->ptr(), 256, 256, 128);
  auto input_map = InputMap(gpu, buf->ptr(), 1, 256, 256, 1);
  ASSERT_TRUE(map.ok() && input_map.ok());
  auto list = WgmmaList<Fp8StreamKArgs>(*map, *input_map, buf->ptr(), 1, 256, 256, 256, 256);
  list.workspace = ws->ptr();
  auto launch = [&](uint32_t blocks) {
    return kernel->Launch(gpu, {{blocks, 1, 1}, {384, 1, 1}, WgM32StreamKTile::kSharedBytes}, list)
        .launch();
  };
  EXPECT_TRUE(launch(4).ok()) << "2 tiles x 2 k blocks: 4 units";
  EXPECT_TRUE(launch(3).ok());
  const absl::Status five = launch(5);
  EXPECT_EQ(five.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(five.message()), HasSubstr("is not (1..4, 1, 1)"));
  ASSERT_TRUE(gpu.Memset(ws->ptr().offset(4 * 5), 1, 1).ok());  // flag 5 = 1
  const absl::Status flagged = launch(4);
  EXPECT_EQ(flagged.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(flagged.message()),
              HasSubstr("workspace flag 5 is 1, not 0: the stream-K workspace must be "
                        "zero-filled"));
}

// A split kernel's grid must be one cluster a tile: a raw launch with any other grid is refused
// by the emulation (the device would refuse a grid off the cluster, or skip tiles).
TEST(Fp8EmulationTest, ASplitLaunchWhoseGridIsNotTwoBlocksATileIsRefused) {
  mock::RecordingBackend gpu;
  auto gemm = Fp8Gemm::Load(gpu);
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  auto kernel = TypedKernel<Fp8WgmmaArgs>::Bind(gemm->kernel(Variant::kWgM32N64Split2));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = DeviceBuffer::Allocate(gpu, 1 << 18);
  ASSERT_TRUE(buf.ok());
  auto map = WeightMap(gpu, buf->ptr(), 256, 128, 64);
  auto input_map = InputMap(gpu, buf->ptr(), 1, 128, 128, 1);
  ASSERT_TRUE(map.ok() && input_map.ok());
  auto launch = [&](uint32_t blocks) {
    return kernel
        ->Launch(gpu, {{blocks, 1, 1}, {256, 1, 1}, WgM32N64Split2Tile::kSharedBytes},
                 WgmmaList(*map, *input_map, buf->ptr(), 1, 256, 128, 128, 256))
        .launch();
  };
  EXPECT_TRUE(launch(8).ok()) << "4 tiles x 2 blocks";
  for (uint32_t blocks : {4u, 7u, 16u}) {
    const absl::Status s = launch(blocks);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << blocks;
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("is not ceil(n=256 / 64) x 2 blocks = (8, 1, 1)"))
        << blocks;
  }
}

// The wgmma kernels stage A through input_map or from input by m, so a raw launch whose map
// names other rows than input and a_row_stride (another address, pitch or box) is refused.
TEST(Fp8EmulationTest, AWgmmaLaunchWhoseInputMapDisagreesWithInputIsRefused) {
  mock::RecordingBackend gpu;
  auto gemm = Fp8Gemm::Load(gpu);
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  auto kernel = TypedKernel<Fp8WgmmaArgs>::Bind(gemm->kernel(Variant::kWgM64));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = DeviceBuffer::Allocate(gpu, 1 << 18);
  ASSERT_TRUE(buf.ok());
  auto map = WeightMap(gpu, buf->ptr(), 128, 128, 128);
  ASSERT_TRUE(map.ok()) << map.status();
  auto launch = [&](absl::StatusOr<TensorMapBytes> input_map) {
    if (!input_map.ok()) return input_map.status();
    return kernel
        ->Launch(gpu, {{1, 1, 1}, {384, 1, 1}, WgM64Tile::kSharedBytes},
                 WgmmaList(*map, *input_map, buf->ptr(), 48, 128, 128, 136, 128))
        .launch();
  };
  EXPECT_TRUE(launch(InputMap(gpu, buf->ptr(), 48, 128, 136, 48)).ok());
  const absl::Status elsewhere = launch(InputMap(gpu, buf->ptr().offset(256), 48, 128, 136, 48));
  EXPECT_EQ(elsewhere.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(elsewhere.message()),
              HasSubstr("with rows 272 bytes apart; input and a_row_stride say 0x"));
  const absl::Status pitch = launch(InputMap(gpu, buf->ptr(), 48, 128, 128, 48));
  EXPECT_THAT(std::string(pitch.message()),
              HasSubstr("both must describe the same activation rows"));
  const absl::Status box = launch(InputMap(gpu, buf->ptr(), 48, 128, 136, 64));
  EXPECT_THAT(std::string(box.message()),
              HasSubstr("(input_map) describes a 48 x 128 tensor with box 64 x 64; the kernel "
                        "needs 48 x 128 2-byte elements with box 48 x 64"))
      << "a box past m: TMA would zero-fill 16 rows the kernel does not wait for";
  const absl::Status rows = launch(InputMap(gpu, buf->ptr(), 40, 128, 136, 40));
  EXPECT_THAT(std::string(rows.message()), HasSubstr("the kernel needs 48 x 128"));
}

// The emulation holds a raw tc_m8 launch to what the kernel needs: its shared memory, and a
// tensor map that describes the [n, k] weight with the kernel's box.
TEST(Fp8EmulationTest, ATmaLaunchWithShortSharedMemoryOrAWrongMapIsRefused) {
  mock::RecordingBackend gpu;
  auto gemm = Fp8Gemm::Load(gpu);
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  auto kernel = TypedKernel<Fp8TmaArgs>::Bind(gemm->kernel(Variant::kTcM8));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto buf = DeviceBuffer::Allocate(gpu, 1 << 16);
  ASSERT_TRUE(buf.ok());
  auto map_of = [&](uint32_t box_rows) { return WeightMap(gpu, buf->ptr(), 64, 128, box_rows); };
  auto launch = [&](const TensorMapBytes& map, uint32_t shared) {
    return kernel
        ->Launch(gpu, {{4, 1, 1}, {TcM8Tile::kThreads, 1, 1}, shared},
                 {.weight_map = map,
                  .input = buf->ptr(),
                  .block_scale = buf->ptr(),
                  .output = buf->ptr(),
                  .m = 1,
                  .n = 64,
                  .k = 128,
                  .a_row_stride = 128,
                  .c_row_stride = 64})
        .launch();
  };
  auto good = map_of(16);
  auto wrong = map_of(32);
  ASSERT_TRUE(good.ok() && wrong.ok());
  EXPECT_TRUE(launch(*good, TcM8Tile::kSharedBytes).ok());
  const absl::Status short_smem = launch(*good, TcM8Tile::kSharedBytes - 1024);
  EXPECT_EQ(short_smem.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(short_smem.message()),
      HasSubstr(StrCat("bytes of shared memory, its stages need ", TcM8Tile::kSharedBytes)));
  const absl::Status box = launch(*wrong, TcM8Tile::kSharedBytes);
  EXPECT_EQ(box.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(box.message()),
              HasSubstr("(weight_map) describes a 64 x 128 tensor with box 32 x 128"));
}

TEST_F(Fp8ContractTest, TheDispatcherPicksByRowsAndColumnTiles) {
  // M <= 2: tc_m8_f16 where 16-row tiles outnumber twice its 2 blocks x 132 SMs.
  // M <= 8 otherwise: tc_m8_ldg up to its 2 blocks x 132 SMs of tiles, tc_m8_ldg_w4 (4 blocks an
  // SM) past that.
  ASSERT_EQ(gpu_.device_info().sm_count, 132);
  EXPECT_EQ(Pick(1, 4096), "tc_m8_ldg") << "o: 256 tiles";
  EXPECT_EQ(Pick(1, 4224), "tc_m8_ldg") << "264 tiles: one round of 2 an SM";
  EXPECT_EQ(Pick(1, 4240), "tc_m8_ldg_w4") << "265 tiles";
  EXPECT_EQ(Pick(1, 8448), "tc_m8_ldg_w4") << "528 tiles";
  EXPECT_EQ(Pick(1, 8464), "tc_m8_f16") << "529 tiles";
  EXPECT_EQ(Pick(2, 6144), "tc_m8_ldg_w4") << "qkv: 384 tiles";
  EXPECT_EQ(Pick(2, 28672), "tc_m8_f16") << "gate_up";
  EXPECT_EQ(Pick(3, 6336), "tc_m8_ldg_w4") << "396 tiles";
  EXPECT_EQ(Pick(3, 6352), "tc_m8_ldg_w4") << "397 tiles: no longer tc_m8 (session 39)";
  EXPECT_EQ(Pick(8, 28672), "tc_m8_ldg_w4");
  EXPECT_EQ(Pick(1, 151937), "tc_m8_f16") << "odd vocab";
  auto one_row = gemm_->Pick(Args(1, 28672, 14336));
  ASSERT_TRUE(one_row.ok());
  EXPECT_EQ(*one_row, Variant::kTcM8F16) << "K = 14336: 1792 staged a warp";
  auto long_k = gemm_->Pick(Args(2, 28672, 14336));
  ASSERT_TRUE(long_k.ok());
  EXPECT_EQ(*long_k, Variant::kTcM8LdgW4) << "2 rows of K = 14336: more than tc_m8_f16 stages";
  EXPECT_EQ(Pick(4, 1024, 4096, 6144), "tc_m8_ldg") << "a QKV slot at its row pitches";
  // M = 9..16 on weights under 2^26 elements: tc_m16_ldg up to its 2 blocks x 132 SMs of
  // tiles, tc_m16 past that; the wgmma kernels from 2^26 on.
  EXPECT_EQ(Pick(9, 4096), "tc_m16_ldg") << "o: 256 tiles";
  EXPECT_EQ(Pick(16, 4224), "tc_m16_ldg") << "264 tiles";
  EXPECT_EQ(Pick(16, 4240), "tc_m16") << "265 tiles";
  EXPECT_EQ(Pick(16, 6144, 4104, 0), "tc_m16") << "qkv at a row pitch";
  EXPECT_EQ(Pick(12, 16383), "tc_m16") << "one row short of 2^26 weights";
  EXPECT_EQ(Pick(12, 16384), "wg_m32") << "2^26 weights: 128 tiles, one wave";
  EXPECT_EQ(Pick(16, 28672), "wg_m32") << "gate_up";
  auto big_square = gemm_->Pick(Args(16, 8192, 8192));
  ASSERT_TRUE(big_square.ok());
  EXPECT_EQ(*big_square, Variant::kWgM32N64Split2) << "8192 x 8192: 64 tiles";
  // M = 17..64 (and 9..16 from 2^26 weights) by the waves of ceil(N / 128) tiles over 132 SMs:
  // the n64 split while 7/5 (M <= 32) or 8/5 (M <= 64) x tiles < 132 x waves, else wg_m32 /
  // wg_m64.
  EXPECT_EQ(Pick(17, 4096), "wg_m32_n64_split2") << "o: 32 tiles";
  EXPECT_EQ(Pick(24, 6144), "wg_m32_n64_split2") << "qkv";
  EXPECT_EQ(Pick(32, 12032), "wg_m32_n64_split2") << "94 tiles: 658 < 660";
  EXPECT_EQ(Pick(32, 12033), "wg_m32") << "95 tiles: 665 >= 660";
  EXPECT_EQ(Pick(24, 16896), "wg_m32") << "132 tiles: one full wave";
  EXPECT_EQ(Pick(24, 16897), "wg_m32_n64_split2") << "133 tiles: a second wave of one";
  EXPECT_EQ(Pick(24, 24064), "wg_m32_n64_split2") << "188 tiles: 1316 < 1320";
  EXPECT_EQ(Pick(24, 24065), "wg_m32") << "189 tiles";
  EXPECT_EQ(Pick(32, 28672), "wg_m32") << "gate_up";
  EXPECT_EQ(Pick(24, 151937), "wg_m32") << "odd vocab";
  EXPECT_EQ(Pick(33, 4096), "wg_m64_n64_split2") << "o";
  EXPECT_EQ(Pick(64, 10496), "wg_m64_n64_split2") << "82 tiles: 656 < 660";
  EXPECT_EQ(Pick(64, 10497), "wg_m64") << "83 tiles: 664 >= 660";
  EXPECT_EQ(Pick(48, 18944), "wg_m64_n64_split2") << "148 tiles: 1184 < 1320";
  EXPECT_EQ(Pick(64, 28672), "wg_m64") << "gate_up";
  EXPECT_EQ(Pick(48, 6144, 4104, 0), "wg_m64_n64_split2") << "pitched rows";
  EXPECT_EQ(Pick(48, 28672, 4104, 0), "wg_m64") << "pitched rows";
  // M > 64: wg_m128's 128 x 128 tiles in one launch (m64's slabs without wgmma, below).
  EXPECT_EQ(Pick(65, 4096), "wg_m128") << "one M tile";
  EXPECT_EQ(Pick(300, 1024, 4096, 6144), "wg_m128") << "a QKV slot at its row pitches";
  // Given the workspace it asks for, the dispatcher runs stream-K at M = 17..64 (and 9..16 from
  // 2^26 weights) unless the split kernel is estimated faster (StreamKFirst); it asks for none
  // elsewhere.
  auto buf = gpu_.Alloc(1 << 22);
  ASSERT_TRUE(buf.ok());
  for (auto [m, n, k, want] : {std::tuple{12u, 8192u, 8192u, "wg_m32_n64_split2"},
                               {16u, 28672u, 4096u, "wg_m32_streamk"},
                               {17u, 4096u, 4096u, "wg_m32_n64_split2"},
                               {24u, 4096u, 14336u, "wg_m32_streamk"},
                               {32u, 6144u, 4096u, "wg_m32_n64_split2"},
                               {24u, 5120u, 5120u, "wg_m32_streamk"},
                               {32u, 28672u, 4096u, "wg_m32_streamk"},
                               {20u, 9216u, 3072u, "wg_m32_streamk"},
                               {33u, 4096u, 4096u, "wg_m64_n64_split2"},
                               {33u, 6144u, 4096u, "wg_m64_n64_split2"},
                               {36u, 6144u, 4096u, "wg_m64_n64_split2"},
                               {64u, 6144u, 4096u, "wg_m64_n64_split2"},
                               {48u, 2048u, 2048u, "wg_m64_n64_split2"},
                               {48u, 4096u, 14336u, "wg_m64_streamk"},
                               {40u, 3584u, 18944u, "wg_m64_streamk"},
                               {48u, 10240u, 8192u, "wg_m64_streamk"},
                               {64u, 151937u, 4096u, "wg_m64_streamk"},
                               {40u, 4608u, 3584u, "wg_m64_streamk"},
                               {20u, 4608u, 3584u, "wg_m32_streamk"}}) {
    GemmArgs args = Args(m, n, k);
    const uint64_t ws = gemm_->GemmWorkspaceBytes(args);
    ASSERT_GT(ws, 0u) << m << " x " << n << " x " << k;
    args.workspace = DeviceSpan(*buf, ws);
    auto v = gemm_->Pick(args);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(std::string(kVariants[*v].name), want) << m << " x " << n << " x " << k;
    args.workspace = DeviceSpan(*buf, ws - 16);
    v = gemm_->Pick(args);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_THAT(std::string(kVariants[*v].name), Not(HasSubstr("streamk")))
        << "a short workspace: the rule without one";
  }
  for (uint32_t m : {1u, 8u, 9u, 16u, 4096u})
    EXPECT_EQ(gemm_->GemmWorkspaceBytes(Args(m, 4096, 4096)), 0u) << m;
  // M > 64: wg_m128_streamk where its tiles fill the SMs' waves poorly (PrefillStreamKFirst, fitted
  // on an H100 in session 37), given its workspace; wg_m128 without one, or where its waves are
  // full enough.
  auto big = gpu_.Alloc(1 << 24);
  ASSERT_TRUE(big.ok());
  for (auto [m, n, k, streamk] : {std::tuple{65u, 4096u, 4096u, true},  // 32 tiles, one wave
                                  {512u, 4096u, 4096u, false},  // 128 of 132
                                  {1024u, 4096u, 4096u, false},  // 256 of 264
                                  {300u, 1024u, 4096u, true},
                                  {4096u, 28672u, 4096u, false},  // 54.3 waves
                                  {1024u, 4096u, 14336u, false},
                                  {65u, 3584u, 18944u, true},  // 28 tiles: 2.7x on the H100
                                  {1024u, 3584u, 18944u, false}}) {  // 1.7 waves: 0.66x
    SCOPED_TRACE(StrCat(m, " x ", n, " x ", k));
    GemmArgs args = Args(m, n, k);
    EXPECT_EQ(PrefillStreamKFirst(m, n, k, 132), streamk);
    const uint64_t ws = gemm_->GemmWorkspaceBytes(args);
    EXPECT_EQ(ws, streamk ? gemm_->WorkspaceBytes(Variant::kWgM128StreamK, args) : 0u);
    auto v = gemm_->Pick(args);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, Variant::kWgM128) << "no workspace";
    if (!streamk) continue;
    args.workspace = DeviceSpan(*big, ws);
    v = gemm_->Pick(args);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, Variant::kWgM128StreamK);
  }
  EXPECT_EQ(gemm_->GemmWorkspaceBytes(Args(8, 28672, 4096)), 0u) << "M = 8: tc_m8";
  EXPECT_EQ(Pick(4096, 4096), "wg_m128") << "32 M tiles";
  auto refused = gemm_->Pick(Args(1, 4096, 100));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("k=100"));
  auto misaligned = gemm_->Pick(Args(1, 4096, 4096, 4100, 0));
  ASSERT_FALSE(misaligned.ok());
  EXPECT_THAT(std::string(misaligned.status().message()), HasSubstr("a_row_stride=4100"));
}

// Before sm_90 the TMA kernels are not shipped: tc_m8_ldg (tc_m8_ldg_w4 past 2 blocks an SM of
// tiles) serves M <= 8 and tc_m16_ldg / tc_m16_ldg_w4 M <= 16 by the same rule (the seed's
// kernels follow them in the order), m64 M > 16.
TEST(Fp8DispatchTest, BeforeSm90TheSeedsKernelsServeDecode) {
  mock::RecordingBackend::Options options = testing::RecordOnly();
  options.device.arch_major = 8;
  options.device.arch_specific = false;
  mock::RecordingBackend ampere(options);
  auto gemm = Fp8Gemm::Load(ampere);
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  EXPECT_FALSE(gemm->Ships(Variant::kTcM8));
  EXPECT_FALSE(gemm->Ships(Variant::kTcM16));
  EXPECT_FALSE(gemm->Ships(Variant::kTcM32));
  EXPECT_FALSE(gemm->Ships(Variant::kTcM64));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM32));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM64));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM32N64Split2));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM64N64Split2));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM32StreamK));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM64StreamK));
  EXPECT_FALSE(gemm->Ships(Variant::kWgM128));
  EXPECT_TRUE(gemm->Ships(Variant::kTcM8Ldg));
  EXPECT_TRUE(gemm->Ships(Variant::kTcM8LdgW4));
  EXPECT_TRUE(gemm->Ships(Variant::kTcM16Ldg));
  EXPECT_TRUE(gemm->Ships(Variant::kTcM16LdgW4));
  auto p = ampere.Alloc(64);
  ASSERT_TRUE(p.ok());
  const DeviceSpan any = DeviceSpan::Unchecked(*p);
  auto pick = [&](uint32_t m, uint32_t n, uint32_t lda = 0) {
    GemmArgs args{.a = any,
                  .w = {.weight = any, .block_scale = any, .n = n, .k = 4096},
                  .c = any,
                  .m = m,
                  .lda = lda};
    auto v = gemm->Pick(args);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? std::string(kVariants[*v].name) : std::string();
  };
  EXPECT_EQ(pick(1, 4096), "tc_m8_ldg");
  EXPECT_EQ(pick(8, 28672), "tc_m8_ldg_w4") << "1792 tiles";
  EXPECT_EQ(pick(9, 4096), "tc_m16_ldg") << "o: 256 tiles";
  EXPECT_EQ(pick(16, 4224), "tc_m16_ldg") << "264 tiles";
  EXPECT_EQ(pick(16, 4256), "tc_m16_ldg_w4") << "266 tiles";
  EXPECT_EQ(pick(16, 6144, 4104), "tc_m16_ldg_w4") << "pitched rows";
  EXPECT_EQ(pick(17, 4096), "m64") << "tc_m32 is not shipped";
  EXPECT_EQ(pick(32, 28672), "m64") << "wg_m32 is not shipped";
  EXPECT_EQ(pick(48, 4096), "m64") << "tc_m64 is not shipped";
  EXPECT_EQ(pick(65, 4096), "m64") << "wg_m128 is not shipped: two slabs";
}

// --- Executing: on the mock (host emulations) and, where there is one, on the GPU.

class Fp8ExecutionTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    GPUOPS_CREATE_OR_SKIP(gpu_, GetParam());
    auto g = Fp8Gemm::Load(*gpu_);
    ASSERT_TRUE(g.ok()) << g.status();
    gemm_.emplace(*std::move(g));
  }
  UploadedWeight Upload(const Fp8BlockWeight& w) {
    auto d = UploadWeight(*gpu_, w);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *std::move(d) : UploadedWeight();
  }
  UploadedWeight RandomWeight(uint32_t n, uint32_t k, uint64_t seed) {
    std::vector<uint16_t> source(uint64_t{n} * k);
    verify::FillRandomBf16(absl::MakeSpan(source), seed);
    auto w = QuantizeFp8Block(source, n, k);
    EXPECT_TRUE(w.ok()) << w.status();
    return Upload(*w);
  }
  // Variant `v` on A [m, k] and the uploaded weight: C [m, n], poisoned before the launch; empty
  // (after a failed expectation) where the run or the synchronize fails.
  std::vector<uint16_t> RunVariant(Variant v, const DeviceBuffer& a, const UploadedWeight& w,
                                   uint32_t m, uint32_t n) {
    DeviceBuffer c =
        testing::UploadVector(*gpu_, std::vector<uint16_t>(m * n, common::kBf16Poison));
    const absl::Status run = gemm_->Run(v, {.a = a.span(), .w = w.view(), .c = c.span(), .m = m});
    EXPECT_TRUE(run.ok()) << kVariants[v].name << ": " << run;
    const absl::Status sync = run.ok() ? gpu_->Synchronize() : run;
    EXPECT_TRUE(sync.ok()) << kVariants[v].name << ": " << sync;
    return sync.ok() ? testing::DownloadVector<uint16_t>(c) : std::vector<uint16_t>();
  }
  std::unique_ptr<GpuBackend> gpu_;
  std::optional<Fp8Gemm> gemm_;
};

// Every variant that runs without a workspace (all but the stream-K kernels), read from the
// table so that a new variant is covered without a list to update.
std::vector<Variant> WorkspaceFreeVariants() {
  std::vector<Variant> out;
  for (const VariantSpec& spec : kVariants.rows()) {
    if (spec.shape != ArgShape::kStreamK) out.push_back(spec.variant);
  }
  return out;
}

// One launch per projection fills its slot of a packed [m, q | k | v] row buffer (with gaps
// between the slots); each slot equals the contiguous m16 result bit for bit, and no byte
// outside the slots changes.
TEST_P(Fp8ExecutionTest, PackedQkvThreeStridedLaunchesFillTheirSlotsOnly) {
  constexpr uint32_t kM = 5, kK = 256, kLda = 264;
  struct Slot {
    uint32_t n, offset;
  };
  const Slot slots[] = {{256, 0}, {128, 264}, {128, 400}};
  constexpr uint32_t kPitch = 536;
  std::vector<uint16_t> a(kM * kLda);
  verify::FillRandomBf16(absl::MakeSpan(a), 41);
  DeviceBuffer a_dev = testing::UploadVector(*gpu_, a);
  DeviceBuffer packed =
      testing::UploadVector(*gpu_, std::vector<uint16_t>(kM * kPitch, common::kBf16Poison));
  std::vector<std::vector<uint16_t>> expected;
  for (const Slot& s : slots) {
    const UploadedWeight w = RandomWeight(s.n, kK, 100 + s.n + s.offset);
    // The contiguous kernel on a contiguous copy of A.
    std::vector<uint16_t> a_contiguous;
    for (uint32_t r = 0; r < kM; ++r) {
      a_contiguous.insert(a_contiguous.end(), a.begin() + r * kLda, a.begin() + r * kLda + kK);
    }
    DeviceBuffer a_c = testing::UploadVector(*gpu_, a_contiguous);
    DeviceBuffer c_c =
        testing::UploadVector(*gpu_, std::vector<uint16_t>(kM * s.n, common::kBf16Poison));
    ASSERT_TRUE(
        gemm_->Run(Variant::kM16, {.a = a_c.span(), .w = w.view(), .c = c_c.span(), .m = kM}).ok());
    const GemmArgs strided{
        .a = a_dev.span(),
        .w = w.view(),
        .c = DeviceSpan(packed.ptr().offset(s.offset * 2), (kM * kPitch - s.offset) * 2),
        .m = kM,
        .lda = kLda,
        .ldc = kPitch};
    const absl::Status run = gemm_->Run(Variant::kM16Strided, strided);
    ASSERT_TRUE(run.ok()) << run;
    ASSERT_TRUE(gpu_->Synchronize().ok());
    expected.push_back(testing::DownloadVector<uint16_t>(c_c));
  }
  const std::vector<uint16_t> got = testing::DownloadVector<uint16_t>(packed);
  uint64_t in_slots = 0;
  for (uint32_t r = 0; r < kM; ++r) {
    for (uint32_t col = 0; col < kPitch; ++col) {
      const uint16_t value = got[r * kPitch + col];
      bool inside = false;
      for (size_t i = 0; i < 3; ++i) {
        const Slot& s = slots[i];
        if (col >= s.offset && col < s.offset + s.n) {
          inside = true;
          ++in_slots;
          ASSERT_EQ(value, expected[i][r * s.n + col - s.offset])
              << "slot " << i << " row " << r << " col " << col - s.offset;
        }
      }
      if (!inside) {
        ASSERT_EQ(value, common::kBf16Poison) << "gap at row " << r << " col " << col;
      }
    }
  }
  EXPECT_EQ(in_slots, uint64_t{kM} * (256 + 128 + 128));
}

// The seed's reason for the m guard: a raw launch of the 16-row kernel with 17 rows leaves row
// 16 unwritten (on the device and in the emulation alike) instead of failing.
TEST_P(Fp8ExecutionTest, ARaw17RowLaunchOfM16LeavesRow16Unwritten) {
  const UploadedWeight w = RandomWeight(64, 128, 7);
  std::vector<uint16_t> a(17 * 128);
  verify::FillRandomBf16(absl::MakeSpan(a), 8);
  DeviceBuffer a_dev = testing::UploadVector(*gpu_, a);
  DeviceBuffer c =
      testing::UploadVector(*gpu_, std::vector<uint16_t>(17 * 64, common::kBf16Poison));
  auto kernel = TypedKernel<Fp8Args>::Bind(gemm_->kernel(Variant::kM16));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const absl::Status s =
      kernel
          ->Launch(*gpu_, {{2, 1, 1}, {M16Tile::kThreads, 1, 1}, M16Tile::kSharedBytes},
                   {.input = a_dev.ptr(),
                    .weight = w.view().weight.ptr(),
                    .block_scale = w.view().block_scale.ptr(),
                    .output = c.ptr(),
                    .m = 17,
                    .n = 64,
                    .k = 128})
          .launch();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(gpu_->Synchronize().ok());
  verify::CheckStats stats;
  const std::vector<uint16_t> out = testing::DownloadVector<uint16_t>(c);
  verify::CheckWrittenAndGuard(out, 17 * 64, common::kBf16Poison, stats);
  EXPECT_EQ(stats.unwritten, 64u);
  for (uint32_t col = 0; col < 64; ++col) EXPECT_EQ(out[16 * 64 + col], common::kBf16Poison);
}

// Why the scale is folded into an FP32 accumulator. The weight's 128-k blocks alternate +1 and -1
// codes with scales 1 + 3·2^-10 and 1 - 3·2^-11, which BF16 both rounds to 1: folding the scale
// into BF16 weights drops +0.29 % of every positive product and adds 0.15 % to every negative
// one, so across K = 8192 the errors add up while the products cancel, and the result leaves the
// tensor-core bound ~27-fold. The kernels apply each exact FP32 scale to its block's FP32 sum
// and stay within it.
TEST_P(Fp8ExecutionTest, TheFp32FoldStaysInTheBoundWhereABf16FoldLeavesIt) {
  constexpr uint32_t kM = 2, kN = 64, kK = 8192, kBlocks = kK / 128;
  const float scales[2] = {1.0f + 3.0f / 1024, 1.0f - 3.0f / 2048};
  Fp8BlockWeight w{.n = kN, .k = kK, .weight = std::vector<uint8_t>(uint64_t{kN} * kK)};
  for (uint32_t b = 0; b < kBlocks; ++b) w.block_scale.push_back(scales[b % 2]);
  for (uint64_t i = 0; i < w.weight.size(); ++i) {
    w.weight[i] = (i % kK) / 128 % 2 == 0 ? 0x38 : 0xb8;  // +1.0, -1.0
  }
  const std::vector<uint16_t> w_bf16 = DequantizeToBf16(w);
  ASSERT_EQ(Bf16ToFloat(w_bf16[0]), 1.0f);
  ASSERT_EQ(Bf16ToFloat(w_bf16[128]), -1.0f);
  std::vector<uint16_t> a(kM * kK);
  verify::FillRandomBf16(absl::MakeSpan(a), 9, 0.5f, 1.0f);
  // The float64 reference and Σ|a·w|; the BF16-folded result, summed exactly.
  std::vector<double> ref(kM * kN), abs_sum(kM * kN);
  std::vector<uint16_t> folded(kM * kN);
  for (uint32_t r = 0; r < kM; ++r) {
    double exact = 0, abs = 0, bf16_fold = 0;
    for (uint32_t i = 0; i < kK; ++i) {
      const double x = Bf16ToFloat(a[r * kK + i]);
      exact += x * Dequantized(w, 0, i);
      abs += std::fabs(x * Dequantized(w, 0, i));
      bf16_fold += x * Bf16ToFloat(w_bf16[i]);
    }
    for (uint32_t col = 0; col < kN; ++col) {
      ref[r * kN + col] = exact;
      abs_sum[r * kN + col] = abs;
      folded[r * kN + col] = FloatToBf16(static_cast<float>(bf16_fold));
    }
  }
  const std::vector<uint32_t> cols = verify::AllColumns(kN);
  verify::CheckStats bf16_fold;
  verify::CheckTensorCoreBound(folded, kM, kN, cols, ref, abs_sum, bf16_fold);
  EXPECT_EQ(bf16_fold.failures, uint64_t{kM} * kN) << "every output leaves the bound";
  EXPECT_GT(bf16_fold.worst_error_ratio, 10.0);

  const UploadedWeight dw = Upload(w);
  DeviceBuffer a_dev = testing::UploadVector(*gpu_, a);
  for (Variant v : WorkspaceFreeVariants()) {
    const std::vector<uint16_t> got = RunVariant(v, a_dev, dw, kM, kN);
    ASSERT_EQ(got.size(), kM * kN) << kVariants[v].name;
    verify::CheckStats ours;
    verify::CheckTensorCoreBound(got, kM, kN, cols, ref, abs_sum, ours);
    EXPECT_EQ(ours.failures, 0u) << kVariants[v].name << ": " << ours.first_failure;
    EXPECT_LT(ours.worst_error_ratio, 1.0) << kVariants[v].name;
  }
}

// Every E4M3 code (the two NaN codes aside) through every kernel, bit for bit: weight row n
// holds code n at one k (a different fragment position for each row), zeros elsewhere, under
// power-of-two scales; activation rows of 1 and -2 make each output one exact product, so the
// BF16 output is the code's value times its scale (and -2 times it) exactly. On the GPU this
// checks each kernel's E4M3 -> BF16 conversion for signs, zeros, subnormals and ±448.
TEST_P(Fp8ExecutionTest, EveryE4m3CodeReachesTheOutputExactly) {
  constexpr uint32_t kM = 2, kN = 256, kK = 256;
  Fp8BlockWeight w{.n = kN, .k = kK, .weight = std::vector<uint8_t>(uint64_t{kN} * kK)};
  w.block_scale = {1.0f, 0.5f, 0.125f, 2.0f};  // [n block][k block]
  for (uint32_t n = 0; n < kN; ++n) {
    const uint8_t code = n == 0x7f || n == 0xff ? 0x00 : static_cast<uint8_t>(n);  // no NaN
    w.weight[uint64_t{n} * kK + (n * 37) % kK] = code;
  }
  ASSERT_TRUE(Validate(w).ok());
  std::vector<uint16_t> a(kM * kK);
  for (uint32_t i = 0; i < kK; ++i) {
    a[i] = FloatToBf16(1.0f);
    a[kK + i] = FloatToBf16(-2.0f);
  }
  std::vector<uint16_t> expected(kM * kN);
  for (uint32_t n = 0; n < kN; ++n) {
    // (+ 0.0: a zero product summed with the other products' +0 is +0, whatever its sign.)
    const double value = Dequantized(w, n, (n * 37) % kK);
    expected[n] = FloatToBf16(static_cast<float>(value + 0.0));
    expected[kN + n] = FloatToBf16(static_cast<float>(-2.0 * value + 0.0));
  }
  ASSERT_EQ(Bf16ToFloat(expected[0x7e]), 448.0f) << "code 0x7e is +448 under scale 1";
  ASSERT_EQ(Bf16ToFloat(expected[0x01]), std::ldexp(1.0f, -9)) << "the least subnormal";
  const UploadedWeight dw = Upload(w);
  DeviceBuffer a_dev = testing::UploadVector(*gpu_, a);
  for (Variant v : WorkspaceFreeVariants()) {
    SCOPED_TRACE(kVariants[v].name);
    const std::vector<uint16_t> got = RunVariant(v, a_dev, dw, kM, kN);
    ASSERT_EQ(got.size(), kM * kN);
    uint32_t differ = 0;
    std::string first;
    for (uint32_t i = 0; i < kM * kN; ++i) {
      if (got[i] != expected[i] && differ++ == 0) {
        first = StrCat("row ", i / kN, " code 0x", Hex(i % kN), ": got 0x",
                       Hex(got[i]), ", expected 0x", Hex(expected[i]));
      }
    }
    EXPECT_EQ(differ, 0u) << first;
  }
}

// tc_m8_f16's warps each scale their k range of every activation row by a power of two into
// F16 where F16 holds it exactly, and take the BF16 path where it cannot (a range spanning more
// than 2^28, or holding an infinity): every case equals tc_m8's result bit for bit (the same
// products and sums, scaled), at shapes that fill the warps' staging to different depths.
TEST_P(Fp8ExecutionTest, TcM8F16EqualsTcM8InAndOutOfF16Range) {
  constexpr uint32_t kN = 512;
  struct Shape {
    uint32_t m, k;
  };
  struct Case {
    const char* what;
    std::function<void(std::vector<uint16_t>&, uint32_t m, uint32_t k)> edit;
  };
  const std::vector<Case> cases = {
      {"unit-scale rows", [](std::vector<uint16_t>&, uint32_t, uint32_t) {}},
      {"rows of 2^-60 and 2^40", [](std::vector<uint16_t>& a, uint32_t m, uint32_t k) {
         for (uint32_t r = 0; r < m; ++r) {
           for (uint32_t i = 0; i < k; ++i) {
             const float v = Bf16ToFloat(a[r * k + i]);
             a[r * k + i] = FloatToBf16(v * std::ldexp(1.0f, r % 2 == 0 ? -60 : 40));
           }
         }
       }},
      {"warp 0's range spanning 2^40 (its BF16 path)",
       [](std::vector<uint16_t>& a, uint32_t, uint32_t) {
         a[7] = FloatToBf16(std::ldexp(1.0f, 30));
         a[9] = FloatToBf16(std::ldexp(1.0f, -10));
       }},
      {"the last warp's range spanning 2^40 in the last row",
       [](std::vector<uint16_t>& a, uint32_t m, uint32_t k) {
         a[m * k - 3] = FloatToBf16(std::ldexp(1.0f, -12));
         a[m * k - 1] = FloatToBf16(std::ldexp(1.0f, 29));
       }},
      {"an infinity (BF16 path)",
       [](std::vector<uint16_t>& a, uint32_t m, uint32_t k) { a[(m - 1) * k + 5] = 0x7f80; }},
  };
  for (const Shape shape : {Shape{2, 1024}, Shape{1, 14336}, Shape{5, 4096}, Shape{8, 2048}}) {
    const UploadedWeight dw = RandomWeight(kN, shape.k, 21);
    for (const Case& c : cases) {
      SCOPED_TRACE(StrCat(c.what, ", m=", shape.m, " k=", shape.k));
      std::vector<uint16_t> a(shape.m * shape.k);
      verify::FillRandomBf16(absl::MakeSpan(a), 5, -1.0f, 1.0f);
      c.edit(a, shape.m, shape.k);
      DeviceBuffer a_dev = testing::UploadVector(*gpu_, a);
      std::vector<uint16_t> out[2];
      for (int i = 0; i < 2; ++i) {
        DeviceBuffer out_dev = testing::UploadVector(
            *gpu_, std::vector<uint16_t>(shape.m * kN, common::kBf16Poison));
        const absl::Status s =
            gemm_->Run(i == 0 ? Variant::kTcM8F16 : Variant::kTcM8,
                       {.a = a_dev.span(), .w = dw.view(), .c = out_dev.span(), .m = shape.m});
        ASSERT_TRUE(s.ok()) << s;
        ASSERT_TRUE(gpu_->Synchronize().ok());
        out[i] = testing::DownloadVector<uint16_t>(out_dev);
      }
      uint32_t differ = 0;
      for (size_t i = 0; i < out[0].size(); ++i) differ += out[0][i] != out[1][i] ? 1 : 0;
      EXPECT_EQ(differ, 0u) << "of " << out[0].size() << " outputs";
      EXPECT_EQ(std::count(out[0].begin(), out[0].end(), common::kBf16Poison), 0);
    }
  }
}

// Launched overlapping each other (GemmArgs::weight_settled; on sm_90+ programmatic dependent
// launch), a chain of decode GEMMs, each reading the one before it's output and writing over
// that one's input, ends bit for bit where the same chain in plain stream order ends: no launch
// reads A before its predecessor has written it, nor writes C while its predecessor reads it.
TEST_P(Fp8ExecutionTest, SettledLaunchesChainedBackToBackReadEachOthersOutputs) {
  constexpr uint32_t kN = 512, kLinks = 6;
  const UploadedWeight w = RandomWeight(kN, kN, 77);
  int chains = 0;
  for (const VariantSpec& spec : kVariants.rows()) {
    if (!spec.extra.overlaps_previous || !gemm_->Ships(spec.variant)) continue;
    const uint32_t m = spec.max_m;
    std::vector<uint16_t> a(uint64_t{m} * kN);
    verify::FillRandomBf16(absl::MakeSpan(a), 9 + m, -1.0f, 1.0f);
    std::vector<uint16_t> ends[2];
    for (const bool settled : {false, true}) {
      DeviceBuffer buf[2] = {
          testing::UploadVector(*gpu_, a),
          testing::UploadVector(*gpu_, std::vector<uint16_t>(a.size(), common::kBf16Poison))};
      for (uint32_t i = 0; i < kLinks; ++i) {
        const GemmArgs args{.a = buf[i % 2].span(),
                            .w = w.view(),
                            .c = buf[(i + 1) % 2].span(),
                            .m = m,
                            .weight_settled = settled};
        const absl::Status run = gemm_->Run(spec.variant, args);
        ASSERT_TRUE(run.ok()) << spec.name << ": " << run;
      }
      ASSERT_TRUE(gpu_->Synchronize().ok()) << spec.name;
      ends[settled ? 1 : 0] = testing::DownloadVector<uint16_t>(buf[kLinks % 2]);
    }
    EXPECT_EQ(ends[0], ends[1]) << spec.name;
    EXPECT_EQ(std::count(ends[1].begin(), ends[1].end(), common::kBf16Poison), 0) << spec.name;
    ++chains;
  }
  EXPECT_GE(chains, 2) << "at least the register-load kernels ship on every backend";
}

INSTANTIATE_TEST_SUITE_P(Backends, Fp8ExecutionTest,
                         ::testing::ValuesIn(testing::KernelBackendNames()),
                         testing::BackendParamName);

}  // namespace
}  // namespace gpuops::ops::fp8
