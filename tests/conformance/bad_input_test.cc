// Bad input to every GpuBackend call, written once and run on every backend: each row is a call,
// the status code it must return and a fragment of the message. Nothing aborts or hangs, a
// refused call changes nothing (a sentinel buffer keeps its bytes, no allocation is left behind
// on the mock), and the backend keeps working after every row.
#include <thread>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"
#include "ops/testkit/testkit.h"
#include "tests/support/backends.h"
#include "tests/support/device_data.h"

namespace gpuops {
namespace {

using ::testing::ContainsRegex;

constexpr uint64_t kSentinelBytes = 4096;
constexpr StreamHandle kNoSuchStream{99};

// What a row may use: a live sentinel buffer, a freed address, a created stream and event, the
// testkit module with its kernels, and a second backend's kernel handle.
struct Fixture {
  GpuBackend* gpu = nullptr;
  DevicePtr buf;
  DevicePtr freed;
  StreamHandle stream;
  EventHandle event;
  ModuleHandle module;
  KernelHandle noop;
  KernelHandle store;
  KernelHandle foreign;  // from another backend
};

struct Row {
  std::string name;
  std::function<absl::Status(Fixture&)> call;
  absl::StatusCode code;
  std::string fragment;  // a regex: the backends word some refusals differently
};

void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

absl::Status CopyOut(Fixture& f, DevicePtr src, uint64_t bytes) {
  std::vector<std::byte> host(bytes);
  return f.gpu->CopyToHost(absl::MakeSpan(host), src);
}

absl::Status CopyIn(Fixture& f, DevicePtr dst, uint64_t bytes, StreamHandle stream = {}) {
  std::vector<std::byte> host(bytes, std::byte{0x5a});
  return f.gpu->CopyToDevice(dst, host, stream);
}

TensorMapDesc GoodMap(DevicePtr at) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kBF16;
  d.rank = 2;
  d.global_address = at;
  d.global_dims = {64, 16};
  d.global_strides = {0, 128};
  d.box_dims = {64, 16};
  d.swizzle = TensorMapSwizzle::k128B;
  return d;
}

std::vector<Row> Rows() {
  using absl::StatusCode;
  auto with_map = [](auto edit) {
    return [edit](Fixture& f) {
      TensorMapDesc d = GoodMap(f.buf);
      edit(d);
      return f.gpu->EncodeTensorMap(d).status();
    };
  };
  auto launch = [](auto build) {
    return [build](Fixture& f) {
      KernelLaunch l(*f.gpu, f.store);
      l.grid({1, 1, 1}).block({32, 1, 1});
      build(f, l);
      return l.launch();
    };
  };
  return {
      // Memory.
      {"AllocMoreThanAnyDevice",
       [](Fixture& f) { return f.gpu->Alloc(uint64_t{1} << 62).status(); },
       StatusCode::kResourceExhausted, "4611686018427387904 bytes"},
      {"AllocTheLargestSize", [](Fixture& f) { return f.gpu->Alloc(UINT64_MAX).status(); },
       StatusCode::kResourceExhausted, "18446744073709551615 bytes"},
      {"FreeNull", [](Fixture& f) { return f.gpu->Free(DevicePtr()); },
       StatusCode::kInvalidArgument, "is not the start of an allocation"},
      {"FreeAnUnknownAddress", [](Fixture& f) { return f.gpu->Free(DevicePtr(0xdead0000)); },
       StatusCode::kInvalidArgument, "0xdead0000 is not the start of an allocation"},
      {"FreeAnInteriorPointer", [](Fixture& f) { return f.gpu->Free(f.buf.offset(8)); },
       StatusCode::kInvalidArgument, "is not the start of an allocation"},
      {"FreeTwice", [](Fixture& f) { return f.gpu->Free(f.freed); },
       StatusCode::kFailedPrecondition, "already freed \\(double free\\)"},
      {"CopyToDevicePastTheEnd", [](Fixture& f) { return CopyIn(f, f.buf.offset(4090), 16); },
       StatusCode::kOutOfRange, "16 bytes at 0x[0-9a-f]+ run past the end of"},
      {"CopyToHostPastTheEnd", [](Fixture& f) { return CopyOut(f, f.buf.offset(1), 4096); },
       StatusCode::kOutOfRange, "run past the end of"},
      {"CopyDeviceToDeviceDestinationPastTheEnd",
       [](Fixture& f) { return f.gpu->CopyDeviceToDevice(f.buf.offset(4000), f.buf, 200); },
       StatusCode::kOutOfRange, "CopyDeviceToDevice dst"},
      {"CopyDeviceToDeviceSourcePastTheEnd",
       [](Fixture& f) { return f.gpu->CopyDeviceToDevice(f.buf, f.buf.offset(4000), 200); },
       StatusCode::kOutOfRange, "CopyDeviceToDevice src"},
      {"MemsetPastTheEnd", [](Fixture& f) { return f.gpu->Memset(f.buf, 0, 4097); },
       StatusCode::kOutOfRange, "Memset dst"},
      {"MemsetOfTheLargestSize", [](Fixture& f) { return f.gpu->Memset(f.buf, 0, UINT64_MAX); },
       StatusCode::kOutOfRange, "run past the end of"},
      {"CopyFromFreedMemory", [](Fixture& f) { return CopyOut(f, f.freed, 16); },
       StatusCode::kFailedPrecondition, "\\(use after free\\)"},
      {"CopyIntoFreedMemory", [](Fixture& f) { return CopyIn(f, f.freed.offset(8), 8); },
       StatusCode::kFailedPrecondition, "\\(use after free\\)"},
      {"MemsetOfFreedMemory", [](Fixture& f) { return f.gpu->Memset(f.freed, 1, 8); },
       StatusCode::kFailedPrecondition, "\\(use after free\\)"},
      {"CopyToDeviceOnAnUnknownStream",
       [](Fixture& f) { return CopyIn(f, f.buf, 8, kNoSuchStream); }, StatusCode::kInvalidArgument,
       "stream 99"},
      {"MemsetOnAnUnknownStream",
       [](Fixture& f) { return f.gpu->Memset(f.buf, 0, 8, kNoSuchStream); },
       StatusCode::kInvalidArgument, "stream 99"},
      {"CopyDeviceToDeviceOnAnUnknownStream",
       [](Fixture& f) { return f.gpu->CopyDeviceToDevice(f.buf, f.buf, 8, kNoSuchStream); },
       StatusCode::kInvalidArgument, "stream 99"},
      // Modules and kernels.
      {"LoadAModuleWhoseSignaturesAreGarbage",
       [](Fixture& f) {
         ModuleImage image = ops::testkit::EmbeddedModuleImage();
         image.signatures_text = "arch sm_90a\ntestkit_noop sm_90a x:1\n";
         return f.gpu->LoadModule(image).status();
       },
       StatusCode::kInvalidArgument, "signatures.txt:2: parameter \"x:1\" is not name:offset:size"},
      {"LoadAModuleWhoseFatbinIsGarbage",
       [](Fixture& f) {
         static const std::vector<uint8_t> kGarbage(64, 0xab);
         ModuleImage image = ops::testkit::EmbeddedModuleImage();
         image.fatbin = kGarbage;
         return f.gpu->LoadModule(image).status();
       },
       StatusCode::kInvalidArgument, "fatbin: bad magic"},
      {"UnloadAModuleTwice",
       [](Fixture& f) {
         auto module = f.gpu->LoadModule(ops::testkit::EmbeddedModuleImage());
         if (!module.ok()) return module.status();
         if (absl::Status s = f.gpu->UnloadModule(*module); !s.ok()) return s;
         return f.gpu->UnloadModule(*module);
       },
       StatusCode::kInvalidArgument, "is not loaded"},
      {"GetAKernelOfAnUnknownModule",
       [](Fixture& f) { return f.gpu->GetKernel(ModuleHandle{12345}, "testkit_noop").status(); },
       StatusCode::kInvalidArgument, "module 12345 is not loaded"},
      {"GetAKernelTheModuleDoesNotShip",
       [](Fixture& f) { return f.gpu->GetKernel(f.module, "no_such_kernel").status(); },
       StatusCode::kNotFound, "does not ship kernel no_such_kernel"},
      // Launches (through KernelLaunch, the only way to reach Launch).
      {"LaunchANullKernel",
       [](Fixture& f) { return KernelLaunch(*f.gpu, KernelHandle()).launch(); },
       StatusCode::kFailedPrecondition, "kernel handle is null"},
      {"LaunchWithAnArgumentMissing", launch([](Fixture& f, KernelLaunch& l) { l.arg_ptr(f.buf); }),
       StatusCode::kInvalidArgument, "1 arguments given, compiled kernel takes 2 \\(missing #1"},
      {"LaunchWithAnArgumentTooMany",
       launch([](Fixture& f, KernelLaunch& l) { l.arg_ptr(f.buf).arg_u64(1).arg_u32(2); }),
       StatusCode::kInvalidArgument, "extra #2"},
      {"LaunchWithAnArgumentOfTheWrongSize",
       launch([](Fixture& f, KernelLaunch& l) { l.arg_ptr(f.buf).arg_u32(1); }),
       StatusCode::kInvalidArgument, "argument #1 \\(value\\) is 4 bytes"},
      {"LaunchWithAZeroGrid", launch([](Fixture& f, KernelLaunch& l) {
         l.grid({0, 1, 1}).arg_ptr(f.buf).arg_u64(1);
       }),
       StatusCode::kInvalidArgument, "has a zero dimension"},
      {"LaunchWithAGridOverTheDeviceLimit", launch([](Fixture& f, KernelLaunch& l) {
         l.grid({1, 65536, 1}).arg_ptr(f.buf).arg_u64(1);
       }),
       StatusCode::kInvalidArgument, "exceeds the device limit"},
      {"LaunchWithTooManyThreads", launch([](Fixture& f, KernelLaunch& l) {
         l.block({1024, 2, 1}).arg_ptr(f.buf).arg_u64(1);
       }),
       StatusCode::kInvalidArgument, "threads, the device allows"},
      {"LaunchWithTooMuchSharedMemory", launch([](Fixture& f, KernelLaunch& l) {
         l.shared_mem(f.gpu->device_info().shared_mem_per_block_optin + 1)
             .arg_ptr(f.buf)
             .arg_u64(1);
       }),
       StatusCode::kInvalidArgument, "bytes of dynamic shared memory requested"},
      {"LaunchOnAnUnknownStream",
       [](Fixture& f) {
         return KernelLaunch(*f.gpu, f.noop)
             .grid({1, 1, 1})
             .block({32, 1, 1})
             .launch(kNoSuchStream);
       },
       StatusCode::kInvalidArgument, "stream 99"},
      {"LaunchAKernelOfAnotherBackend",
       [](Fixture& f) {
         return KernelLaunch(*f.gpu, f.foreign).grid({1, 1, 1}).block({32, 1, 1}).launch();
       },
       StatusCode::kInvalidArgument, "not from this backend"},
      {"LaunchAKernelOfAnUnloadedModule",
       [](Fixture& f) {
         auto module = f.gpu->LoadModule(ops::testkit::EmbeddedModuleImage());
         if (!module.ok()) return module.status();
         auto noop = f.gpu->GetKernel(*module, "testkit_noop");
         if (!noop.ok()) return noop.status();
         if (absl::Status s = f.gpu->UnloadModule(*module); !s.ok()) return s;
         return KernelLaunch(*f.gpu, *noop).grid({1, 1, 1}).block({32, 1, 1}).launch();
       },
       StatusCode::kFailedPrecondition, "was unloaded"},
      // Tensor maps.
      {"TensorMapOfRankZero", with_map([](TensorMapDesc& d) { d.rank = 0; }),
       StatusCode::kInvalidArgument, "rank"},
      {"TensorMapAtAMisalignedAddress",
       with_map([](TensorMapDesc& d) { d.global_address = d.global_address.offset(8); }),
       StatusCode::kInvalidArgument, "aligned"},
      {"TensorMapWithABoxOver256", with_map([](TensorMapDesc& d) { d.box_dims[1] = 257; }),
       StatusCode::kInvalidArgument, "box"},
      {"TensorMapWithAStrideNotAMultipleOf16",
       with_map([](TensorMapDesc& d) { d.global_strides[1] = 130; }), StatusCode::kInvalidArgument,
       "stride"},
      // Streams, events, graphs.
      {"DestroyTheDefaultStream", [](Fixture& f) { return f.gpu->DestroyStream(StreamHandle{}); },
       StatusCode::kInvalidArgument, "stream 0"},
      {"DestroyAnUnknownStream", [](Fixture& f) { return f.gpu->DestroyStream(kNoSuchStream); },
       StatusCode::kInvalidArgument, "stream 99"},
      {"SynchronizeAnUnknownStream",
       [](Fixture& f) { return f.gpu->SynchronizeStream(kNoSuchStream); },
       StatusCode::kInvalidArgument, "stream 99"},
      {"DestroyAnUnknownEvent", [](Fixture& f) { return f.gpu->DestroyEvent(EventHandle{12345}); },
       StatusCode::kInvalidArgument, "event 12345"},
      {"RecordAnUnknownEvent", [](Fixture& f) { return f.gpu->RecordEvent(EventHandle{12345}); },
       StatusCode::kInvalidArgument, "event"},
      {"RecordAnEventOnAnUnknownStream",
       [](Fixture& f) { return f.gpu->RecordEvent(f.event, kNoSuchStream); },
       StatusCode::kInvalidArgument, "stream 99"},
      {"ElapsedTimeOfEventsNeverRecorded",
       [](Fixture& f) {
         auto other = f.gpu->CreateEvent();
         if (!other.ok()) return other.status();
         absl::Status s = f.gpu->ElapsedMs(f.event, *other).status();
         (void)f.gpu->DestroyEvent(*other);
         return s;
       },
       StatusCode::kFailedPrecondition, "never recorded"},
      {"ElapsedTimeOfAnUnknownEvent",
       [](Fixture& f) { return f.gpu->ElapsedMs(f.event, EventHandle{12345}).status(); },
       StatusCode::kInvalidArgument, "event"},
      {"CaptureTheDefaultStream", [](Fixture& f) { return f.gpu->BeginCapture(StreamHandle{}); },
       StatusCode::kInvalidArgument, "default stream cannot be captured"},
      {"CaptureAStreamTwice",
       [](Fixture& f) {
         if (absl::Status s = f.gpu->BeginCapture(f.stream); !s.ok()) return s;
         absl::Status twice = f.gpu->BeginCapture(f.stream);
         auto graph = f.gpu->EndCapture(f.stream);
         if (graph.ok()) (void)f.gpu->DestroyGraph(*graph);
         return twice;
       },
       StatusCode::kFailedPrecondition, "already capturing"},
      {"EndACaptureNeverBegun", [](Fixture& f) { return f.gpu->EndCapture(f.stream).status(); },
       StatusCode::kFailedPrecondition, "is not capturing"},
      {"CopyToTheHostInsideACapture",
       [](Fixture& f) {
         if (absl::Status s = f.gpu->BeginCapture(f.stream); !s.ok()) return s;
         std::vector<std::byte> host(16);
         absl::Status copy = f.gpu->CopyToHost(absl::MakeSpan(host), f.buf, f.stream);
         auto graph = f.gpu->EndCapture(f.stream);
         if (graph.ok()) (void)f.gpu->DestroyGraph(*graph);
         return copy;
       },
       StatusCode::kFailedPrecondition, "CopyToHost"},
      {"LaunchAnUnknownGraph", [](Fixture& f) { return f.gpu->LaunchGraph(GraphHandle{12345}); },
       StatusCode::kInvalidArgument, "graph 12345 does not exist"},
      {"DestroyAnUnknownGraph", [](Fixture& f) { return f.gpu->DestroyGraph(GraphHandle{12345}); },
       StatusCode::kInvalidArgument, "graph 12345 does not exist"},
  };
}

class BackendBadInput : public ::testing::TestWithParam<std::tuple<std::string, Row>> {
 protected:
  void SetUp() override {
    GPUOPS_CREATE_OR_SKIP(gpu_, std::get<0>(GetParam()));
    f_.gpu = gpu_.get();
    // Registers the testkit's emulations, so the mock refuses launches for their own reasons.
    ASSERT_TRUE(ops::testkit::TestKernels::Load(*gpu_).ok());
    sentinel_.assign(kSentinelBytes, 0);
    for (size_t i = 0; i < sentinel_.size(); ++i) sentinel_[i] = static_cast<uint8_t>(i * 7 + 1);
    buf_ = testing::UploadVector(*gpu_, sentinel_);
    f_.buf = buf_.ptr();
    auto freed = gpu_->Alloc(256);
    ASSERT_TRUE(freed.ok());
    ASSERT_TRUE(gpu_->Free(*freed).ok());
    f_.freed = *freed;
    auto stream = MakeStream(*gpu_);
    auto event = MakeEvent(*gpu_);
    ASSERT_TRUE(stream.ok() && event.ok());
    stream_ = *std::move(stream);
    event_ = *std::move(event);
    f_.stream = stream_.get();
    f_.event = event_.get();
    auto module = gpu_->LoadModule(ops::testkit::EmbeddedModuleImage());
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = OwnedModule(*gpu_, *module);
    f_.module = *module;
    f_.noop = *gpu_->GetKernel(*module, "testkit_noop");
    f_.store = *gpu_->GetKernel(*module, "testkit_store_u64");
    auto other_module = other_.LoadModule(ops::testkit::EmbeddedModuleImage());
    ASSERT_TRUE(other_module.ok());
    f_.foreign = *other_.GetKernel(*other_module, "testkit_noop");
  }

