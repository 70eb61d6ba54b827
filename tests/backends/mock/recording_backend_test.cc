#include "gpuops/mock/recording_backend.h"

#include <chrono>
#include <future>
#include <numeric>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gpuops/mock/matchers.h"
#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"

namespace gpuops::mock {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr std::string_view kModule = R"(
arch sm_90a
fill sm_80,sm_90a out:0:8 n:8:4 value:12:4
only_hopper sm_90a out:0:8
)";

std::vector<std::byte> Bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

GPUOPS_KERNEL_ARGS(FillArgs, (DevicePtr, out), (uint32_t, n), (float, value));

class RecordingBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu_.RegisterHostKernel("fill", HostFill);
    auto module = gpu_.LoadModule(DescribeModule("demo", kModule));
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *module;
    fill_ = *gpu_.GetKernel(module_, "fill");
  }

  absl::Status LaunchFill(DevicePtr out, uint32_t n, float value, StreamHandle stream = {}) {
    return KernelLaunch(gpu_, fill_)
        .grid({CeilDiv(n, 64), 1, 1})
        .block({64, 1, 1})
        .arg_ptr(out)
        .arg_u32(n)
        .arg_f32(value)
        .launch(stream);
  }

  // Host kernel for `fill`: each block writes its 64 elements of `out`.
  static absl::Status HostFill(const HostLaunch& l, HostMemory& mem) {
    auto args = l.Unpack<FillArgs>();
    if (!args.ok()) return args.status();
    auto view = mem.View<float>(args->out, args->n, ArgLabel(&FillArgs::out));
    if (!view.ok()) return view.status();
    for (uint32_t b = 0; b < l.grid().x; ++b) {
      for (uint32_t t = 0; t < l.block().x; ++t) {
        const uint32_t i = b * l.block().x + t;
        if (i < args->n) (*view)[i] = args->value;
      }
    }
    return absl::OkStatus();
  }

  RecordingBackend gpu_;
  ModuleHandle module_;
  KernelHandle fill_;
};

TEST_F(RecordingBackendTest, MemoryRoundTrips) {
  auto ptr = gpu_.Alloc(5);
  ASSERT_TRUE(ptr.ok());
  const auto in = Bytes({1, 2, 3, 4, 5});
  ASSERT_TRUE(gpu_.CopyToDevice(*ptr, in).ok());
  std::vector<std::byte> out(5);
  ASSERT_TRUE(gpu_.CopyToHost(absl::MakeSpan(out), *ptr).ok());
  EXPECT_EQ(out, in);

  auto other = gpu_.Alloc(5);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(gpu_.CopyDeviceToDevice(*other, ptr->offset(1), 4).ok());
  ASSERT_TRUE(gpu_.Memset(other->offset(4), 0xAB, 1).ok());
  ASSERT_TRUE(gpu_.CopyToHost(absl::MakeSpan(out), *other).ok());
  EXPECT_EQ(out, Bytes({2, 3, 4, 5, 0xAB}));
}

TEST_F(RecordingBackendTest, AddressesAreUniqueAlignedAndNeverReused) {
  std::vector<uint64_t> seen;
  for (int i = 0; i < 8; ++i) {
    auto p = gpu_.Alloc(100);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->address() % 256, 0u);
    EXPECT_THAT(seen, Not(::testing::Contains(p->address())));
    seen.push_back(p->address());
    ASSERT_TRUE(gpu_.Free(*p).ok());
  }
  EXPECT_EQ(gpu_.live_allocations(), 0u);
}

TEST_F(RecordingBackendTest, UnknownPointerIsAnError) {
  std::vector<std::byte> out(4);
  absl::Status s = gpu_.CopyToHost(absl::MakeSpan(out), DevicePtr(0xdead0000));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("0xdead0000 is not inside any allocation"));
}

TEST_F(RecordingBackendTest, FreedPointerIsAnError) {
  auto p = gpu_.Alloc(16);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(gpu_.Free(*p).ok());
  std::vector<std::byte> out(4);
  absl::Status s = gpu_.CopyToHost(absl::MakeSpan(out), p->offset(4));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("which was freed (use after free)"));
  s = LaunchFill(*p, 4, 1.0f);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("launch fill argument #0 (out)"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(RecordingBackendTest, DoubleFreeIsAnError) {
  auto p = gpu_.Alloc(16);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(gpu_.Free(*p).ok());
  absl::Status s = gpu_.Free(*p);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("already freed (double free)"));
}

