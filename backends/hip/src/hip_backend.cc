#include "gpuops/hip/hip_backend.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "gpuops/backends/device_book.h"
#include "gpuops/backends/module_book.h"
#include "gpuops/hip/runtime_api.h"
#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::hip {
namespace {

class HipBackend final : public GpuBackend {
 public:
  HipBackend(const RuntimeApi& api, int ordinal, DeviceInfo info)
      : api_(api),
        ordinal_(ordinal),
        info_(std::move(info)),
        modules_("hip", this, info_.arch_name()) {}

  ~HipBackend() override {
    if (!MakeCurrent().ok()) return;
    for (uint64_t m : modules_.LoadedModules())
      api_.hipModuleUnload(reinterpret_cast<hipModule_t>(m));
    const DeviceBook::Live live = book_.live();
    if (api_.hipGraphExecDestroy != nullptr) {
      for (uint64_t g : live.graphs) api_.hipGraphExecDestroy(reinterpret_cast<hipGraphExec_t>(g));
    }
    for (uint64_t e : live.events) api_.hipEventDestroy(reinterpret_cast<hipEvent_t>(e));
    for (uint64_t s : live.streams) api_.hipStreamDestroy(reinterpret_cast<hipStream_t>(s));
  }

  std::string_view name() const override { return "hip"; }
  const DeviceInfo& device_info() const override { return info_; }

