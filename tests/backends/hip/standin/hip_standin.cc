// A stand-in for libamdhip64.so: every symbol the HIP backend resolves, with the backend's own
// declarations (the X-macro table), so that a signature drifting between the two fails to
// compile. What it does is in standin_control.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gpuops/hip/runtime_api.h"
#include "gpuops/runtime/amd_code_object.h"
#include "tests/backends/hip/standin/standin_control.h"

namespace gpuops::hip {
namespace {

constexpr const char* kTarget = "gfx90a";

struct Kernel {
  std::string name;
  std::vector<KernelParam> params;
  uint32_t kernarg_bytes = 0;
};
struct Module {
  std::vector<std::unique_ptr<Kernel>> kernels;
};
struct Stream {
  bool capturing = false;
  std::vector<std::function<void()>> captured;
};
struct Graph {
  std::vector<std::function<void()>> work;
};
struct Event {
  std::chrono::steady_clock::time_point at;
};

struct State {
  std::mutex mu;
  int devices = 1;
  hipError_t sticky = hipSuccess;
  struct Failure {
    hipError_t error;
    int times;
  };
  std::map<std::string, Failure> failures;
  std::map<std::string, int> calls;
  std::map<void*, size_t> allocations;
  std::vector<GpuopsStandinLaunch> launches;
};

// The runtime's sticky faults: after one, the device's state is lost.
bool IsSticky(hipError_t e) { return e == 700 || e == 702 || e == 710 || e == 719; }

State& S() {
  static State* s = new State();
  return *s;
}

// Counts the call and returns the error it must fail with, if any.
hipError_t Enter(const char* symbol) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.calls[symbol];
  if (s.sticky != hipSuccess) return s.sticky;
  auto it = s.failures.find(symbol);
  if (it == s.failures.end() || it->second.times == 0) return hipSuccess;
  if (it->second.times > 0) --it->second.times;
  const hipError_t e = it->second.error;
  if (IsSticky(e)) s.sticky = e;
  return e;
}

#define STANDIN_ENTER() \
  if (hipError_t e = Enter(__func__); e != hipSuccess) return e

// Work on a stream: run now, or keep for the graph when the stream captures.
hipError_t Issue(hipStream_t stream, std::function<void()> work) {
  auto* s = reinterpret_cast<Stream*>(stream);
  if (s != nullptr && s->capturing) {
    s->captured.push_back(std::move(work));
  } else {
    work();
  }
  return hipSuccess;
}

bool IsAllocated(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(S().mu);
  const auto* at = static_cast<const char*>(p);
  for (const auto& [base, size] : S().allocations) {
    const auto* b = static_cast<const char*>(base);
    if (at >= b && at + bytes <= b + size) return true;
  }
  return false;
}

}  // namespace

extern "C" {

#define GPUOPS_STANDIN_DECLARE(name, required, ret, params) \
  __attribute__((visibility("default"))) ret name params;
GPUOPS_HIP_RUNTIME_SYMBOLS(GPUOPS_STANDIN_DECLARE)
#undef GPUOPS_STANDIN_DECLARE

hipError_t hipInit(unsigned) {
  STANDIN_ENTER();
  return hipSuccess;
}
hipError_t hipDriverGetVersion(int* v) {
  STANDIN_ENTER();
  *v = 50221153;
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int* v) {
  STANDIN_ENTER();
  *v = 50221153;
  return hipSuccess;
}
const char* hipGetErrorName(hipError_t e) {
  switch (e) {
    case hipSuccess:
      return "hipSuccess";
    case hipErrorInvalidValue:
      return "hipErrorInvalidValue";
    case hipErrorOutOfMemory:
      return "hipErrorOutOfMemory";
    case hipErrorNoDevice:
      return "hipErrorNoDevice";
    case hipErrorInvalidImage:
      return "hipErrorInvalidImage";
    case hipErrorNotFound:
      return "hipErrorNotFound";
    case hipErrorIllegalAddress:
      return "hipErrorIllegalAddress";
    case hipErrorLaunchFailure:
      return "hipErrorLaunchFailure";
    default:
      return "hipErrorUnknown";
  }
}
const char* hipGetErrorString(hipError_t e) {
  return e == hipErrorIllegalAddress ? "an illegal memory access was encountered"
                                     : "stand-in error";
}
hipError_t hipGetDeviceCount(int* count) {
  STANDIN_ENTER();
  std::lock_guard<std::mutex> lock(S().mu);
  *count = S().devices;
  return hipSuccess;
}
hipError_t hipSetDevice(int ordinal) {
  STANDIN_ENTER();
  return ordinal >= 0 && ordinal < S().devices ? hipSuccess : hipErrorInvalidDevice;
}
hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  STANDIN_ENTER();
  if (ordinal < 0 || ordinal >= S().devices) return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}
