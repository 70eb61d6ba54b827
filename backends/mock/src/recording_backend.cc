#include "gpuops/mock/recording_backend.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>

#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::mock {
namespace {

// Fake device addresses start here, grow monotonically up to kLastAddress and are never reused;
// consecutive allocations are separated by an unmapped gap so that running off one end hits
// nothing.
constexpr uint64_t kFirstAddress = 0x7f0000000000ull;
constexpr uint64_t kLastAddress = uint64_t{1} << 62;
constexpr uint64_t kAllocationAlignment = 256;
constexpr uint64_t kGuardGap = 64 * 1024;

std::string HexAddr(uint64_t v) { return StrCat("0x", gpuops::Hex(v)); }

template <typename T>
T ReadArg(const absl::InlinedVector<std::byte, 8>& bytes) {
  T v{};
  std::memcpy(&v, bytes.data(), std::min(sizeof(T), bytes.size()));
  return v;
}

}  // namespace

uint32_t RecordedArg::u32() const { return ReadArg<uint32_t>(bytes); }
int32_t RecordedArg::i32() const { return ReadArg<int32_t>(bytes); }
uint64_t RecordedArg::u64() const { return ReadArg<uint64_t>(bytes); }
float RecordedArg::f32() const { return ReadArg<float>(bytes); }

std::string ToString(const LaunchRecord& r) {
  std::string args = StrJoin(r.args, ", ", [](std::string* out, const RecordedArg& a) {
    switch (a.kind) {
      case ArgKind::kPtr:
        StrAppend(out, "ptr ", HexAddr(a.u64()));
        if (a.allocation != 0) StrAppend(out, " (alloc ", a.allocation, " +", a.offset, ")");
        break;
      case ArgKind::kU32:
        StrAppend(out, "u32 ", a.u32());
        break;
      case ArgKind::kI32:
        StrAppend(out, "i32 ", a.i32());
        break;
      case ArgKind::kU64:
        StrAppend(out, "u64 ", a.u64());
        break;
      case ArgKind::kF32:
        StrAppend(out, "f32 ", a.f32());
        break;
      case ArgKind::kBytes:
        StrAppend(out, "bytes[", a.bytes.size(), "]");
        break;
    }
  });
  return StrCat("launch #", r.sequence, " ", r.kernel, " (module ", r.module, ") grid ",
                gpuops::ToString(r.grid), " block ", gpuops::ToString(r.block), " smem ",
                r.shared_mem_bytes, r.overlaps_previous ? " overlaps previous" : "", " stream ",
                r.stream.id,
                r.graph.id != 0 ? StrCat(" graph ", r.graph.id) : "", " args [", args, "]");
}

struct RecordingBackend::Allocation {
  uint64_t id = 0;
  uint64_t base = 0;
  uint64_t size = 0;
  bool freed = false;
  // Zeroed host memory (calloc: untouched pages cost nothing), shared with host kernels running
  // outside the lock, so a concurrent Free cannot pull it from under an emulation.
  std::shared_ptr<std::byte> data;

  std::byte* at(uint64_t address) const { return data.get() + (address - base); }
};

struct RecordingBackend::Module {
  std::string name;
  bool loaded = true;
  std::map<std::string, std::unique_ptr<KernelInfo>, std::less<>> kernels;
};

struct RecordingBackend::Graph {
  // Captured work, replayed in order; each node takes the backend's lock itself.
  std::vector<std::function<absl::Status(GraphHandle)>> nodes;
};

// Device memory for a host kernel running outside the backend's lock: every view is resolved
// (under the lock) against one live allocation, whose memory the view keeps alive.
class RecordingBackend::ShadowMemory final : public HostMemory {
 public:
  ShadowMemory(RecordingBackend& backend, std::string_view kernel)
      : backend_(backend), kernel_(kernel) {}