  absl::StatusOr<DevicePtr> Alloc(uint64_t bytes) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    if (bytes > info_.total_memory_bytes) {
      return absl::ResourceExhaustedError(StrCat(
          "hip Alloc: ", bytes, " bytes requested, the device has ", info_.total_memory_bytes));
    }
    void* ptr = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.hipMalloc(&ptr, std::max<uint64_t>(bytes, 1)),
                                 StrCat("hipMalloc(", bytes, " bytes)")));
    book_.AddAllocation(reinterpret_cast<uint64_t>(ptr), bytes);
    return DevicePtr(reinterpret_cast<uint64_t>(ptr));
  }

  absl::Status Free(DevicePtr ptr) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveAllocation(ptr.address(), "Free"));
    return Check(api_.hipFree(Native(ptr)), "hipFree");
  }

  absl::Status CopyToDevice(DevicePtr dst, absl::Span<const std::byte> src,
                            StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyToDevice", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(dst.address(), src.size(), "CopyToDevice dst"));
    if (src.empty()) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipMemcpyHtoDAsync(Native(dst), const_cast<std::byte*>(src.data()), src.size(),
                                      Native(stream)),
              "hipMemcpyHtoDAsync"));
    return Check(api_.hipStreamSynchronize(Native(stream)), "hipStreamSynchronize");
  }

  absl::Status CopyToHost(absl::Span<std::byte> dst, DevicePtr src,
                          StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyToHost", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(src.address(), dst.size(), "CopyToHost src"));
    if (dst.empty()) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipMemcpyDtoHAsync(dst.data(), Native(src), dst.size(), Native(stream)),
              "hipMemcpyDtoHAsync"));
    return Check(api_.hipStreamSynchronize(Native(stream)), "hipStreamSynchronize");
  }

  absl::Status CopyDeviceToDevice(DevicePtr dst, DevicePtr src, uint64_t bytes,
                                  StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyDeviceToDevice", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(dst.address(), bytes, "CopyDeviceToDevice dst"));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(src.address(), bytes, "CopyDeviceToDevice src"));
    if (bytes == 0) return absl::OkStatus();
    return Check(api_.hipMemcpyDtoDAsync(Native(dst), Native(src), bytes, Native(stream)),
                 "hipMemcpyDtoDAsync");
  }

  absl::Status Memset(DevicePtr dst, uint8_t value, uint64_t bytes,
                      StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "Memset", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(dst.address(), bytes, "Memset dst"));
    if (bytes == 0) return absl::OkStatus();
    return Check(api_.hipMemsetD8Async(Native(dst), value, bytes, Native(stream)),
                 "hipMemsetD8Async");
  }

  absl::StatusOr<ModuleHandle> LoadModule(const ModuleImage& image) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    if (image.hip_bundle.empty()) {
      return absl::FailedPreconditionError(
          StrCat("hip LoadModule ", image.name,
                 ": this build embeds no AMD code objects for the family (configure with the hip "
                 "preset)"));
    }
    GPUOPS_ASSIGN_OR_RETURN(std::vector<KernelSignature> expected,
                            ResolveModuleSignatures(image, info_));
    hipModule_t module = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.hipModuleLoadData(&module, image.hip_bundle.data()),
                                 StrCat("hipModuleLoadData(", image.name, ")")));
    return modules_.Add(image.name, reinterpret_cast<uint64_t>(module), std::move(expected));
  }

  absl::Status UnloadModule(ModuleHandle handle) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_ASSIGN_OR_RETURN(auto unloaded, modules_.Unload(handle));
    return Check(api_.hipModuleUnload(reinterpret_cast<hipModule_t>(unloaded.first)),
                 StrCat("hipModuleUnload(", unloaded.second, ")"));
  }

  absl::StatusOr<KernelHandle> GetKernel(ModuleHandle handle, std::string_view kernel) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    return modules_.GetKernel(
        handle, kernel,
        [&](uint64_t module, const std::string& name) -> absl::StatusOr<std::optional<uint64_t>> {
          hipFunction_t fn = nullptr;
          const hipError_t r =
              api_.hipModuleGetFunction(&fn, reinterpret_cast<hipModule_t>(module), name.c_str());
          if (r == hipErrorNotFound) return std::nullopt;
          GPUOPS_RETURN_IF_ERROR(Check(r, "hipModuleGetFunction", name));
          return reinterpret_cast<uint64_t>(fn);
        },
        // The runtime has no query of a function's parameters: ResolveModuleSignatures read them
        // from the very code object the runtime loads.
        [](const BookKernel&) { return absl::OkStatus(); });
  }

  absl::Status Launch(const LaunchRequest& request) override {
    GPUOPS_ASSIGN_OR_RETURN(const BookKernel* kernel, modules_.ForLaunch(request));
    GPUOPS_RETURN_IF_ERROR(EnterStream(request.stream, "launch", /*capturable=*/true));
    // AMD's LDS has no opt-in: KernelLaunch has held the request to the device's limit.
    // overlaps_previous: HIP keeps plain stream order (always correct for such a kernel).
    return Check(api_.hipModuleLaunchKernel(reinterpret_cast<hipFunction_t>(kernel->native),
                                            request.grid.x, request.grid.y, request.grid.z,
                                            request.block.x, request.block.y, request.block.z,
                                            request.shared_mem_bytes, Native(request.stream),
                                            const_cast<void**>(request.param_values), nullptr),
                 "hipModuleLaunchKernel", kernel->name());
  }

  absl::StatusOr<TensorMapBytes> EncodeTensorMap(const TensorMapDesc& d) override {
    GPUOPS_RETURN_IF_ERROR(ValidateTensorMapDesc(d));
    return absl::FailedPreconditionError(
        "hip EncodeTensorMap: AMD GPUs have no tensor-map (TMA) descriptors; no HIP kernel takes "
        "one");
  }

  absl::StatusOr<StreamHandle> CreateStream() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    hipStream_t s = nullptr;
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipStreamCreateWithFlags(&s, hipStreamNonBlocking), "hipStreamCreateWithFlags"));
    book_.AddStream(reinterpret_cast<uint64_t>(s));
    return StreamHandle{reinterpret_cast<uint64_t>(s)};
  }

  absl::Status DestroyStream(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveStream(stream.id, "DestroyStream"));
    return Check(api_.hipStreamDestroy(Native(stream)), "hipStreamDestroy");
  }

  absl::Status SynchronizeStream(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "SynchronizeStream", /*capturable=*/false));
    return Check(api_.hipStreamSynchronize(Native(stream)), "hipStreamSynchronize");
  }

  absl::StatusOr<EventHandle> CreateEvent() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    hipEvent_t e = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.hipEventCreate(&e), "hipEventCreate"));
    book_.AddEvent(reinterpret_cast<uint64_t>(e));
    return EventHandle{reinterpret_cast<uint64_t>(e)};
  }

  absl::Status DestroyEvent(EventHandle event) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveEvent(event.id, "DestroyEvent"));
    return Check(api_.hipEventDestroy(reinterpret_cast<hipEvent_t>(event.id)), "hipEventDestroy");
  }

  absl::Status RecordEvent(EventHandle event, StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "RecordEvent", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(event.id, "RecordEvent"));
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipEventRecord(reinterpret_cast<hipEvent_t>(event.id), Native(stream)),
              "hipEventRecord"));
    book_.MarkRecorded(event.id);
    return absl::OkStatus();
  }

  absl::StatusOr<float> ElapsedMs(EventHandle start, EventHandle end) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    for (EventHandle e : {start, end}) GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(e.id, "ElapsedMs"));
    for (EventHandle e : {start, end}) {
      GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(e.id, "ElapsedMs", /*recorded=*/true));
    }
    GPUOPS_RETURN_IF_ERROR(Check(api_.hipEventSynchronize(reinterpret_cast<hipEvent_t>(end.id)),
                                 "hipEventSynchronize"));
    float ms = 0;
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipEventElapsedTime(&ms, reinterpret_cast<hipEvent_t>(start.id),
                                       reinterpret_cast<hipEvent_t>(end.id)),
              "hipEventElapsedTime"));
    return ms;
  }

  absl::Status Synchronize() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    return Check(api_.hipDeviceSynchronize(), "hipDeviceSynchronize");
  }

  absl::Status BeginCapture(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(HasGraphs("BeginCapture"));
    GPUOPS_RETURN_IF_ERROR(book_.CheckCanCapture(stream.id));
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipStreamBeginCapture(Native(stream), hipStreamCaptureModeThreadLocal),
              "hipStreamBeginCapture"));
    book_.MarkCapturing(stream.id);
    return absl::OkStatus();
  }

  absl::StatusOr<GraphHandle> EndCapture(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(HasGraphs("EndCapture"));
    GPUOPS_RETURN_IF_ERROR(book_.EndCapture(stream.id));
    hipGraph_t graph = nullptr;
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipStreamEndCapture(Native(stream), &graph), "hipStreamEndCapture"));
    hipGraphExec_t exec = nullptr;
    absl::Status instantiated =
        Check(api_.hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0), "hipGraphInstantiate");
    api_.hipGraphDestroy(graph);
    GPUOPS_RETURN_IF_ERROR(instantiated);
    book_.AddGraph(reinterpret_cast<uint64_t>(exec));
    return GraphHandle{reinterpret_cast<uint64_t>(exec)};
  }

  absl::Status LaunchGraph(GraphHandle graph, StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "LaunchGraph", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(book_.CheckGraph(graph.id, "LaunchGraph"));
    return Check(api_.hipGraphLaunch(reinterpret_cast<hipGraphExec_t>(graph.id), Native(stream)),
                 "hipGraphLaunch");
  }

  absl::Status DestroyGraph(GraphHandle graph) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveGraph(graph.id, "DestroyGraph"));
    return Check(api_.hipGraphExecDestroy(reinterpret_cast<hipGraphExec_t>(graph.id)),
                 "hipGraphExecDestroy");
  }

 private:
  static hipStream_t Native(StreamHandle s) { return reinterpret_cast<hipStream_t>(s.id); }
  static void* Native(DevicePtr p) { return reinterpret_cast<void*>(p.address()); }

  // Fails fast once poisoned; makes the device current on this thread.
  absl::Status Enter() {
    GPUOPS_RETURN_IF_ERROR(book_.Poisoned());
    return MakeCurrent();
  }

  absl::Status MakeCurrent() {
    thread_local int current = -1;
    if (current == ordinal_) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.hipSetDevice(ordinal_), StrCat("hipSetDevice(", ordinal_, ")")));
    current = ordinal_;
    return absl::OkStatus();
  }

  absl::Status EnterStream(StreamHandle stream, std::string_view call, bool capturable) {
    GPUOPS_RETURN_IF_ERROR(Enter());
    return book_.CheckStream(stream.id, call, capturable);
  }

  absl::Status HasGraphs(std::string_view call) const {
    if (api_.hipStreamBeginCapture != nullptr && api_.hipStreamEndCapture != nullptr &&
        api_.hipGraphInstantiate != nullptr && api_.hipGraphLaunch != nullptr &&
        api_.hipGraphExecDestroy != nullptr && api_.hipGraphDestroy != nullptr) {
      return absl::OkStatus();
    }
    return absl::FailedPreconditionError(StrCat("hip ", call, ": the HIP runtime ", api_.library,
                                                " has no stream capture or graphs"));
  }

  // Maps a runtime result to a Status; a sticky fault poisons the backend.
  absl::Status Check(hipError_t r, std::string_view call, std::string_view kernel = {}) {
    if (r == hipSuccess) return absl::OkStatus();
    absl::Status s = HipError(api_, r, call, kernel);
    if (IsStickyError(r)) return book_.Poison(s);
    return s;
  }

  const RuntimeApi& api_;
  const int ordinal_;
  DeviceInfo info_;
  DeviceBook book_{"hip"};
  ModuleBook modules_;
};

