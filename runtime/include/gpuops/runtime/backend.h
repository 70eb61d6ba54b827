// GpuBackend: the one interface between ops and a device. CUDA, HIP and the recording mock
// implement it; ops and tools see nothing else.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gpuops/runtime/kernel_signature.h"
#include "gpuops/runtime/tensor_map.h"
#include "gpuops/runtime/types.h"

namespace gpuops {

// The code of one op family as the build embedded it.
struct ModuleImage {
  std::string_view name;             // family name: "dense"
  absl::Span<const uint8_t> fatbin;  // empty when the build had no nvcc
  std::string_view signatures_text;  // the family's signatures.txt
  // The clang offload bundle of AMD code objects hipcc built (one per gfx target); empty when
  // the build had no hipcc or the family has no HIP kernels.
  absl::Span<const uint8_t> hip_bundle = {};
};

enum class ArgKind : uint8_t { kPtr, kU32, kI32, kU64, kF32, kBytes };
std::string_view ToString(ArgKind kind);  // "ptr", "u32", ...

// One kernel argument as passed to a backend: its kind and a pointer to its bytes.
struct LaunchArg {
  ArgKind kind = ArgKind::kU32;
  uint32_t size = 0;
  const void* data = nullptr;
};

class KernelLaunch;

// A launch KernelLaunch has validated against the kernel's compiled signature. Only KernelLaunch
// can build one, so a backend never sees an unvalidated launch: args has exactly one entry per
// compiled parameter, each of its size.
class LaunchRequest {
 public:
  const KernelHandle kernel;
  const Dim3 grid;
  const Dim3 block;
  const uint32_t shared_mem_bytes;
  const StreamHandle stream;
  const absl::Span<const LaunchArg> args;
  // args[i].data for every i, in the form cuLaunchKernel and hipModuleLaunchKernel take.
  void* const* const param_values;
  // KernelLaunch::overlap_previous: the kernel itself waits for the previous launch on its stream
  // before reading what that launch wrote, so the backend may start it early.
  const bool overlaps_previous;

 private:
  friend class KernelLaunch;
  LaunchRequest(KernelHandle kernel, Dim3 grid, Dim3 block, uint32_t shared_mem_bytes,
                StreamHandle stream, absl::Span<const LaunchArg> args, void* const* param_values,
                bool overlaps_previous)
      : kernel(kernel),
        grid(grid),
        block(block),
        shared_mem_bytes(shared_mem_bytes),
        stream(stream),
        args(args),
        param_values(param_values),
        overlaps_previous(overlaps_previous) {}
};

// Thread safety: every method may be called from several threads at once (CUDA: a driver
// context is shared; mock: one lock around its bookkeeping, emulations outside it). Work issued on
// one stream runs in the order its calls returned; work on different streams may overlap, and
// two streams writing the same memory race as they would on a GPU. A handle (buffer, stream,
// event, module, graph) may be used from any thread; destroying it while another thread still
// uses it is the caller's race. Launches are recorded in one global order on the mock.
class GpuBackend {
 public:
  virtual ~GpuBackend() = default;

  // "mock", "cuda", "hip".
  virtual std::string_view name() const = 0;
  virtual const DeviceInfo& device_info() const = 0;

  // Memory. Copies to and from the host complete before they return; Memset and device-to-device
  // copies are ordered on `stream` (and so can be captured into a graph).
  virtual absl::StatusOr<DevicePtr> Alloc(uint64_t bytes) = 0;
  virtual absl::Status Free(DevicePtr ptr) = 0;
  virtual absl::Status CopyToDevice(DevicePtr dst, absl::Span<const std::byte> src,
                                    StreamHandle stream = {}) = 0;
  virtual absl::Status CopyToHost(absl::Span<std::byte> dst, DevicePtr src,
                                  StreamHandle stream = {}) = 0;
  virtual absl::Status CopyDeviceToDevice(DevicePtr dst, DevicePtr src, uint64_t bytes,
                                          StreamHandle stream = {}) = 0;
  virtual absl::Status Memset(DevicePtr dst, uint8_t value, uint64_t bytes,
                              StreamHandle stream = {}) = 0;

  // Modules and kernels. GetKernel returns the kernel with its compiled parameter list, or
  // kNotFound when the loaded image does not ship it for this device.
  virtual absl::StatusOr<ModuleHandle> LoadModule(const ModuleImage& image) = 0;
  virtual absl::Status UnloadModule(ModuleHandle module) = 0;
  virtual absl::StatusOr<KernelHandle> GetKernel(ModuleHandle module, std::string_view kernel) = 0;

  // A validated launch; KernelLaunch::launch is the only way to make one.
  virtual absl::Status Launch(const LaunchRequest& request) = 0;

  // A tensor-map (TMA) descriptor for `desc`, passed to kernels by value (arg_bytes).
  virtual absl::StatusOr<TensorMapBytes> EncodeTensorMap(const TensorMapDesc& desc) = 0;

  // Streams and events.
  virtual absl::StatusOr<StreamHandle> CreateStream() = 0;
  virtual absl::Status DestroyStream(StreamHandle stream) = 0;
  virtual absl::Status SynchronizeStream(StreamHandle stream) = 0;
  virtual absl::StatusOr<EventHandle> CreateEvent() = 0;
  virtual absl::Status DestroyEvent(EventHandle event) = 0;
  virtual absl::Status RecordEvent(EventHandle event, StreamHandle stream = {}) = 0;
  // Milliseconds between two recorded events; waits for `end`.
  virtual absl::StatusOr<float> ElapsedMs(EventHandle start, EventHandle end) = 0;
  // Waits for all work on the device.
  virtual absl::Status Synchronize() = 0;

  // Graphs: work issued on `stream` between BeginCapture and EndCapture is recorded, not run;
  // EndCapture returns an executable graph that LaunchGraph replays.
  virtual absl::Status BeginCapture(StreamHandle stream) = 0;
  virtual absl::StatusOr<GraphHandle> EndCapture(StreamHandle stream) = 0;
  virtual absl::Status LaunchGraph(GraphHandle graph, StreamHandle stream = {}) = 0;
  virtual absl::Status DestroyGraph(GraphHandle graph) = 0;
};

}  // namespace gpuops
