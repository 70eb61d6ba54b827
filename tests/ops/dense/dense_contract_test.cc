// Launch contracts of the dense family on the mock: each launcher's grid, block, shared memory,
// argument order and values; the plan; CanImplement's refusals; the dispatcher; and the host
// emulation catching a launcher with swapped grid axes, an under-sized workspace and a wrong ldb.
// (The golden launch traces and the numerics run for every family: tests/ops/family_test.cc.)
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"
#include "tests/support/backends.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "ops/dense/dense_reference.h"
#include "ops/dense/dense_row_class_maps.h"
#include "gpuops/runtime/str.h"
#include "tests/support/device_data.h"
#include "verify/check.h"
#include "verify/random.h"

namespace gpuops::ops::dense {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::gpuops::mock;  // NOLINT: matchers

// A loaded family on a mock that records without executing, with small stand-in buffers.
class DenseContractTest : public ::testing::Test {
 protected:
  DenseContractTest() : gpu_(testing::RecordOnly()) {}
  void SetUp() override {
    auto d = DenseGemm::Load(gpu_);
    ASSERT_TRUE(d.ok()) << d.status();
    dense_.emplace(*std::move(d));
    for (DevicePtr* p : {&a_, &b_, &c_, &ws_}) {
      auto buf = gpu_.Alloc(4096);
      ASSERT_TRUE(buf.ok());
      *p = *buf;
    }
  }
  // Stand-in operands: the mock records without executing, so the launch contracts are tested
  // through unchecked spans (the extent checks have their own tests below).
  GemmArgs Args(uint32_t m, uint32_t n, uint32_t k) const {
    return GemmArgs{.a = DeviceSpan::Unchecked(a_),
                    .b = DeviceSpan::Unchecked(b_),
                    .c = DeviceSpan::Unchecked(c_),
                    .m = m,
                    .n = n,
                    .k = k};
  }
  mock::RecordingBackend gpu_;
  std::optional<DenseGemm> dense_;
  DevicePtr a_, b_, c_, ws_;
};

TEST_F(DenseContractTest, ScalarLaunchesSixteenBySixteenBlocksNFast) {
  ASSERT_TRUE(dense_->Run(Variant::kScalar, Args(17, 200, 64)).ok());
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(Launch(KernelNamed("dense_gemm_bf16"), GridIs(13, 2, 1), BlockIs(16, 16, 1),
                         SharedMemIs(0), ArgCountIs(6), ArgPtrAt(0, a_), ArgPtrAt(1, b_),
                         ArgPtrAt(2, c_), ArgU32At(3, 17), ArgU32At(4, 200), ArgU32At(5, 64))));
}

TEST_F(DenseContractTest, RouterLaunchesSixtyFourColumnTiles) {
  ASSERT_TRUE(dense_->Run(Variant::kRouter, Args(4510, 256, 2048)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_router"), GridIs(4, 282, 1),
                                 BlockIs(16, 16, 1), ArgU32At(3, 4510), ArgU32At(4, 256),
                                 ArgU32At(5, 2048))));
}

TEST_F(DenseContractTest, TensorCoreLaunchesSixtyFourBySixteenTiles) {
  ASSERT_TRUE(dense_->Run(Variant::kTensorCore, Args(1, 4096, 4096)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_tc"), GridIs(64, 1, 1),
                                 BlockIs(128, 1, 1), ArgCountIs(6), ArgPtrAt(2, c_), ArgU32At(3, 1),
                                 ArgU32At(4, 4096), ArgU32At(5, 4096))));
}

TEST_F(DenseContractTest, ScaledAccumulatePassesTheScaleLast) {
  GemmArgs args = Args(16, 64, 32);
  args.scale = -0.25f;
  ASSERT_TRUE(dense_->Run(Variant::kTensorCoreScaledAcc, args).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_tc_scaled_acc"), GridIs(1, 1, 1),
                                 BlockIs(128, 1, 1), ArgCountIs(7), ArgF32At(6, -0.25f))));
}

TEST_F(DenseContractTest, LdbVariantsPassTheStrideAndTakeOddN) {
  GemmArgs args = Args(300, 151937, 4096);
  args.ldb = 4104;
  ASSERT_TRUE(dense_->Run(Variant::kTensorCoreLdb, args).ok());
  ASSERT_TRUE(dense_->Run(Variant::kPipelinedLdb, args).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_tc_ldb"), GridIs(2375, 19, 1),
                                 BlockIs(128, 1, 1), ArgU32At(4, 151937), ArgU32At(6, 4104)),
                          Launch(KernelNamed("dense_gemm_bf16_pipelined_ldb"), GridIs(1188, 3, 1),
                                 BlockIs(256, 1, 1), ArgU32At(6, 4104))));
}

TEST_F(DenseContractTest, PipelinedLaunches128By128TilesWith256Threads) {
  ASSERT_TRUE(dense_->Run(Variant::kPipelined, Args(300, 4096, 4096)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_pipelined"), GridIs(32, 3, 1),
                                 BlockIs(256, 1, 1), SharedMemIs(0))));
}

TEST_F(DenseContractTest, SplitKLaunchesPartialThenReduceOverTheWorkspace) {
  GemmArgs args = Args(4, 200, 4096);
  args.splits = 8;
  args.workspace = DeviceSpan::Unchecked(ws_);
  EXPECT_EQ(dense_->WorkspaceBytes(Variant::kSplitK, args), 8u * 4 * 200 * 4);
  ASSERT_TRUE(dense_->Run(Variant::kSplitK, args).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_splitk_partial"), GridIs(13, 1, 8),
                                 BlockIs(16, 16, 1), ArgPtrAt(2, ws_), ArgU32At(6, 8)),
                          Launch(KernelNamed("dense_gemm_bf16_splitk_reduce"), GridIs(1, 4, 1),
                                 BlockIs(256, 1, 1), ArgPtrAt(0, ws_), ArgPtrAt(1, c_),
                                 ArgU32At(2, 4), ArgU32At(3, 200), ArgU32At(4, 8))));
  // The sm_80 partial kernel does not let its reduce launch early: plain stream order.
  EXPECT_FALSE(gpu_.launches()[1].overlaps_previous);
}

struct Refusal {
  std::string name;
  Variant variant;
  std::function<void(GemmArgs&)> edit;
  std::string message;
};

class DenseCanImplementTest : public DenseContractTest,
                              public ::testing::WithParamInterface<Refusal> {};

TEST_P(DenseCanImplementTest, RefusesWithAMessageAndLaunchesNothing) {
  GemmArgs args = Args(16, 256, 256);
  GetParam().edit(args);
  absl::Status s = dense_->Run(GetParam().variant, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(GetParam().message));
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Refusals, DenseCanImplementTest,
    ::testing::Values(
        Refusal{"OddNOnTensorCore", Variant::kTensorCore, [](GemmArgs& a) { a.n = 151937; },
                "dense_gemm_bf16_tc: n=151937 is not a multiple of 8"},
        Refusal{"KNotMultipleOf8", Variant::kPipelined, [](GemmArgs& a) { a.k = 100; },
                "k=100 is not a multiple of 8 (A and B rows are loaded 16 bytes at a time)"},
        Refusal{"LdbOnAPlainVariant", Variant::kTensorCore, [](GemmArgs& a) { a.ldb = 264; },
                "only the _ldb variants take a B row stride"},
        Refusal{"LdbBelowK", Variant::kTensorCoreLdb, [](GemmArgs& a) { a.ldb = 128; },
                "ldb=128 must be >= k=256"},
        Refusal{"LdbNotMultipleOf8", Variant::kPipelinedLdb, [](GemmArgs& a) { a.ldb = 260; },
                "ldb=260 must be >= k=256 and a multiple of 8"},
        Refusal{"EmptyProblem", Variant::kScalar, [](GemmArgs& a) { a.m = 0; }, "empty problem"},
        Refusal{"NullPointer", Variant::kRouter, [](GemmArgs& a) { a.c = DeviceSpan(); },
                "must be non-null"},
        Refusal{"MisalignedA", Variant::kTensorCore,
                [](GemmArgs& a) { a.a = DeviceSpan::Unchecked(a.a.ptr().offset(2)); },
                "a at 0x7f0000000002 is not 16-byte aligned"},
        Refusal{"SplitKWithoutWorkspace", Variant::kSplitK, [](GemmArgs& a) { a.splits = 4; },
                "needs a workspace of 65536 bytes"},
        Refusal{"TooManySplits", Variant::kSplitK, [](GemmArgs& a) { a.splits = 65; },
                "splits=65 is outside 1..64"},
        Refusal{"WgmmaSplitsPastTheKBlocks", Variant::kWgmma128x128SplitK,
                [](GemmArgs& a) { a.splits = 5; },
                "splits=5 is outside 1..4 (at most one per 64 k)"},
        Refusal{"WgmmaSplitKWithoutWorkspace", Variant::kWgmma128x128SplitK,
                [](GemmArgs& a) { a.splits = 2; },
                "dense_gemm_bf16_wgmma_128x128_splitk: needs a workspace of 32768 bytes"},
        Refusal{"UndersizedStatedWorkspace", Variant::kWgmma128x128SplitK,
                [](GemmArgs& a) {
                  a.splits = 2;
                  a.workspace = DeviceSpan(a.c.ptr(), 32767);
                },
                "workspace holds 32767 bytes, 2 splits of m=16 x n=256 FP32 partials "
                "(WorkspaceBytes) need 32768"},
        Refusal{"MisalignedWorkspace", Variant::kSplitK,
                [](GemmArgs& a) {
                  a.splits = 2;
                  a.workspace = DeviceSpan::Unchecked(a.c.ptr().offset(4));
                },
                "is not 8-byte aligned (FP32 partials are stored two at a time)"},
        Refusal{"ShortA", Variant::kTensorCore,
                [](GemmArgs& a) { a.a = DeviceSpan(a.a.ptr(), 16 * 256 * 2 - 2); },
                "dense_gemm_bf16_tc: a holds 8190 bytes, m=16 rows of k=256 BF16 need 8192"},
        Refusal{"ShortBForItsStride", Variant::kTensorCoreLdb,
                [](GemmArgs& a) {
                  a.ldb = 264;
                  a.b = DeviceSpan(a.b.ptr(), 256 * 256 * 2);
                },
                "b holds 131072 bytes, n=256 rows of k=256 BF16, ldb=264 apart, need 135152"},
        Refusal{"ShortC", Variant::kScalar, [](GemmArgs& a) { a.c = DeviceSpan(a.c.ptr(), 64); },
                "c holds 64 bytes, m=16 rows of n=256 BF16 need 8192"},
        Refusal{"SplitsForAVariantThatDoesNotSplit", Variant::kTensorCore,
                [](GemmArgs& a) { a.splits = 4; }, "splits=4: the kernel does not split K"},
        Refusal{"ScaleForAVariantWithoutOne", Variant::kRouter, [](GemmArgs& a) { a.scale = 0.5f; },
                "scale=0.5: only tc_scaled_acc takes a scale"},
        Refusal{"NonFiniteScale", Variant::kTensorCoreScaledAcc,
                [](GemmArgs& a) { a.scale = std::numeric_limits<float>::quiet_NaN(); },
                "scale=nan is not finite"},
        Refusal{"ProblemWhoseGridWraps", Variant::kTensorCore,
                [](GemmArgs& a) { a.m = 0xFFFFFFFFu; },
                "m=4294967295, n=256 need a grid of (4, 268435456, 1), over the device limit"}),
    [](const auto& info) { return info.param.name; });

