// The HIP backend through the stand-in runtime (standin/standin_control.h): loading the runtime
// named by GPUOPS_HIP_RUNTIME, the device it reports, hipError_t mapped to Status naming the
// call, the kernarg layout hipModuleLaunchKernel receives, refusals before the runtime, graphs,
// and the poison a sticky fault leaves. And the recording mock as an AMD device: launches
// validated against signatures.txt's HIP section, with no AMD GPU and no runtime.
#include "gpuops/hip/hip_backend.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gpuops/hip/runtime_api.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/bf16.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"
#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"
#include "tests/backends/hip/standin/standin_control.h"
#include "tests/support/backends.h"
#include "tests/support/code_object_builder.h"
#include "tests/support/device_data.h"

namespace gpuops {
namespace {

using ::gpuops::testing::ArgsFor;
using ::gpuops::testing::Blob;
using ::gpuops::testing::BuildCodeObject;
using ::gpuops::testing::BuildOffloadBundle;
using ::testing::HasSubstr;

// The stand-in's control functions, reached through the library the backend loaded.
struct StandIn {
  void (*reset)() = nullptr;
  void (*set_device_count)(int) = nullptr;
  void (*fail)(const char*, int, int) = nullptr;
  int (*calls)(const char*) = nullptr;
  int (*launch_count)() = nullptr;
  int (*launch)(int, GpuopsStandinLaunch*) = nullptr;

  static const StandIn* Get() {
    static const StandIn* standin = []() -> const StandIn* {
      testing::UseHipStandInUnlessSet();
      const char* path = std::getenv(hip::kRuntimePathEnvVar);
      void* lib = path != nullptr ? dlopen(path, RTLD_NOW) : nullptr;
      if (lib == nullptr) {
        LoadError() = path == nullptr ? "no runtime path" : dlerror();
        return nullptr;
      }
      auto* s = new StandIn();
      s->reset = reinterpret_cast<void (*)()>(dlsym(lib, "gpuops_standin_reset"));
      s->set_device_count =
          reinterpret_cast<void (*)(int)>(dlsym(lib, "gpuops_standin_set_device_count"));
      s->fail =
          reinterpret_cast<void (*)(const char*, int, int)>(dlsym(lib, "gpuops_standin_fail"));
      s->calls = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "gpuops_standin_calls"));
      s->launch_count = reinterpret_cast<int (*)()>(dlsym(lib, "gpuops_standin_launch_count"));
      s->launch =
          reinterpret_cast<int (*)(int, GpuopsStandinLaunch*)>(dlsym(lib, "gpuops_standin_launch"));
      if (s->reset == nullptr || s->launch == nullptr) return nullptr;  // a real runtime
      return s;
    }();
    return standin;
  }

  static std::string& LoadError() {
    static std::string error;
    return error;
  }

  GpuopsStandinLaunch Launch(int i) const {
    GpuopsStandinLaunch out{};
    EXPECT_EQ(launch(i, &out), 1) << "launch " << i;
    return out;
  }
};

template <typename T>
T At(const GpuopsStandinLaunch& l, uint32_t offset) {
  T v;
  std::memcpy(&v, l.kernarg + offset, sizeof(T));
  return v;
}

class HipBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    standin_ = StandIn::Get();
    if (standin_ == nullptr) {
#ifdef GPUOPS_HIP_STANDIN
      const char* path = std::getenv(hip::kRuntimePathEnvVar);
      ASSERT_TRUE(path == nullptr || std::string(path) != GPUOPS_HIP_STANDIN)
          << "the stand-in runtime does not load: " << StandIn::LoadError();
#endif
      GTEST_SKIP() << "GPUOPS_HIP_RUNTIME names a runtime other than the stand-in";
    }
    standin_->reset();
    auto gpu = hip::CreateHipBackend(0);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    gpu_ = *std::move(gpu);
  }

  const StandIn* standin_ = nullptr;
  std::unique_ptr<GpuBackend> gpu_;
};

