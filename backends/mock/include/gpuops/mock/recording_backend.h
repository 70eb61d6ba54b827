// RecordingBackend: the hardware-free backend. It records every launch, keeps device memory as
// shadow host memory behind fake addresses, resolves pointer arguments to their allocations, runs
// registered host kernels in place of device code, and fails chosen calls on request.
//
// Thread safety (GpuBackend's contract): one lock guards the bookkeeping and the record, which
// keeps one global launch order; host kernels run outside it, so launches from different threads
// emulate concurrently (and race on shared memory as a GPU's would). Work runs when issued: a
// stream's order is its calls' order. Options and registrations are set before threads use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/mutex.h"
#include "absl/time/clock.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/host_kernel.h"

namespace gpuops::mock {

// One argument as recorded: its kind and bytes, and for pointers the allocation it points into.
struct RecordedArg {
  ArgKind kind = ArgKind::kU32;
  absl::InlinedVector<std::byte, 8> bytes;
  uint64_t allocation = 0;  // id of the allocation a pointer points into; 0 for null/non-pointers
  uint64_t offset = 0;      // byte offset of a pointer inside that allocation

  uint32_t u32() const;
  int32_t i32() const;
  uint64_t u64() const;
  float f32() const;
  DevicePtr ptr() const { return DevicePtr(u64()); }
};

struct LaunchRecord {
  uint64_t sequence = 0;  // one global order across streams and threads, from 0
  std::string kernel;
  std::string module;
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem_bytes = 0;
  // KernelLaunch::overlap_previous (the mock runs launches in stream order regardless).
  bool overlaps_previous = false;
  StreamHandle stream;
  std::vector<RecordedArg> args;
  GraphHandle graph;  // the graph that replayed this launch; id 0 for a direct launch
};

// "launch #3 dense_gemm_bf16_tc grid (64, 1, 1) block (128, 1, 1) smem 0 stream 0
//  args [ptr 0x7000_0000 (alloc 1 +0), u32 16, ...]"
std::string ToString(const LaunchRecord& record);

enum class FaultSite { kAlloc, kLoadModule, kLaunch };

class RecordingBackend final : public GpuBackend {
 public:
  struct Options {
    DeviceInfo device = DefaultDevice();
    // Run each launch's host kernel (outside the backend's lock); a launch of a kernel without
    // one is refused. False: record launches only, executing nothing.
    bool execute_host_kernels = true;
    // Where host kernels are looked up after this backend's own registrations.
    const HostKernelRegistry* host_kernels = &GlobalHostKernels();
    // Total bytes of shadow memory allocations may hold at once.
    uint64_t memory_limit_bytes = uint64_t{8} << 30;
    // Work bounds of one executed launch, so that nothing hangs: the blocks an emulation walks
    // (a launch over more is refused before it is recorded), and the multiply-adds or element
    // operations it may do (an emulation over it is refused with kResourceExhausted; about a
    // minute of one core at the default).
    uint64_t max_emulated_blocks = uint64_t{1} << 28;
    uint64_t max_emulated_work = uint64_t{1} << 36;
  };

  // An H200-like device: sm_90a, 132 SMs, 227 KB opt-in shared memory.
  static DeviceInfo DefaultDevice();

  RecordingBackend();
  explicit RecordingBackend(Options options);
  ~RecordingBackend() override;

  // --- GpuBackend
  std::string_view name() const override { return "mock"; }
  const DeviceInfo& device_info() const override { return options_.device; }
  absl::StatusOr<DevicePtr> Alloc(uint64_t bytes) override;
  absl::Status Free(DevicePtr ptr) override;
  absl::Status CopyToDevice(DevicePtr dst, absl::Span<const std::byte> src,
                            StreamHandle stream = {}) override;
  absl::Status CopyToHost(absl::Span<std::byte> dst, DevicePtr src,
                          StreamHandle stream = {}) override;
  absl::Status CopyDeviceToDevice(DevicePtr dst, DevicePtr src, uint64_t bytes,
                                  StreamHandle stream = {}) override;
  absl::Status Memset(DevicePtr dst, uint8_t value, uint64_t bytes,
                      StreamHandle stream = {}) override;
  absl::StatusOr<ModuleHandle> LoadModule(const ModuleImage& image) override;
  absl::Status UnloadModule(ModuleHandle module) override;
  absl::StatusOr<KernelHandle> GetKernel(ModuleHandle module, std::string_view kernel) override;
  absl::Status Launch(const LaunchRequest& request) override;
  absl::StatusOr<TensorMapBytes> EncodeTensorMap(const TensorMapDesc& desc) override;
  absl::StatusOr<StreamHandle> CreateStream() override;
  absl::Status DestroyStream(StreamHandle stream) override;
  absl::Status SynchronizeStream(StreamHandle stream) override;
  absl::StatusOr<EventHandle> CreateEvent() override;
  absl::Status DestroyEvent(EventHandle event) override;
  absl::Status RecordEvent(EventHandle event, StreamHandle stream = {}) override;
  absl::StatusOr<float> ElapsedMs(EventHandle start, EventHandle end) override;
  absl::Status Synchronize() override;
  absl::Status BeginCapture(StreamHandle stream) override;
  absl::StatusOr<GraphHandle> EndCapture(StreamHandle stream) override;
  absl::Status LaunchGraph(GraphHandle graph, StreamHandle stream = {}) override;
  absl::Status DestroyGraph(GraphHandle graph) override;