// The code-object target ("gfx90a") from hipGetDeviceProperties' gcnArchName
// ("gfx90a:sramecc+:xnack-"), found as the one string of the form gfx<hex digits>[:...] in the
// properties, whose layout differs between runtime versions.
absl::StatusOr<std::string> AmdTarget(const RuntimeApi& api, int ordinal) {
  std::vector<char> props(kDevicePropertiesBufferBytes, 0);
  GPUOPS_RETURN_IF_ERROR(
      HipError(api, api.hipGetDeviceProperties(props.data(), ordinal), "hipGetDeviceProperties"));
  props.back() = 0;
  for (size_t i = 0; i + 4 < props.size(); ++i) {
    if ((i > 0 && props[i - 1] != 0) || std::strncmp(&props[i], "gfx", 3) != 0) continue;
    size_t end = i + 3;
    while (std::isxdigit(static_cast<unsigned char>(props[end]))) ++end;
    if (end == i + 3 || (props[end] != 0 && props[end] != ':')) continue;
    return std::string(&props[i], end - i);
  }
  return absl::FailedPreconditionError(StrCat("hipGetDeviceProperties(", ordinal,
                                              "): no gfx target name (gcnArchName) in the "
                                              "device properties"));
}

absl::StatusOr<DeviceInfo> QueryDevice(const RuntimeApi& api, hipDevice_t device, int ordinal) {
  DeviceInfo d;
  char name[256] = {};
  GPUOPS_RETURN_IF_ERROR(
      HipError(api, api.hipDeviceGetName(name, sizeof(name) - 1, device), "hipDeviceGetName"));
  d.name = name;
  GPUOPS_ASSIGN_OR_RETURN(d.amd_target, AmdTarget(api, ordinal));
  // Every attribute read is a count or size: a negative one is the runtime's error, not a value.
  auto attr = [&](int a, auto* out) -> absl::Status {
    int v = 0;
    GPUOPS_RETURN_IF_ERROR(HipError(api, api.hipDeviceGetAttribute(&v, a, ordinal),
                                    StrCat("hipDeviceGetAttribute(", a, ")")));
    if (v < 0) {
      return absl::FailedPreconditionError(
          StrCat("hipDeviceGetAttribute(", a, ") returned ", v, ", not a count or size"));
    }
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(v);
    return absl::OkStatus();
  };
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMultiprocessorCount, &d.sm_count));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxGridDimX, &d.max_grid.x));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxGridDimY, &d.max_grid.y));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxGridDimZ, &d.max_grid.z));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxBlockDimX, &d.max_block.x));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxBlockDimY, &d.max_block.y));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxBlockDimZ, &d.max_block.z));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxThreadsPerBlock, &d.max_threads_per_block));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeMaxSharedMemoryPerBlock, &d.shared_mem_per_block));
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeL2CacheSize, &d.l2_bytes));
  int warp = 0;
  GPUOPS_RETURN_IF_ERROR(attr(hipDeviceAttributeWarpSize, &warp));
  // The attribute numbers are the ABI's; a runtime that numbers them otherwise shows here.
  if ((warp != 32 && warp != 64) || d.max_threads_per_block == 0 || d.sm_count == 0) {
    return absl::FailedPreconditionError(
        StrCat("hip: ", api.library, " reports a wave size of ", warp, ", ",
               d.max_threads_per_block, " threads per block and ", d.sm_count,
               " compute units: its attribute numbers differ from the ones gpuops was built for"));
  }
  d.shared_mem_per_block_optin = d.shared_mem_per_block;  // no opt-in on AMD
  size_t total = 0;
  GPUOPS_RETURN_IF_ERROR(HipError(api, api.hipDeviceTotalMem(&total, device), "hipDeviceTotalMem"));
  d.total_memory_bytes = total;
  return d;
}

}  // namespace

