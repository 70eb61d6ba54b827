// The backend conformance suite, written once and run on every backend: memory, launches of the
// common kernels with their results checked, validation before the backend, events, graphs and
// error paths. On a machine without a GPU the CUDA instances skip, printing why; the kernel tests
// run on CUDA only in builds that embed fatbins (the cuda preset). HIP runs the backend tests
// through the runtime GPUOPS_HIP_RUNTIME names: in test builds the stand-in runtime unless set
// (tests/backends/hip/hip_backend_test.cc covers its launches, errors and poisoning).
#include <numeric>
#include <random>
#include <thread>

#include "gmock/gmock.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "ops/testkit/testkit.h"
#include "tests/support/backends.h"
#include "tests/support/device_data.h"

namespace gpuops {
namespace {

using ::testing::HasSubstr;

class BackendConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    GPUOPS_CREATE_OR_SKIP(gpu_, GetParam());
    seed_ = std::random_device{}();
    rng_.seed(seed_);
  }

  std::vector<uint16_t> RandomBf16(size_t n) {
    std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
    std::vector<uint16_t> v(n);
    for (auto& x : v) x = FloatToBf16(dist(rng_));
    return v;
  }

  template <typename T>
  DeviceBuffer Upload(const std::vector<T>& host) {
    return testing::UploadVector(*gpu_, host);
  }
  template <typename T>
  std::vector<T> Download(const DeviceBuffer& b) {
    return testing::DownloadVector<T>(b);
  }

  std::unique_ptr<GpuBackend> gpu_;
  std::optional<ops::common::CommonKernels> common_;
  std::optional<ops::testkit::TestKernels> testkit_;
  uint32_t seed_ = 0;
  std::mt19937 rng_;
};

// The same with the common family loaded: the backends that can run this build's kernels.
class KernelConformance : public BackendConformance {
 protected:
  void SetUp() override {
    BackendConformance::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto k = ops::common::CommonKernels::Load(*gpu_);
    ASSERT_TRUE(k.ok()) << k.status();
    common_.emplace(*std::move(k));
    auto t = ops::testkit::TestKernels::Load(*gpu_);
    ASSERT_TRUE(t.ok()) << t.status();
    testkit_.emplace(*std::move(t));
  }
};

TEST_P(BackendConformance, ReportsADevice) {
  const DeviceInfo& d = gpu_->device_info();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GE(d.shared_mem_per_block_optin, d.shared_mem_per_block);
  EXPECT_EQ(d.max_threads_per_block, 1024u);
  std::printf("%s: %s, %s, %d SMs\n", GetParam().c_str(), d.name.c_str(), d.arch_name().c_str(),
              d.sm_count);
}

TEST_P(BackendConformance, MemoryRoundTripsThroughCopiesAndMemset) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed_);
  const auto host = RandomBf16((1 << 20) + 3);
  DeviceBuffer a = Upload(host);
  auto b = DeviceBuffer::Allocate(*gpu_, a.bytes());
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(gpu_->CopyDeviceToDevice(b->ptr(), a.ptr(), a.bytes()).ok());
  ASSERT_TRUE(gpu_->Memset(b->ptr().offset(2), 0xAB, 4).ok());
  auto back = Download<uint16_t>(*b);
  auto want = host;
  want[1] = 0xABAB;
  want[2] = 0xABAB;
  ASSERT_TRUE(gpu_->Synchronize().ok());
  EXPECT_EQ(back, want);
}

TEST_P(BackendConformance, FreeingAnUnknownPointerIsAnError) {
  auto p = gpu_->Alloc(256);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(gpu_->Free(p->offset(64)).ok());
  EXPECT_TRUE(gpu_->Free(*p).ok());
  EXPECT_TRUE(gpu_->Alloc(16).ok()) << "the backend keeps working after a refused free";
}

