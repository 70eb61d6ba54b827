// Bad input to every public op entry point (dense, common, testkit), on every backend that runs
// the kernels: each row is a call, the status code it must return and a fragment of the message.
// A refused call launches nothing and writes nothing: every operand keeps its bytes.
#include <limits>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/owned.h"
#include "gpuops/runtime/str.h"
#include "gtest/gtest.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "ops/testkit/testkit.h"
#include "tests/support/backends.h"
#include "tests/support/device_data.h"

namespace gpuops::ops {
namespace {

using dense::GemmArgs;
using dense::Variant;
using ::testing::HasSubstr;

constexpr uint32_t kM = 16, kN = 64, kK = 64;

// The loaded ops and operands a row may use: A [16, 64], B [64, 64], C [16, 64], a 64 KiB
// workspace, all filled with a pattern the test checks after every row.
struct Fixture {
  GpuBackend* gpu = nullptr;
  const dense::DenseGemm* dense = nullptr;
  const common::CommonKernels* common = nullptr;
  const testkit::TestKernels* testkit = nullptr;
  DeviceBuffer a, b, c, ws;

  // A valid problem every variant of the tc family runs; rows break one thing.
  GemmArgs Args() const {
    return GemmArgs{.a = a.span(), .b = b.span(), .c = c.span(), .m = kM, .n = kN, .k = kK};
  }
};

struct Row {
  std::string name;
  std::function<absl::Status(Fixture&)> call;
  absl::StatusCode code;
  std::string fragment;
};

void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

// A dense row: `edit` breaks the valid problem, then `variant` runs it.
Row Dense(std::string name, Variant variant, std::function<void(Fixture&, GemmArgs&)> edit,
          std::string fragment, absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  return Row{std::move(name),
             [variant, edit](Fixture& f) {
               GemmArgs args = f.Args();
               edit(f, args);
               return f.dense->Run(variant, args);
             },
             code, std::move(fragment)};
}

// A dispatcher row: `edit` breaks the valid problem, then Gemm runs it.
Row Gemm(std::string name, std::function<void(Fixture&, GemmArgs&)> edit, std::string fragment,
         absl::StatusCode code) {
  return Row{std::move(name),
             [edit](Fixture& f) {
               GemmArgs args = f.Args();
               edit(f, args);
               return f.dense->Gemm(args);
             },
             code, std::move(fragment)};
}

std::vector<Row> Rows() {
  using absl::StatusCode;
  const auto bogus = static_cast<Variant>(dense::kVariants.size());  // one past the table
  const float nan = std::numeric_limits<float>::quiet_NaN();
  return {
      Row{"RunAVariantOutsideTheTable",
          [bogus](Fixture& f) { return f.dense->Run(bogus, f.Args()); },
          StatusCode::kInvalidArgument,
          StrCat("dense: variant ", dense::kVariants.size(), " does not exist (the table has 0..",
                 dense::kVariants.size() - 1, ")")},
      Row{"PlanAVariantOutsideTheTable",
          [](Fixture& f) { return f.dense->Plan(static_cast<Variant>(200), f.Args()).status(); },
          StatusCode::kInvalidArgument, "dense: variant 200 does not exist"},
      Row{"CanImplementAVariantOutsideTheTable",
          [bogus](Fixture& f) { return f.dense->CanImplement(bogus, f.Args()); },
          StatusCode::kInvalidArgument, "does not exist"},
      Dense(
          "EmptyM", Variant::kTensorCore, [](Fixture&, GemmArgs& a) { a.m = 0; },
          "empty problem m=0"),
      Dense(
          "EmptyK", Variant::kScalar, [](Fixture&, GemmArgs& a) { a.k = 0; }, "empty problem"),
      Dense(
          "NullA", Variant::kTensorCore, [](Fixture&, GemmArgs& a) { a.a = DeviceSpan(); },
          "a, b and c must be non-null"),
      Dense(
          "NullWorkspaceForSplitK", Variant::kSplitK, [](Fixture&, GemmArgs& a) { a.splits = 2; },
          "needs a workspace of 8192 bytes"),
      Dense(
          "ShortA", Variant::kTensorCore,
          [](Fixture& f, GemmArgs& a) { a.a = DeviceSpan(f.a.ptr(), f.a.bytes() - 2); },
          "a holds 2046 bytes, m=16 rows of k=64 BF16 need 2048"),
      Dense(
          "ShortB", Variant::kGemvM16,
          [](Fixture& f, GemmArgs& a) { a.b = DeviceSpan(f.b.ptr(), 64); }, "b holds 64 bytes"),
      Dense(
          "ShortC", Variant::kRouter,
          [](Fixture& f, GemmArgs& a) { a.c = DeviceSpan(f.c.ptr(), 2046); },
          "c holds 2046 bytes, m=16 rows of n=64 BF16 need 2048"),
      Dense(
          "ShortCForTheWgmmaKernel", Variant::kWgmma128x128,
          [](Fixture& f, GemmArgs& a) { a.c = DeviceSpan(f.c.ptr(), 2); }, "c holds 2 bytes"),
      Dense(
          "MisalignedA", Variant::kTensorCore,
          [](Fixture& f, GemmArgs& a) { a.a = *f.a.span().Slice(2, 2040); },
          "is not 16-byte aligned (16-byte loads)"),
      Dense(
          "MisalignedC", Variant::kPipelined,
          [](Fixture& f, GemmArgs& a) { a.c = *f.c.span().Slice(8, 2040); }, "c at 0x"),
      Dense(
          "KNotAMultipleOf8", Variant::kTensorCore, [](Fixture&, GemmArgs& a) { a.k = 60; },
          "k=60 is not a multiple of 8"),
      Dense(
          "OddNOnAVariantThatStoresPairs", Variant::kTensorCore,
          [](Fixture&, GemmArgs& a) { a.n = 63; }, "n=63 is not a multiple of 8"),
      Dense(
          "LdbBelowK", Variant::kTensorCoreLdb, [](Fixture&, GemmArgs& a) { a.ldb = 32; },
          "ldb=32 must be >= k=64"),
      Dense(
          "LdbNotAMultipleOf8", Variant::kGemvM8,
          [](Fixture&, GemmArgs& a) {
            a.m = 1;
            a.ldb = 65;
          },
          "ldb=65 must be >= k=64 and a multiple of 8"),
      Dense(
          "LdbOnAVariantWithoutOne", Variant::kPipelined, [](Fixture&, GemmArgs& a) { a.ldb = 72; },
          "only the _ldb variants take a B row stride"),
      Dense(
          "MOverTheGemvRows", Variant::kGemvM8, [](Fixture&, GemmArgs& a) { a.m = 9; },
          "m=9 exceeds the kernel's 8 rows"),
      Dense(
          "SplitsOnAVariantThatDoesNotSplit", Variant::kTensorCore,
          [](Fixture&, GemmArgs& a) { a.splits = 2; }, "splits=2: the kernel does not split K"),
      Dense(
          "SplitsOverTheMost", Variant::kSplitK,
          [](Fixture& f, GemmArgs& a) {
            a.splits = 65;
            a.workspace = f.ws.span();
          },
          "splits=65 is outside 1..64"),
      Dense(
          "SplitsOverTheWgmmaKBlocks", Variant::kWgmma128x128SplitK,
          [](Fixture& f, GemmArgs& a) {
            a.splits = 2;
            a.workspace = f.ws.span();
          },
          "splits=2 is outside 1..1 (at most one per 64 k)"),
      Dense(
          "ShortWorkspace", Variant::kSplitK,
          [](Fixture& f, GemmArgs& a) {
            a.splits = 4;
            a.workspace = DeviceSpan(f.ws.ptr(), 16383);
          },
          "workspace holds 16383 bytes, 4 splits of m=16 x n=64 FP32 partials"),
      Dense(
          "MisalignedWorkspace", Variant::kWgmma128x128SplitK,
          [](Fixture& f, GemmArgs& a) {
            a.splits = 1;
            a.workspace = *f.ws.span().Slice(4, 8192);
          },
          "is not 8-byte aligned (FP32 partials are stored two at a time)"),
      Dense(
          "CWrittenOverA", Variant::kTensorCore, [](Fixture& f, GemmArgs& a) { a.c = f.a.span(); },
          "overlaps a (0x"),
      Dense(
          "CInsideB", Variant::kWgmma64x64,
          [](Fixture& f, GemmArgs& a) {
            a.m = 1;  // C's one row (128 bytes) in the middle of B's 8192
            a.b = *f.ws.span().Slice(0, kN * kK * 2);
            a.c = *f.ws.span().Slice(4096, kN * 2);
          },
          "the kernel would read b while writing c"),
      Dense(
          "WorkspaceOverC", Variant::kSplitK,
          [](Fixture& f, GemmArgs& a) {
            a.splits = 2;
            a.workspace = f.ws.span();
            a.c = *f.ws.span().Slice(4096, kM * kN * 2);  // inside the 8192 bytes of partials
          },
          "both are written"),
      Dense(
          "ScaleOnAVariantWithoutOne", Variant::kRouter,
          [](Fixture&, GemmArgs& a) { a.scale = 2.0f; }, "only tc_scaled_acc takes a scale"),
      Dense(
          "NonFiniteScale", Variant::kTensorCoreScaledAcc,
          [nan](Fixture&, GemmArgs& a) { a.scale = nan; }, "scale=nan is not finite"),
      Dense(
          "InfiniteScale", Variant::kTensorCoreScaledAcc,
          [](Fixture&, GemmArgs& a) { a.scale = std::numeric_limits<float>::infinity(); },
          "is not finite"),
      Dense(
          "AGridPastTheDevice", Variant::kScalar,
          [](Fixture& f, GemmArgs& a) {
            a.m = 0xFFFFFFFFu;
            a.a = a.c = DeviceSpan::Unchecked(f.c.ptr());
          },
          "over the device limit"),
      Dense(
          "ExtentsPast64Bits", Variant::kScalar,
          [](Fixture&, GemmArgs& a) {
            a.m = 0xFFFFFFFFu;
            a.k = 0xFFFFFFF8u;
          },
          "need more than 2^64"),
      Gemm(
          "DispatchAnOperandAtAnOddAddress",
          [](Fixture& f, GemmArgs& a) { a.b = *f.b.span().Slice(1, 8000); },
          "is not 2-byte aligned", StatusCode::kFailedPrecondition),
      Gemm(
          "DispatchSplitsNoVariantTakes", [](Fixture&, GemmArgs& a) { a.splits = 100000; },
          "splits=100000", StatusCode::kFailedPrecondition),
      Gemm(
          "DispatchAnEmptyProblem", [](Fixture&, GemmArgs& a) { a.n = 0; },
          "no variant can run m=16 n=0 k=64", StatusCode::kFailedPrecondition),
      Gemm(
          "DispatchAShortOutput", [](Fixture& f, GemmArgs& a) { a.c = DeviceSpan(f.c.ptr(), 100); },
          "c holds 100 bytes", StatusCode::kFailedPrecondition),
      // Common.
      Row{"ScaledAddIntoAShortOutput",
          [](Fixture& f) {
            return f.common->Bf16ScaledAdd(DeviceSpan(f.c.ptr(), 10), f.a.span(), 1.0f, 6);
          },
          StatusCode::kInvalidArgument, "out holds 10 bytes, n=6 elements need 12"},
      Row{"ScaledAddOfANullDelta",
          [](Fixture& f) { return f.common->Bf16ScaledAdd(f.c.span(), DeviceSpan(), 1.0f, 6); },
          StatusCode::kInvalidArgument, "delta is null"},
      Row{"FillAtAnOddAddress",
          [](Fixture& f) { return f.common->FillU16(*f.c.span().Slice(1, 100), 0, 4); },
          StatusCode::kInvalidArgument, "is not 2-byte aligned"},
      Row{"CopyFromAShortSource",
          [](Fixture& f) { return f.common->CopyBf16(f.c.span(), DeviceSpan(f.a.ptr(), 2), 2); },
          StatusCode::kInvalidArgument, "src holds 2 bytes"},
      Row{"FillMoreElementsThanAGridCovers",
          [](Fixture& f) {
            return f.common->FillU16(DeviceSpan::Unchecked(f.c.ptr()), 0, uint64_t{1} << 44);
          },
          StatusCode::kInvalidArgument, "over the grid limit"},
      // Testkit.
      Row{"StoreIntoAShortSpan",
          [](Fixture& f) { return f.testkit->StoreU64(DeviceSpan(f.c.ptr(), 4), 1); },
          StatusCode::kInvalidArgument, "dst holds 4 bytes"},
      Row{"StoreAtAMisalignedAddress",
          [](Fixture& f) { return f.testkit->StoreU64(*f.c.span().Slice(4, 8), 1); },
          StatusCode::kInvalidArgument, "is not 8-byte aligned"},
      Row{"StreamReadOfAnUncheckedSpan",
          [](Fixture& f) {
            return f.testkit->StreamRead(DeviceSpan::Unchecked(f.a.ptr()), 1, f.ws.span());
          },
          StatusCode::kInvalidArgument, "src must be a sized span"},
      Row{"StreamReadOfARaggedLength",
          [](Fixture& f) {
            return f.testkit->StreamRead(DeviceSpan(f.a.ptr(), 100), 1, f.ws.span());
          },
          StatusCode::kInvalidArgument, "src bytes=100 is not a multiple of 16"},
      Row{"StreamReadIntoAShortSink",
          [](Fixture& f) {
            return f.testkit->StreamRead(f.a.span(), 8, DeviceSpan(f.ws.ptr(), 16));
          },
          StatusCode::kInvalidArgument, "sink holds 16 bytes, 8 blocks' u32 slots need 32"},
  };
}

class OpsBadInput : public ::testing::TestWithParam<std::tuple<std::string, Row>> {
 protected:
  void SetUp() override {
    GPUOPS_CREATE_OR_SKIP(gpu_, std::get<0>(GetParam()));
    auto dense = dense::DenseGemm::Load(*gpu_);
    auto common = common::CommonKernels::Load(*gpu_);
    auto testkit = testkit::TestKernels::Load(*gpu_);
    ASSERT_TRUE(dense.ok() && common.ok() && testkit.ok());
    dense_.emplace(*std::move(dense));
    common_.emplace(*std::move(common));
    testkit_.emplace(*std::move(testkit));
    f_.gpu = gpu_.get();
    f_.dense = &*dense_;
    f_.common = &*common_;
    f_.testkit = &*testkit_;
    for (auto [buffer, elems] : {std::pair{&f_.a, kM * kK},
                                 {&f_.b, kN * kK},
                                 {&f_.c, kM * kN},
                                 {&f_.ws, uint32_t{32768}}}) {
      std::vector<uint16_t> pattern(elems);
      for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint16_t>(0x3c00 + i);
      *buffer = testing::UploadVector(*gpu_, pattern);
      before_.push_back(std::move(pattern));
    }
  }