absl::Status ProbeHip() {
  GPUOPS_ASSIGN_OR_RETURN(const RuntimeApi* api, LoadRuntime());
  int count = 0;
  GPUOPS_RETURN_IF_ERROR(HipError(*api, api->hipGetDeviceCount(&count), "hipGetDeviceCount"));
  if (count == 0) {
    return absl::UnavailableError(StrCat("hip: ", api->library, " loaded but reports no device"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<GpuBackend>> CreateHipBackend(int ordinal) {
  GPUOPS_RETURN_IF_ERROR(ProbeHip());
  GPUOPS_ASSIGN_OR_RETURN(const RuntimeApi* api, LoadRuntime());
  hipDevice_t device = 0;
  GPUOPS_RETURN_IF_ERROR(
      HipError(*api, api->hipDeviceGet(&device, ordinal), StrCat("hipDeviceGet(", ordinal, ")")));
  GPUOPS_RETURN_IF_ERROR(
      HipError(*api, api->hipSetDevice(ordinal), StrCat("hipSetDevice(", ordinal, ")")));
  GPUOPS_ASSIGN_OR_RETURN(DeviceInfo info, QueryDevice(*api, device, ordinal));
  return std::make_unique<HipBackend>(*api, ordinal, std::move(info));
}

}  // namespace gpuops::hip
