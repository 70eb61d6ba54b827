// Launch contracts of the NVFP4 family on the mock: each variant's grid, block and arguments, the
// N-fast order of every m128 kernel, the seed's 8-versus-9-argument trap, the odd-N refusal and
// its padded alternative, the FP8 kernels' out-of-range rows, the dispatcher, CanImplement's
// refusals; and, on a GPU, the lossless kernels' bit-identity and the FP8 NaN rows there.
// (The golden launch traces and the numerics of every variant: tests/ops/family_test.cc.)
#include <cmath>
#include <optional>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"
#include "ops/common/common_ops.h"
#include "ops/nvfp4/nvfp4_gemm.h"
#include "tests/support/backends.h"
#include "tests/support/device_data.h"
#include "verify/check.h"
#include "verify/random.h"

namespace gpuops::ops::nvfp4 {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace ::gpuops::mock;  // NOLINT: matchers

// A loaded family on a mock that records without executing, with stand-in operands.
class Nvfp4ContractTest : public ::testing::Test {
 protected:
  Nvfp4ContractTest() : gpu_(testing::RecordOnly()) {}
  void SetUp() override {
    auto g = Nvfp4Gemm::Load(gpu_);
    ASSERT_TRUE(g.ok()) << g.status();
    gemm_.emplace(*std::move(g));
    for (DevicePtr* p : {&a_, &packed_, &scales_, &c_}) {
      auto buf = gpu_.Alloc(4096);
      ASSERT_TRUE(buf.ok());
      *p = *buf;
    }
  }
  GemmArgs Args(uint32_t m, uint32_t n, uint32_t k, uint32_t ldb = 0) const {
    return GemmArgs{.a = DeviceSpan::Unchecked(a_),
                    .w = {.packed = DeviceSpan::Unchecked(packed_),
                          .scales = DeviceSpan::Unchecked(scales_),
                          .global_scale = 0.5f,
                          .n = n,
                          .k = k,
                          .ldb = ldb},
                    .c = DeviceSpan::Unchecked(c_),
                    .m = m};
  }
  mock::RecordingBackend gpu_;
  std::optional<Nvfp4Gemm> gemm_;
  DevicePtr a_, packed_, scales_, c_;
};

TEST_F(Nvfp4ContractTest, BaseLaunches64By64TilesWithTheSeedsEightArguments) {
  ASSERT_TRUE(gemm_->Run(Variant::kBase, Args(100, 4096, 64)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("w4a16_gemm"), GridIs(64, 2, 1), BlockIs(128, 1, 1),
                                 SharedMemIs(0), ArgCountIs(8), ArgPtrAt(0, a_),
                                 ArgPtrAt(1, packed_), ArgPtrAt(2, scales_), ArgF32At(3, 0.5f),
                                 ArgPtrAt(4, c_), ArgU32At(5, 100), ArgU32At(6, 4096),
                                 ArgU32At(7, 64))));
}

TEST_F(Nvfp4ContractTest, DeepKTwinSharesBasesArgumentsAndGrid) {
  ASSERT_TRUE(gemm_->Run(Variant::kDeepK, Args(100, 4096, 64)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("w4a16_gemm_t_k64_n64_p3"), GridIs(64, 2, 1),
                                 BlockIs(128, 1, 1), ArgCountIs(8), ArgU32At(7, 64))));
}

TEST_F(Nvfp4ContractTest, N128PassesLdbEqualToNAndTheLdbVariantThePaddedStride) {
  ASSERT_TRUE(gemm_->Run(Variant::kN128, Args(1, 4096, 64)).ok());
  ASSERT_TRUE(gemm_->Run(Variant::kN128Ldb, Args(65, 151937, 64, 152064)).ok());
  EXPECT_THAT(gpu_.launches(),
              ElementsAre(Launch(KernelNamed("w4a16_gemm_n128"), GridIs(32, 1, 1),
                                 BlockIs(128, 1, 1), ArgCountIs(9), ArgU32At(6, 4096),
                                 ArgU32At(8, 4096)),
                          Launch(KernelNamed("w4a16_gemm_n128"), GridIs(1188, 2, 1),
                                 BlockIs(128, 1, 1), ArgCountIs(9), ArgU32At(5, 65),
                                 ArgU32At(6, 151937), ArgU32At(8, 152064))));
}