TEST_F(DenseContractTest, PlanHoldsEveryLaunchWithItsSplitsAndWorkspace) {
  GemmArgs args = Args(4, 200, 4096);
  args.splits = 8;
  args.workspace = DeviceSpan::Unchecked(ws_);
  auto plan = dense_->Plan(Variant::kSplitK, args);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->variant, Variant::kSplitK);
  EXPECT_EQ(plan->variant_name, "splitk");
  EXPECT_EQ(plan->splits, 8u);
  EXPECT_EQ(plan->workspace_bytes, 8u * 4 * 200 * 4);
  ASSERT_EQ(plan->launches.size(), 2u);
  EXPECT_EQ(plan->launches[0].launch_dims(), (LaunchDims{{13, 1, 8}, {16, 16, 1}, 0}));
  EXPECT_EQ(plan->launches[1].launch_dims(), (LaunchDims{{1, 4, 1}, {256, 1, 1}, 0}));
  EXPECT_EQ(gpu_.launch_count(), 0u) << "planning launches nothing";
  ASSERT_TRUE(dense_->Run(*plan).ok());
  ASSERT_TRUE(dense_->Run(*plan).ok());
  const auto records = gpu_.launches();
  ASSERT_EQ(records.size(), 4u) << "a plan runs again as it is";
  EXPECT_EQ(records[2].grid, records[0].grid);
  EXPECT_EQ(records[3].args[4].u32(), 8u);
}

TEST_F(DenseContractTest, AValueOutsideTheVariantsTableIsAnErrorNotACrash) {
  const auto bogus = static_cast<Variant>(kVariants.size() + 1);
  EXPECT_FALSE(dense_->Ships(bogus));
  EXPECT_TRUE(dense_->kernel(bogus).is_null());
  EXPECT_EQ(dense_->WorkspaceBytes(bogus, Args(16, 64, 64)), 0u);
  absl::Status s = dense_->Run(bogus, Args(16, 64, 64));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(StrCat("dense: variant ", kVariants.size() + 1,
                                            " does not exist (the table has 0..",
                                            kVariants.size() - 1, ")")));
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

TEST_F(DenseContractTest, WgmmaSplitKLaunchesUnitsThenReducesInSplitOrder) {
  GemmArgs args = Args(128, 4096, 14336);  // 32 tiles of 128 x 128 on 132 SMs: 4 splits
  EXPECT_EQ(dense_->SplitsFor(Variant::kWgmma128x128SplitK, args), 4u);
  EXPECT_EQ(dense_->WorkspaceBytes(Variant::kWgmma128x128SplitK, args), 4u * 128 * 4096 * 4);
  args.workspace = DeviceSpan::Unchecked(ws_);
  ASSERT_TRUE(dense_->Run(Variant::kWgmma128x128SplitK, args).ok());
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(Launch(KernelNamed("dense_gemm_bf16_wgmma_128x128_splitk"), GridIs(128, 1, 1),
                         BlockIs(384, 1, 1), ArgPtrAt(2, ws_), ArgU32At(6, 4)),
                  Launch(KernelNamed("dense_gemm_bf16_splitk_reduce"), GridIs(16, 128, 1),
                         ArgPtrAt(0, ws_), ArgPtrAt(1, c_), ArgU32At(4, 4))));
  // After the sm_90a split kernel the reduce overlaps its launch (it waits in the kernel).
  EXPECT_FALSE(gpu_.launches()[0].overlaps_previous);
  EXPECT_TRUE(gpu_.launches()[1].overlaps_previous);
}

// The wgmma variants go by the time dense_time_model.h predicts; the figures in the comments are
// the model's and, after the slash, the H200's (forced variants, bench/results/
// 2026-12-03-s18-grid-*.csv), in microseconds.
TEST_F(DenseContractTest, DispatcherSplitsKOnlyWithTheWorkspaceForIt) {
  // 32 tiles of 128 x 128 in 4 splits of 3584 k: 43.2 / 42.9; 64 x 128 tiles in 2 splits
  // 47.1 / 43.6; unsplit 64 x 64 tiles 50.9 / 46.0.
  GemmArgs args = Args(128, 4096, 14336);
  const uint64_t need = dense_->GemmWorkspaceBytes(args);
  EXPECT_EQ(need, dense_->WorkspaceBytes(Variant::kWgmma128x128SplitK, args));
  EXPECT_EQ(dense_->SplitsFor(Variant::kWgmma128x128SplitK, args), 4u);
  EXPECT_EQ(*dense_->Pick(args), Variant::kWgmma64x64) << "no workspace given";
  args.workspace = DeviceSpan(ws_, need - 1);
  EXPECT_EQ(*dense_->Pick(args), Variant::kWgmma64x128SplitK)
      << "too small for 4 splits of 128 x 128, enough for 2 of 64 x 128";
  args.workspace = DeviceSpan(ws_, dense_->WorkspaceBytes(Variant::kWgmma64x128SplitK, args) - 1);
  EXPECT_EQ(*dense_->Pick(args), Variant::kWgmma64x64) << "too small for either";
  args.workspace = DeviceSpan::Unchecked(ws_);
  EXPECT_EQ(*dense_->Pick(args), Variant::kWgmma64x64) << "workspace of unknown size";
  args.workspace = DeviceSpan(ws_, need);
  EXPECT_EQ(*dense_->Pick(args), Variant::kWgmma128x128SplitK);
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(128, 151937, 4096)), 0u) << "1187 tiles: no split";
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(16, 4096, 4096)), 0u) << "decode takes gemv";
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(1024, 4096, 4096)), 0u) << "one split only";
  // Short K: unsplit 64 x 64 tiles, 14.4 / 13.9, ahead of every split (64 x 128: 16.6 / 16.4).
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(128, 3072, 2048)), 0u);
  // M <= 64, long K: 32 tiles of 64 x 128 in 4 splits, 38.1 / 40.7 (128 x 128 in 4: 39.9 /
  // 39.3; unsplit 64 x 64: 47.5 / 46.1).
  GemmArgs small = Args(24, 4096, 14336);
  EXPECT_EQ(dense_->SplitsFor(Variant::kWgmma64x128SplitK, small), 4u);
  EXPECT_EQ(dense_->GemmWorkspaceBytes(small),
            dense_->WorkspaceBytes(Variant::kWgmma64x128SplitK, small));
  small.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(small));
  EXPECT_EQ(*dense_->Pick(small), Variant::kWgmma64x128SplitK);
  // M > 128: 128 x 256 tiles in 3 splits of 6314 k, 89.1 / 83.3, ahead of 128 x 128 unsplit
  // (104.7 / 101.5) and 192 x 64 (111.4 / 96.4).
  GemmArgs wide = Args(384, 3584, 18944);
  EXPECT_EQ(dense_->GemmWorkspaceBytes(wide), 3ull * 384 * 3584 * 4);
  wide.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(wide));
  EXPECT_EQ(*dense_->Pick(wide), Variant::kWgmma128x256SplitK);
  // 192 x 64 tiles, one wave: 55.1 / 49.4, ahead of the 128 x 256 split (66.7 / 63.0).
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(192, 8192, 8192)), 0u);
}

// A _tail variant where the tiles pass a whole wave and splitting the last one saves 3 % or
// more of its tile's time (model); the H200's times of the same run (bench/results/
// 2026-12-04-s21-*.csv, the dispatcher and the session-19 pick forced), in microseconds.
TEST_F(DenseContractTest, DispatcherSplitsTheLastWaveWhereItPays) {
  auto with_workspace = [&](uint32_t m, uint32_t n, uint32_t k) {
    GemmArgs args = Args(m, n, k);
    args.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(args));
    return args;
  };
  // 160 tiles of 128 x 256: 28 split 4 ways, 369.9 / 411.6 (128 x 192 unsplit).
  GemmArgs long_k = with_workspace(1024, 5120, 27648);
  EXPECT_EQ(*dense_->Pick(long_k), Variant::kWgmma128x256Tail);
  EXPECT_EQ(dense_->SplitsFor(Variant::kWgmma128x256Tail, long_k), 4u);
  EXPECT_EQ(dense_->GemmWorkspaceBytes(long_k), 28ull * 4 * 128 * 256 * 4);
  // 672 tiles of 128 x 128: 12 split 8 ways, 413.3 / 437.1 (128 x 256).
  EXPECT_EQ(*dense_->Pick(with_workspace(3072, 3584, 14336)), Variant::kWgmma128x128Tail);
  // Without a workspace the same shape runs unsplit.
  const Variant unsplit = *dense_->Pick(Args(3072, 3584, 14336));
  EXPECT_EQ(kVariants[unsplit].shape, ArgShape::kTma) << kVariants[unsplit].name;
  // Fewer tiles than SMs: the split-K and 64-row variants, which ran 5-20 % faster there.
  EXPECT_EQ(*dense_->Pick(with_workspace(128, 4096, 14336)), Variant::kWgmma128x128SplitK);
  // 192x128_splitk (19 tiles in 4 splits, 68.9 on the session-34 H100 against 68.8) is within
  // its margin here.
  EXPECT_EQ(*dense_->Pick(with_workspace(192, 3584, 18944)), Variant::kWgmma64x128);
  // Many waves: a split of the last saves under 3 %, so the tile runs whole.
  EXPECT_EQ(*dense_->Pick(with_workspace(4096, 4096, 4096)), Variant::kWgmma128x256);
  const Variant many_waves = *dense_->Pick(with_workspace(8192, 28672, 4096));
  EXPECT_EQ(kVariants[many_waves].shape, ArgShape::kTma) << kVariants[many_waves].name;
  EXPECT_EQ(dense_->SplitsFor(Variant::kWgmma128x256Tail, Args(8192, 28672, 4096)), 1u);
}

