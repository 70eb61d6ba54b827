#include "gpuops/cuda/cuda_backend.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "gpuops/cuda/driver_api.h"
#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/mutex.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::cuda {
namespace {

// A loaded kernel; stays allocated until the backend goes, so a stale handle never dangles.
struct CudaKernel : KernelInfo {
  std::atomic<bool> live{true};
  // The dynamic shared memory the function is already allowed (the opt-in attribute). Read
  // without a lock; raised only under opt_in_mu, to the largest size any launch asked for, so
  // two threads raising it at once cannot leave the attribute below the cached value.
  mutable std::atomic<uint32_t> shared_mem_allowed{48 * 1024};
  mutable std::mutex opt_in_mu;
};

struct CudaModule {
  std::string name;
  CUmodule module = nullptr;
  // The parameter lists the image promises for this device (fatbin cubin + signatures.txt).
  std::map<std::string, KernelSignature, std::less<>> expected;
  std::map<std::string, std::unique_ptr<CudaKernel>, std::less<>> kernels;
};

class CudaBackend final : public GpuBackend {
 public:
  CudaBackend(const DriverApi& api, CUdevice device, CUcontext context, DeviceInfo info)
      : api_(api), device_(device), context_(context), info_(std::move(info)) {}

  ~CudaBackend() override {
    if (MakeCurrent().ok()) {
      for (auto& [id, module] : modules_) {
        if (module->module != nullptr) api_.cuModuleUnload(module->module);
      }
      for (CUgraphExec g : graphs_) api_.cuGraphExecDestroy(g);
      for (const auto& [e, recorded] : events_) api_.cuEventDestroy(e);
      for (CUstream s : streams_) api_.cuStreamDestroy(s);
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
    MutexLock lock(&mu_);
    allocations_[ptr] = bytes;
    // The driver reuses addresses: a new allocation ends what was freed there.
    for (auto it = freed_.lower_bound(ptr); it != freed_.end() && it->first < ptr + bytes;) {
      it = freed_.erase(it);
    }
    if (auto it = freed_.lower_bound(ptr); it != freed_.begin()) {
      --it;
      if (it->first + it->second > ptr) freed_.erase(it);
    }
    return DevicePtr(ptr);
  }

  absl::Status Free(DevicePtr ptr) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    {
      MutexLock lock(&mu_);
      auto it = allocations_.find(ptr.address());
      if (it == allocations_.end()) {
        if (freed_.contains(ptr.address())) {
          return absl::FailedPreconditionError(StrCat("cuda Free: allocation at 0x",
                                                      Hex(ptr.address()),
                                                      " was already freed (double free)"));
        }
        return absl::InvalidArgumentError(
            StrCat("cuda Free: 0x", Hex(ptr.address()), " is not the start of an allocation"));
      }
      // Remembered for use-after-free and double-free errors, within a bound.
      if (freed_.size() >= kFreedRemembered) freed_.clear();
      freed_[it->first] = it->second;
      allocations_.erase(it);
    }
    return Check(api_.cuMemFree(ptr.address()), "cuMemFree");
  }