// The N-fast contract of every m128 kernel: blockIdx.x walks N, blockIdx.y M. With M = 300 and
// N = 1024 a swapped grid would be (3, 8) instead of (8, 3).
TEST_F(Nvfp4ContractTest, EveryM128KernelTakesNOnGridX) {
  struct Case {
    Variant v;
    const char* kernel;
    uint32_t threads;
  };
  for (const Case& c : {Case{Variant::kM128Fp8, "w4a16_gemm_t_m128", 128},
                        Case{Variant::kM128Fp8V2, "w4a16_gemm_t_m128_v2", 256},
                        Case{Variant::kM128Fp8V3, "w4a16_gemm_t_m128_v3", 256},
                        Case{Variant::kM128Bf16, "w4a16_gemm_t_m128_bf16", 128},
                        Case{Variant::kM128Bf16Ldb, "w4a16_gemm_t_m128_bf16_ldb", 128}}) {
    gpu_.ClearLaunches();
    ASSERT_TRUE(gemm_->Run(c.v, Args(300, 1024, 64)).ok()) << c.kernel;
    EXPECT_THAT(gpu_.launches(),
                ElementsAre(Launch(KernelNamed(c.kernel), GridIs(8, 3, 1),
                                   BlockIs(c.threads, 1, 1), ArgU32At(5, 300),
                                   ArgU32At(6, 1024))))
        << c.kernel;
  }
}