// The variants the time model has no row for yet run only when forced: the dispatcher never
// picks them.
TEST_F(DenseContractTest, UnfittedVariantsRunOnlyWhenForced) {
  const Variant unfitted[] = {Variant::kWgmma128x112PingPong};
  for (const auto& [m, n, k] : {std::array<uint32_t, 3>{192, 8192, 28672}, {192, 57344, 8192},
                                {512, 3584, 18944}, {512, 3584, 14336}, {256, 57344, 8192},
                                {384, 4608, 3584}}) {
    GemmArgs args = Args(m, n, k);
    uint64_t need = 0;
    for (Variant v : unfitted) need = std::max(need, dense_->WorkspaceBytes(v, args));
    args.workspace = DeviceSpan(ws_, need);
    const Variant pick = *dense_->Pick(args);
    for (Variant v : unfitted) EXPECT_NE(pick, v) << m << "x" << n << "x" << k;
  }
}

// The 192 x 128 split and tail variants (rows fitted on an H100, picked by kPickMargin). Times:
// bench/results/2026-12-06-s34-h100-*.csv, H100, microseconds (ours / the old pick forced).
TEST_F(DenseContractTest, DispatcherSplits192RowTilesWhereTheyPay) {
  auto with_workspace = [&](uint32_t m, uint32_t n, uint32_t k) {
    GemmArgs args = Args(m, n, k);
    args.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(args));
    return args;
  };
  // 448 tiles of 192 x 128 (3.39 waves): the last wave's 52 tiles split, measured 346-350 in 2
  // splits against 360-367 unsplit at M = 136-192 (the fitted row picks 5: 271.5 predicted
  // against 273.0 for 2).
  const GemmArgs wide = with_workspace(192, 57344, 8192);
  EXPECT_EQ(*dense_->Pick(wide), Variant::kWgmma192x128Tail);
  EXPECT_GT(dense_->SplitsFor(Variant::kWgmma192x128Tail, wide), 1u);
  EXPECT_EQ(*dense_->Pick(with_workspace(160, 55296, 5120)), Variant::kWgmma192x128Tail)
      << "224.6 / 237.7";
  // Predicted within the margin of 192 x 192 (226 / 221 at M = 160): not picked.
  EXPECT_EQ(*dense_->Pick(with_workspace(160, 40960, 7168)), Variant::kWgmma192x192);
  // 64 tiles in 2 splits: 74.6 against 128 x 128's 75.7 (M = 320).
  EXPECT_EQ(*dense_->Pick(with_workspace(320, 4096, 14336)), Variant::kWgmma192x128SplitK);
  // 64 tiles: two splits fill 128 of the 132 SMs.
  EXPECT_EQ(dense_->SplitsFor(Variant::kWgmma192x128SplitK, Args(192, 8192, 28672)), 2u);
}

// The 112-wide tiles on one wave (a row fitted on an H100, picked by kPickMargin, up to M =
// 512). Times: bench/results/2026-12-07-s35-h100-grid-128x112.csv, -s35-h100-ab-112.csv and
// -s34-h100-one-wave-128x112.csv, H100, microseconds (112 / the 128-wide pick forced in the same
// run).
TEST_F(DenseContractTest, DispatcherPicks112WideTilesOnOneWave) {
  // 128 tiles of 112 columns against 112 of 128 on 132 SMs.
  EXPECT_EQ(*dense_->Pick(Args(512, 3584, 18944)), Variant::kWgmma128x112) << "93.5 / 101.9";
  EXPECT_EQ(*dense_->Pick(Args(512, 3584, 14336)), Variant::kWgmma128x112) << "74.7 / 79.5";
  EXPECT_EQ(*dense_->Pick(Args(384, 4608, 3584)), Variant::kWgmma128x112) << "25.5 / 27.1";
  // Past one wave (192 tiles, 1.45 waves): 178.7 against 128 x 176's 139.5.
  EXPECT_NE(*dense_->Pick(Args(768, 3584, 18944)), Variant::kWgmma128x112);
  // M past the row's fit, one wave of 112 all the same: 141.2 against 128 x 128's 109.9 (130
  // tiles), 57.9 against 52.0 (1152 x 1536 x 8960, 126 tiles).
  EXPECT_EQ(PredictMicros(Variant::kWgmma128x112, 624, 2816, 19712, 1, 132), std::nullopt);
  EXPECT_NE(*dense_->Pick(Args(624, 2816, 19712)), Variant::kWgmma128x112);
  EXPECT_NE(*dense_->Pick(Args(1152, 1536, 8960)), Variant::kWgmma128x112);
  // One wave but within the margin of 128 x 96 (512 x 3072: 112 tiles of 112, 152 of 96).
  EXPECT_NE(*dense_->Pick(Args(512, 3072, 8192)), Variant::kWgmma128x112);
}