  absl::StatusOr<absl::Span<std::byte>> Bytes(DevicePtr ptr, uint64_t bytes,
                                              std::string_view what) override {
    MutexLock lock(&backend_.mu_);
    auto alloc = backend_.Resolve(ptr, bytes, [&] { return StrCat(kernel_, " ", what); });
    if (!alloc.ok()) return alloc.status();
    pinned_.push_back((*alloc)->data);
    return absl::MakeSpan((*alloc)->at(ptr.address()), bytes);
  }

 private:
  RecordingBackend& backend_;
  std::string_view kernel_;
  std::vector<std::shared_ptr<std::byte>> pinned_;
};

DeviceInfo RecordingBackend::DefaultDevice() {
  DeviceInfo d;
  d.name = "gpuops mock (H200-like)";
  d.arch_major = 9;
  d.arch_minor = 0;
  d.arch_specific = true;
  d.sm_count = 132;
  d.shared_mem_per_block = 48 * 1024;
  d.shared_mem_per_block_optin = 227 * 1024;
  d.total_memory_bytes = uint64_t{8} << 30;
  d.l2_bytes = 60ull << 20;
  return d;
}

RecordingBackend::RecordingBackend() : RecordingBackend(Options{}) {}

RecordingBackend::RecordingBackend(Options options)
    : options_(std::move(options)), next_address_(kFirstAddress) {}

RecordingBackend::~RecordingBackend() = default;

absl::Status RecordingBackend::ConsumeFault(FaultSite site) {
  auto it = faults_.find(site);
  if (it == faults_.end()) return absl::OkStatus();
  absl::Status result = absl::OkStatus();
  auto& pending = it->second;
  for (auto& [countdown, status] : pending) {
    if (--countdown == 0 && result.ok()) result = status;
  }
  std::erase_if(pending, [](const auto& f) { return f.first <= 0; });
  return result;
}

void RecordingBackend::FailNth(FaultSite site, int n, absl::Status status) {
  MutexLock lock(&mu_);
  faults_[site].emplace_back(std::max(n, 1), std::move(status));
}

absl::StatusOr<RecordingBackend::Allocation*> RecordingBackend::Resolve(
    DevicePtr ptr, uint64_t bytes, absl::FunctionRef<std::string()> what) {
  const uint64_t addr = ptr.address();
  if (addr == 0) {
    return absl::InvalidArgumentError(StrCat(what(), ": null device pointer"));
  }
  auto it = allocations_.upper_bound(addr);
  if (it == allocations_.begin()) {
    return absl::InvalidArgumentError(
        StrCat(what(), ": ", HexAddr(addr), " is not inside any allocation"));
  }
  --it;
  Allocation& a = *it->second;
  const uint64_t reach = std::max<uint64_t>(a.size, 1);
  if (addr - a.base >= reach) {
    return absl::InvalidArgumentError(StrCat(what(), ": ", HexAddr(addr),
                                             " is not inside any allocation (nearest below: "
                                             "allocation ",
                                             a.id, " of ", a.size, " bytes at ", HexAddr(a.base),
                                             ")"));
  }
  if (a.freed) {
    return absl::FailedPreconditionError(StrCat(what(), ": ", HexAddr(addr),
                                                " points into allocation ", a.id,
                                                ", which was freed (use after free)"));
  }
  if (bytes > a.size - (addr - a.base)) {
    return absl::OutOfRangeError(
        StrCat(what(), ": ", bytes, " bytes at ", HexAddr(addr), " run past the end of allocation ",
               a.id, " (", a.size, " bytes at ", HexAddr(a.base), ", offset ", addr - a.base, ")"));
  }
  return &a;
}