TEST_F(RecordingBackendTest, FreeOfAnInteriorPointerIsAnError) {
  auto p = gpu_.Alloc(16);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(gpu_.Free(p->offset(8)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu_.live_allocations(), 1u);
}

TEST_F(RecordingBackendTest, CopyPastTheEndIsRefusedAndChangesNothing) {
  auto p = gpu_.Alloc(4);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(gpu_.CopyToDevice(*p, Bytes({9, 9, 9, 9})).ok());
  absl::Status s = gpu_.CopyToDevice(p->offset(2), Bytes({1, 2, 3}));
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), HasSubstr("run past the end of allocation"));
  std::vector<std::byte> out(4);
  ASSERT_TRUE(gpu_.CopyToHost(absl::MakeSpan(out), *p).ok());
  EXPECT_EQ(out, Bytes({9, 9, 9, 9}));
}

TEST_F(RecordingBackendTest, AllocOverTheMemoryLimitIsResourceExhausted) {
  RecordingBackend small(RecordingBackend::Options{.memory_limit_bytes = 1000});
  EXPECT_TRUE(small.Alloc(600).ok());
  EXPECT_EQ(small.Alloc(600).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(RecordingBackendTest, AnAllocationTheHostCannotHoldIsResourceExhaustedNotAnAbort) {
  RecordingBackend big(RecordingBackend::Options{.memory_limit_bytes = UINT64_MAX});
  for (uint64_t bytes : {uint64_t{1} << 46, uint64_t{1} << 62, UINT64_MAX - 1}) {
    auto p = big.Alloc(bytes);
    EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted) << bytes;
  }
  EXPECT_EQ(big.live_allocations(), 0u);
  EXPECT_TRUE(big.Alloc(64).ok()) << "the mock keeps working";
}

TEST_F(RecordingBackendTest, AGridTooLargeToEmulateIsRefusedInsteadOfHanging) {
  auto out = gpu_.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  absl::Status s = KernelLaunch(gpu_, fill_)
                       .grid({0x7fffffffu, 65535, 1})
                       .block({64, 1, 1})
                       .args(FillArgs{.out = *out, .n = 64, .value = 1.0f})
                       .launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("blocks, more than the 268435456 a host emulation walks"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
}

TEST_F(RecordingBackendTest, AnEmulationOverTheWorkBoundIsRefused) {
  RecordingBackend small(RecordingBackend::Options{.max_emulated_work = 1000});
  small.RegisterHostKernel("fill",
                           [](const HostLaunch& l, HostMemory&) { return l.ChargeWork(1001); });
  auto module = small.LoadModule(DescribeModule("demo", kModule));
  auto out = small.Alloc(64);
  ASSERT_TRUE(module.ok() && out.ok());
  absl::Status s = KernelLaunch(small, *small.GetKernel(*module, "fill"))
                       .grid({1, 1, 1})
                       .block({64, 1, 1})
                       .args(FillArgs{.out = *out, .n = 16, .value = 1.0f})
                       .launch();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("host kernel fill: 1001 operations, over the 1000"));
}

TEST_F(RecordingBackendTest, RecordHoldsExactlyWhatWasLaunched) {
  auto out = gpu_.Alloc(256 * sizeof(float));
  ASSERT_TRUE(out.ok());
  auto stream = gpu_.CreateStream();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(LaunchFill(out->offset(64), 100, 2.5f, *stream).ok());
  const auto records = gpu_.launches();
  ASSERT_EQ(records.size(), 1u);
  const LaunchRecord& r = records[0];
  EXPECT_EQ(r.sequence, 0u);
  EXPECT_EQ(r.kernel, "fill");
  EXPECT_EQ(r.module, "demo");
  EXPECT_EQ(r.grid, (Dim3{2, 1, 1}));
  EXPECT_EQ(r.block, (Dim3{64, 1, 1}));
  EXPECT_EQ(r.shared_mem_bytes, 0u);
  EXPECT_EQ(r.stream, *stream);
  ASSERT_EQ(r.args.size(), 3u);
  EXPECT_EQ(r.args[0].kind, ArgKind::kPtr);
  EXPECT_EQ(r.args[0].ptr(), out->offset(64));
  EXPECT_EQ(r.args[0].allocation, 1u);
  EXPECT_EQ(r.args[0].offset, 64u);
  EXPECT_EQ(r.args[1].kind, ArgKind::kU32);
  EXPECT_EQ(r.args[1].bytes.size(), 4u);
  EXPECT_EQ(r.args[1].u32(), 100u);
  EXPECT_EQ(r.args[2].kind, ArgKind::kF32);
  EXPECT_EQ(r.args[2].f32(), 2.5f);
  EXPECT_THAT(ToString(r), HasSubstr("launch #0 fill (module demo) grid (2, 1, 1)"));
}

TEST_F(RecordingBackendTest, HostKernelRunsOverTheRecordedGrid) {
  auto out = gpu_.Alloc(100 * sizeof(float));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(LaunchFill(*out, 100, 3.0f).ok());
  std::vector<float> host(100);
  ASSERT_TRUE(
      gpu_.CopyToHost(absl::MakeSpan(reinterpret_cast<std::byte*>(host.data()), 400), *out).ok());
  EXPECT_THAT(host, ::testing::Each(3.0f));
}

TEST_F(RecordingBackendTest, HostKernelOutOfBoundsViewNamesKernelAndArgument) {
  auto out = gpu_.Alloc(10 * sizeof(float));  // the launch claims 100 elements
  ASSERT_TRUE(out.ok());
  absl::Status s = LaunchFill(*out, 100, 1.0f);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("fill argument #0 (out)"), HasSubstr("400 bytes"),
                                 HasSubstr("run past the end")));
}