TEST_F(DenseContractTest, DispatcherPicksByShape) {
  EXPECT_EQ(*dense_->Pick(Args(1, 4096, 4096)), Variant::kGemvM8);
  EXPECT_EQ(*dense_->Pick(Args(8, 151937, 4096)), Variant::kGemvM8) << "M <= 8: gemv_m8";
  // M = 9..16: gemv_m16 among the wgmma variants by predicted time (model / H200 forced,
  // -s18-m9-16-forced.csv and the sweep, microseconds):
  EXPECT_EQ(*dense_->Pick(Args(16, 4096, 4096)), Variant::kGemvM16)
      << "17.8 / 19.0; 64 x 64 19.9 / 19.3";
  EXPECT_EQ(*dense_->Pick(Args(12, 896, 896)), Variant::kGemvM16) << "8.0 / 6.9; 64 x 64 10.8";
  EXPECT_EQ(*dense_->Pick(Args(12, 8192, 8192)), Variant::kWgmma64x64)
      << "37.5 / 40.9; gemv_m16 47.5 / 45.7";
  EXPECT_EQ(*dense_->Pick(Args(12, 10240, 8192)), Variant::kWgmma64x128) << "45.1 / 47.5";
  EXPECT_EQ(*dense_->Pick(Args(16, 9728, 896)), Variant::kWgmma64x128)
      << "12.7 / 13.1; gemv_m16 16.0 / 17.5";
  EXPECT_EQ(*dense_->Pick(Args(16, 151937, 4096)), Variant::kWgmma64x128);
  GemmArgs decode_split = Args(12, 5120, 27648);
  EXPECT_EQ(dense_->GemmWorkspaceBytes(decode_split),
            dense_->WorkspaceBytes(Variant::kWgmma64x128SplitK, decode_split));
  decode_split.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(decode_split));
  EXPECT_EQ(*dense_->Pick(decode_split), Variant::kWgmma64x128SplitK)
      << "75.2 / 77.8; gemv_m16 87.8 / 86.4-88.8";
  // The wgmma tiles by predicted time, on the mock's 132 SMs (model / H200, microseconds, as
  // above; no workspace, so no split):
  EXPECT_EQ(*dense_->Pick(Args(24, 9216, 3072)), Variant::kWgmma64x128)
      << "21.7 / 22.3; 128 x 128 26.2 / 25.9";
  EXPECT_EQ(*dense_->Pick(Args(128, 3072, 2048)), Variant::kWgmma64x64)
      << "96 tiles: 14.4 / 13.9; 64 x 128 14.8 / 14.9";
  EXPECT_EQ(*dense_->Pick(Args(96, 10240, 8192)), Variant::kWgmma128x128)
      << "80 tiles: 56.6 / 54.4; 160 of 64 x 128 66.2 / 74.5";
  EXPECT_EQ(*dense_->Pick(Args(96, 17920, 1536)), Variant::kWgmma128x192)
      << "94 tiles: 23.2 / 25.6; 128 x 256 26.3 / 26.4";
  EXPECT_EQ(*dense_->Pick(Args(128, 28672, 4096)), Variant::kWgmma128x256)
      << "112 tiles: 59.1 / 69.8; 128 x 128 64.2 / 75.2";
  EXPECT_EQ(*dense_->Pick(Args(192, 6144, 4096)), Variant::kWgmma192x64)
      << "96 tiles: 29.3 / 28.2; 128 x 128 31.2 / 33.1";
  EXPECT_EQ(*dense_->Pick(Args(192, 16384, 2048)), Variant::kWgmma192x128)
      << "128 tiles: 27.0 / 28.8; 128 x 256 32.3 / 31.2";
  EXPECT_EQ(*dense_->Pick(Args(192, 22016, 4096)), Variant::kWgmma192x192)
      << "115 tiles: 57.7 / 57.4; 64 x 128 74.5 / 68.0";
  EXPECT_EQ(*dense_->Pick(Args(512, 3072, 8192)), Variant::kWgmma128x96)
      << "128 tiles: 38.6 / 38.6-38.8; 96 of 128 x 128 45.4-45.9 (-s23-grid-new-tiles.csv)";
  EXPECT_EQ(*dense_->Pick(Args(768, 6144, 4096)), Variant::kWgmma192x192)
      << "128 tiles: 55.2 / 54.7; 256 of 128 x 192 71.4 / 71.2";
  EXPECT_EQ(*dense_->Pick(Args(1024, 6144, 4096)), Variant::kWgmma128x192PingPong)
      << "256 tiles (two waves): 71.2 / 70.5 cooperative; 384 of 128 x 128 71.6 / 71.6";
  // Many waves: the ping-pong kernels hide an epilogue a wave (qwen2.5-0.5b's vocab head at
  // M = 4096, 192 waves: 128 x 192 cooperative 1660 us in the session-21 sweep).
  EXPECT_EQ(*dense_->Pick(Args(4096, 151936, 896)), Variant::kWgmma128x192PingPong);
  // Widths that fill the last wave (session 28, H100, forced in one run, microseconds):
  EXPECT_EQ(*dense_->Pick(Args(1024, 9728, 896)), Variant::kWgmma128x160PingPong)
      << "488 tiles (3.7 waves): 31.8; 128 x 128 ping-pong (608 tiles, 4.6 waves) 34.3";
  EXPECT_EQ(*dense_->Pick(Args(512, 5120, 4096)), Variant::kWgmma128x160)
      << "128 tiles, one wave: 33.3; 128 x 192 (108 tiles) 42.2";
  EXPECT_EQ(*dense_->Pick(Args(768, 3584, 14336)), Variant::kWgmma128x176)
      << "126 tiles, one wave: 107.0; 128 x 128 tail 115.2";
  EXPECT_EQ(*dense_->Pick(Args(1024, 5120, 5120)), Variant::kWgmma128x160PingPong)
      << "256 tiles (1.94 waves): 73.1; 128 x 128 tail 85.5";
  // Past 16 waves they are not candidates (max_waves).
  EXPECT_EQ(*dense_->Pick(Args(4096, 55296, 5120)), Variant::kWgmma128x256);
  // One wave: the cooperative kernel, two warpgroups a tile.
  EXPECT_EQ(*dense_->Pick(Args(512, 3072, 8192)), Variant::kWgmma128x96);
  EXPECT_EQ(*dense_->Pick(Args(4096, 4096, 4096)), Variant::kWgmma128x256)
      << "512 tiles: 175.1 / 181.7; 1024 of 128 x 128 184.2 / 190.8";
  GemmArgs strided = Args(1, 4096, 4096);
  strided.ldb = 4160;
  EXPECT_EQ(*dense_->Pick(strided), Variant::kGemvM8);
  EXPECT_EQ(*dense_->Pick(Args(1, 4096, 4099)), Variant::kGemvM8Unaligned) << "K % 8 != 0";
  EXPECT_EQ(*dense_->Pick(Args(16, 4097, 4099)), Variant::kGemvM16Unaligned);
  GemmArgs offset = Args(8, 4096, 4096);
  offset.b = DeviceSpan::Unchecked(DevicePtr(b_.address() + 2));
  EXPECT_EQ(*dense_->Pick(offset), Variant::kGemvM8Unaligned) << "B 2-byte aligned";
  GemmArgs odd_ldb = Args(16, 4096, 4096);
  odd_ldb.ldb = 4099;
  EXPECT_EQ(*dense_->Pick(odd_ldb), Variant::kGemvM16Unaligned) << "ldb % 8 != 0";
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(16, 4096, 100)), 0u) << "no copy up to M = 16";
  // M <= 16 on weights of 2^25 elements and more, given the workspace: the _classes tile before
  // the _unaligned gemv (14336 x 4103: 64 x 128, 112 n-blocks); below 2^25 elements, or without
  // the workspace, the gemv.
  for (uint32_t m : {1u, 8u, 9u, 16u}) {
    const Variant gemv = m <= 8 ? Variant::kGemvM8Unaligned : Variant::kGemvM16Unaligned;
    GemmArgs big = Args(m, 14336, 4103);
    big.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(big));
    EXPECT_EQ(*dense_->Pick(big), kClassTilesDispatched ? Variant::kWgmma64x128Classes : gemv)
        << "m=" << m;
    EXPECT_EQ(big.workspace.bytes(), dense_->WorkspaceBytes(*dense_->Pick(big), big));
    EXPECT_EQ(*dense_->Pick(Args(m, 14336, 4103)), gemv) << "m=" << m << ", no workspace";
    for (uint32_t n : {8190u, 8191u}) {  // 8190 x 4097 < 2^25 <= 8191 x 4097
      GemmArgs edge = Args(m, n, 4097);
      edge.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(edge));
      const Variant got = *dense_->Pick(edge);
      if (n == 8190 || !kClassTilesDispatched) {
        EXPECT_EQ(got, gemv) << "m=" << m << " n=" << n;
      } else {
        EXPECT_TRUE(got == Variant::kWgmma64x128Classes || got == Variant::kWgmma64x64Classes)
            << "m=" << m << " n=" << n << ": " << kVariants[got].name;
      }
    }
  }
  EXPECT_EQ(*dense_->Pick(Args(17, 4097, 100)), Variant::kGemvM32Unaligned)
      << "any K and N, no workspace";
  EXPECT_EQ(dense_->GemmWorkspaceBytes(Args(32, 4096, 100)), 8u * 32 * 128 * 2)
      << "M = 17..64: 8 shifted copies of A, rows of K + 7 rounded up to 32";
  // M = 17..128 given the workspace: the _classes tile whose aligned twin the time model
  // predicts fastest on the columns and k-blocks the class tiles cover, where its grid holds 32
  // tiles or more (N = 4096 at 64 x 64: 64 n-blocks a 64-row m-block); else the _shifted gemv up
  // to M = 64 and packed.
  for (uint32_t m : {16u, 17u, 32u, 33u, 64u, 65u, 128u, 129u, 512u}) {
    GemmArgs ragged = Args(m, 4096, 100);
    ragged.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(ragged));
    const Variant want = m <= 16    ? Variant::kGemvM16Unaligned
                         : !kClassTilesDispatched || m > 128
                             ? (m <= 32 ? Variant::kGemvM32Shifted
                                : m <= 64 ? Variant::kGemvM64Shifted
                                          : Variant::kPacked)
                             : Variant::kWgmma64x64Classes;
    EXPECT_EQ(*dense_->Pick(ragged), want) << "m=" << m << " given GemmWorkspaceBytes";
    EXPECT_EQ(ragged.workspace.bytes(), dense_->WorkspaceBytes(want, ragged)) << "m=" << m;
  }
  // Too few class tiles to fill the GPU: N = 1005 makes 16 n-blocks of 64 x 64 class tiles, one
  // m-block up to M = 64 (the shifted gemv instead), two at M = 65..128.
  for (uint32_t m : {24u, 64u, 96u, 128u}) {
    GemmArgs narrow = Args(m, 1005, 2053);
    narrow.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(narrow));
    const Variant want = kClassTilesDispatched && m > 64 ? Variant::kWgmma64x64Classes
                         : m <= 32                      ? Variant::kGemvM32Shifted
                         : m <= 64                      ? Variant::kGemvM64Shifted
                                                        : Variant::kPacked;
    EXPECT_EQ(*dense_->Pick(narrow), want) << "m=" << m << " n=1005";
  }
  // Wide problems take the wider class tiles where their twins are predicted faster.
  GemmArgs wide = Args(128, 14336, 4103);
  wide.workspace = DeviceSpan(ws_, dense_->GemmWorkspaceBytes(wide));
  EXPECT_EQ(*dense_->Pick(wide),
            kClassTilesDispatched ? Variant::kWgmma128x128Classes : Variant::kPacked)
      << "128 x 128 twin on 128 x 14336 x 4160: 1 x 112 tiles";
  EXPECT_EQ(*dense_->Pick(Args(33, 4096, 100)), Variant::kScalar) << "M > 32, no workspace";
  auto none = dense_->Pick(Args(0, 64, 64));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("no variant can run m=0 n=64 k=64"));
  ASSERT_TRUE(dense_->Gemm(Args(128, 256, 64)).ok());
  EXPECT_THAT(gpu_.launches(), ElementsAre(KernelNamed("dense_gemm_bf16_wgmma_128x96")))
      << "3 tiles: the least predicted fixed cost";
}

// packed: A and B copied into 16-byte rows of K rounded up to 8 (A at the workspace's start,
// B at the next 256-byte boundary, C after B when C is not 16-byte aligned), the dispatcher's
// kernel on the copies, then C copied back.
TEST_F(DenseContractTest, PackedCopiesIntoTheWorkspaceRunsTheAlignedKernelAndCopiesCBack) {
  GemmArgs args = Args(300, 4100, 8195);  // rows of two copy chunks (PackTile::kChunk)
  args.c = DeviceSpan::Unchecked(DevicePtr(c_.address() + 2));
  const uint64_t a_bytes = 300ull * 8200 * 2, b_bytes = 4100ull * 8200 * 2;
  const uint64_t b_at = AlignUp(a_bytes, 256), c_at = b_at + AlignUp(b_bytes, 256);
  const uint64_t ws_bytes = dense_->WorkspaceBytes(Variant::kPacked, args);
  EXPECT_EQ(ws_bytes, c_at + 300ull * 4100 * 2);
  auto workspace = gpu_.Alloc(ws_bytes);  // the copies' tensor maps
  ASSERT_TRUE(workspace.ok());
  const DevicePtr ws = *workspace;
  args.workspace = DeviceSpan(ws, ws_bytes);
  auto plan = dense_->Plan(Variant::kPacked, args);  // the dispatcher's pick above M = 512
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->variant, Variant::kPacked);
  EXPECT_EQ(plan->workspace_bytes, c_at + 300ull * 4100 * 2);
  ASSERT_TRUE(dense_->Run(*plan).ok());
  const DevicePtr ws_b(ws.address() + b_at), ws_c(ws.address() + c_at);
  EXPECT_THAT(
      gpu_.launches(),
      ElementsAre(
          Launch(KernelNamed("dense_pack_rows_bf16"), GridIs(300, 2, 1), BlockIs(256, 1, 1),
                 ArgCountIs(6), ArgPtrAt(0, a_), ArgPtrAt(1, ws), ArgU32At(2, 300),
                 ArgU32At(3, 8195), ArgU32At(4, 8195), ArgU32At(5, 8200)),
          Launch(KernelNamed("dense_pack_rows_bf16"), GridIs(4100, 2, 1), ArgPtrAt(0, b_),
                 ArgPtrAt(1, ws_b), ArgU32At(2, 4100), ArgU32At(3, 8195), ArgU32At(4, 8195),
                 ArgU32At(5, 8200)),
          Launch(KernelNamed("dense_gemm_bf16_wgmma_128x128"), ArgPtrAt(2, ws_c),
                 ArgU32At(3, 300), ArgU32At(4, 4100), ArgU32At(5, 8200)),
          Launch(KernelNamed("dense_pack_rows_bf16"), GridIs(300, 1, 1), ArgPtrAt(0, ws_c),
                 ArgPtrAt(1, DevicePtr(c_.address() + 2)), ArgU32At(2, 300), ArgU32At(3, 4100),
                 ArgU32At(4, 4100), ArgU32At(5, 4100))));
  args.workspace = DeviceSpan(ws, ws_bytes - 1);
  absl::Status s = dense_->Run(Variant::kPacked, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("workspace"));
}