absl::StatusOr<DevicePtr> RecordingBackend::Alloc(uint64_t bytes) {
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(ConsumeFault(FaultSite::kAlloc));
  if (bytes > options_.memory_limit_bytes - live_bytes_) {
    return absl::ResourceExhaustedError(StrCat(
        "mock Alloc: ", bytes, " bytes requested, ", options_.memory_limit_bytes - live_bytes_,
        " of the mock's ", options_.memory_limit_bytes, "-byte limit free"));
  }
  if (bytes > kLastAddress - next_address_ - kGuardGap - kAllocationAlignment) {
    return absl::ResourceExhaustedError(
        StrCat("mock Alloc: ", bytes, " bytes requested, the mock's address space has ",
               kLastAddress - next_address_, " bytes left (addresses are never reused)"));
  }
  // More than the host has could only fail later, page by page: refuse it now.
  static const uint64_t host_bytes =
      uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  if (bytes > host_bytes) {
    return absl::ResourceExhaustedError(StrCat("mock Alloc: ", bytes,
                                               " bytes requested, more than the host's ",
                                               host_bytes, " bytes of memory"));
  }
  void* memory = std::calloc(std::max<uint64_t>(bytes, 1), 1);
  if (memory == nullptr) {
    return absl::ResourceExhaustedError(StrCat("mock Alloc: ", bytes,
                                               " bytes requested, and the host cannot hold the "
                                               "shadow copy"));
  }
  auto a = std::make_unique<Allocation>();
  a->id = next_allocation_id_++;
  a->base = next_address_;
  a->size = bytes;
  a->data = std::shared_ptr<std::byte>(static_cast<std::byte*>(memory),
                                       [](std::byte* p) { std::free(p); });
  next_address_ =
      AlignUp(next_address_ + std::max<uint64_t>(bytes, 1) + kGuardGap, kAllocationAlignment);
  live_bytes_ += bytes;
  const DevicePtr ptr(a->base);
  allocations_.emplace(a->base, std::move(a));
  return ptr;
}

absl::Status RecordingBackend::Free(DevicePtr ptr) {
  MutexLock lock(&mu_);
  auto it = allocations_.find(ptr.address());
  if (it == allocations_.end()) {
    return absl::InvalidArgumentError(
        StrCat("mock Free: ", HexAddr(ptr.address()), " is not the start of an allocation"));
  }
  Allocation& a = *it->second;
  if (a.freed) {
    return absl::FailedPreconditionError(StrCat("mock Free: allocation ", a.id, " at ",
                                                HexAddr(a.base),
                                                " was already freed (double free)"));
  }
  a.freed = true;
  live_bytes_ -= a.size;
  a.data.reset();
  return absl::OkStatus();
}

absl::Status RecordingBackend::CheckStream(StreamHandle stream,
                                           absl::FunctionRef<std::string()> call) const {
  if (stream.id != 0 && !streams_.contains(stream.id)) {
    return absl::InvalidArgumentError(
        StrCat("mock ", call(), ": stream ", stream.id, " does not exist"));
  }
  return absl::OkStatus();
}

bool RecordingBackend::Capturing(StreamHandle stream) const {
  return capturing_.contains(stream.id);
}

absl::Status RecordingBackend::CopyToDevice(DevicePtr dst, absl::Span<const std::byte> src,
                                            StreamHandle stream) {
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(CheckStream(stream, "CopyToDevice"));
  if (Capturing(stream)) {
    return absl::FailedPreconditionError(
        "mock CopyToDevice: a host copy cannot be captured into a graph");
  }
  GPUOPS_ASSIGN_OR_RETURN(Allocation * a, Resolve(dst, src.size(), "mock CopyToDevice dst"));
  if (!src.empty()) std::memcpy(a->at(dst.address()), src.data(), src.size());
  return absl::OkStatus();
}

absl::Status RecordingBackend::CopyToHost(absl::Span<std::byte> dst, DevicePtr src,
                                          StreamHandle stream) {
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(CheckStream(stream, "CopyToHost"));
  if (Capturing(stream)) {
    return absl::FailedPreconditionError(
        "mock CopyToHost: a host copy cannot be captured into a graph");
  }
  GPUOPS_ASSIGN_OR_RETURN(Allocation * a, Resolve(src, dst.size(), "mock CopyToHost src"));
  if (!dst.empty()) std::memcpy(dst.data(), a->at(src.address()), dst.size());
  return absl::OkStatus();
}