// The seed's trap: the _bf16_ldb kernel has nine parameters; an eight-argument launch would make
// the driver read past the argument array. Both the binding and a raw launch refuse it before
// the backend, naming the missing ldb.
TEST_F(Nvfp4ContractTest, TheNineArgumentKernelThroughAnEightArgumentLauncherIsRefused) {
  const KernelHandle ldb_kernel = gemm_->kernel(Variant::kM128Bf16Ldb);
  ASSERT_FALSE(ldb_kernel.is_null());
  auto bound = TypedKernel<Nvfp4Args>::Bind(ldb_kernel);
  EXPECT_EQ(bound.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(bound.status().message()), HasSubstr("lacks ldb"));

  const absl::Status raw = KernelLaunch(gpu_, ldb_kernel)
                               .grid({8, 3, 1})
                               .block({128, 1, 1})
                               .arg_ptr(a_)
                               .arg_ptr(packed_)
                               .arg_ptr(scales_)
                               .arg_f32(0.5f)
                               .arg_ptr(c_)
                               .arg_u32(300)
                               .arg_u32(1024)
                               .arg_u32(64)
                               .launch();
  EXPECT_FALSE(raw.ok());
  EXPECT_THAT(std::string(raw.message()), HasSubstr("ldb"));
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

// Odd N unpadded: the seed's CUDA_ERROR_MISALIGNED_ADDRESS, refused with the reason by every
// variant; the same N padded runs through the _ldb variants and only those.
TEST_F(Nvfp4ContractTest, OddNUnpaddedIsRefusedWithTheReasonAndPaddedRunsThroughLdb) {
  for (const VariantSpec& spec : kVariants.rows()) {
    const absl::Status s = gemm_->CanImplement(spec.variant, Args(1, 151937, 4096));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << spec.name;
    EXPECT_THAT(std::string(s.message()), HasSubstr("CUDA_ERROR_MISALIGNED_ADDRESS")) << spec.name;
    const absl::Status padded = gemm_->CanImplement(spec.variant, Args(1, 151937, 4096, 152064));
    EXPECT_EQ(padded.ok(), spec.extra.takes_padded) << spec.name << ": " << padded;
    if (!spec.extra.takes_padded) {
      EXPECT_THAT(std::string(padded.message()), HasSubstr("only n128_ldb and m128_bf16_ldb"));
    }
  }
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

TEST_F(Nvfp4ContractTest, TheDispatcherPicksLosslessVariantsByShape) {
  auto pick = [&](uint32_t m, uint32_t n, uint32_t ldb) {
    auto v = gemm_->Pick(Args(m, n, 4096, ldb));
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? std::string(kVariants[*v].name) : std::string();
  };
  EXPECT_EQ(pick(1, 4096, 0), "k64");
  EXPECT_EQ(pick(16, 28672, 0), "k64");
  EXPECT_EQ(pick(128, 4096, 0), "k64") << "32 tiles of 128 x 128 would leave 100 SMs idle";
  EXPECT_EQ(pick(128, 28672, 0), "m128_bf16") << "224 tiles";
  EXPECT_EQ(pick(1024, 4096, 0), "m128_bf16") << "256 tiles";
  EXPECT_EQ(pick(1024, 28672, 0), "m128_bf16");
  EXPECT_EQ(pick(1, 151937, 152064), "n128_ldb");
  EXPECT_EQ(pick(300, 151937, 152064), "m128_bf16_ldb");
}

TEST_F(Nvfp4ContractTest, CanImplementRefusesBadInputAndLaunchesNothing) {
  struct Row {
    const char* what;
    GemmArgs args;
    absl::StatusCode code;
    const char* fragment;
  };
  GemmArgs short_c = Args(16, 256, 64);
  short_c.c = DeviceSpan(c_, 16 * 256 * 2 - 2);
  GemmArgs short_scales = Args(16, 256, 64);
  short_scales.w.scales = DeviceSpan(scales_, 4 * 256 - 1);
  GemmArgs misaligned = Args(16, 256, 64);
  misaligned.a = DeviceSpan::Unchecked(DevicePtr(a_.address() + 8));
  GemmArgs nan_scale = Args(16, 256, 64);
  nan_scale.w.global_scale = NAN;
  GemmArgs null_packed = Args(16, 256, 64);
  null_packed.w.packed = DeviceSpan();
  for (const Row& row : std::vector<Row>{
           {"k % 16", Args(16, 256, 40), absl::StatusCode::kInvalidArgument, "k=40"},
           {"empty", Args(0, 256, 64), absl::StatusCode::kInvalidArgument, "empty problem"},
           {"short c", short_c, absl::StatusCode::kInvalidArgument, "c"},
           {"short scales", short_scales, absl::StatusCode::kInvalidArgument, "w.scales"},
           {"misaligned a", misaligned, absl::StatusCode::kInvalidArgument, "16-byte"},
           {"NaN global scale", nan_scale, absl::StatusCode::kInvalidArgument, "not finite"},
           {"null weight", null_packed, absl::StatusCode::kInvalidArgument, "non-null"},
           {"ldb not a multiple of 32", Args(16, 200, 64, 208),
            absl::StatusCode::kInvalidArgument, "ldb=208"},
       }) {
    for (Variant v : {Variant::kBase, Variant::kN128Ldb, Variant::kM128Fp8}) {
      if (std::string(row.what) == "ldb not a multiple of 32" && v != Variant::kN128Ldb) continue;
      const absl::Status s = gemm_->Run(v, row.args);
      EXPECT_EQ(s.code(), row.code) << row.what << " / " << kVariants[v].name << ": " << s;
      EXPECT_THAT(std::string(s.message()), HasSubstr(row.fragment)) << row.what;
    }
  }
  EXPECT_FALSE(gemm_->Run(static_cast<Variant>(99), Args(16, 256, 64)).ok());
  EXPECT_EQ(gpu_.launch_count(), 0u);
}

// --- Executing: on the mock (host emulations) and, where there is one, on the GPU.

// A small problem through the real data path: quantized weight, prepared, uploaded.
class Nvfp4ExecutionTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    GPUOPS_CREATE_OR_SKIP(gpu_, GetParam());
    auto g = Nvfp4Gemm::Load(*gpu_);
    ASSERT_TRUE(g.ok()) << g.status();
    gemm_.emplace(*std::move(g));
  }
  // An [n, k] weight prepared with row stride ldb (0: the default), and A of m rows.
  void MakeProblem(uint32_t m, uint32_t n, uint32_t k, uint32_t ldb = 0) {
    std::vector<uint16_t> source(uint64_t{n} * k);
    verify::FillRandomBf16(absl::MakeSpan(source), 11 + n);
    auto w = QuantizeNvfp4(source, n, k);
    ASSERT_TRUE(w.ok()) << w.status();
    auto p = Prepare(*w, ldb);
    ASSERT_TRUE(p.ok()) << p.status();
    auto d = UploadWeight(*gpu_, *p);
    ASSERT_TRUE(d.ok()) << d.status();
    weight_.emplace(*std::move(d));
    a_host_.assign(uint64_t{m} * k, 0);
    verify::FillRandomBf16(absl::MakeSpan(a_host_), 5 + m, -2.0f, 2.0f);
    a_ = testing::UploadVector(*gpu_, a_host_);
    m_ = m;
  }
  std::vector<uint16_t> Run(Variant v) {
    const uint64_t mn = uint64_t{m_} * weight_->view().n;
    DeviceBuffer c = testing::UploadVector(*gpu_, std::vector<uint16_t>(mn, common::kBf16Poison));
    const absl::Status s =
        gemm_->Run(v, {.a = a_.span(), .w = weight_->view(), .c = c.span(), .m = m_});
    EXPECT_TRUE(s.ok()) << kVariants[v].name << ": " << s;
    EXPECT_TRUE(gpu_->Synchronize().ok());
    return testing::DownloadVector<uint16_t>(c);
  }
  std::unique_ptr<GpuBackend> gpu_;
  std::optional<Nvfp4Gemm> gemm_;
  std::optional<UploadedWeight> weight_;
  std::vector<uint16_t> a_host_;
  DeviceBuffer a_;
  uint32_t m_ = 0;
};