// A one-kernel module: `probe(p: ptr, n: u32, scale: f32, bytes: u64)` as hipcc lays it out
// (and the hidden arguments after), with a signatures.txt whose HIP section lists `hip_line`.
struct ProbeModule {
  Blob bundle;
  std::string signatures;
  ModuleImage image() const {
    return ModuleImage{"probe", {}, signatures, absl::MakeConstSpan(bundle)};
  }
};
ProbeModule MakeProbeModule(
    const std::string& hip_line = "probe gfx90a p:0:8 n:8:4 scale:12:4 bytes:16:8") {
  ProbeModule m;
  const Blob object =
      BuildCodeObject({{"probe", ArgsFor({{"p", 8}, {"n", 4}, {"scale", 4}, {"bytes", 8}}), 0}});
  m.bundle = BuildOffloadBundle(
      {{"host-x86_64-unknown-linux-gnu", Blob()}, {"hipv4-amdgcn-amd-amdhsa--gfx90a", object}});
  m.signatures = "arch sm_90a\nprobe sm_90a p:0:8 n:8:4 scale:12:4 bytes:16:8\nhip-arch gfx90a\n" +
                 hip_line + "\n";
  return m;
}

TEST_F(HipBackendTest, ReportsTheDeviceTheRuntimeDescribes) {
  const DeviceInfo& d = gpu_->device_info();
  EXPECT_EQ(gpu_->name(), "hip");
  EXPECT_EQ(d.name, "gpuops HIP stand-in");
  EXPECT_EQ(d.amd_target, "gfx90a") << "from gcnArchName gfx90a:sramecc+:xnack-";
  EXPECT_EQ(d.arch_name(), "gfx90a");
  EXPECT_EQ(d.sm_count, 104);
  EXPECT_EQ(d.shared_mem_per_block, 64u * 1024);
  EXPECT_EQ(d.shared_mem_per_block_optin, 64u * 1024) << "AMD has no opt-in";
  EXPECT_EQ(d.total_memory_bytes, uint64_t{64} << 30);
  EXPECT_GE(standin_->calls("hipSetDevice"), 1);
}