TEST_P(KernelConformance, CommonKernelsComputeTheirResults) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed_);
  constexpr uint64_t kN = (1 << 20) + 3;
  const auto out0 = RandomBf16(kN);
  const auto delta = RandomBf16(kN);
  DeviceBuffer out = Upload(out0);
  DeviceBuffer d = Upload(delta);
  ASSERT_TRUE(common_->Bf16ScaledAdd(out.span(), d.span(), -0.625f, kN).ok());
  const auto got = Download<uint16_t>(out);
  for (uint64_t i = 0; i < kN; ++i) {
    ASSERT_EQ(got[i], FloatToBf16(std::fma(-0.625f, Bf16ToFloat(delta[i]), Bf16ToFloat(out0[i]))))
        << "element " << i;
  }
  ASSERT_TRUE(common_->FillU16(out.span(), ops::common::kBf16Poison, kN).ok());
  EXPECT_THAT(Download<uint16_t>(out), ::testing::Each(ops::common::kBf16Poison));
  ASSERT_TRUE(common_->CopyBf16(out.span(), d.span(), kN).ok());
  EXPECT_EQ(Download<uint16_t>(out), delta);
  DeviceBuffer word = Upload(std::vector<uint64_t>{0});
  ASSERT_TRUE(testkit_->StoreU64(word.span(), 0xfeedfacecafebeefull).ok());
  EXPECT_EQ(Download<uint64_t>(word)[0], 0xfeedfacecafebeefull);
}

TEST_P(KernelConformance, LaunchWithTooFewArgumentsIsRefusedBeforeTheBackend) {
  auto module = gpu_->LoadModule(ops::testkit::EmbeddedModuleImage());
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = gpu_->GetKernel(*module, "testkit_store_u64");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  DeviceBuffer word = Upload(std::vector<uint64_t>{7});
  absl::Status s =
      KernelLaunch(*gpu_, *kernel).grid({1, 1, 1}).block({32, 1, 1}).arg_ptr(word.ptr()).launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "launch testkit_store_u64: 1 arguments given, compiled kernel takes 2 (missing #1 "
            "value, 8 bytes)");
  // Nothing reached the device, and the backend still works.
  ASSERT_TRUE(gpu_->Synchronize().ok());
  EXPECT_EQ(Download<uint64_t>(word)[0], 7u);
  ASSERT_TRUE(testkit_->StoreU64(word.span(), 9).ok());
  EXPECT_EQ(Download<uint64_t>(word)[0], 9u);
}

TEST_P(KernelConformance, LargeSharedMemoryRequestsAreAcceptedUpToTheOptInLimit) {
  auto module = gpu_->LoadModule(ops::testkit::EmbeddedModuleImage());
  ASSERT_TRUE(module.ok());
  auto noop = gpu_->GetKernel(*module, "testkit_noop");
  ASSERT_TRUE(noop.ok());
  const uint32_t limit = gpu_->device_info().shared_mem_per_block_optin;
  EXPECT_TRUE(
      KernelLaunch(*gpu_, *noop).grid({1, 1, 1}).block({32, 1, 1}).shared_mem(limit).launch().ok());
  EXPECT_TRUE(gpu_->Synchronize().ok());
}