TEST_P(Nvfp4ExecutionTest, LosslessVariantsAreBitIdenticalToBase) {
  MakeProblem(130, 256, 272);  // K = 272: a K tail past the 32- and 64-deep steps
  const std::vector<uint16_t> base = Run(Variant::kBase);
  verify::CheckStats written;
  verify::CheckWrittenAndGuard(base, base.size(), common::kBf16Poison, written);
  EXPECT_EQ(written.unwritten, 0u);
  for (const VariantSpec& spec : kVariants.rows()) {
    if (!IsLossless(spec) || spec.variant == Variant::kBase) continue;
    EXPECT_EQ(Run(spec.variant), base) << spec.name << " differs from base";
  }
}

TEST_P(Nvfp4ExecutionTest, OddVocabRunsThroughThePaddedVariantsIdentically) {
  MakeProblem(17, 1001, 64);  // ldb = 1024
  const std::vector<uint16_t> n128 = Run(Variant::kN128Ldb);
  verify::CheckStats written;
  verify::CheckWrittenAndGuard(n128, n128.size(), common::kBf16Poison, written);
  EXPECT_EQ(written.unwritten, 0u);
  EXPECT_EQ(Run(Variant::kM128Bf16Ldb), n128);
}

// A row of A holding a magnitude E4M3 cannot hold comes out NaN from the FP8 kernels, never
// silently saturated; the other rows are unaffected and finite.
TEST_P(Nvfp4ExecutionTest, Fp8KernelsTurnARowBeyond448IntoNaN) {
  MakeProblem(3, 128, 64);
  a_host_[1 * 64 + 10] = FloatToBf16(500.0f);
  a_ = testing::UploadVector(*gpu_, a_host_);
  for (Variant v : {Variant::kM128Fp8, Variant::kM128Fp8V2, Variant::kM128Fp8V3}) {
    if (!gemm_->Ships(v)) {
      ADD_FAILURE() << kVariants[v].name << " is not shipped for " << gpu_->device_info().arch_name();
      continue;
    }
    const std::vector<uint16_t> out = Run(v);
    for (uint32_t col = 0; col < 128; ++col) {
      EXPECT_TRUE(Bf16IsNan(out[128 + col])) << kVariants[v].name << " col " << col;
      EXPECT_TRUE(std::isfinite(Bf16ToFloat(out[col]))) << kVariants[v].name;
      EXPECT_TRUE(std::isfinite(Bf16ToFloat(out[256 + col]))) << kVariants[v].name;
    }
  }
}

// A launcher that swapped the grid axes would leave most of the output unwritten: the emulation
// (and the device) take blockIdx.x as the N tile.
TEST_P(Nvfp4ExecutionTest, ASwappedGridLeavesOutputsUnwritten) {
  MakeProblem(128, 512, 32);
  DeviceBuffer c = testing::UploadVector(*gpu_, std::vector<uint16_t>(128 * 512, common::kBf16Poison));
  const UploadedWeight& w = *weight_;
  auto kernel = TypedKernel<Nvfp4Args>::Bind(gemm_->kernel(Variant::kM128Bf16));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const absl::Status s = kernel->Launch(*gpu_, {{1, 4, 1}, {128, 1, 1}, 0},
                                      {.a = a_.ptr(),
                                       .b_packed = w.view().packed.ptr(),
                                       .b_scale = w.view().scales.ptr(),
                                       .scale2 = w.view().global_scale,
                                       .c = c.ptr(),
                                       .m = 128,
                                       .n = 512,
                                       .k = 32})
                             .launch();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(gpu_->Synchronize().ok());
  verify::CheckStats stats;
  verify::CheckWrittenAndGuard(testing::DownloadVector<uint16_t>(c), 128 * 512,
                               common::kBf16Poison, stats);
  EXPECT_EQ(stats.unwritten, 128u * 512 * 3 / 4) << "only N tile 0 is reached";
}

INSTANTIATE_TEST_SUITE_P(Backends, Nvfp4ExecutionTest,
                         ::testing::ValuesIn(testing::KernelBackendNames()),
                         testing::BackendParamName);

}  // namespace
}  // namespace gpuops::ops::nvfp4