// gemv_m32_shifted / _m64_shifted: A copied once per row class into the workspace (8 copies of
// M rows of K + 7 rounded up to 32, copy L shifted L elements), then the row-class gemv reading
// the copies in A's place, over 8 blocks per 128 rows of B.
TEST_F(DenseContractTest, ShiftedGemvCopiesAIntoTheWorkspaceThenReadsTheCopies) {
  GemmArgs args = Args(40, 1001, 4099);
  const uint64_t ws_bytes = 8ull * 40 * 4128 * 2;
  EXPECT_EQ(dense_->WorkspaceBytes(Variant::kGemvM64Shifted, args), ws_bytes);
  EXPECT_EQ(dense_->GemmWorkspaceBytes(args), ws_bytes) << "the _classes tiles' copies: the same";
  auto workspace = gpu_.Alloc(ws_bytes);
  ASSERT_TRUE(workspace.ok());
  args.workspace = DeviceSpan(*workspace, ws_bytes);
  auto plan = dense_->Plan(Variant::kGemvM64Shifted, args);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->variant, Variant::kGemvM64Shifted);
  EXPECT_EQ(plan->workspace_bytes, ws_bytes);
  ASSERT_TRUE(dense_->Run(*plan).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_shift_rows_bf16"), GridIs(40, 8, 3),
                                 BlockIs(256, 1, 1), ArgCountIs(6), ArgPtrAt(0, a_),
                                 ArgPtrAt(1, *workspace), ArgU32At(2, 40), ArgU32At(3, 4099),
                                 ArgU32At(4, 4099), ArgU32At(5, 4128)),
                          Launch(KernelNamed("dense_gemv_bf16_m64_shifted"), GridIs(64, 1, 1),
                                 ArgCountIs(7), ArgPtrAt(0, *workspace), ArgPtrAt(1, b_),
                                 ArgPtrAt(2, c_), ArgU32At(3, 40), ArgU32At(4, 1001),
                                 ArgU32At(5, 4099), ArgU32At(6, 4099))));
  // Refused, naming the kernel and the workspace it needs: none, too small, not 16-byte aligned.
  for (const DeviceSpan& bad :
       {DeviceSpan(), DeviceSpan(*workspace, ws_bytes - 1),
        DeviceSpan::Unchecked(DevicePtr(workspace->address() + 8))}) {
    args.workspace = bad;
    const absl::Status s = dense_->Run(Variant::kGemvM64Shifted, args);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("dense_gemv_bf16_m64_shifted"));
    EXPECT_THAT(s.message(), HasSubstr("workspace"));
  }
  args.m = 65;
  EXPECT_THAT(dense_->CanImplement(Variant::kGemvM64Shifted, args).message(),
              HasSubstr("m=65 exceeds the kernel's 64 rows"));
}

// A B at byte 0x1000 + 6 (three elements past a 16-byte boundary) with rows 4099 apart: class r
// starts at element 3 + 4099 r from 0x1000, its map at the 16-byte block holding it.
TEST(DenseRowClassTest, ClassesStartAtTheSixteenByteBlockOfTheirFirstRow) {
  constexpr uint64_t b = 0x1000 + 6;
  const auto classes = RowClassesOf(b, 4099, 20);
  EXPECT_EQ(classes[0], (RowClass{.address = 0x1000, .shift = 3, .rows = 3, .stride_bytes = 65584}));
  // 4102 = 8 x 512 + 6; 16399 = 8 x 2049 + 7.
  EXPECT_EQ(classes[1], (RowClass{.address = 0x1000 + 2 * 4096, .shift = 6, .rows = 3,
                                  .stride_bytes = 65584}));
  EXPECT_EQ(classes[4], (RowClass{.address = 0x1000 + 2 * 16392, .shift = 7, .rows = 2,
                                  .stride_bytes = 65584}));
  uint32_t shifts = 0;
  for (uint32_t r = 0; r < 8; ++r) {
    EXPECT_EQ((3 + 4099 * r) % 8, classes[r].shift) << r;
    EXPECT_EQ(classes[r].address % 16, 0u) << r;
    EXPECT_EQ(classes[r].address + 2 * classes[r].shift, b + 2 * 4099 * r) << r;
    shifts |= classes[r].shift << (3 * r);
  }
  EXPECT_EQ(PackShifts(classes), shifts);
  for (uint32_t r = 0; r < 8; ++r) EXPECT_EQ(ClassTiles::ShiftOf(shifts, r), classes[r].shift);
  // Fewer rows than classes: an empty class stands in class 0 (its columns all lie past N).
  EXPECT_EQ(RowClassOf(b, 4099, 5, 6), RowClassOf(b, 4099, 5, 0));
  EXPECT_EQ(RowClassOf(b, 4099, 5, 4).rows, 1u);
}

// The _classes tiles: A copied once per shift into the workspace (as the _shifted gemv), then
// one launch over ceil(M / 64) x 8 ceil(ceil(N / 8) / 64) tiles with A's copies as one tensor
// of 8 M rows and B's eight row classes as eight tensors, the shifts packed 3 bits a class.
TEST_F(DenseContractTest, ClassTilesCopyAThenReadBInPlaceByRowClass) {
  auto b = gpu_.Alloc(1001 * 4103 * 2 + 64);
  ASSERT_TRUE(b.ok());
  const DevicePtr b_at(b->address() + 10);  // 5 elements past a 16-byte boundary
  GemmArgs args = Args(100, 1001, 4099);
  args.b = DeviceSpan::Unchecked(b_at);
  args.ldb = 4103;
  const uint64_t ws_bytes = 8ull * 100 * 4128 * 2;
  EXPECT_EQ(dense_->WorkspaceBytes(Variant::kWgmma64x64Classes, args), ws_bytes);
  auto workspace = gpu_.Alloc(ws_bytes);
  ASSERT_TRUE(workspace.ok());
  args.workspace = DeviceSpan(*workspace, ws_bytes);
  auto plan = dense_->Plan(Variant::kWgmma64x64Classes, args);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->workspace_bytes, ws_bytes);
  ASSERT_TRUE(dense_->Run(*plan).ok());
  const auto records = gpu_.launches();
  // 2 m-blocks x 8 classes x ceil(126 / 64) = 32 tiles, one block each.
  EXPECT_THAT(records,
              ElementsAre(Launch(KernelNamed("dense_shift_rows_bf16"), GridIs(100, 8, 3),
                                 ArgPtrAt(0, a_), ArgPtrAt(1, *workspace), ArgU32At(2, 100),
                                 ArgU32At(3, 4099), ArgU32At(4, 4099), ArgU32At(5, 4128)),
                          Launch(KernelNamed("dense_gemm_bf16_wgmma_64x64_classes"),
                                 GridIs(32, 1, 1), BlockIs(256, 1, 1),
                                 SharedMemIs(WgmmaTile<64, 1>::kSharedBytes), ArgCountIs(14),
                                 ArgPtrAt(9, c_), ArgU32At(10, 100), ArgU32At(11, 1001),
                                 ArgU32At(12, 4099))));
  auto map_at = [&](size_t arg) {
    TensorMapBytes bytes;
    std::memcpy(bytes.bytes.data(), records[1].args[arg].bytes.data(), 128);
    return DecodeHostTensorMap(bytes);
  };
  auto a_map = map_at(0);
  ASSERT_TRUE(a_map.ok()) << a_map.status();
  EXPECT_EQ(a_map->global_address, *workspace);
  EXPECT_EQ(a_map->global_dims[0], 4128u);
  EXPECT_EQ(a_map->global_dims[1], 800u) << "8 copies of M rows";
  EXPECT_EQ(a_map->box_dims[1], 64u);
  const auto classes = RowClassesOf(b_at.address(), 4103, 1001);
  for (uint32_t r = 0; r < 8; ++r) {
    auto map = map_at(1 + r);
    ASSERT_TRUE(map.ok()) << map.status();
    EXPECT_EQ(map->global_address.address(), classes[r].address) << r;
    EXPECT_EQ(map->global_address.address() % 16, 0u) << r;
    EXPECT_EQ(map->global_dims[0], 4099u + classes[r].shift) << r;
    EXPECT_EQ(map->global_dims[1], r == 0 ? 126u : 125u) << r;
    EXPECT_EQ(map->global_strides[1], 16u * 4103) << r;
    EXPECT_EQ(map->box_dims[0], 64u);
    EXPECT_EQ(map->box_dims[1], 64u);
    EXPECT_EQ(map->swizzle, TensorMapSwizzle::k128B);
  }
  EXPECT_EQ(records[1].args[13].u32(), PackShifts(classes));
  // Refused, naming the kernel and the workspace it needs: none or too small.
  for (const DeviceSpan& bad : {DeviceSpan(), DeviceSpan(*workspace, ws_bytes - 1)}) {
    args.workspace = bad;
    const absl::Status s = dense_->Run(Variant::kWgmma64x64Classes, args);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("dense_gemm_bf16_wgmma_64x64_classes"));
    EXPECT_THAT(s.message(), HasSubstr("workspace"));
  }
}

TEST_F(DenseContractTest, WgmmaLaunchesAPersistentGridWithTensorMaps) {
  GemmArgs args = Args(1024, 4096, 4096);
  ASSERT_TRUE(dense_->Run(Variant::kWgmma128x256, args).ok());
  args.m = 17;
  ASSERT_TRUE(dense_->Run(Variant::kWgmma128x128, args).ok());
  const auto records = gpu_.launches();
  EXPECT_THAT(records,
              ElementsAre(Launch(KernelNamed("dense_gemm_bf16_wgmma_128x256"), GridIs(128, 1, 1),
                                 BlockIs(384, 1, 1), SharedMemIs(WgmmaTile<256>::kSharedBytes),
                                 ArgCountIs(6), ArgPtrAt(2, c_), ArgU32At(3, 1024)),
                          Launch(KernelNamed("dense_gemm_bf16_wgmma_128x128"), GridIs(32, 1, 1),
                                 BlockIs(384, 1, 1), SharedMemIs(WgmmaTile<128>::kSharedBytes))));
  // The tensor maps describe A [M, K] and B [N, K] with the kernel's boxes and swizzle.
  TensorMapBytes bytes;
  std::memcpy(bytes.bytes.data(), records[0].args[1].bytes.data(), 128);
  auto b_map = DecodeHostTensorMap(bytes);
  ASSERT_TRUE(b_map.ok()) << b_map.status();
  EXPECT_EQ(b_map->global_address, b_);
  EXPECT_EQ(b_map->global_dims[0], 4096u);
  EXPECT_EQ(b_map->global_dims[1], 4096u);
  EXPECT_EQ(b_map->global_strides[1], 4096u * 2);
  EXPECT_EQ(b_map->box_dims[0], 64u);
  EXPECT_EQ(b_map->box_dims[1], 256u);
  EXPECT_EQ(b_map->swizzle, TensorMapSwizzle::k128B);
  // A's box: the tile's rows where M covers them, else M rows (no zero-filled rows past M).
  for (auto [record, rows] : {std::pair{0, 128u}, {1, 17u}}) {
    std::memcpy(bytes.bytes.data(), records[record].args[0].bytes.data(), 128);
    auto a_map = DecodeHostTensorMap(bytes);
    ASSERT_TRUE(a_map.ok()) << a_map.status();
    EXPECT_EQ(a_map->global_address, a_);
    EXPECT_EQ(a_map->box_dims[0], 64u);
    EXPECT_EQ(a_map->box_dims[1], rows) << "launch " << record;
  }
}