TEST_P(KernelConformance, EventsMeasureElapsedTime) {
  auto start = MakeEvent(*gpu_);
  auto end = MakeEvent(*gpu_);
  ASSERT_TRUE(start.ok() && end.ok());
  DeviceBuffer big = Upload(std::vector<uint16_t>(1 << 24));
  ASSERT_TRUE(gpu_->RecordEvent(start->get()).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(common_->FillU16(big.span(), 1, 1 << 24).ok());
  ASSERT_TRUE(gpu_->RecordEvent(end->get()).ok());
  auto ms = gpu_->ElapsedMs(start->get(), end->get());
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GE(*ms, 0.0f);
  if (GetParam() == "cuda") {
    EXPECT_GT(*ms, 0.0f) << "four 32 MB fills take time on a GPU";
  }
}

TEST_P(KernelConformance, GraphOf100LaunchesReplaysWithCorrectResults) {
  constexpr uint64_t kN = 10000;
  DeviceBuffer acc = Upload(std::vector<uint16_t>(kN, FloatToBf16(0.0f)));
  DeviceBuffer ones = Upload(std::vector<uint16_t>(kN, FloatToBf16(1.0f)));
  auto stream = MakeStream(*gpu_);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(gpu_->BeginCapture(stream->get()).ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(common_->Bf16ScaledAdd(acc.span(), ones.span(), 1.0f, kN, stream->get()).ok());
  }
  auto graph = gpu_->EndCapture(stream->get());
  ASSERT_TRUE(graph.ok()) << graph.status();
  OwnedGraph owned(*gpu_, *graph);
  // Captured work does not run until replayed.
  ASSERT_TRUE(gpu_->SynchronizeStream(stream->get()).ok());
  EXPECT_THAT(Download<uint16_t>(acc), ::testing::Each(FloatToBf16(0.0f)));
  for (int replay = 0; replay < 2; ++replay) {
    ASSERT_TRUE(gpu_->LaunchGraph(*graph, stream->get()).ok());
  }
  ASSERT_TRUE(gpu_->SynchronizeStream(stream->get()).ok());
  // Integers up to 256 are exact in BF16: 200 additions of 1.
  EXPECT_THAT(Download<uint16_t>(acc), ::testing::Each(FloatToBf16(200.0f)));
}

// A dense split-K plan, whose reduce overlaps the split kernel's launch on sm_90 (programmatic
// dependent launch, in-kernel wait), against the same launches in plain stream order. Before each
// run the workspace holds NaNs (0xFF bytes), so a reduce that read the partials before the split
// kernel wrote them would leave NaNs or other bits in C. Run directly and captured into a graph.
TEST_P(KernelConformance, AnOverlappingSplitKPlanGivesTheBitsOfStreamOrderDirectAndInAGraph) {
  auto dense = ops::dense::DenseGemm::Load(*gpu_);
  ASSERT_TRUE(dense.ok()) << dense.status();
  if (!dense->Ships(ops::dense::Variant::kWgmma64x128SplitK)) {
    GTEST_SKIP() << "this build and device ship no sm_90a split-K kernel (the overlapping plan)";
  }
  constexpr uint32_t kM = 24, kN = 1024, kK = 4096;
  DeviceBuffer a = Upload(RandomBf16(size_t{kM} * kK));
  DeviceBuffer b = Upload(RandomBf16(size_t{kN} * kK));
  DeviceBuffer ordered = Upload(std::vector<uint16_t>(size_t{kM} * kN));
  DeviceBuffer direct = Upload(std::vector<uint16_t>(size_t{kM} * kN));
  DeviceBuffer graphed = Upload(std::vector<uint16_t>(size_t{kM} * kN));
  ops::dense::GemmArgs args{.a = a.span(), .b = b.span(), .c = ordered.span(), .m = kM, .n = kN,
                            .k = kK};
  const uint64_t ws_bytes = dense->GemmWorkspaceBytes(args);
  ASSERT_GT(ws_bytes, 0u) << "8 to 16 tiles on 132 SMs, 4096 k: the dispatcher splits";
  auto ws = gpu_->Alloc(ws_bytes);
  ASSERT_TRUE(ws.ok());
  args.workspace = DeviceSpan(*ws, ws_bytes);
  auto stream = MakeStream(*gpu_);
  ASSERT_TRUE(stream.ok());
  auto poison = [&] { return gpu_->Memset(*ws, 0xFF, ws_bytes, stream->get()); };
  // Stream order: the plan's launches with the reduce's overlap turned off.
  auto plan = dense->Plan(args);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->launches.size(), 2u);
  ASSERT_TRUE(plan->launches[1].overlaps_previous());
  std::vector<KernelLaunch> in_order(plan->launches.begin(), plan->launches.end());
  in_order[1].overlap_previous(false);
  ASSERT_TRUE(poison().ok());
  ASSERT_TRUE(ops::RunLaunches(in_order, stream->get()).ok());
  args.c = direct.span();
  ASSERT_TRUE(poison().ok());
  ASSERT_TRUE(dense->Gemm(args, stream->get()).ok());
  args.c = graphed.span();
  ASSERT_TRUE(gpu_->BeginCapture(stream->get()).ok());
  ASSERT_TRUE(dense->Gemm(args, stream->get()).ok());
  auto graph = gpu_->EndCapture(stream->get());
  ASSERT_TRUE(graph.ok()) << graph.status();
  OwnedGraph owned(*gpu_, *graph);
  ASSERT_TRUE(poison().ok());
  ASSERT_TRUE(gpu_->LaunchGraph(*graph, stream->get()).ok());
  ASSERT_TRUE(gpu_->SynchronizeStream(stream->get()).ok());
  const std::vector<uint16_t> want = Download<uint16_t>(ordered);
  EXPECT_THAT(want, ::testing::Contains(::testing::Ne(uint16_t{0})));
  EXPECT_EQ(Download<uint16_t>(direct), want);
  EXPECT_EQ(Download<uint16_t>(graphed), want);
  EXPECT_TRUE(gpu_->Free(*ws).ok());
}