TEST_F(HipBackendTest, NoDeviceIsUnavailableSayingWhy) {
  standin_->set_device_count(0);
  absl::Status probe = hip::ProbeHip();
  EXPECT_EQ(probe.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(probe.message(), HasSubstr("loaded but reports no device"));
  EXPECT_EQ(hip::CreateHipBackend(0).status().code(), absl::StatusCode::kUnavailable);
  standin_->set_device_count(1);
  EXPECT_EQ(hip::CreateHipBackend(3).status().code(), absl::StatusCode::kInvalidArgument)
      << "hipDeviceGet(3) on a one-device runtime: hipErrorInvalidDevice";
}

TEST_F(HipBackendTest, RuntimeErrorsBecomeStatusesNamingTheCall) {
  standin_->fail("hipMalloc", hip::hipErrorOutOfMemory, 1);
  auto p = gpu_->Alloc(256);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(p.status().message(), "hipMalloc(256 bytes): hipErrorOutOfMemory (2): stand-in error");
  EXPECT_TRUE(gpu_->Alloc(256).ok()) << "a failed call leaves the backend usable";
  standin_->fail("hipStreamCreateWithFlags", hip::hipErrorInvalidValue, 1);
  EXPECT_EQ(gpu_->CreateStream().status().code(), absl::StatusCode::kInvalidArgument);
  standin_->fail("hipModuleLoadData", hip::hipErrorInvalidImage, 1);
  const ProbeModule probe = MakeProbeModule();
  absl::StatusOr<ModuleHandle> module = gpu_->LoadModule(probe.image());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(module.status().message(),
              HasSubstr("hipModuleLoadData(probe): hipErrorInvalidImage"));
}

TEST_F(HipBackendTest, LaunchHandsTheRuntimeTheArgumentsAtTheCodeObjectsOffsets) {
  const ProbeModule probe = MakeProbeModule();
  auto module = gpu_->LoadModule(probe.image());
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = gpu_->GetKernel(*module, "probe");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(gpu_->GetKernel(*module, "absent").status().code(), absl::StatusCode::kNotFound);
  auto buf = DeviceBuffer::Allocate(*gpu_, 64);
  ASSERT_TRUE(buf.ok());
  auto stream = MakeStream(*gpu_);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(KernelLaunch(*gpu_, *kernel)
                  .grid({5, 2, 1})
                  .block({256, 1, 1})
                  .shared_mem(4096)
                  .arg_ptr(buf->ptr().offset(16))
                  .arg_u32(77)
                  .arg_f32(-1.5f)
                  .arg_u64(0x0123456789abcdefull)
                  .launch(stream->get())
                  .ok());
  ASSERT_EQ(standin_->launch_count(), 1);
  const GpuopsStandinLaunch l = standin_->Launch(0);
  EXPECT_STREQ(l.kernel, "probe");
  EXPECT_EQ(l.grid[0], 5u);
  EXPECT_EQ(l.grid[1], 2u);
  EXPECT_EQ(l.block[0], 256u);
  EXPECT_EQ(l.shared_bytes, 4096u);
  EXPECT_EQ(reinterpret_cast<uint64_t>(l.stream), stream->get().id);
  EXPECT_EQ(At<uint64_t>(l, 0), buf->ptr().address() + 16);
  EXPECT_EQ(At<uint32_t>(l, 8), 77u);
  EXPECT_EQ(At<float>(l, 12), -1.5f);
  EXPECT_EQ(At<uint64_t>(l, 16), 0x0123456789abcdefull);
  EXPECT_EQ(l.kernarg_bytes, 36u) << "24 bytes of the caller's, then 12 hidden";

  // Refused before the runtime: too few arguments, too much LDS. Nothing more was launched.
  absl::Status few =
      KernelLaunch(*gpu_, *kernel).grid({1, 1, 1}).block({64, 1, 1}).arg_ptr(buf->ptr()).launch();
  EXPECT_EQ(few.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(few.message(), HasSubstr("1 arguments given, compiled kernel takes 4"));
  absl::Status lds = KernelLaunch(*gpu_, *kernel)
                         .grid({1, 1, 1})
                         .block({64, 1, 1})
                         .shared_mem(65 * 1024)
                         .arg_ptr(buf->ptr())
                         .arg_u32(1)
                         .arg_f32(1)
                         .arg_u64(1)
                         .launch();
  EXPECT_EQ(lds.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(lds.message(), HasSubstr("launch probe: 66560 bytes of dynamic shared memory "
                                       "requested, the device allows at most 65536"));
  EXPECT_EQ(standin_->calls("hipModuleLaunchKernel"), 1);

  // Unloaded: the handle stays valid to hold and is refused to launch.
  ASSERT_TRUE(gpu_->UnloadModule(*module).ok());
  absl::Status stale = KernelLaunch(*gpu_, *kernel)
                           .grid({1, 1, 1})
                           .block({64, 1, 1})
                           .arg_ptr(buf->ptr())
                           .arg_u32(1)
                           .arg_f32(1)
                           .arg_u64(1)
                           .launch();
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.message(), HasSubstr("its module probe was unloaded"));
}

TEST_F(HipBackendTest, ACodeObjectThatDisagreesWithSignaturesTxtIsRefusedAtLoad) {
  const ProbeModule drifted = MakeProbeModule("probe gfx90a p:0:8 n:8:8 scale:16:4 bytes:24:8");
  absl::StatusOr<ModuleHandle> module = gpu_->LoadModule(drifted.image());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(module.status().message(), HasSubstr("gfx90a code object vs signatures.txt"));
  EXPECT_EQ(standin_->calls("hipModuleLoadData"), 0) << "refused before the runtime";

  ProbeModule no_hip = MakeProbeModule();
  no_hip.signatures = "arch sm_90a\nprobe sm_90a p:0:8 n:8:4 scale:12:4 bytes:16:8\n";
  EXPECT_THAT(gpu_->LoadModule(no_hip.image()).status().message(), HasSubstr("has no HIP section"));
  EXPECT_THAT(gpu_->LoadModule(ModuleImage{"cuda_only", {}, no_hip.signatures}).status().message(),
              HasSubstr("embeds no AMD code objects"));
}

TEST_F(HipBackendTest, GraphsReplayCapturedWorkOnly) {
  auto buf = DeviceBuffer::FromHost<uint8_t>(*gpu_, std::vector<uint8_t>(8, 1));
  ASSERT_TRUE(buf.ok());
  auto stream = MakeStream(*gpu_);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(gpu_->BeginCapture(stream->get()).ok());
  ASSERT_TRUE(gpu_->Memset(buf->ptr(), 9, 8, stream->get()).ok());
  auto graph = gpu_->EndCapture(stream->get());
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_THAT(*buf->ToHost<uint8_t>(), ::testing::Each(1)) << "captured, not run";
  ASSERT_TRUE(gpu_->LaunchGraph(*graph, stream->get()).ok());
  EXPECT_THAT(*buf->ToHost<uint8_t>(), ::testing::Each(9));
  EXPECT_TRUE(gpu_->DestroyGraph(*graph).ok());
  EXPECT_EQ(gpu_->LaunchGraph(*graph).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(HipBackendTest, AStickyFaultPoisonsTheBackend) {
  auto buf = DeviceBuffer::Allocate(*gpu_, 64);
  ASSERT_TRUE(buf.ok());
  standin_->fail("hipMemsetD8Async", hip::hipErrorIllegalAddress, 1);
  absl::Status fault = gpu_->Memset(buf->ptr(), 0, 64);
  EXPECT_EQ(fault.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(fault.message(), HasSubstr("hipMemsetD8Async: hipErrorIllegalAddress (700)"));
  const int mallocs = standin_->calls("hipMalloc");
  absl::StatusOr<DevicePtr> after = gpu_->Alloc(16);
  EXPECT_EQ(after.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(after.status().message(),
              HasSubstr("hip backend is poisoned by an earlier device fault"));
  EXPECT_THAT(after.status().message(), HasSubstr("hipErrorIllegalAddress (700)"));
  EXPECT_EQ(standin_->calls("hipMalloc"), mallocs) << "the poisoned backend calls nothing";
  EXPECT_FALSE(gpu_->Synchronize().ok());
}

#ifdef GPUOPS_HAS_HSACO
// The families' real code objects (hipcc's, embedded by the hip preset), launched by the same
// launchers as on CUDA: the kernarg buffer holds what the HIP section promises.
TEST_F(HipBackendTest, CommonAndDenseFamiliesLaunchThroughTheRuntime) {
  auto common = ops::common::CommonKernels::Load(*gpu_);
  ASSERT_TRUE(common.ok()) << common.status();
  auto buf = DeviceBuffer::Allocate(*gpu_, 2 * 1000);
  ASSERT_TRUE(buf.ok());
  ASSERT_TRUE(common->FillU16(buf->span(), 0xBEEF, 1000).ok());
  ASSERT_EQ(standin_->launch_count(), 1);
  GpuopsStandinLaunch fill = standin_->Launch(0);
  EXPECT_STREQ(fill.kernel, "common_fill_u16");
  EXPECT_EQ(At<uint64_t>(fill, 0), buf->ptr().address());
  EXPECT_EQ(At<uint32_t>(fill, 8) & 0xFFFF, 0xBEEFu);
  EXPECT_EQ(At<uint64_t>(fill, 16), 1000u);

  auto dense = ops::dense::DenseGemm::Load(*gpu_);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_TRUE(dense->Ships(ops::dense::Variant::kScalar));
  EXPECT_FALSE(dense->Ships(ops::dense::Variant::kTensorCore))
      << "no tensor-core kernel for AMD yet";
  constexpr uint32_t kM = 3, kN = 40, kK = 24;
  auto a = DeviceBuffer::Allocate(*gpu_, 2 * kM * kK);
  auto b = DeviceBuffer::Allocate(*gpu_, 2 * kN * kK);
  auto c = DeviceBuffer::Allocate(*gpu_, 2 * kM * kN);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ops::dense::GemmArgs args{
      .a = a->span(), .b = b->span(), .c = c->span(), .m = kM, .n = kN, .k = kK};
  ASSERT_TRUE(dense->Run(ops::dense::Variant::kScalar, args).ok());
  ASSERT_EQ(standin_->launch_count(), 2);
  GpuopsStandinLaunch gemm = standin_->Launch(1);
  EXPECT_STREQ(gemm.kernel,
               std::string(dense->kernel(ops::dense::Variant::kScalar).name()).c_str());
  EXPECT_EQ(At<uint64_t>(gemm, 0), a->ptr().address());
  EXPECT_EQ(At<uint64_t>(gemm, 8), b->ptr().address());
  EXPECT_EQ(At<uint64_t>(gemm, 16), c->ptr().address());
  EXPECT_EQ(At<uint32_t>(gemm, 24), kM);
  EXPECT_EQ(At<uint32_t>(gemm, 28), kN);
  EXPECT_EQ(At<uint32_t>(gemm, 32), kK);
}
#endif

// The recording mock as an AMD device: modules resolve through the HIP section, launches are
// validated against its lists, and the kernels only CUDA ships are not there.
TEST(MockAsAnAmdDevice, ValidatesLaunchesAgainstTheHipSection) {
  mock::RecordingBackend::Options options;
  options.device.amd_target = "gfx90a";
  options.device.arch_major = 0;
  options.device.arch_specific = false;
  mock::RecordingBackend gpu(options);
  auto common = ops::common::CommonKernels::Load(gpu);
  ASSERT_TRUE(common.ok()) << common.status();
  auto out = DeviceBuffer::FromHost<uint16_t>(gpu, std::vector<uint16_t>(100, FloatToBf16(2)));
  auto delta = DeviceBuffer::FromHost<uint16_t>(gpu, std::vector<uint16_t>(100, FloatToBf16(1)));
  ASSERT_TRUE(out.ok() && delta.ok());
  ASSERT_TRUE(common->Bf16ScaledAdd(out->span(), delta->span(), 0.5f, 100).ok());
  EXPECT_THAT(*out->ToHost<uint16_t>(), ::testing::Each(FloatToBf16(2.5f)));
  ASSERT_EQ(gpu.launches().size(), 1u);
  EXPECT_EQ(gpu.launches()[0].kernel, "common_bf16_scaled_add");

  auto module = gpu.LoadModule(ops::dense::EmbeddedModuleImage());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<KernelHandle> tc = gpu.GetKernel(*module, "dense_gemm_bf16_tc");
  EXPECT_EQ(tc.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(tc.status().message(), HasSubstr("for gfx90a"));
  auto dense = ops::dense::DenseGemm::Load(gpu);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_TRUE(dense->Ships(ops::dense::Variant::kScalar));
  EXPECT_FALSE(dense->Ships(ops::dense::Variant::kTensorCore));
  EXPECT_FALSE(dense->Ships(ops::dense::Variant::kGemvM8));
  // The dispatcher picks among what the device ships, and the launch is checked against the
  // HIP section and emulated.
  constexpr uint32_t kM = 5, kN = 24, kK = 16;
  auto a = DeviceBuffer::FromHost<uint16_t>(gpu, std::vector<uint16_t>(kM * kK, FloatToBf16(1)));
  auto b = DeviceBuffer::FromHost<uint16_t>(gpu, std::vector<uint16_t>(kN * kK, FloatToBf16(2)));
  auto c = DeviceBuffer::Allocate(gpu, 2 * kM * kN);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ops::dense::GemmArgs args{
      .a = a->span(), .b = b->span(), .c = c->span(), .m = kM, .n = kN, .k = kK};
  auto pick = dense->Pick(args);
  ASSERT_TRUE(pick.ok()) << pick.status();
  EXPECT_EQ(*pick, ops::dense::Variant::kScalar);
  ASSERT_TRUE(dense->Gemm(args).ok());
  EXPECT_THAT(*c->ToHost<uint16_t>(), ::testing::Each(FloatToBf16(2.0f * kK)));
  EXPECT_EQ(gpu.launches().back().kernel, "dense_gemm_bf16");
}

}  // namespace
}  // namespace gpuops
