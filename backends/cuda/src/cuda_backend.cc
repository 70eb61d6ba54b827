#include "gpuops/cuda/cuda_backend.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#include "absl/base/thread_annotations.h"
#include "gpuops/backends/device_book.h"
#include "gpuops/backends/module_book.h"
#include "gpuops/cuda/driver_api.h"
#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/mutex.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::cuda {
namespace {

class CudaBackend final : public GpuBackend {
 public:
  CudaBackend(const DriverApi& api, CUdevice device, CUcontext context, DeviceInfo info)
      : api_(api),
        device_(device),
        context_(context),
        info_(std::move(info)),
        modules_("cuda", this, info_.arch_name()) {}

  ~CudaBackend() override {
    if (MakeCurrent().ok()) {
      for (uint64_t m : modules_.LoadedModules())
        api_.cuModuleUnload(reinterpret_cast<CUmodule>(m));
      const DeviceBook::Live live = book_.live();
      for (uint64_t g : live.graphs) api_.cuGraphExecDestroy(reinterpret_cast<CUgraphExec>(g));
      for (uint64_t e : live.events) api_.cuEventDestroy(reinterpret_cast<CUevent>(e));
      for (uint64_t s : live.streams) api_.cuStreamDestroy(reinterpret_cast<CUstream>(s));
    }
    api_.cuDevicePrimaryCtxRelease(device_);
  }

  std::string_view name() const override { return "cuda"; }
  const DeviceInfo& device_info() const override { return info_; }