TEST_F(DenseContractTest, GemvLaunchesOneBlockPer16WeightRows) {
  GemmArgs args = Args(16, 151937, 4096);
  ASSERT_TRUE(dense_->Run(Variant::kGemvM16, args).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("dense_gemv_bf16_m16"), GridIs(9497, 1, 1),
                                 BlockIs(128, 1, 1), ArgU32At(3, 16), ArgU32At(6, 4096))));
  EXPECT_EQ(dense_->Run(Variant::kGemvM8, args).code(), absl::StatusCode::kInvalidArgument)
      << "16 rows exceed gemv_m8's 8";
}

// 8 warps per block while all blocks fit at once (2 blocks of 8 warps per SM, 132 SMs on the
// mock), 4 beyond; shared memory holds one 16 x 8 FP32 partial per warp and n8 tile.
TEST_F(DenseContractTest, GemvTakesEightWarpsOnlyWhenEveryBlockIsResident) {
  ASSERT_TRUE(dense_->Run(Variant::kGemvM8, Args(1, 16 * 264, 4096)).ok());
  ASSERT_TRUE(dense_->Run(Variant::kGemvM8, Args(1, 16 * 264 + 1, 4096)).ok());
  ASSERT_TRUE(dense_->Run(Variant::kGemvM16, Args(9, 4096, 4096)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(GridIs(264, 1, 1), BlockIs(256, 1, 1), SharedMemIs(8 * 512)),
                          Launch(GridIs(265, 1, 1), BlockIs(128, 1, 1), SharedMemIs(4 * 512)),
                          Launch(GridIs(256, 1, 1), BlockIs(256, 1, 1), SharedMemIs(8 * 1024))));
}

TEST(DenseDispatchTest, PrefillFallsBackToPipelinedOnATargetWithoutSm90a) {
  mock::RecordingBackend::Options options = testing::RecordOnly();
  options.device.arch_major = 8;
  options.device.arch_specific = false;
  mock::RecordingBackend ampere(options);
  auto dense = DenseGemm::Load(ampere);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_FALSE(dense->Ships(Variant::kWgmma128x256));
  EXPECT_TRUE(dense->kernel(Variant::kWgmma128x256).is_null());
  auto a = ampere.Alloc(64);
  const DeviceSpan any = DeviceSpan::Unchecked(*a);
  GemmArgs args{.a = any, .b = any, .c = any, .m = 4096, .n = 4096, .k = 4096};
  EXPECT_EQ(*dense->Pick(args), Variant::kPipelined);
  args.m = 1;
  EXPECT_EQ(*dense->Pick(args), Variant::kGemvM8);
}

TEST(DenseDispatchTest, PrefillFallsBackToScalarWhenThePipelinedKernelIsNotShipped) {
  mock::RecordingBackend gpu(testing::RecordOnly());
  // The same family on a target whose image lacks the pipelined kernels.
  std::string text;
  std::istringstream lines{std::string(EmbeddedModuleImage().signatures_text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.find("dense_gemm_bf16_pipelined") == std::string::npos &&
        line.find("dense_gemm_bf16_wgmma") == std::string::npos) {
      text += line + "\n";
    }
  }
  auto dense = DenseGemm::Load(gpu, mock::DescribeModule("dense", text));
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_FALSE(dense->Ships(Variant::kPipelined));
  EXPECT_TRUE(dense->kernel(Variant::kPipelined).is_null());
  auto a = gpu.Alloc(64);
  const DeviceSpan any = DeviceSpan::Unchecked(*a);
  GemmArgs args{.a = any, .b = any, .c = any, .m = 512, .n = 512, .k = 512};
  EXPECT_EQ(*dense->Pick(args), Variant::kScalar);
  ASSERT_TRUE(dense->Gemm(args).ok());
  EXPECT_THAT(gpu.launches(), ElementsAre(KernelNamed("dense_gemm_bf16")));
  absl::Status s = dense->Run(Variant::kPipelined, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("not shipped for sm_90a"));
}

// --- Host emulation catches launcher bugs.

class DenseEmulationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = DenseGemm::Load(gpu_);
    ASSERT_TRUE(d.ok()) << d.status();
    dense_.emplace(*std::move(d));
  }
  DeviceBuffer Upload(const std::vector<uint16_t>& host) {
    return ::gpuops::testing::UploadVector(gpu_, host);
  }
  std::vector<uint16_t> Random(size_t n) {
    std::vector<uint16_t> v(n);
    verify::FillRandomBf16(absl::MakeSpan(v), 42);
    return v;
  }
  std::vector<uint16_t> Download(const DeviceBuffer& b) {
    return ::gpuops::testing::DownloadVector<uint16_t>(b);
  }
  // C (c_offset poisoned elements, then M x N, then a poisoned guard) holds A B^T within the
  // tensor-core bound, every element written, nothing before or after it touched.
  void ExpectProductInCOnly(const DeviceBuffer& c_dev, uint32_t c_offset,
                            const std::vector<uint16_t>& a, const std::vector<uint16_t>& b,
                            uint32_t m, uint32_t n, uint32_t k, uint32_t ldb) {
    constexpr uint16_t kPoison = common::kBf16Poison;
    const uint64_t mn = uint64_t{m} * n;
    const std::vector<uint16_t> all = Download(c_dev);
    for (uint32_t i = 0; i < c_offset; ++i) EXPECT_EQ(all[i], kPoison) << "before C, " << i;
    const auto out = absl::MakeConstSpan(all).subspan(c_offset);
    std::vector<double> value(mn), abs(mn);
    const std::vector<uint32_t> cols = verify::AllColumns(n);
    ReferenceFloat64(a, b, m, k, ldb, cols, absl::MakeSpan(value), absl::MakeSpan(abs));
    verify::CheckStats stats;
    verify::CheckWrittenAndGuard(out, mn, kPoison, stats);
    verify::CheckTensorCoreBound(out, m, n, cols, value, abs, stats);
    EXPECT_TRUE(stats.ok(true)) << stats.first_failure << " (" << stats.unwritten
                                << " unwritten, " << stats.guard_damage << " guard)";
  }
  mock::RecordingBackend gpu_;
  std::optional<DenseGemm> dense_;
};

TEST_F(DenseEmulationTest, LauncherWithSwappedGridAxesLeavesOutputsUnwritten) {
  constexpr uint32_t m = 64, n = 128, k = 32;
  DeviceBuffer a = Upload(Random(m * k));
  DeviceBuffer b = Upload(Random(n * k));
  DeviceBuffer c = Upload(std::vector<uint16_t>(m * n, common::kBf16Poison));
  auto buggy = [&](Dim3 grid) {
    return KernelLaunch(gpu_, dense_->kernel(Variant::kTensorCore))
        .grid(grid)
        .block({128, 1, 1})
        .arg_ptr(a.ptr())
        .arg_ptr(b.ptr())
        .arg_ptr(c.ptr())
        .arg_u32(m)
        .arg_u32(n)
        .arg_u32(k)
        .launch();
  };
  // M-fast instead of the kernel's N-fast order: (ceil(M/16), ceil(N/64)).
  ASSERT_TRUE(buggy({CeilDiv(m, 16), CeilDiv(n, 64), 1}).ok());
  verify::CheckStats swapped;
  verify::CheckWrittenAndGuard(Download(c), m * n, common::kBf16Poison, swapped);
  EXPECT_EQ(swapped.unwritten, m * n / 2) << "rows 32..63 are never reached";

  ASSERT_TRUE(buggy({CeilDiv(n, 64), CeilDiv(m, 16), 1}).ok());  // the contract's order
  verify::CheckStats correct;
  verify::CheckWrittenAndGuard(Download(c), m * n, common::kBf16Poison, correct);
  EXPECT_EQ(correct.unwritten, 0u);
}

// Through a sized span the op refuses an undersized workspace itself; through an unchecked one
// (the caller's word for the extent) the emulation still catches the overrun.
TEST_F(DenseEmulationTest, UnderSizedWorkspaceIsRefusedAndCaughtBehindAnUncheckedSpan) {
  constexpr uint32_t m = 4, n = 64, k = 256;
  DeviceBuffer a = Upload(Random(m * k));
  DeviceBuffer b = Upload(Random(n * k));
  DeviceBuffer c = Upload(std::vector<uint16_t>(m * n));
  GemmArgs args{.a = a.span(), .b = b.span(), .c = c.span(), .m = m, .n = n, .k = k, .splits = 4};
  auto ws = DeviceBuffer::Allocate(gpu_, dense_->WorkspaceBytes(Variant::kSplitK, args) / 2);
  ASSERT_TRUE(ws.ok());
  args.workspace = ws->span();
  absl::Status s = dense_->Run(Variant::kSplitK, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("workspace holds 2048 bytes, 4 splits of m=4 x n=64 FP32 "
                                     "partials (WorkspaceBytes) need 4096"));
  EXPECT_EQ(gpu_.launch_count(), 0u);
  args.workspace = DeviceSpan::Unchecked(ws->ptr());
  s = dense_->Run(Variant::kSplitK, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("dense_gemm_bf16_splitk_partial argument #2 (workspace)"));
}

TEST_F(DenseEmulationTest, WrongLdbIsRefusedAndCaughtBehindAnUncheckedSpan) {
  constexpr uint32_t m = 2, n = 64, k = 64;
  DeviceBuffer a = Upload(Random(m * k));
  DeviceBuffer b = Upload(Random(n * k));  // packed: rows k apart
  DeviceBuffer c = Upload(std::vector<uint16_t>(m * n));
  GemmArgs args{.a = a.span(), .b = b.span(), .c = c.span(), .m = m, .n = n, .k = k, .ldb = k + 64};
  absl::Status s = dense_->Run(Variant::kTensorCoreLdb, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("b holds 8192 bytes"));
  args.b = DeviceSpan::Unchecked(b.ptr());
  s = dense_->Run(Variant::kTensorCoreLdb, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("dense_gemm_bf16_tc_ldb argument #1 (b)"));
}