TEST_F(RecordingBackendTest, LaunchOfAKernelWithoutAnEmulationIsRefusedAndNotRecorded) {
  RecordingBackend gpu(RecordingBackend::Options{.host_kernels = nullptr});
  auto module = gpu.LoadModule(DescribeModule("demo", kModule));
  auto out = gpu.Alloc(64 * sizeof(float));
  ASSERT_TRUE(module.ok() && out.ok());
  auto launch = [&](RecordingBackend& g) {
    return KernelLaunch(g, *g.GetKernel(*g.LoadModule(DescribeModule("demo", kModule)), "fill"))
        .grid({1, 1, 1})
        .block({64, 1, 1})
        .args(FillArgs{.out = *out, .n = 64, .value = 1.0f})
        .launch();
  };
  absl::Status s = launch(gpu);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("mock launch fill: no host emulation is registered"));
  EXPECT_THAT(gpu.launches(), IsEmpty());

  RecordingBackend recorder(
      RecordingBackend::Options{.execute_host_kernels = false, .host_kernels = nullptr});
  out = recorder.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(launch(recorder).ok()) << "a mock that only records needs no emulation";
  EXPECT_EQ(recorder.launch_count(), 1u);
}

TEST_F(RecordingBackendTest, HostKernelsRunOutsideTheBackendsLock) {
  // The emulation waits until another thread has used the backend; were the backend's lock held
  // while it ran, that thread would block and the wait would time out.
  std::promise<void> other_thread_done;
  std::future<void> done = other_thread_done.get_future();
  gpu_.RegisterHostKernel("fill", [&](const HostLaunch& l, HostMemory& mem) {
    if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      return absl::DeadlineExceededError("the other thread could not use the backend");
    }
    return HostFill(l, mem);
  });
  auto out = gpu_.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  std::thread other([&] {
    while (gpu_.launch_count() == 0) std::this_thread::yield();
    EXPECT_TRUE(gpu_.Alloc(16).ok());
    other_thread_done.set_value();
  });
  EXPECT_TRUE(LaunchFill(*out, 64, 1.0f).ok());
  other.join();
}