absl::Status RecordingBackend::CopyDeviceToDevice(DevicePtr dst, DevicePtr src, uint64_t bytes,
                                                  StreamHandle stream) {
  auto copy = [this, dst, src, bytes](GraphHandle) {
    GPUOPS_ASSIGN_OR_RETURN(Allocation * d, Resolve(dst, bytes, "mock CopyDeviceToDevice dst"));
    GPUOPS_ASSIGN_OR_RETURN(Allocation * s, Resolve(src, bytes, "mock CopyDeviceToDevice src"));
    if (bytes != 0) std::memmove(d->at(dst.address()), s->at(src.address()), bytes);
    return absl::OkStatus();
  };
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(CheckStream(stream, "CopyDeviceToDevice"));
  if (Capturing(stream)) {
    GPUOPS_RETURN_IF_ERROR(Resolve(dst, bytes, "mock CopyDeviceToDevice dst").status());
    GPUOPS_RETURN_IF_ERROR(Resolve(src, bytes, "mock CopyDeviceToDevice src").status());
    capturing_[stream.id]->nodes.push_back([this, copy](GraphHandle g) {
      MutexLock lock(&mu_);
      return copy(g);
    });
    return absl::OkStatus();
  }
  return copy(GraphHandle{});
}

absl::Status RecordingBackend::Memset(DevicePtr dst, uint8_t value, uint64_t bytes,
                                      StreamHandle stream) {
  auto set = [this, dst, value, bytes](GraphHandle) {
    GPUOPS_ASSIGN_OR_RETURN(Allocation * a, Resolve(dst, bytes, "mock Memset dst"));
    if (bytes != 0) std::memset(a->at(dst.address()), value, bytes);
    return absl::OkStatus();
  };
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(CheckStream(stream, "Memset"));
  if (Capturing(stream)) {
    GPUOPS_RETURN_IF_ERROR(Resolve(dst, bytes, "mock Memset dst").status());
    capturing_[stream.id]->nodes.push_back([this, set](GraphHandle g) {
      MutexLock lock(&mu_);
      return set(g);
    });
    return absl::OkStatus();
  }
  return set(GraphHandle{});
}

absl::StatusOr<ModuleHandle> RecordingBackend::LoadModule(const ModuleImage& image) {
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(ConsumeFault(FaultSite::kLoadModule));
  GPUOPS_ASSIGN_OR_RETURN(std::vector<KernelSignature> signatures,
                          ResolveModuleSignatures(image, options_.device));
  auto module = std::make_unique<Module>();
  module->name = std::string(image.name);
  for (KernelSignature& sig : signatures) {
    auto info = std::make_unique<KernelInfo>();
    info->module = module->name;
    info->signature = std::move(sig);
    kernels_[info.get()] = true;
    module->kernels.emplace(info->name(), std::move(info));
  }
  const uint64_t id = next_module_id_++;
  modules_.emplace(id, std::move(module));
  return ModuleHandle{id};
}

absl::Status RecordingBackend::UnloadModule(ModuleHandle handle) {
  MutexLock lock(&mu_);
  auto it = modules_.find(handle.id);
  if (it == modules_.end() || !it->second->loaded) {
    return absl::InvalidArgumentError(
        StrCat("mock UnloadModule: module ", handle.id, " is not loaded"));
  }
  // KernelInfo stays allocated so records and stale handles never dangle; launches through a
  // handle of an unloaded module are refused.
  it->second->loaded = false;
  for (auto& [name, info] : it->second->kernels) kernels_[info.get()] = false;
  return absl::OkStatus();
}

absl::StatusOr<KernelHandle> RecordingBackend::GetKernel(ModuleHandle handle,
                                                         std::string_view kernel) {
  MutexLock lock(&mu_);
  auto it = modules_.find(handle.id);
  if (it == modules_.end() || !it->second->loaded) {
    return absl::InvalidArgumentError(
        StrCat("mock GetKernel ", kernel, ": module ", handle.id, " is not loaded"));
  }
  const Module& m = *it->second;
  auto k = m.kernels.find(kernel);
  if (k == m.kernels.end()) {
    return absl::NotFoundError(StrCat("mock GetKernel: module ", m.name, " does not ship kernel ",
                                      kernel, " for ", options_.device.arch_name()));
  }
  return KernelHandle(k->second.get());
}