hipError_t hipDeviceGetName(char* name, int len, hipDevice_t) {
  STANDIN_ENTER();
  std::snprintf(name, static_cast<size_t>(len), "gpuops HIP stand-in");
  return hipSuccess;
}
hipError_t hipDeviceGetAttribute(int* value, int attribute, int) {
  STANDIN_ENTER();
  switch (attribute) {
    case hipDeviceAttributeL2CacheSize:
      *value = 8 << 20;
      return hipSuccess;
    case hipDeviceAttributeComputeCapabilityMajor:
      *value = 9;
      return hipSuccess;
    case hipDeviceAttributeComputeCapabilityMinor:
      *value = 0;
      return hipSuccess;
    case hipDeviceAttributeMaxBlockDimX:
    case hipDeviceAttributeMaxBlockDimY:
    case hipDeviceAttributeMaxBlockDimZ:
    case hipDeviceAttributeMaxThreadsPerBlock:
      *value = 1024;
      return hipSuccess;
    case hipDeviceAttributeMaxGridDimX:
    case hipDeviceAttributeMaxGridDimY:
    case hipDeviceAttributeMaxGridDimZ:
      *value = 0x7fffffff;
      return hipSuccess;
    case hipDeviceAttributeMultiprocessorCount:
      *value = 104;
      return hipSuccess;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
      *value = 64 * 1024;
      return hipSuccess;
    case hipDeviceAttributeWarpSize:
      *value = 64;
      return hipSuccess;
    default:
      return hipErrorInvalidValue;
  }
}
hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t) {
  STANDIN_ENTER();
  *bytes = size_t{64} << 30;
  return hipSuccess;
}
hipError_t hipGetDeviceProperties(void* properties, int) {
  STANDIN_ENTER();
  // ROCm 5's layout: name at 0, gcnArchName at 396; the backend looks for the gfx string.
  auto* p = static_cast<char*>(properties);
  std::strcpy(p, "gpuops HIP stand-in");
  std::strcpy(p + 396, "gfx90a:sramecc+:xnack-");
  return hipSuccess;
}
hipError_t hipDeviceSynchronize() {
  STANDIN_ENTER();
  return hipSuccess;
}
hipError_t hipMalloc(void** ptr, size_t bytes) {
  STANDIN_ENTER();
  *ptr = std::calloc(1, bytes);
  if (*ptr == nullptr) return hipErrorOutOfMemory;
  std::lock_guard<std::mutex> lock(S().mu);
  S().allocations[*ptr] = bytes;
  return hipSuccess;
}
hipError_t hipFree(void* ptr) {
  STANDIN_ENTER();
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().allocations.erase(ptr) == 0) return hipErrorInvalidValue;
  std::free(ptr);
  return hipSuccess;
}
hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t bytes, hipStream_t) {
  STANDIN_ENTER();
  if (!IsAllocated(dst, bytes)) return hipErrorInvalidValue;
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}
hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t bytes, hipStream_t) {
  STANDIN_ENTER();
  if (!IsAllocated(src, bytes)) return hipErrorInvalidValue;
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}
hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes,
                              hipStream_t stream) {
  STANDIN_ENTER();
  if (!IsAllocated(dst, bytes) || !IsAllocated(src, bytes)) return hipErrorInvalidValue;
  return Issue(stream, [=] { std::memmove(dst, src, bytes); });
}
hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                            hipStream_t stream) {
  STANDIN_ENTER();
  if (!IsAllocated(dst, count)) return hipErrorInvalidValue;
  return Issue(stream, [=] { std::memset(dst, value, count); });
}
hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  STANDIN_ENTER();
  // The bundle's extent from its header: the end of its last entry.
  const auto* bytes = static_cast<const uint8_t*>(image);
  if (std::memcmp(bytes, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) return hipErrorInvalidImage;
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, bytes + at, 8);
    return v;
  };
  const uint64_t count = u64(24);
  if (count > 64) return hipErrorInvalidImage;
  uint64_t end = 0;
  for (uint64_t i = 0, at = 32; i < count; ++i) {
    end = std::max(end, u64(at) + u64(at + 8));
    at += 24 + u64(at + 16);
    if (at > (1 << 20)) return hipErrorInvalidImage;
  }
  if (end > (uint64_t{1} << 30)) return hipErrorInvalidImage;
  auto entries = metadata::ParseOffloadBundle(absl::MakeConstSpan(bytes, end));
  if (!entries.ok()) return hipErrorInvalidImage;
  auto object = metadata::SelectCodeObject(*entries, kTarget);
  if (!object.ok()) return hipErrorNoBinaryForGpu;
  auto kernels = metadata::ReadAmdKernels(object->payload);
  if (!kernels.ok()) return hipErrorInvalidImage;
  auto m = std::make_unique<Module>();
  for (metadata::AmdKernel& k : *kernels) {
    m->kernels.push_back(
        std::make_unique<Kernel>(Kernel{k.name, std::move(k.params), k.kernarg_segment_size}));
  }
  *module = reinterpret_cast<hipModule_t>(m.release());
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t module) {
  STANDIN_ENTER();
  delete reinterpret_cast<Module*>(module);
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t* fn, hipModule_t module, const char* name) {
  STANDIN_ENTER();
  for (const auto& k : reinterpret_cast<Module*>(module)->kernels) {
    if (k->name == name) {
      *fn = reinterpret_cast<hipFunction_t>(k.get());
      return hipSuccess;
    }
  }
  return hipErrorNotFound;
}
hipError_t hipModuleLaunchKernel(hipFunction_t fn, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                 hipStream_t stream, void** params, void** extra) {
  STANDIN_ENTER();
  const auto* k = reinterpret_cast<const Kernel*>(fn);
  if (k == nullptr || params == nullptr || extra != nullptr) return hipErrorInvalidValue;
  GpuopsStandinLaunch launch{};
  std::snprintf(launch.kernel, sizeof(launch.kernel), "%s", k->name.c_str());
  const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  std::memcpy(launch.grid, dims, sizeof(launch.grid));
  std::memcpy(launch.block, dims + 3, sizeof(launch.block));
  launch.shared_bytes = shared;
  launch.stream = stream;
  launch.kernarg_bytes = std::min<uint32_t>(k->kernarg_bytes, sizeof(launch.kernarg));
  for (size_t i = 0; i < k->params.size(); ++i) {
    const KernelParam& p = k->params[i];
    if (p.offset + p.size > sizeof(launch.kernarg)) return hipErrorInvalidValue;
    std::memcpy(launch.kernarg + p.offset, params[i], p.size);
  }
  return Issue(stream, [launch] {
    std::lock_guard<std::mutex> lock(S().mu);
    S().launches.push_back(launch);
  });
}
hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned) {
  STANDIN_ENTER();
  *stream = reinterpret_cast<hipStream_t>(new Stream());
  return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t stream) {
  STANDIN_ENTER();
  delete reinterpret_cast<Stream*>(stream);
  return hipSuccess;
}
hipError_t hipStreamSynchronize(hipStream_t) {
  STANDIN_ENTER();
  return hipSuccess;
}
hipError_t hipEventCreate(hipEvent_t* event) {
  STANDIN_ENTER();
  *event = reinterpret_cast<hipEvent_t>(new Event());
  return hipSuccess;
}
hipError_t hipEventDestroy(hipEvent_t event) {
  STANDIN_ENTER();
  delete reinterpret_cast<Event*>(event);
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  STANDIN_ENTER();
  auto* e = reinterpret_cast<Event*>(event);
  return Issue(stream, [e] { e->at = std::chrono::steady_clock::now(); });
}
hipError_t hipEventSynchronize(hipEvent_t) {
  STANDIN_ENTER();
  return hipSuccess;
}
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t end) {
  STANDIN_ENTER();
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<Event*>(end)->at -
                                                 reinterpret_cast<Event*>(start)->at)
            .count();
  return hipSuccess;
}
hipError_t hipStreamBeginCapture(hipStream_t stream, int) {
  STANDIN_ENTER();
  auto* s = reinterpret_cast<Stream*>(stream);
  if (s == nullptr || s->capturing) return hipErrorInvalidValue;
  s->capturing = true;
  return hipSuccess;
}
hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* graph) {
  STANDIN_ENTER();
  auto* s = reinterpret_cast<Stream*>(stream);
  if (s == nullptr || !s->capturing) return hipErrorInvalidValue;
  s->capturing = false;
  *graph = reinterpret_cast<hipGraph_t>(new Graph{std::exchange(s->captured, {})});
  return hipSuccess;
}
hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, hipGraphNode_t*, char*,
                               size_t) {
  STANDIN_ENTER();
  *exec = reinterpret_cast<hipGraphExec_t>(new Graph(*reinterpret_cast<Graph*>(graph)));
  return hipSuccess;
}
hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream) {
  STANDIN_ENTER();
  for (const auto& work : reinterpret_cast<Graph*>(exec)->work) Issue(stream, work);
  return hipSuccess;
}
hipError_t hipGraphExecDestroy(hipGraphExec_t exec) {
  STANDIN_ENTER();
  delete reinterpret_cast<Graph*>(exec);
  return hipSuccess;
}
hipError_t hipGraphDestroy(hipGraph_t graph) {
  STANDIN_ENTER();
  delete reinterpret_cast<Graph*>(graph);
  return hipSuccess;
}

// --- control (standin_control.h)

__attribute__((visibility("default"))) void gpuops_standin_reset() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.devices = 1;
  s.sticky = hipSuccess;
  s.failures.clear();
  s.calls.clear();
  s.launches.clear();
}
__attribute__((visibility("default"))) void gpuops_standin_set_device_count(int count) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().devices = count;
}
__attribute__((visibility("default"))) void gpuops_standin_fail(const char* symbol, int error,
                                                                int times) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().failures[symbol] = {error, times};
}
__attribute__((visibility("default"))) int gpuops_standin_calls(const char* symbol) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().calls.find(symbol);
  return it == S().calls.end() ? 0 : it->second;
}
__attribute__((visibility("default"))) int gpuops_standin_launch_count() {
  std::lock_guard<std::mutex> lock(S().mu);
  return static_cast<int>(S().launches.size());
}
__attribute__((visibility("default"))) int gpuops_standin_launch(int i, GpuopsStandinLaunch* out) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (i < 0 || i >= static_cast<int>(S().launches.size())) return 0;
  *out = S().launches[static_cast<size_t>(i)];
  return 1;
}

}  // extern "C"
}  // namespace gpuops::hip