TEST_F(RecordingBackendTest, KernelMissingForTheDeviceArchIsNotFound) {
  RecordingBackend::Options options;
  options.device.arch_major = 8;
  options.device.arch_specific = false;
  RecordingBackend ampere(options);
  auto module = ampere.LoadModule(DescribeModule("demo", kModule));
  ASSERT_TRUE(module.ok());
  EXPECT_TRUE(ampere.GetKernel(*module, "fill").ok());
  auto k = ampere.GetKernel(*module, "only_hopper");
  EXPECT_EQ(k.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(k.status().message(), HasSubstr("does not ship kernel only_hopper for sm_80"));
}

TEST_F(RecordingBackendTest, LaunchAfterUnloadIsRefused) {
  auto out = gpu_.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(gpu_.UnloadModule(module_).ok());
  absl::Status s = LaunchFill(*out, 64, 1.0f);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("was unloaded"));
  EXPECT_EQ(gpu_.UnloadModule(module_).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RecordingBackendTest, FaultInjectionFailsTheNthAllocAndChangesNothing) {
  gpu_.FailNth(FaultSite::kAlloc, 2, absl::ResourceExhaustedError("injected"));
  EXPECT_TRUE(gpu_.Alloc(8).ok());
  auto second = gpu_.Alloc(8);
  EXPECT_EQ(second.status(), absl::ResourceExhaustedError("injected"));
  EXPECT_EQ(gpu_.live_allocations(), 1u);
  EXPECT_TRUE(gpu_.Alloc(8).ok());
}

TEST_F(RecordingBackendTest, FaultInjectionFailsTheNextModuleLoad) {
  gpu_.FailNext(FaultSite::kLoadModule, absl::InternalError("no image"));
  EXPECT_EQ(gpu_.LoadModule(DescribeModule("x", kModule)).status(),
            absl::InternalError("no image"));
  EXPECT_TRUE(gpu_.LoadModule(DescribeModule("x", kModule)).ok());
}

TEST_F(RecordingBackendTest, FaultInjectionFailsTheNextLaunchWithoutRecordingIt) {
  auto out = gpu_.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  gpu_.FailNext(FaultSite::kLaunch, absl::InternalError("illegal address"));
  EXPECT_EQ(LaunchFill(*out, 64, 1.0f), absl::InternalError("illegal address"));
  EXPECT_THAT(gpu_.launches(), IsEmpty());
  EXPECT_TRUE(LaunchFill(*out, 64, 1.0f).ok());
  EXPECT_EQ(gpu_.launch_count(), 1u);
}

TEST_F(RecordingBackendTest, MatchersAcceptTheRecordAndExplainAMismatch) {
  auto out = gpu_.Alloc(128 * sizeof(float));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(LaunchFill(*out, 128, 0.5f).ok());
  const auto records = gpu_.launches();
  EXPECT_THAT(records, ElementsAre(Launch(KernelNamed("fill"), GridIs(2, 1, 1), BlockIs(64, 1, 1),
                                          SharedMemIs(0), OnStream(StreamHandle{}), ArgCountIs(3),
                                          ArgPtrAt(0, *out), ArgU32At(1, 128), ArgF32At(2, 0.5f))));
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(GridIs(1, 2, 1), records[0], &listener));
  EXPECT_EQ(listener.str(), "grid is (2, 1, 1)");
  ::testing::StringMatchResultListener kind_listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(ArgU32At(2, 0), records[0], &kind_listener));
  EXPECT_EQ(kind_listener.str(), "argument #2 is f32");
  EXPECT_THAT(records[0], Not(KernelNamed("other")));
  EXPECT_THAT(records[0], Not(ArgU32At(7, 1)));
}