// The same for a tail-split plan (whole tiles into C, the last wave's tiles split, the reduce
// overlapping the kernel): 2 x 67 tiles of 128 x 128 on a 132-SM device leave 2 tiles split
// 2 ways; on a device with other SM counts the tail differs, and the bits must still agree.
TEST_P(KernelConformance, AnOverlappingTailSplitPlanGivesTheBitsOfStreamOrderDirectAndInAGraph) {
  auto dense = ops::dense::DenseGemm::Load(*gpu_);
  ASSERT_TRUE(dense.ok()) << dense.status();
  constexpr auto kTail = ops::dense::Variant::kWgmma128x128Tail;
  if (!dense->Ships(kTail)) {
    GTEST_SKIP() << "this build and device ship no sm_90a tail-split kernel";
  }
  constexpr uint32_t kM = 129, kN = 67 * 128, kK = 128;
  DeviceBuffer a = Upload(RandomBf16(size_t{kM} * kK));
  DeviceBuffer b = Upload(RandomBf16(size_t{kN} * kK));
  DeviceBuffer ordered = Upload(std::vector<uint16_t>(size_t{kM} * kN));
  DeviceBuffer direct = Upload(std::vector<uint16_t>(size_t{kM} * kN));
  DeviceBuffer graphed = Upload(std::vector<uint16_t>(size_t{kM} * kN));
  ops::dense::GemmArgs args{.a = a.span(), .b = b.span(), .c = ordered.span(), .m = kM, .n = kN,
                            .k = kK, .splits = 2};
  const uint64_t ws_bytes = std::max<uint64_t>(dense->WorkspaceBytes(kTail, args), 16);
  auto ws = gpu_->Alloc(ws_bytes);
  ASSERT_TRUE(ws.ok());
  args.workspace = DeviceSpan(*ws, ws_bytes);
  auto stream = MakeStream(*gpu_);
  ASSERT_TRUE(stream.ok());
  auto poison = [&] { return gpu_->Memset(*ws, 0xFF, ws_bytes, stream->get()); };
  auto plan = dense->Plan(kTail, args);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<KernelLaunch> in_order(plan->launches.begin(), plan->launches.end());
  if (in_order.size() == 2) {
    ASSERT_TRUE(in_order[1].overlaps_previous());
    in_order[1].overlap_previous(false);
  }
  ASSERT_TRUE(poison().ok());
  ASSERT_TRUE(ops::RunLaunches(in_order, stream->get()).ok());
  args.c = direct.span();
  ASSERT_TRUE(poison().ok());
  ASSERT_TRUE(dense->Run(kTail, args, stream->get()).ok());
  args.c = graphed.span();
  ASSERT_TRUE(gpu_->BeginCapture(stream->get()).ok());
  ASSERT_TRUE(dense->Run(kTail, args, stream->get()).ok());
  auto graph = gpu_->EndCapture(stream->get());
  ASSERT_TRUE(graph.ok()) << graph.status();
  OwnedGraph owned(*gpu_, *graph);
  ASSERT_TRUE(poison().ok());
  ASSERT_TRUE(gpu_->LaunchGraph(*graph, stream->get()).ok());
  ASSERT_TRUE(gpu_->SynchronizeStream(stream->get()).ok());
  const std::vector<uint16_t> want = Download<uint16_t>(ordered);
  EXPECT_THAT(want, ::testing::Contains(::testing::Ne(uint16_t{0})));
  EXPECT_EQ(Download<uint16_t>(direct), want);
  EXPECT_EQ(Download<uint16_t>(graphed), want);
  EXPECT_TRUE(gpu_->Free(*ws).ok());
}