std::shared_ptr<const HostKernelFn> RecordingBackend::FindHostKernel(
    std::string_view kernel) const {
  std::shared_ptr<const HostKernelFn> fn = own_host_kernels_.Find(kernel);
  if (fn == nullptr && options_.host_kernels != nullptr) fn = options_.host_kernels->Find(kernel);
  return fn;
}

absl::Status RecordingBackend::Execute(const LaunchRecord& record, const HostKernelFn& fn) {
  absl::InlinedVector<LaunchArg, 16> args;
  for (const RecordedArg& a : record.args) {
    args.push_back({a.kind, static_cast<uint32_t>(a.bytes.size()), a.bytes.data()});
  }
  HostLaunch launch(record.kernel, record.grid, record.block, record.shared_mem_bytes, args,
                    options_.max_emulated_work);
  ShadowMemory memory(*this, record.kernel);
  return fn(launch, memory);
}

const LaunchRecord& RecordingBackend::Record(LaunchRecord record) {
  record.sequence = next_sequence_++;
  launches_.push_back(std::move(record));
  return launches_.back();
}

absl::Status RecordingBackend::RecordAndExecute(LaunchRecord record,
                                                std::shared_ptr<const HostKernelFn> fn) {
  std::optional<LaunchRecord> executed;
  {
    MutexLock lock(&mu_);
    const LaunchRecord& recorded = Record(std::move(record));
    if (fn != nullptr) executed = recorded;  // a copy the emulation reads outside the lock
  }
  return executed ? Execute(*executed, *fn) : absl::OkStatus();
}

absl::Status RecordingBackend::Launch(const LaunchRequest& request) {
  // The emulation (when executing) is looked up first: a kernel without one is refused, not
  // recorded as if it had run.
  std::shared_ptr<const HostKernelFn> fn;
  if (options_.execute_host_kernels) {
    fn = FindHostKernel(request.kernel.name());
    if (fn == nullptr) {
      return absl::FailedPreconditionError(
          StrCat("mock launch ", request.kernel.name(),
                 ": no host emulation is registered for the kernel, so the mock cannot execute it "
                 "(register one, or create the mock with execute_host_kernels = false to record "
                 "launches only)"));
    }
    // The emulation walks the grid block by block: refuse a walk that would not end.
    if (request.grid.volume() > options_.max_emulated_blocks) {
      return absl::ResourceExhaustedError(StrCat(
          "mock launch ", request.kernel.name(), ": grid ", gpuops::ToString(request.grid), " has ",
          request.grid.volume(), " blocks, more than the ", options_.max_emulated_blocks,
          " a host emulation walks (Options::max_emulated_blocks)"));
    }
  }
  std::optional<LaunchRecord> executed;
  {
    LaunchRecord record;
    MutexLock lock(&mu_);
    const KernelInfo* info = request.kernel.info();
    auto known = kernels_.find(info);
    if (info == nullptr || known == kernels_.end()) {
      return absl::InvalidArgumentError(StrCat("mock launch ", request.kernel.name(),
                                               ": the kernel handle is not from this backend"));
    }
    if (!known->second) {
      return absl::FailedPreconditionError(
          StrCat("mock launch ", info->name(), ": its module ", info->module, " was unloaded"));
    }
    // Recording reads one value per compiled parameter: never take fewer (or more).
    if (request.args.size() != info->signature.params.size()) {
      return absl::InternalError(StrCat("mock launch ", info->name(), ": ", request.args.size(),
                                        " arguments, the kernel takes ",
                                        info->signature.params.size()));
    }
    GPUOPS_RETURN_IF_ERROR(
        CheckStream(request.stream, [info] { return StrCat("launch ", info->name()); }));
    record.kernel = info->name();
    record.module = info->module;
    record.grid = request.grid;
    record.block = request.block;
    record.shared_mem_bytes = request.shared_mem_bytes;
    record.overlaps_previous = request.overlaps_previous;
    record.stream = request.stream;
    record.args.reserve(request.args.size());
    for (size_t i = 0; i < request.args.size(); ++i) {
      const LaunchArg& arg = request.args[i];
      RecordedArg r;
      r.kind = arg.kind;
      const auto* bytes = static_cast<const std::byte*>(arg.data);
      r.bytes.assign(bytes, bytes + arg.size);
      if (arg.kind == ArgKind::kPtr && r.u64() != 0) {
        GPUOPS_ASSIGN_OR_RETURN(Allocation * a, Resolve(r.ptr(), 0, [info, i] {
                                  return StrCat("launch ", info->name(), " argument #", i, " (",
                                                info->signature.params[i].name, ")");
                                }));
        r.allocation = a->id;
        r.offset = r.u64() - a->base;
      }
      record.args.push_back(std::move(r));
    }
    GPUOPS_RETURN_IF_ERROR(ConsumeFault(FaultSite::kLaunch));
    if (Capturing(request.stream)) {
      capturing_[request.stream.id]->nodes.push_back([this, record, fn](GraphHandle graph) {
        LaunchRecord replay = record;
        replay.graph = graph;
        return RecordAndExecute(std::move(replay), fn);
      });
      return absl::OkStatus();
    }
    const LaunchRecord& recorded = Record(std::move(record));
    if (fn != nullptr) executed = recorded;  // a copy the emulation reads outside the lock
  }
  return executed ? Execute(*executed, *fn) : absl::OkStatus();
}