TEST_F(RecordingBackendTest, GraphCapturesAndReplaysLaunchesAndMemsets) {
  auto out = gpu_.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  auto stream = gpu_.CreateStream();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(gpu_.BeginCapture(*stream).ok());
  ASSERT_TRUE(gpu_.Memset(*out, 0, 64 * sizeof(float), *stream).ok());
  ASSERT_TRUE(LaunchFill(*out, 32, 7.0f, *stream).ok());
  EXPECT_THAT(gpu_.launches(), IsEmpty());  // captured, not run
  auto graph = gpu_.EndCapture(*stream);
  ASSERT_TRUE(graph.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(gpu_.LaunchGraph(*graph, *stream).ok());
  const auto records = gpu_.launches();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].graph, *graph);
  EXPECT_EQ(records[2].sequence, 2u);
  std::vector<float> host(64);
  ASSERT_TRUE(
      gpu_.CopyToHost(absl::MakeSpan(reinterpret_cast<std::byte*>(host.data()), 256), *out).ok());
  EXPECT_EQ(host[31], 7.0f);
  EXPECT_EQ(host[32], 0.0f);
  EXPECT_TRUE(gpu_.DestroyGraph(*graph).ok());
  EXPECT_EQ(gpu_.LaunchGraph(*graph, *stream).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RecordingBackendTest, CaptureRefusesHostCopiesAndTheDefaultStream) {
  auto stream = gpu_.CreateStream();
  auto out = gpu_.Alloc(4);
  ASSERT_TRUE(stream.ok() && out.ok());
  EXPECT_EQ(gpu_.BeginCapture(StreamHandle{}).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(gpu_.BeginCapture(*stream).ok());
  EXPECT_EQ(gpu_.BeginCapture(*stream).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(gpu_.CopyToDevice(*out, Bytes({1, 2, 3, 4}), *stream).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(gpu_.EndCapture(*stream).ok());
  EXPECT_EQ(gpu_.EndCapture(*stream).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(RecordingBackendTest, EventsMeasureElapsedTimeOnlyOnceRecorded) {
  auto start = gpu_.CreateEvent();
  auto end = gpu_.CreateEvent();
  ASSERT_TRUE(start.ok() && end.ok());
  EXPECT_EQ(gpu_.ElapsedMs(*start, *end).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(gpu_.RecordEvent(*start, {}).ok());
  ASSERT_TRUE(gpu_.RecordEvent(*end, {}).ok());
  auto ms = gpu_.ElapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok());
  EXPECT_GE(*ms, 0.0f);
  EXPECT_TRUE(gpu_.DestroyEvent(*start).ok());
  EXPECT_EQ(gpu_.DestroyEvent(*start).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RecordingBackendTest, UnknownStreamIsRefused) {
  auto out = gpu_.Alloc(64 * sizeof(float));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(LaunchFill(*out, 64, 1.0f, StreamHandle{99}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu_.DestroyStream(StreamHandle{99}).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(RecordingBackendTest, OwnersReleaseWhatTheyHold) {
  {
    auto buffer = DeviceBuffer::Allocate(gpu_, 32);
    ASSERT_TRUE(buffer.ok());
    EXPECT_EQ(gpu_.live_allocations(), 1u);
    DeviceBuffer moved = std::move(*buffer);
    EXPECT_EQ(moved.bytes(), 32u);
    std::vector<uint32_t> in(8);
    std::iota(in.begin(), in.end(), 1u);
    ASSERT_TRUE(moved.Upload<uint32_t>(in).ok());
    std::vector<uint32_t> out(8);
    ASSERT_TRUE(moved.Download<uint32_t>(absl::MakeSpan(out)).ok());
    EXPECT_EQ(out, in);
    EXPECT_EQ(moved.Upload<uint32_t>(std::vector<uint32_t>(3)).code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(gpu_.live_allocations(), 0u);
  auto stream = MakeStream(gpu_);
  ASSERT_TRUE(stream.ok());
  const StreamHandle handle = stream->get();
  ASSERT_TRUE(stream->Release().ok());
  EXPECT_EQ(gpu_.DestroyStream(handle).code(), absl::StatusCode::kInvalidArgument);
}

// Each thread fills its own buffer on its own stream (two writing one buffer would race, as on a
// GPU); the record keeps one global order and every thread's output is its own.
TEST_F(RecordingBackendTest, LaunchesFromManyThreadsKeepOneGlobalOrder) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  std::vector<DevicePtr> outs;
  for (int t = 0; t < kThreads; ++t) {
    auto out = gpu_.Alloc(64 * sizeof(float));
    ASSERT_TRUE(out.ok());
    outs.push_back(*out);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto stream = gpu_.CreateStream();
      for (int i = 0; i < kPerThread; ++i) {
        EXPECT_TRUE(LaunchFill(outs[t], 64, static_cast<float>(t), *stream).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  const auto records = gpu_.launches();
  ASSERT_EQ(records.size(), static_cast<size_t>(kThreads * kPerThread));
  for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].sequence, i);
  for (int t = 0; t < kThreads; ++t) {
    std::vector<float> host(64);
    ASSERT_TRUE(
        gpu_.CopyToHost(absl::MakeSpan(reinterpret_cast<std::byte*>(host.data()), 256), outs[t])
            .ok());
    EXPECT_THAT(host, ::testing::Each(static_cast<float>(t)));
  }
}

}  // namespace
}  // namespace gpuops::mock