// backend.h's thread-safety contract: threads launching on their own streams, allocating and
// freeing, while another thread creates and records events; every thread's result is exact.
TEST_P(KernelConformance, ThreadsLaunchingOnTheirOwnStreamsAllComplete) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 20;  // integers up to 256 are exact in BF16
  constexpr uint64_t kN = 4099;
  std::vector<std::string> errors(kThreads + 1);
  std::vector<std::vector<uint16_t>> results(kThreads);
  auto fail = [&](int t, const absl::Status& s) {
    if (errors[t].empty()) errors[t] = std::string(s.message());
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto stream = MakeStream(*gpu_);
      auto acc = DeviceBuffer::FromHost<uint16_t>(
          *gpu_, std::vector<uint16_t>(kN, FloatToBf16(static_cast<float>(t))));
      auto ones =
          DeviceBuffer::FromHost<uint16_t>(*gpu_, std::vector<uint16_t>(kN, FloatToBf16(1)));
      if (!stream.ok() || !acc.ok() || !ones.ok()) return fail(t, absl::InternalError("setup"));
      for (int r = 0; r < kRounds; ++r) {
        auto scratch = DeviceBuffer::Allocate(*gpu_, kN * 2);
        if (!scratch.ok()) return fail(t, scratch.status());
        for (absl::Status s :
             {common_->CopyBf16(scratch->span(), ones->span(), kN, stream->get()),
              common_->Bf16ScaledAdd(acc->span(), scratch->span(), 1.0f, kN, stream->get()),
              gpu_->SynchronizeStream(stream->get())}) {
          if (!s.ok()) return fail(t, s);
        }
      }
      auto host = acc->ToHost<uint16_t>();
      if (!host.ok()) return fail(t, host.status());
      results[t] = *std::move(host);
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 50; ++i) {
      auto a = MakeEvent(*gpu_);
      if (!a.ok()) return fail(kThreads, a.status());
      if (absl::Status s = gpu_->RecordEvent(a->get()); !s.ok()) return fail(kThreads, s);
    }
  });
  for (auto& th : threads) th.join();
  EXPECT_THAT(errors, ::testing::Each(""));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_THAT(results[t], ::testing::Each(FloatToBf16(static_cast<float>(t + kRounds))))
        << "thread " << t;
  }
}