  absl::StatusOr<DevicePtr> Alloc(uint64_t bytes) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    if (bytes > info_.total_memory_bytes) {
      return absl::ResourceExhaustedError(StrCat(
          "cuda Alloc: ", bytes, " bytes requested, the device has ", info_.total_memory_bytes));
    }
    CUdeviceptr ptr = 0;
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuMemAlloc(&ptr, std::max<uint64_t>(bytes, 1)),
                                 StrCat("cuMemAlloc(", bytes, " bytes)")));
    book_.AddAllocation(ptr, bytes);
    return DevicePtr(ptr);
  }

  absl::Status Free(DevicePtr ptr) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveAllocation(ptr.address(), "Free"));
    return Check(api_.cuMemFree(ptr.address()), "cuMemFree");
  }

  absl::Status CopyToDevice(DevicePtr dst, absl::Span<const std::byte> src,
                            StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyToDevice", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(dst.address(), src.size(), "CopyToDevice dst"));
    if (src.empty()) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuMemcpyHtoDAsync(dst.address(), src.data(), src.size(), Native(stream)),
              "cuMemcpyHtoDAsync"));
    return Check(api_.cuStreamSynchronize(Native(stream)), "cuStreamSynchronize");
  }

  absl::Status CopyToHost(absl::Span<std::byte> dst, DevicePtr src,
                          StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyToHost", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(src.address(), dst.size(), "CopyToHost src"));
    if (dst.empty()) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuMemcpyDtoHAsync(dst.data(), src.address(), dst.size(), Native(stream)),
              "cuMemcpyDtoHAsync"));
    return Check(api_.cuStreamSynchronize(Native(stream)), "cuStreamSynchronize");
  }

  absl::Status CopyDeviceToDevice(DevicePtr dst, DevicePtr src, uint64_t bytes,
                                  StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyDeviceToDevice", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(dst.address(), bytes, "CopyDeviceToDevice dst"));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(src.address(), bytes, "CopyDeviceToDevice src"));
    if (bytes == 0) return absl::OkStatus();
    return Check(api_.cuMemcpyDtoDAsync(dst.address(), src.address(), bytes, Native(stream)),
                 "cuMemcpyDtoDAsync");
  }

  absl::Status Memset(DevicePtr dst, uint8_t value, uint64_t bytes,
                      StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "Memset", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckRange(dst.address(), bytes, "Memset dst"));
    if (bytes == 0) return absl::OkStatus();
    return Check(api_.cuMemsetD8Async(dst.address(), value, bytes, Native(stream)),
                 "cuMemsetD8Async");
  }

  absl::StatusOr<ModuleHandle> LoadModule(const ModuleImage& image) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    if (image.fatbin.empty()) {
      return absl::FailedPreconditionError(
          StrCat("cuda LoadModule ", image.name,
                 ": this build embeds no fatbin for the family (configure with the cuda preset)"));
    }
    GPUOPS_ASSIGN_OR_RETURN(std::vector<KernelSignature> expected,
                            ResolveModuleSignatures(image, info_));
    CUmodule module = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuModuleLoadData(&module, image.fatbin.data()),
                                 StrCat("cuModuleLoadData(", image.name, ")")));
    return modules_.Add(image.name, reinterpret_cast<uint64_t>(module), std::move(expected));
  }

  absl::Status UnloadModule(ModuleHandle handle) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_ASSIGN_OR_RETURN(auto unloaded, modules_.Unload(handle));
    return Check(api_.cuModuleUnload(reinterpret_cast<CUmodule>(unloaded.first)),
                 StrCat("cuModuleUnload(", unloaded.second, ")"));
  }

  absl::StatusOr<KernelHandle> GetKernel(ModuleHandle handle, std::string_view kernel) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    return modules_.GetKernel(
        handle, kernel,
        [&](uint64_t module, const std::string& name) -> absl::StatusOr<std::optional<uint64_t>> {
          CUfunction fn = nullptr;
          const CUresult r =
              api_.cuModuleGetFunction(&fn, reinterpret_cast<CUmodule>(module), name.c_str());
          if (r == CUDA_ERROR_NOT_FOUND) return std::nullopt;
          GPUOPS_RETURN_IF_ERROR(Check(r, "cuModuleGetFunction", name));
          return reinterpret_cast<uint64_t>(fn);
        },
        [&](const BookKernel& info) { return CrossCheckWithDriver(info); });
  }

  absl::Status Launch(const LaunchRequest& request) override {
    GPUOPS_ASSIGN_OR_RETURN(const BookKernel* kernel, modules_.ForLaunch(request));
    GPUOPS_RETURN_IF_ERROR(EnterStream(request.stream, "launch", /*capturable=*/true));
    auto fn = reinterpret_cast<CUfunction>(kernel->native);
    GPUOPS_RETURN_IF_ERROR(RaiseSharedMemory(*kernel, request.shared_mem_bytes, [&] {
      return Check(api_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(request.shared_mem_bytes)),
                   StrCat("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=",
                          request.shared_mem_bytes, ")"),
                   kernel->name());
    }));
    // Programmatic dependent launch exists from sm_90 (and a driver with cuLaunchKernelEx);
    // without it the launch keeps plain stream order, which is always correct.
    if (request.overlaps_previous && info_.arch_major >= 9 && api_.cuLaunchKernelEx != nullptr) {
      CUlaunchAttribute overlap{};
      overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      overlap.value.programmatic_stream_serialization_allowed = 1;
      const CUlaunchConfig config{.grid_x = request.grid.x,
                                  .grid_y = request.grid.y,
                                  .grid_z = request.grid.z,
                                  .block_x = request.block.x,
                                  .block_y = request.block.y,
                                  .block_z = request.block.z,
                                  .shared_bytes = request.shared_mem_bytes,
                                  .stream = Native(request.stream),
                                  .attrs = &overlap,
                                  .num_attrs = 1};
      return Check(api_.cuLaunchKernelEx(&config, fn, const_cast<void**>(request.param_values),
                                         nullptr),
                   "cuLaunchKernelEx(programmatic stream serialization)", kernel->name());
    }
    return Check(api_.cuLaunchKernel(fn, request.grid.x, request.grid.y, request.grid.z,
                                     request.block.x, request.block.y, request.block.z,
                                     request.shared_mem_bytes, Native(request.stream),
                                     const_cast<void**>(request.param_values), nullptr),
                 "cuLaunchKernel", kernel->name());
  }

  absl::StatusOr<TensorMapBytes> EncodeTensorMap(const TensorMapDesc& d) override {
    GPUOPS_RETURN_IF_ERROR(ValidateTensorMapDesc(d));
    GPUOPS_RETURN_IF_ERROR(Enter());
    if (api_.cuTensorMapEncodeTiled == nullptr) {
      return absl::FailedPreconditionError(
          "cuda EncodeTensorMap: the driver has no cuTensorMapEncodeTiled (CUDA 12.0+)");
    }
    static constexpr int kDataType[] = {/*kU8=*/0, /*kBF16=*/9, /*kF16=*/6, /*kF32=*/7};
    const uint32_t element_strides[kTensorMapMaxRank] = {1, 1, 1, 1, 1};
    CUtensorMap map{};
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuTensorMapEncodeTiled(&map, kDataType[static_cast<int>(d.data_type)], d.rank,
                                          reinterpret_cast<void*>(d.global_address.address()),
                                          d.global_dims.data(), d.global_strides.data() + 1,
                                          d.box_dims.data(), element_strides, /*interleave=*/0,
                                          static_cast<int>(d.swizzle), /*L2 promotion 256B=*/3,
                                          /*oob fill zeros=*/0),
              "cuTensorMapEncodeTiled"));
    TensorMapBytes out;
    std::memcpy(out.bytes.data(), &map, sizeof(map));
    return out;
  }

  absl::StatusOr<StreamHandle> CreateStream() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    CUstream s = nullptr;
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
    book_.AddStream(reinterpret_cast<uint64_t>(s));
    return StreamHandle{reinterpret_cast<uint64_t>(s)};
  }

  absl::Status DestroyStream(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveStream(stream.id, "DestroyStream"));
    return Check(api_.cuStreamDestroy(Native(stream)), "cuStreamDestroy");
  }

  absl::Status SynchronizeStream(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "SynchronizeStream", /*capturable=*/false));
    return Check(api_.cuStreamSynchronize(Native(stream)), "cuStreamSynchronize");
  }

  absl::StatusOr<EventHandle> CreateEvent() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    CUevent e = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuEventCreate(&e, 0), "cuEventCreate"));
    book_.AddEvent(reinterpret_cast<uint64_t>(e));
    return EventHandle{reinterpret_cast<uint64_t>(e)};
  }

  absl::Status DestroyEvent(EventHandle event) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveEvent(event.id, "DestroyEvent"));
    return Check(api_.cuEventDestroy(reinterpret_cast<CUevent>(event.id)), "cuEventDestroy");
  }

  absl::Status RecordEvent(EventHandle event, StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "RecordEvent", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(event.id, "RecordEvent"));
    GPUOPS_RETURN_IF_ERROR(Check(
        api_.cuEventRecord(reinterpret_cast<CUevent>(event.id), Native(stream)), "cuEventRecord"));
    book_.MarkRecorded(event.id);
    return absl::OkStatus();
  }

  absl::StatusOr<float> ElapsedMs(EventHandle start, EventHandle end) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(start.id, "ElapsedMs"));
    GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(end.id, "ElapsedMs"));
    GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(start.id, "ElapsedMs", /*recorded=*/true));
    GPUOPS_RETURN_IF_ERROR(book_.CheckEvent(end.id, "ElapsedMs", /*recorded=*/true));
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuEventSynchronize(reinterpret_cast<CUevent>(end.id)), "cuEventSynchronize"));
    float ms = 0;
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuEventElapsedTime(&ms, reinterpret_cast<CUevent>(start.id),
                                                         reinterpret_cast<CUevent>(end.id)),
                                 "cuEventElapsedTime"));
    return ms;
  }

  absl::Status Synchronize() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    return Check(api_.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  absl::Status BeginCapture(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.CheckCanCapture(stream.id));
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuStreamBeginCapture(Native(stream), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
              "cuStreamBeginCapture"));
    book_.MarkCapturing(stream.id);
    return absl::OkStatus();
  }

  absl::StatusOr<GraphHandle> EndCapture(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.EndCapture(stream.id));
    CUgraph graph = nullptr;
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuStreamEndCapture(Native(stream), &graph), "cuStreamEndCapture"));
    CUgraphExec exec = nullptr;
    absl::Status s2 =
        Check(api_.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
    api_.cuGraphDestroy(graph);
    GPUOPS_RETURN_IF_ERROR(s2);
    book_.AddGraph(reinterpret_cast<uint64_t>(exec));
    return GraphHandle{reinterpret_cast<uint64_t>(exec)};
  }

  absl::Status LaunchGraph(GraphHandle graph, StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "LaunchGraph", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(book_.CheckGraph(graph.id, "LaunchGraph"));
    return Check(api_.cuGraphLaunch(reinterpret_cast<CUgraphExec>(graph.id), Native(stream)),
                 "cuGraphLaunch");
  }

  absl::Status DestroyGraph(GraphHandle graph) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(book_.RemoveGraph(graph.id, "DestroyGraph"));
    return Check(api_.cuGraphExecDestroy(reinterpret_cast<CUgraphExec>(graph.id)),
                 "cuGraphExecDestroy");
  }

 private:
  static CUstream Native(StreamHandle s) { return reinterpret_cast<CUstream>(s.id); }

  // Fails fast once poisoned; makes the primary context current on this thread.
  absl::Status Enter() {
    GPUOPS_RETURN_IF_ERROR(book_.Poisoned());
    return MakeCurrent();
  }

  absl::Status MakeCurrent() {
    thread_local CUcontext current = nullptr;
    if (current == context_) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
    current = context_;
    return absl::OkStatus();
  }

  absl::Status EnterStream(StreamHandle stream, std::string_view call, bool capturable) {
    GPUOPS_RETURN_IF_ERROR(Enter());
    return book_.CheckStream(stream.id, call, capturable);
  }

  // Maps a driver result to a Status; a sticky fault poisons the backend.
  absl::Status Check(CUresult r, std::string_view call, std::string_view kernel = {}) {
    if (r == CUDA_SUCCESS) return absl::OkStatus();
    absl::Status s = CudaError(api_, r, call, kernel);
    if (IsStickyError(r)) return book_.Poison(s);
    return s;
  }

  // The driver's view of the parameter list must equal what the image promised.
  absl::Status CrossCheckWithDriver(const BookKernel& info) {
    if (api_.cuFuncGetParamInfo == nullptr) return absl::OkStatus();  // driver < 12.4
    auto fn = reinterpret_cast<CUfunction>(info.native);
    std::vector<KernelParam> driver;
    for (size_t i = 0;; ++i) {
      size_t offset = 0;
      size_t size = 0;
      const CUresult r = api_.cuFuncGetParamInfo(fn, i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE) break;
      GPUOPS_RETURN_IF_ERROR(Check(r, "cuFuncGetParamInfo", info.name()));
      if (offset > UINT32_MAX || size > UINT32_MAX) {
        return absl::FailedPreconditionError(StrCat("cuFuncGetParamInfo(", info.name(), ", ", i,
                                                    ") reports offset ", offset, " and size ", size,
                                                    ", past what a kernel parameter can be"));
      }
      driver.push_back(
          {StrCat("#", i), static_cast<uint32_t>(offset), static_cast<uint32_t>(size)});
    }
    const auto& expected = info.signature.params;
    bool same = driver.size() == expected.size();
    for (size_t i = 0; same && i < driver.size(); ++i) {
      same = driver[i].offset == expected[i].offset && driver[i].size == expected[i].size;
    }
    if (same) return absl::OkStatus();
    auto format = [](const std::vector<KernelParam>& ps) {
      return StrJoin(ps, " ", [](std::string* out, const KernelParam& p) {
        StrAppend(out, p.offset, ":", p.size);
      });
    };
    return absl::FailedPreconditionError(StrCat("cuda GetKernel ", info.name(),
                                                ": the driver's parameter list differs from "
                                                "signatures.txt (offset:size)\n- signatures.txt: ",
                                                format(expected),
                                                "\n+ cuFuncGetParamInfo: ", format(driver)));
  }

  const DriverApi& api_;
  CUdevice device_;
  CUcontext context_;
  DeviceInfo info_;

  DeviceBook book_{"cuda"};
  ModuleBook modules_;
};