TEST_F(DenseEmulationTest, AProblemTooLargeToEmulateIsRefusedNotRunForHours) {
  DeviceBuffer a = Upload(Random(64));
  const DeviceSpan any = DeviceSpan::Unchecked(a.ptr());
  GemmArgs args{.a = any, .b = any, .c = any, .m = 4096, .n = 151936, .k = 4096};
  absl::Status s = dense_->Run(Variant::kTensorCore, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("host kernel dense_gemm_bf16_tc: 2549063090176 operations"));
}

TEST_F(DenseEmulationTest, ARefusedCallWritesNothing) {
  constexpr uint32_t m = 16, n = 64, k = 64;
  DeviceBuffer a = Upload(Random(m * k));
  DeviceBuffer b = Upload(Random(n * k));
  const std::vector<uint16_t> poisoned(m * n, common::kBf16Poison);
  DeviceBuffer c = Upload(poisoned);
  GemmArgs args{.a = a.span(),
                .b = b.span(),
                .c = DeviceSpan(c.ptr(), c.bytes() - 2),
                .m = m,
                .n = n,
                .k = k};
  for (const VariantSpec& spec : kVariants.rows()) {
    EXPECT_FALSE(dense_->Run(spec.variant, args).ok()) << spec.name;
  }
  EXPECT_FALSE(dense_->Gemm(args).ok());
  EXPECT_EQ(gpu_.launch_count(), 0u);
  EXPECT_EQ(Download(c), poisoned);
}

// Operands the 16-byte kernels cannot read (an offset pointer, K or ldb not a multiple of 8)
// run through the unaligned gemv kernels, the _classes tiles or the packed variant, computing the right
// values and writing nothing outside C: the elements before an offset C and after its end stay
// poisoned.
TEST_F(DenseEmulationTest, OperandsTheSixteenByteKernelsCannotReadRunAlignedKernelsCorrectly) {
  struct Case {
    uint32_t m, n, k, ldb;
    uint32_t a_offset, b_offset, c_offset;  // elements past a 16-byte boundary
    Variant want;
    std::vector<std::string> kernels;
    bool give_workspace = true;  // GemmWorkspaceBytes of it
  };
  std::vector<Case> cases = {
      {5, 40, 37, 37, 1, 1, 1, Variant::kGemvM8Unaligned, {"dense_gemv_bf16_m8_unaligned"}},
      {12, 40, 64, 64, 1, 0, 0, Variant::kGemvM16Unaligned, {"dense_gemv_bf16_m16_unaligned"}},
      {3, 24, 64, 67, 0, 0, 0, Variant::kGemvM8Unaligned, {"dense_gemv_bf16_m8_unaligned"}},
      {29, 40, 45, 45, 1, 1, 0, Variant::kGemvM32Unaligned, {"dense_gemv_bf16_m32_unaligned"},
       /*give_workspace=*/false},
      {29, 300, 45, 51, 1, 1, 0, Variant::kGemvM32Shifted,
       {"dense_shift_rows_bf16", "dense_gemv_bf16_m32_shifted"}},
      {40, 1001, 37, 37, 0, 3, 1, Variant::kGemvM64Shifted,
       {"dense_shift_rows_bf16", "dense_gemv_bf16_m64_shifted"}},
      {70, 72, 37, 37, 0, 0, 3, Variant::kPacked,
       {"dense_pack_rows_bf16", "dense_pack_rows_bf16", "dense_gemm_bf16_wgmma_192x64",
        "dense_pack_rows_bf16"}},
      {600, 72, 37, 37, 0, 0, 3, Variant::kPacked,
       {"dense_pack_rows_bf16", "dense_pack_rows_bf16", "dense_gemm_bf16_wgmma_128x96",
        "dense_pack_rows_bf16"}},
      {600, 72, 40, 40, 0, 5, 0, Variant::kPacked,
       {"dense_pack_rows_bf16", "dense_pack_rows_bf16", "dense_gemm_bf16_wgmma_128x96"}},
  };
  if (kClassTilesDispatched) {
    // 2 m-blocks x 32 n-blocks of 64 x 64 class tiles: enough to take the class tiles.
    cases.push_back({70, 2048, 37, 37, 1, 3, 1, Variant::kWgmma64x64Classes,
                     {"dense_shift_rows_bf16", "dense_gemm_bf16_wgmma_64x64_classes"}});
  }
  constexpr uint16_t kPoison = common::kBf16Poison;
  for (const Case& t : cases) {
    SCOPED_TRACE(StrCat("m=", t.m, " n=", t.n, " k=", t.k, " ldb=", t.ldb, " offsets ",
                        t.a_offset, "/", t.b_offset, "/", t.c_offset));
    const std::vector<uint16_t> a = Random(size_t{t.m} * t.k);
    std::vector<uint16_t> b = Random(size_t{t.n} * t.ldb);
    auto with_prefix = [&](const std::vector<uint16_t>& v, uint32_t offset) {
      std::vector<uint16_t> out(offset, kPoison);
      out.insert(out.end(), v.begin(), v.end());
      return Upload(out);
    };
    DeviceBuffer a_dev = with_prefix(a, t.a_offset);
    DeviceBuffer b_dev = with_prefix(b, t.b_offset);
    const uint64_t mn = uint64_t{t.m} * t.n;
    DeviceBuffer c_dev =
        Upload(std::vector<uint16_t>(t.c_offset + mn + verify::kGuardElements, kPoison));
    GemmArgs args{.a = *a_dev.span().Slice(2 * t.a_offset, 2 * a.size()),
                  .b = *b_dev.span().Slice(2 * t.b_offset, 2 * b.size()),
                  .c = *c_dev.span().Slice(2 * t.c_offset, 2 * mn),
                  .m = t.m,
                  .n = t.n,
                  .k = t.k,
                  .ldb = t.ldb};
    const uint64_t ws_bytes = dense_->GemmWorkspaceBytes(args);
    EXPECT_EQ(ws_bytes != 0, t.m > 16);
    auto ws = DeviceBuffer::Allocate(gpu_, std::max<uint64_t>(ws_bytes, 16));
    ASSERT_TRUE(ws.ok());
    if (ws_bytes != 0 && t.give_workspace) args.workspace = *ws->span().Slice(0, ws_bytes);
    ASSERT_EQ(*dense_->Pick(args), t.want);
    gpu_.ClearLaunches();
    ASSERT_TRUE(dense_->Gemm(args).ok());
    std::vector<std::string> launched;
    for (const auto& l : gpu_.launches()) launched.push_back(l.kernel);
    EXPECT_EQ(launched, t.kernels);

    ExpectProductInCOnly(c_dev, t.c_offset, a, b, t.m, t.n, t.k, t.ldb);
  }
  // Without the workspace the packed variant needs, M > 16 falls back to the scalar kernel.
  DeviceBuffer a = Upload(Random(40 * 37));
  DeviceBuffer b = Upload(Random(72 * 37));
  DeviceBuffer c = Upload(std::vector<uint16_t>(40 * 72));
  GemmArgs args{.a = a.span(), .b = b.span(), .c = c.span(), .m = 40, .n = 72, .k = 37};
  EXPECT_EQ(*dense_->Pick(args), Variant::kScalar);
  absl::Status s = dense_->Run(Variant::kPacked, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("dense_pack_rows_bf16: needs a sized workspace of"));
}

// The _classes tiles, named, on ragged operands (odd K and ldb, B and C off a 16-byte boundary,
// B's padding past K NaN so that a row head left unzeroed would show): the right values, nothing
// written outside C.
TEST_F(DenseEmulationTest, ClassTilesComputeRaggedProductsAndWriteOnlyC) {
  constexpr uint16_t kPoison = common::kBf16Poison;
  struct Case {
    uint32_t m, n, k, ldb, b_offset, c_offset;
  };
  for (Variant v : {Variant::kWgmma64x64Classes, Variant::kWgmma64x128Classes,
                    Variant::kWgmma128x128Classes}) {
    for (const Case& t : {Case{17, 300, 45, 51, 1, 1}, Case{130, 1001, 37, 40, 3, 0},
                          Case{5, 6, 130, 133, 7, 2}}) {
      SCOPED_TRACE(StrCat(kVariants[v].name, " m=", t.m, " n=", t.n, " k=", t.k, " ldb=", t.ldb));
      const std::vector<uint16_t> a = Random(size_t{t.m} * t.k);
      std::vector<uint16_t> b = Random(size_t{t.n} * t.ldb);
      for (uint32_t r = 0; r < t.n; ++r) {
        for (uint32_t e = t.k; e < t.ldb; ++e) b[size_t{r} * t.ldb + e] = 0x7fc3;  // NaN
      }
      std::vector<uint16_t> b_host(t.b_offset, 0x7fc3);
      b_host.insert(b_host.end(), b.begin(), b.end());
      DeviceBuffer a_dev = Upload(a);
      DeviceBuffer b_dev = Upload(b_host);
      const uint64_t mn = uint64_t{t.m} * t.n;
      DeviceBuffer c_dev =
          Upload(std::vector<uint16_t>(t.c_offset + mn + verify::kGuardElements, kPoison));
      GemmArgs args{.a = a_dev.span(),
                    .b = *b_dev.span().Slice(2 * t.b_offset, 2 * b.size()),
                    .c = *c_dev.span().Slice(2 * t.c_offset, 2 * mn),
                    .m = t.m,
                    .n = t.n,
                    .k = t.k,
                    .ldb = t.ldb};
      auto ws = DeviceBuffer::Allocate(gpu_, dense_->WorkspaceBytes(v, args));
      ASSERT_TRUE(ws.ok());
      args.workspace = ws->span();
      ASSERT_TRUE(dense_->Run(v, args).ok());
      ExpectProductInCOnly(c_dev, t.c_offset, a, b, t.m, t.n, t.k, t.ldb);
    }
  }
}

TEST_F(DenseEmulationTest, GivenSplitsTheDispatcherRunsASplitKVariantOrSaysWhyNot) {
  constexpr uint32_t m = 4, n = 64, k = 256;
  DeviceBuffer a = Upload(Random(m * k));
  DeviceBuffer b = Upload(Random(n * k));
  DeviceBuffer c = Upload(std::vector<uint16_t>(m * n));
  auto ws = DeviceBuffer::Allocate(gpu_, 4 * m * n * 4);
  ASSERT_TRUE(ws.ok());
  GemmArgs args{.a = a.span(),
                .b = b.span(),
                .c = c.span(),
                .m = m,
                .n = n,
                .k = k,
                .workspace = ws->span(),
                .splits = 4};
  ASSERT_TRUE(dense_->Gemm(args).ok());
  // The split variants by predicted time at 4 splits: 128 x 128 11.5 us, 64 x 128 11.9.
  EXPECT_EQ(gpu_.launches().at(0).kernel, "dense_gemm_bf16_wgmma_128x128_splitk");
  EXPECT_EQ(gpu_.launches().at(1).kernel, "dense_gemm_bf16_splitk_reduce");
  args.splits = 100000;
  absl::Status s = dense_->Gemm(args);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("splits=100000 is outside 1..64"));
}