// Threads raising a kernel's shared-memory allowance at once: every launch is accepted (the
// opt-in is raised to the largest request, never lowered under another thread's launch).
TEST_P(KernelConformance, ThreadsRaisingTheSharedMemoryOptInAtOnceAllLaunch) {
  auto module = gpu_->LoadModule(ops::testkit::EmbeddedModuleImage());
  ASSERT_TRUE(module.ok());
  auto noop = gpu_->GetKernel(*module, "testkit_noop");
  ASSERT_TRUE(noop.ok());
  const uint32_t limit = gpu_->device_info().shared_mem_per_block_optin;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto stream = MakeStream(*gpu_);
      if (!stream.ok()) return;
      for (int i = 0; i < 25; ++i) {
        const uint32_t bytes = limit - static_cast<uint32_t>(((i + t) % 4) * 1024);
        absl::Status s = KernelLaunch(*gpu_, *noop)
                             .grid({1, 1, 1})
                             .block({32, 1, 1})
                             .shared_mem(bytes)
                             .launch(stream->get());
        if (!s.ok() && errors[t].empty()) errors[t] = std::string(s.message());
      }
      if (absl::Status s = gpu_->SynchronizeStream(stream->get()); !s.ok() && errors[t].empty()) {
        errors[t] = std::string(s.message());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_THAT(errors, ::testing::Each(""));
}

TEST_P(BackendConformance, CaptureRefusesHostCopiesAndTheDefaultStream) {
  auto stream = MakeStream(*gpu_);
  ASSERT_TRUE(stream.ok());
  DeviceBuffer buf = Upload(std::vector<uint16_t>(8));
  EXPECT_EQ(gpu_->BeginCapture(StreamHandle{}).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(gpu_->BeginCapture(stream->get()).ok());
  std::vector<std::byte> host(16);
  EXPECT_EQ(gpu_->CopyToDevice(buf.ptr(), host, stream->get()).code(),
            absl::StatusCode::kFailedPrecondition);
  auto graph = gpu_->EndCapture(stream->get());
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(gpu_->DestroyGraph(*graph).ok());
  EXPECT_EQ(gpu_->EndCapture(stream->get()).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_P(KernelConformance, ErrorPathsAreStatusesNotCrashes) {
  auto module = gpu_->LoadModule(ops::testkit::EmbeddedModuleImage());
  ASSERT_TRUE(module.ok());
  EXPECT_EQ(gpu_->GetKernel(*module, "no_such_kernel").status().code(),
            absl::StatusCode::kNotFound);
  auto store = gpu_->GetKernel(*module, "testkit_store_u64");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(gpu_->UnloadModule(*module).ok());
  EXPECT_EQ(gpu_->UnloadModule(*module).code(), absl::StatusCode::kInvalidArgument);
  DeviceBuffer word = Upload(std::vector<uint64_t>{1});
  absl::Status stale = KernelLaunch(*gpu_, *store)
                           .grid({1, 1, 1})
                           .block({32, 1, 1})
                           .arg_ptr(word.ptr())
                           .arg_u64(5)
                           .launch();
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.message(), HasSubstr("was unloaded"));
}

TEST_P(BackendConformance, UnknownHandlesAndImpossibleRequestsAreStatusesNotCrashes) {
  EXPECT_EQ(gpu_->DestroyStream(StreamHandle{12345}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu_->LaunchGraph(GraphHandle{12345}).code(), absl::StatusCode::kInvalidArgument);
  auto never = MakeEvent(*gpu_);
  auto other = MakeEvent(*gpu_);
  ASSERT_TRUE(never.ok() && other.ok());
  EXPECT_FALSE(gpu_->ElapsedMs(never->get(), other->get()).ok());
  EXPECT_EQ(gpu_->DestroyEvent(EventHandle{12345}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu_->Alloc(uint64_t{1} << 62).status().code(), absl::StatusCode::kResourceExhausted);
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendConformance,
                         ::testing::ValuesIn(testing::AllBackendNames()),
                         testing::BackendParamName);
INSTANTIATE_TEST_SUITE_P(Backends, KernelConformance,
                         ::testing::ValuesIn(testing::KernelBackendNames()),
                         testing::BackendParamName);

}  // namespace
}  // namespace gpuops