absl::StatusOr<DeviceInfo> QueryDevice(const DriverApi& api, CUdevice device) {
  DeviceInfo d;
  char name[256] = {};
  GPUOPS_RETURN_IF_ERROR(
      CudaError(api, api.cuDeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName"));
  d.name = name;
  // Every attribute read is a count or size: a negative one is the driver's error, not a value.
  auto attr = [&](int a, auto* out) -> absl::Status {
    int v = 0;
    GPUOPS_RETURN_IF_ERROR(CudaError(api, api.cuDeviceGetAttribute(&v, a, device),
                                     StrCat("cuDeviceGetAttribute(", a, ")")));
    if (v < 0) {
      return absl::FailedPreconditionError(
          StrCat("cuDeviceGetAttribute(", a, ") returned ", v, ", not a count or size"));
    }
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(v);
    return absl::OkStatus();
  };
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.arch_major));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.arch_minor));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.sm_count));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &d.max_grid.x));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &d.max_grid.y));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &d.max_grid.z));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &d.max_block.x));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &d.max_block.y));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &d.max_block.z));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d.max_threads_per_block));
  GPUOPS_RETURN_IF_ERROR(
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &d.shared_mem_per_block));
  GPUOPS_RETURN_IF_ERROR(
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &d.shared_mem_per_block_optin));
  GPUOPS_RETURN_IF_ERROR(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &d.l2_bytes));
  size_t total = 0;
  GPUOPS_RETURN_IF_ERROR(CudaError(api, api.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem"));
  d.total_memory_bytes = total;
  // sm_90a code (wgmma, setmaxnreg) runs on compute capability 9.0 only.
  d.arch_specific = d.arch_major == 9 && d.arch_minor == 0;
  return d;
}

}  // namespace

absl::Status ProbeCuda() {
  GPUOPS_ASSIGN_OR_RETURN(const DriverApi* api, LoadDriver());
  int count = 0;
  GPUOPS_RETURN_IF_ERROR(CudaError(*api, api->cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0) {
    return absl::UnavailableError(StrCat("cuda: ", api->library, " loaded but reports no device"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<GpuBackend>> CreateCudaBackend(int ordinal) {
  GPUOPS_RETURN_IF_ERROR(ProbeCuda());
  GPUOPS_ASSIGN_OR_RETURN(const DriverApi* api, LoadDriver());
  CUdevice device = 0;
  GPUOPS_RETURN_IF_ERROR(
      CudaError(*api, api->cuDeviceGet(&device, ordinal), StrCat("cuDeviceGet(", ordinal, ")")));
  GPUOPS_ASSIGN_OR_RETURN(DeviceInfo info, QueryDevice(*api, device));
  CUcontext context = nullptr;
  GPUOPS_RETURN_IF_ERROR(
      CudaError(*api, api->cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain"));
  return std::make_unique<CudaBackend>(*api, device, context, std::move(info));
}

}  // namespace gpuops::cuda