  absl::Status CopyToDevice(DevicePtr dst, absl::Span<const std::byte> src,
                            StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyToDevice", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(CheckRange(dst, src.size(), "CopyToDevice dst"));
    if (src.empty()) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuMemcpyHtoDAsync(dst.address(), src.data(), src.size(), Native(stream)),
              "cuMemcpyHtoDAsync"));
    return Check(api_.cuStreamSynchronize(Native(stream)), "cuStreamSynchronize");
  }

  absl::Status CopyToHost(absl::Span<std::byte> dst, DevicePtr src,
                          StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyToHost", /*capturable=*/false));
    GPUOPS_RETURN_IF_ERROR(CheckRange(src, dst.size(), "CopyToHost src"));
    if (dst.empty()) return absl::OkStatus();
    GPUOPS_RETURN_IF_ERROR(
        Check(api_.cuMemcpyDtoHAsync(dst.data(), src.address(), dst.size(), Native(stream)),
              "cuMemcpyDtoHAsync"));
    return Check(api_.cuStreamSynchronize(Native(stream)), "cuStreamSynchronize");
  }

  absl::Status CopyDeviceToDevice(DevicePtr dst, DevicePtr src, uint64_t bytes,
                                  StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "CopyDeviceToDevice", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(CheckRange(dst, bytes, "CopyDeviceToDevice dst"));
    GPUOPS_RETURN_IF_ERROR(CheckRange(src, bytes, "CopyDeviceToDevice src"));
    if (bytes == 0) return absl::OkStatus();
    return Check(api_.cuMemcpyDtoDAsync(dst.address(), src.address(), bytes, Native(stream)),
                 "cuMemcpyDtoDAsync");
  }

  absl::Status Memset(DevicePtr dst, uint8_t value, uint64_t bytes,
                      StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "Memset", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(CheckRange(dst, bytes, "Memset dst"));
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
    auto module = std::make_unique<CudaModule>();
    module->name = std::string(image.name);
    for (KernelSignature& k : expected) module->expected.emplace(k.kernel, std::move(k));
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuModuleLoadData(&module->module, image.fatbin.data()),
                                 StrCat("cuModuleLoadData(", image.name, ")")));
    MutexLock lock(&mu_);
    const uint64_t id = next_module_++;
    modules_.emplace(id, std::move(module));
    return ModuleHandle{id};
  }

  absl::Status UnloadModule(ModuleHandle handle) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    MutexLock lock(&mu_);
    auto it = modules_.find(handle.id);
    if (it == modules_.end() || it->second->module == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("cuda UnloadModule: module ", handle.id, " is not loaded"));
    }
    for (auto& [name, kernel] : it->second->kernels) kernel->live = false;
    CUmodule m = std::exchange(it->second->module, nullptr);
    return Check(api_.cuModuleUnload(m), StrCat("cuModuleUnload(", it->second->name, ")"));
  }

  absl::StatusOr<KernelHandle> GetKernel(ModuleHandle handle, std::string_view kernel) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    MutexLock lock(&mu_);
    auto it = modules_.find(handle.id);
    if (it == modules_.end() || it->second->module == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("cuda GetKernel ", kernel, ": module ", handle.id, " is not loaded"));
    }
    CudaModule& m = *it->second;
    if (auto k = m.kernels.find(kernel); k != m.kernels.end()) return KernelHandle(k->second.get());
    CUfunction fn = nullptr;
    const CUresult r = api_.cuModuleGetFunction(&fn, m.module, std::string(kernel).c_str());
    if (r == CUDA_ERROR_NOT_FOUND) {
      return absl::NotFoundError(StrCat("cuda GetKernel: module ", m.name, " does not ship kernel ",
                                        kernel, " for ", info_.arch_name()));
    }
    GPUOPS_RETURN_IF_ERROR(Check(r, "cuModuleGetFunction", kernel));
    auto expected = m.expected.find(kernel);
    if (expected == m.expected.end()) {
      return absl::FailedPreconditionError(StrCat("cuda GetKernel: kernel ", kernel, " of module ",
                                                  m.name, " is not in its signatures.txt for ",
                                                  info_.arch_name()));
    }
    auto info = std::make_unique<CudaKernel>();
    info->signature = expected->second;
    info->module = m.name;
    info->native = reinterpret_cast<uint64_t>(fn);
    info->owner = this;
    GPUOPS_RETURN_IF_ERROR(CrossCheckWithDriver(fn, *info));
    KernelHandle out(info.get());
    m.kernels.emplace(std::string(kernel), std::move(info));
    return out;
  }

  absl::Status Launch(const LaunchRequest& request) override {
    const auto* kernel = static_cast<const CudaKernel*>(request.kernel.info());
    if (kernel == nullptr || kernel->owner != this) {
      return absl::InvalidArgumentError(StrCat("cuda launch ", request.kernel.name(),
                                               ": the kernel handle is not from this backend"));
    }
    if (!kernel->live.load(std::memory_order_relaxed)) {
      return absl::FailedPreconditionError(
          StrCat("cuda launch ", kernel->name(), ": its module ", kernel->module, " was unloaded"));
    }
    // cuLaunchKernel reads one value per compiled parameter: never hand it fewer.
    if (request.args.size() != kernel->signature.params.size()) {
      return absl::InternalError(StrCat("cuda launch ", kernel->name(), ": ", request.args.size(),
                                        " arguments, the kernel takes ",
                                        kernel->signature.params.size()));
    }
    GPUOPS_RETURN_IF_ERROR(EnterStream(request.stream, "launch", /*capturable=*/true));
    auto fn = reinterpret_cast<CUfunction>(kernel->native);
    if (request.shared_mem_bytes > kernel->shared_mem_allowed.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(kernel->opt_in_mu);
      if (request.shared_mem_bytes > kernel->shared_mem_allowed.load(std::memory_order_relaxed)) {
        GPUOPS_RETURN_IF_ERROR(Check(
            api_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(request.shared_mem_bytes)),
            StrCat("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=", request.shared_mem_bytes,
                   ")"),
            kernel->name()));
        kernel->shared_mem_allowed.store(request.shared_mem_bytes, std::memory_order_release);
      }
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
    MutexLock lock(&mu_);
    streams_.insert(s);
    return StreamHandle{reinterpret_cast<uint64_t>(s)};
  }

  absl::Status DestroyStream(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    CUstream s = Native(stream);
    {
      MutexLock lock(&mu_);
      if (s == nullptr || streams_.erase(s) == 0) {
        return absl::InvalidArgumentError(
            StrCat("cuda DestroyStream: stream ", stream.id, " was not created here"));
      }
      capturing_.erase(s);
    }
    return Check(api_.cuStreamDestroy(s), "cuStreamDestroy");
  }

  absl::Status SynchronizeStream(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "SynchronizeStream", /*capturable=*/false));
    return Check(api_.cuStreamSynchronize(Native(stream)), "cuStreamSynchronize");
  }

  absl::StatusOr<EventHandle> CreateEvent() override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    CUevent e = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuEventCreate(&e, 0), "cuEventCreate"));
    MutexLock lock(&mu_);
    events_[e] = false;
    return EventHandle{reinterpret_cast<uint64_t>(e)};
  }

  absl::Status DestroyEvent(EventHandle event) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    auto e = reinterpret_cast<CUevent>(event.id);
    {
      MutexLock lock(&mu_);
      if (events_.erase(e) == 0) {
        return absl::InvalidArgumentError(
            StrCat("cuda DestroyEvent: event ", event.id, " was not created here"));
      }
    }
    return Check(api_.cuEventDestroy(e), "cuEventDestroy");
  }

  absl::Status RecordEvent(EventHandle event, StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "RecordEvent", /*capturable=*/true));
    GPUOPS_RETURN_IF_ERROR(CheckEvent(event, "RecordEvent"));
    GPUOPS_RETURN_IF_ERROR(Check(
        api_.cuEventRecord(reinterpret_cast<CUevent>(event.id), Native(stream)), "cuEventRecord"));
    MutexLock lock(&mu_);
    if (auto it = events_.find(reinterpret_cast<CUevent>(event.id)); it != events_.end()) {
      it->second = true;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<float> ElapsedMs(EventHandle start, EventHandle end) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    GPUOPS_RETURN_IF_ERROR(CheckEvent(start, "ElapsedMs"));
    GPUOPS_RETURN_IF_ERROR(CheckEvent(end, "ElapsedMs"));
    GPUOPS_RETURN_IF_ERROR(CheckEvent(start, "ElapsedMs", /*recorded=*/true));
    GPUOPS_RETURN_IF_ERROR(CheckEvent(end, "ElapsedMs", /*recorded=*/true));
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
    CUstream s = Native(stream);
    {
      MutexLock lock(&mu_);
      if (s == nullptr || !streams_.contains(s)) {
        return absl::InvalidArgumentError(
            StrCat("cuda BeginCapture: stream ", stream.id,
                   " is not a created stream (the default stream cannot be captured)"));
      }
      if (capturing_.contains(s)) {
        return absl::FailedPreconditionError(
            StrCat("cuda BeginCapture: stream ", stream.id, " is already capturing"));
      }
    }
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                                 "cuStreamBeginCapture"));
    MutexLock lock(&mu_);
    capturing_.insert(s);
    return absl::OkStatus();
  }

  absl::StatusOr<GraphHandle> EndCapture(StreamHandle stream) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    CUstream s = Native(stream);
    {
      MutexLock lock(&mu_);
      if (capturing_.erase(s) == 0) {
        return absl::FailedPreconditionError(
            StrCat("cuda EndCapture: stream ", stream.id, " is not capturing"));
      }
    }
    CUgraph graph = nullptr;
    GPUOPS_RETURN_IF_ERROR(Check(api_.cuStreamEndCapture(s, &graph), "cuStreamEndCapture"));
    CUgraphExec exec = nullptr;
    absl::Status s2 =
        Check(api_.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
    api_.cuGraphDestroy(graph);
    GPUOPS_RETURN_IF_ERROR(s2);
    MutexLock lock(&mu_);
    graphs_.insert(exec);
    return GraphHandle{reinterpret_cast<uint64_t>(exec)};
  }

  absl::Status LaunchGraph(GraphHandle graph, StreamHandle stream = {}) override {
    GPUOPS_RETURN_IF_ERROR(EnterStream(stream, "LaunchGraph", /*capturable=*/false));
    auto exec = reinterpret_cast<CUgraphExec>(graph.id);
    {
      MutexLock lock(&mu_);
      if (!graphs_.contains(exec)) {
        return absl::InvalidArgumentError(
            StrCat("cuda LaunchGraph: graph ", graph.id, " does not exist"));
      }
    }
    return Check(api_.cuGraphLaunch(exec, Native(stream)), "cuGraphLaunch");
  }

  absl::Status DestroyGraph(GraphHandle graph) override {
    GPUOPS_RETURN_IF_ERROR(Enter());
    auto exec = reinterpret_cast<CUgraphExec>(graph.id);
    {
      MutexLock lock(&mu_);
      if (graphs_.erase(exec) == 0) {
        return absl::InvalidArgumentError(
            StrCat("cuda DestroyGraph: graph ", graph.id, " does not exist"));
      }
    }
    return Check(api_.cuGraphExecDestroy(exec), "cuGraphExecDestroy");
  }

 private:
  static CUstream Native(StreamHandle s) { return reinterpret_cast<CUstream>(s.id); }

  // Fails fast once poisoned; makes the primary context current on this thread.
  absl::Status Enter() {
    if (poisoned_flag_.load(std::memory_order_acquire)) {
      MutexLock lock(&poison_mu_);
      return poisoned_;
    }
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
    if (stream.id == 0) return absl::OkStatus();
    MutexLock lock(&mu_);
    CUstream s = Native(stream);
    if (!streams_.contains(s)) {
      return absl::InvalidArgumentError(
          StrCat("cuda ", call, ": stream ", stream.id, " was not created here"));
    }
    if (!capturable && capturing_.contains(s)) {
      return absl::FailedPreconditionError(
          StrCat("cuda ", call, ": stream ", stream.id,
                 " is capturing a graph; this call would break it"));
    }
    return absl::OkStatus();
  }

  // `recorded`: the event must also have been recorded (ElapsedMs).
  absl::Status CheckEvent(EventHandle event, std::string_view call, bool recorded = false) {
    MutexLock lock(&mu_);
    auto it = events_.find(reinterpret_cast<CUevent>(event.id));
    if (it == events_.end()) {
      return absl::InvalidArgumentError(
          StrCat("cuda ", call, ": event ", event.id, " was not created here"));
    }
    if (recorded && !it->second) {
      return absl::FailedPreconditionError(
          StrCat("cuda ", call, ": event ", event.id, " was never recorded"));
    }
    return absl::OkStatus();
  }

  // [ptr, ptr + bytes) as the driver would see it: inside one allocation of this backend, or in
  // memory it did not allocate (another library's: the driver checks that). A range that starts
  // in one of ours and runs past its end, or points into one that was freed, is refused here.
  absl::Status CheckRange(DevicePtr ptr, uint64_t bytes, std::string_view what) {
    MutexLock lock(&mu_);
    const uint64_t addr = ptr.address();
    auto it = allocations_.upper_bound(addr);
    if (it != allocations_.begin()) {
      --it;
      const uint64_t offset = addr - it->first;
      if (offset < std::max<uint64_t>(it->second, 1)) {
        if (bytes > it->second - offset) {
          return absl::OutOfRangeError(StrCat("cuda ", what, ": ", bytes, " bytes at 0x", Hex(addr),
                                              " run past the end of the allocation (", it->second,
                                              " bytes at 0x", Hex(it->first), ", offset ", offset,
                                              ")"));
        }
        return absl::OkStatus();
      }
    }
    auto freed = freed_.upper_bound(addr);
    if (freed != freed_.begin()) {
      --freed;
      if (addr - freed->first < std::max<uint64_t>(freed->second, 1)) {
        return absl::FailedPreconditionError(StrCat("cuda ", what, ": 0x", Hex(addr),
                                                    " points into an allocation that was freed "
                                                    "(use after free)"));
      }
    }
    return absl::OkStatus();
  }

  // Maps a driver result to a Status; a sticky fault poisons the backend.
  absl::Status Check(CUresult r, std::string_view call, std::string_view kernel = {}) {
    if (r == CUDA_SUCCESS) return absl::OkStatus();
    absl::Status s = CudaError(api_, r, call, kernel);
    if (IsStickyError(r)) {
      MutexLock lock(&poison_mu_);
      if (!poisoned_flag_.load()) {
        poisoned_ = absl::InternalError(
            StrCat("cuda backend is poisoned by an earlier device fault (every later call fails): ",
                   s.message()));
        poisoned_flag_.store(true, std::memory_order_release);
      }
      return absl::InternalError(s.message());
    }
    return s;
  }

  // The driver's view of the parameter list must equal what the image promised.
  absl::Status CrossCheckWithDriver(CUfunction fn, const CudaKernel& info) {
    if (api_.cuFuncGetParamInfo == nullptr) return absl::OkStatus();  // driver < 12.4
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

  std::atomic<bool> poisoned_flag_{false};
  Mutex poison_mu_;
  absl::Status poisoned_ ABSL_GUARDED_BY(poison_mu_);

  Mutex mu_;
  std::map<uint64_t, std::unique_ptr<CudaModule>> modules_ ABSL_GUARDED_BY(mu_);
  uint64_t next_module_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_set<CUstream> streams_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<CUstream> capturing_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<CUevent, bool> events_ ABSL_GUARDED_BY(mu_);  // -> recorded
  // Live allocations and freed ones, base -> bytes: copies and frees are checked against them.
  std::map<uint64_t, uint64_t> allocations_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, uint64_t> freed_ ABSL_GUARDED_BY(mu_);
  static constexpr size_t kFreedRemembered = 1 << 16;
  absl::flat_hash_set<CUgraphExec> graphs_ ABSL_GUARDED_BY(mu_);
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