  std::unique_ptr<GpuBackend> gpu_;
  std::optional<dense::DenseGemm> dense_;
  std::optional<common::CommonKernels> common_;
  std::optional<testkit::TestKernels> testkit_;
  Fixture f_;
  std::vector<std::vector<uint16_t>> before_;
};

TEST_P(OpsBadInput, IsRefusedWithItsCodeLaunchingAndWritingNothing) {
  const Row& row = std::get<1>(GetParam());
  auto* mock = dynamic_cast<mock::RecordingBackend*>(gpu_.get());
  const absl::Status s = row.call(f_);
  EXPECT_EQ(s.code(), row.code) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(row.fragment));
  ASSERT_TRUE(gpu_->Synchronize().ok());
  if (mock != nullptr) {
    EXPECT_EQ(mock->launch_count(), 0u) << "a refused call launched";
  }
  size_t i = 0;
  for (const DeviceBuffer* buffer : {&f_.a, &f_.b, &f_.c, &f_.ws}) {
    EXPECT_EQ(testing::DownloadVector<uint16_t>(*buffer), before_[i]) << "operand " << i;
    ++i;
  }
}

std::vector<std::tuple<std::string, Row>> Params() {
  std::vector<std::tuple<std::string, Row>> out;
  for (const std::string& backend : testing::KernelBackendNames()) {
    for (Row& row : Rows()) out.emplace_back(backend, std::move(row));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Rows, OpsBadInput, ::testing::ValuesIn(Params()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
});

}  // namespace
}  // namespace gpuops::ops