  std::unique_ptr<GpuBackend> gpu_;
  mock::RecordingBackend other_{mock::RecordingBackend::Options{.execute_host_kernels = false}};
  Fixture f_;
  std::vector<uint8_t> sentinel_;
  DeviceBuffer buf_;
  OwnedStream stream_;
  OwnedEvent event_;
  OwnedModule module_;
};

TEST_P(BackendBadInput, IsRefusedWithItsCodeAndChangesNothing) {
  const Row& row = std::get<1>(GetParam());
  auto* mock = dynamic_cast<mock::RecordingBackend*>(gpu_.get());
  const size_t allocations = mock != nullptr ? mock->live_allocations() : 0;
  const absl::Status s = row.call(f_);
  EXPECT_EQ(s.code(), row.code) << s;
  EXPECT_THAT(std::string(s.message()), ContainsRegex(row.fragment));
  ASSERT_TRUE(gpu_->Synchronize().ok()) << "the backend is left working";
  EXPECT_EQ(testing::DownloadVector<uint8_t>(buf_), sentinel_) << "the sentinel buffer changed";
  if (mock != nullptr) {
    EXPECT_EQ(mock->live_allocations(), allocations) << "an allocation was left behind";
    EXPECT_EQ(mock->launch_count(), 0u) << "a refused launch was recorded";
  }
  // And it still does work.
  auto probe = DeviceBuffer::FromHost<uint8_t>(*gpu_, std::vector<uint8_t>{1, 2, 3});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(testing::DownloadVector<uint8_t>(*probe), (std::vector<uint8_t>{1, 2, 3}));
}

std::vector<std::tuple<std::string, Row>> Params() {
  std::vector<std::tuple<std::string, Row>> out;
  for (const std::string& backend : testing::KernelBackendNames()) {
    for (Row& row : Rows()) out.emplace_back(backend, std::move(row));
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Rows, BackendBadInput, ::testing::ValuesIn(Params()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
                         });

}  // namespace
}  // namespace gpuops