absl::StatusOr<TensorMapBytes> RecordingBackend::EncodeTensorMap(const TensorMapDesc& desc) {
  GPUOPS_RETURN_IF_ERROR(ValidateTensorMapDesc(desc));
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(Resolve(desc.global_address, 0, "mock EncodeTensorMap").status());
  return EncodeHostTensorMap(desc);
}

absl::StatusOr<StreamHandle> RecordingBackend::CreateStream() {
  MutexLock lock(&mu_);
  const uint64_t id = next_stream_id_++;
  streams_[id] = false;
  return StreamHandle{id};
}

absl::Status RecordingBackend::DestroyStream(StreamHandle stream) {
  MutexLock lock(&mu_);
  if (stream.id == 0 || streams_.erase(stream.id) == 0) {
    return absl::InvalidArgumentError(
        StrCat("mock DestroyStream: stream ", stream.id, " does not exist"));
  }
  capturing_.erase(stream.id);
  return absl::OkStatus();
}

absl::Status RecordingBackend::SynchronizeStream(StreamHandle stream) {
  MutexLock lock(&mu_);
  return CheckStream(stream, "SynchronizeStream");
}

absl::StatusOr<EventHandle> RecordingBackend::CreateEvent() {
  MutexLock lock(&mu_);
  const uint64_t id = next_event_id_++;
  events_[id] = absl::InfinitePast();
  return EventHandle{id};
}

absl::Status RecordingBackend::DestroyEvent(EventHandle event) {
  MutexLock lock(&mu_);
  if (events_.erase(event.id) == 0) {
    return absl::InvalidArgumentError(
        StrCat("mock DestroyEvent: event ", event.id, " does not exist"));
  }
  return absl::OkStatus();
}

absl::Status RecordingBackend::RecordEvent(EventHandle event, StreamHandle stream) {
  MutexLock lock(&mu_);
  GPUOPS_RETURN_IF_ERROR(CheckStream(stream, "RecordEvent"));
  auto it = events_.find(event.id);
  if (it == events_.end()) {
    return absl::InvalidArgumentError(
        StrCat("mock RecordEvent: event ", event.id, " does not exist"));
  }
  it->second = absl::Now();  // the mock runs work synchronously: host time is its device time
  return absl::OkStatus();
}