  // --- Records
  std::vector<LaunchRecord> launches() const;
  size_t launch_count() const;
  void ClearLaunches();

  // --- Fault injection: the n-th next call at `site` (n = 1: the next one) returns `status` and
  // changes nothing. Several faults may be pending at once.
  void FailNth(FaultSite site, int n, absl::Status status);
  void FailNext(FaultSite site, absl::Status status) { FailNth(site, 1, std::move(status)); }

  // --- Host kernels registered for this backend only; they take precedence over the registry
  // in Options.
  void RegisterHostKernel(std::string_view kernel, HostKernelFn fn);

  // --- Memory introspection
  size_t live_allocations() const;
  uint64_t live_bytes() const;

 private:
  struct Allocation;
  struct Module;
  struct Graph;
  struct CapturedLaunch;
  class ShadowMemory;

  absl::Status ConsumeFault(FaultSite site) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The live allocation holding [ptr, ptr + bytes); `what` names the access in errors and is only
  // called on failure.
  absl::StatusOr<Allocation*> Resolve(DevicePtr ptr, uint64_t bytes,
                                      absl::FunctionRef<std::string()> what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Allocation*> Resolve(DevicePtr ptr, uint64_t bytes, std::string_view what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return Resolve(ptr, bytes, [what] { return std::string(what); });
  }
  absl::Status CheckStream(StreamHandle stream, absl::FunctionRef<std::string()> call) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckStream(StreamHandle stream, std::string_view call) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return CheckStream(stream, [call] { return std::string(call); });
  }
  bool Capturing(StreamHandle stream) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::shared_ptr<const HostKernelFn> FindHostKernel(std::string_view kernel) const;
  // Runs `fn` for `record` without holding mu_ (ShadowMemory takes it per access).
  absl::Status Execute(const LaunchRecord& record, const HostKernelFn& fn) ABSL_LOCKS_EXCLUDED(mu_);
  // Appends the launch to the record in the global order.
  const LaunchRecord& Record(LaunchRecord record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Records the launch, then executes it when `fn` is set.
  absl::Status RecordAndExecute(LaunchRecord record, std::shared_ptr<const HostKernelFn> fn)
      ABSL_LOCKS_EXCLUDED(mu_);

  Options options_;
  HostKernelRegistry own_host_kernels_;

  mutable Mutex mu_;
  std::map<uint64_t, std::unique_ptr<Allocation>> allocations_ ABSL_GUARDED_BY(mu_);  // by base
  uint64_t next_address_ ABSL_GUARDED_BY(mu_);
  uint64_t next_allocation_id_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t live_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, std::unique_ptr<Module>> modules_ ABSL_GUARDED_BY(mu_);
  uint64_t next_module_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<const KernelInfo*, bool> kernels_ ABSL_GUARDED_BY(mu_);  // -> module live
  absl::flat_hash_map<uint64_t, bool> streams_ ABSL_GUARDED_BY(mu_);           // -> capturing
  uint64_t next_stream_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<uint64_t, absl::Time> events_ ABSL_GUARDED_BY(mu_);  // InfinitePast: unset
  uint64_t next_event_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Graph>> capturing_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, std::shared_ptr<Graph>> graphs_ ABSL_GUARDED_BY(mu_);
  uint64_t next_graph_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<LaunchRecord> launches_ ABSL_GUARDED_BY(mu_);
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<FaultSite, std::vector<std::pair<int, absl::Status>>> faults_ ABSL_GUARDED_BY(mu_);
};

// A module image described in code, for tests: `signatures_text` in signatures.txt form.
ModuleImage DescribeModule(std::string_view name, std::string_view signatures_text);

}  // namespace gpuops::mock