// The _tail variants on a 4-SM device: 2 x 7 tiles leave 2 for a second wave, which run as K
// splits on every SM (TailOf) while the first 12 tiles write C whole; the reduce sums the
// partials (2 and 3 splits given, of 3 k-blocks). Checked against the float64 reference (tensor-core bound),
// every element written, the guard intact.
TEST(DenseTailTest, WholeWavesAndSplitLastWaveCoverEveryElement) {
  mock::RecordingBackend::Options options;
  options.device.sm_count = 4;
  mock::RecordingBackend gpu(options);
  auto loaded = DenseGemm::Load(gpu);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const DenseGemm& dense = *loaded;
  constexpr uint16_t kPoison = common::kBf16Poison;
  for (Variant v : {Variant::kWgmma128x256Tail, Variant::kWgmma128x192Tail,
                    Variant::kWgmma128x128Tail}) {
    const VariantSpec& spec = kVariants[v];
    for (uint32_t splits : {2u, 3u}) {
      SCOPED_TRACE(StrCat(spec.name, " splits=", splits));
      const uint32_t m = 250, n = 7 * spec.tile_n - 6, k = 192;  // 2 x 7 tiles, ragged edges
      std::vector<uint16_t> a(size_t{m} * k), b(size_t{n} * k);
      verify::FillRandomBf16(absl::MakeSpan(a), 7);
      verify::FillRandomBf16(absl::MakeSpan(b), 8);
      DeviceBuffer a_dev = ::gpuops::testing::UploadVector(gpu, a);
      DeviceBuffer b_dev = ::gpuops::testing::UploadVector(gpu, b);
      const uint64_t mn = uint64_t{m} * n;
      DeviceBuffer c_dev = ::gpuops::testing::UploadVector(
          gpu, std::vector<uint16_t>(mn + verify::kGuardElements, kPoison));
      GemmArgs args{.a = a_dev.span(),
                    .b = b_dev.span(),
                    .c = *c_dev.span().Slice(0, 2 * mn),
                    .m = m,
                    .n = n,
                    .k = k,
                    .splits = splits};
      const uint64_t ws_bytes = dense.WorkspaceBytes(v, args);
      EXPECT_EQ(ws_bytes, uint64_t{2} * splits * spec.tile_m * spec.tile_n * 4);
      absl::Status refused = dense.Run(v, args);
      EXPECT_THAT(refused.message(), HasSubstr("needs a workspace of")) << refused;
      auto ws = DeviceBuffer::Allocate(gpu, ws_bytes);
      ASSERT_TRUE(ws.ok());
      args.workspace = *ws->span().Slice(0, ws_bytes - 16);
      EXPECT_THAT(dense.Run(v, args).message(), HasSubstr("workspace"));
      args.workspace = ws->span();
      gpu.ClearLaunches();
      ASSERT_TRUE(dense.Run(v, args).ok());
      ASSERT_EQ(gpu.launches().size(), 2u);
      EXPECT_EQ(gpu.launches()[0].kernel, spec.kernel);
      EXPECT_EQ(gpu.launches()[0].grid.x, 4u);
      EXPECT_EQ(gpu.launches()[1].kernel, kTailReduceKernel);
      EXPECT_EQ(gpu.launches()[1].grid.x, 2u) << "the two tail tiles";
      EXPECT_TRUE(gpu.launches()[1].overlaps_previous);

      const std::vector<uint16_t> all = ::gpuops::testing::DownloadVector<uint16_t>(c_dev);
      std::vector<double> value(mn), abs(mn);
      const std::vector<uint32_t> cols = verify::AllColumns(n);
      ReferenceFloat64(a, b, m, k, k, cols, absl::MakeSpan(value), absl::MakeSpan(abs));
      verify::CheckStats stats;
      verify::CheckWrittenAndGuard(all, mn, kPoison, stats);
      verify::CheckTensorCoreBound(absl::MakeConstSpan(all).subspan(0, mn), m, n, cols, value,
                                   abs, stats);
      EXPECT_TRUE(stats.ok(true)) << stats.first_failure << " (" << stats.unwritten
                                  << " unwritten, " << stats.guard_damage << " guard)";
    }
  }
  EXPECT_EQ(TailOf(216, 132, 3).dp_tiles, 132u);
  EXPECT_EQ(TailOf(216, 132, 1).tail_tiles, 0u) << "one split: every tile whole";
  EXPECT_EQ(TailOf(100, 132, 2).tail_tiles, 100u) << "fewer tiles than the grid: all split";
  EXPECT_EQ(TailOf(264, 132, 4).tail_tiles, 0u) << "whole waves";
}

// The rows a wgmma tile loads and computes: its m-block's, except that a last m-block reaching
// past M (M >= the tile's rows) takes the tile rows ending at M, so that A's box never reaches
// past M; the rows it shares with the m-block before are that block's to store.
TEST(DenseTilesTest, ALastMBlockPastMTakesTheTileRowsEndingAtM) {
  EXPECT_EQ(TileFirstRow(0, 128, 300), 0u);
  EXPECT_EQ(TileFirstRow(1, 128, 300), 128u);
  EXPECT_EQ(TileFirstRow(2, 128, 300), 172u) << "rows 172..299: 84 shared with m-block 1";
  EXPECT_EQ(TileFirstRow(1, 128, 160), 32u);
  EXPECT_EQ(TileFirstRow(1, 128, 256), 128u) << "whole m-blocks: no shift";
  EXPECT_EQ(TileFirstRow(0, 128, 96), 0u) << "M below the tile: A's box holds M rows";
  EXPECT_EQ(TileFirstRow(1, 192, 224), 32u);
  EXPECT_EQ(TileFirstRow(2, 64, 130), 66u);
}

TEST_F(DenseEmulationTest, KernelLaunchedWithTheWrongBlockIsRefusedByItsEmulation) {
  DeviceBuffer a = Upload(Random(16 * 64));
  absl::Status s = KernelLaunch(gpu_, dense_->kernel(Variant::kPipelined))
                       .grid({1, 1, 1})
                       .block({128, 1, 1})
                       .arg_ptr(a.ptr())
                       .arg_ptr(a.ptr())
                       .arg_ptr(a.ptr())
                       .arg_u32(16)
                       .arg_u32(16)
                       .arg_u32(64)
                       .launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("launched with block (128, 1, 1), the kernel is written for "
                                     "(256, 1, 1)"));
}

}  // namespace
}  // namespace gpuops::ops::dense

namespace gpuops::ops::dense {
namespace {

// dense_gemm.h's thread-safety contract: one loaded DenseGemm used from several threads, each on
// its own stream and output, gives each the same result as one thread alone; and families load
// from several threads at once (their emulations registering once).
TEST(DenseConcurrencyTest, OneLoadedFamilyServesSeveralThreadsAtOnce) {
  constexpr uint32_t m = 16, n = 128, k = 256;
  constexpr int kThreads = 4;
  mock::RecordingBackend gpu;
  std::vector<std::thread> loaders;
  // One byte per thread (std::vector<bool> packs them into one shared word: a race).
  std::vector<char> loaded(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    loaders.emplace_back([&, t] { loaded[t] = DenseGemm::Load(gpu).ok() ? 1 : 0; });
  }
  for (auto& th : loaders) th.join();
  EXPECT_THAT(loaded, ::testing::Each(1));

  auto dense = DenseGemm::Load(gpu);
  ASSERT_TRUE(dense.ok()) << dense.status();
  std::vector<uint16_t> a(m * k);
  std::vector<uint16_t> b(n * k);
  verify::FillRandomBf16(absl::MakeSpan(a), 7);
  verify::FillRandomBf16(absl::MakeSpan(b), 8);
  DeviceBuffer da = ::gpuops::testing::UploadVector(gpu, a);
  DeviceBuffer db = ::gpuops::testing::UploadVector(gpu, b);
  auto run = [&](DeviceBuffer& c, StreamHandle stream) {
    return dense->Gemm({.a = da.span(), .b = db.span(), .c = c.span(), .m = m, .n = n, .k = k},
                       stream);
  };
  DeviceBuffer alone = ::gpuops::testing::UploadVector(gpu, std::vector<uint16_t>(m * n));
  ASSERT_TRUE(run(alone, {}).ok());
  const std::vector<uint16_t> want = ::gpuops::testing::DownloadVector<uint16_t>(alone);

  std::vector<std::vector<uint16_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto stream = MakeStream(gpu);
      auto c = DeviceBuffer::Allocate(gpu, m * n * 2);
      if (!stream.ok() || !c.ok()) return;
      for (int i = 0; i < 5; ++i) {
        if (!run(*c, stream->get()).ok()) return;
      }
      got[t] = c->ToHost<uint16_t>().value_or(std::vector<uint16_t>());
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_THAT(got, ::testing::Each(want));
}

// The _classes tiles' n-blocks go class by class (class 0's tiles first, so tiles running
// together share A's copy for their class), and together cover every column of C exactly once.
TEST(ClassTilesTest, NBlocksAreClassMajorAndCoverEveryColumnOnce) {
  for (const uint32_t n : {5u, 1001u, 1005u, 4099u, 11008u}) {
    for (const uint32_t tile_n : {64u, 128u}) {
      const uint32_t per_class = ClassTiles::BlocksPerClass(n, tile_n);
      ASSERT_EQ(ClassTiles::NBlocks(n, tile_n), per_class * ClassTiles::kClasses);
      std::vector<int> hits(n, 0);
      for (uint32_t b = 0; b < ClassTiles::NBlocks(n, tile_n); ++b) {
        const ClassTiles::Block block = ClassTiles::BlockOf(b, n, tile_n);
        EXPECT_EQ(block.cls, b / per_class) << "n " << n << " tile_n " << tile_n << " b " << b;
        EXPECT_LT(block.tile, per_class);
        for (uint32_t j = 0; j < tile_n; ++j) {
          const uint64_t col = ClassTiles::Column(block, tile_n, j);
          EXPECT_EQ(col % ClassTiles::kClasses, block.cls);
          if (col < n) ++hits[col];
        }
      }
      EXPECT_THAT(hits, ::testing::Each(1)) << "n " << n << " tile_n " << tile_n;
    }
  }
}

}  // namespace
}  // namespace gpuops::ops::dense