absl::StatusOr<float> RecordingBackend::ElapsedMs(EventHandle start, EventHandle end) {
  MutexLock lock(&mu_);
  auto s = events_.find(start.id);
  auto e = events_.find(end.id);
  if (s == events_.end() || e == events_.end()) {
    return absl::InvalidArgumentError("mock ElapsedMs: event does not exist");
  }
  if (s->second == absl::InfinitePast() || e->second == absl::InfinitePast()) {
    return absl::FailedPreconditionError("mock ElapsedMs: event was never recorded");
  }
  return static_cast<float>(absl::ToDoubleMilliseconds(e->second - s->second));
}

absl::Status RecordingBackend::Synchronize() { return absl::OkStatus(); }

absl::Status RecordingBackend::BeginCapture(StreamHandle stream) {
  MutexLock lock(&mu_);
  if (stream.id == 0 || !streams_.contains(stream.id)) {
    return absl::InvalidArgumentError(StrCat("mock BeginCapture: stream ", stream.id,
                                             " is not a created stream (the default stream "
                                             "cannot be captured)"));
  }
  if (Capturing(stream)) {
    return absl::FailedPreconditionError(
        StrCat("mock BeginCapture: stream ", stream.id, " is already capturing"));
  }
  capturing_[stream.id] = std::make_shared<Graph>();
  return absl::OkStatus();
}

absl::StatusOr<GraphHandle> RecordingBackend::EndCapture(StreamHandle stream) {
  MutexLock lock(&mu_);
  auto it = capturing_.find(stream.id);
  if (it == capturing_.end()) {
    return absl::FailedPreconditionError(
        StrCat("mock EndCapture: stream ", stream.id, " is not capturing"));
  }
  const uint64_t id = next_graph_id_++;
  graphs_[id] = std::move(it->second);
  capturing_.erase(it);
  return GraphHandle{id};
}

absl::Status RecordingBackend::LaunchGraph(GraphHandle graph, StreamHandle stream) {
  std::shared_ptr<const Graph> nodes;
  {
    MutexLock lock(&mu_);
    GPUOPS_RETURN_IF_ERROR(CheckStream(stream, "LaunchGraph"));
    auto it = graphs_.find(graph.id);
    if (it == graphs_.end()) {
      return absl::InvalidArgumentError(
          StrCat("mock LaunchGraph: graph ", graph.id, " does not exist"));
    }
    nodes = it->second;
  }
  for (const auto& node : nodes->nodes) GPUOPS_RETURN_IF_ERROR(node(graph));
  return absl::OkStatus();
}

absl::Status RecordingBackend::DestroyGraph(GraphHandle graph) {
  MutexLock lock(&mu_);
  if (graphs_.erase(graph.id) == 0) {
    return absl::InvalidArgumentError(
        StrCat("mock DestroyGraph: graph ", graph.id, " does not exist"));
  }
  return absl::OkStatus();
}

std::vector<LaunchRecord> RecordingBackend::launches() const {
  MutexLock lock(&mu_);
  return launches_;
}

size_t RecordingBackend::launch_count() const {
  MutexLock lock(&mu_);
  return launches_.size();
}

void RecordingBackend::ClearLaunches() {
  MutexLock lock(&mu_);
  launches_.clear();
}

void RecordingBackend::RegisterHostKernel(std::string_view kernel, HostKernelFn fn) {
  own_host_kernels_.Register(kernel, std::move(fn));
}

size_t RecordingBackend::live_allocations() const {
  MutexLock lock(&mu_);
  return static_cast<size_t>(std::count_if(allocations_.begin(), allocations_.end(),
                                           [](const auto& a) { return !a.second->freed; }));
}

uint64_t RecordingBackend::live_bytes() const {
  MutexLock lock(&mu_);
  return live_bytes_;
}

ModuleImage DescribeModule(std::string_view name, std::string_view signatures_text) {
  return ModuleImage{name, {}, signatures_text};
}

}  // namespace gpuops::mock
