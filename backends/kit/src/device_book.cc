#include "gpuops/backends/device_book.h"

#include <algorithm>

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::Status DeviceBook::Poisoned() const {
  if (!poisoned_flag_.load(std::memory_order_acquire)) return absl::OkStatus();
  MutexLock lock(&poison_mu_);
  return poisoned_;
}

absl::Status DeviceBook::Poison(const absl::Status& cause) {
  MutexLock lock(&poison_mu_);
  if (!poisoned_flag_.load()) {
    poisoned_ = absl::InternalError(StrCat(backend_,
                                           " backend is poisoned by an earlier device fault "
                                           "(every later call fails): ",
                                           cause.message()));
    poisoned_flag_.store(true, std::memory_order_release);
  }
  return absl::InternalError(cause.message());
}

void DeviceBook::AddAllocation(uint64_t base, uint64_t bytes) {
  MutexLock lock(&mu_);
  allocations_[base] = bytes;
  // The runtime reuses addresses: a new allocation ends what was freed there.
  for (auto it = freed_.lower_bound(base); it != freed_.end() && it->first < base + bytes;) {
    it = freed_.erase(it);
  }
  if (auto it = freed_.lower_bound(base); it != freed_.begin()) {
    --it;
    if (it->first + it->second > base) freed_.erase(it);
  }
}

absl::Status DeviceBook::RemoveAllocation(uint64_t base, std::string_view call) {
  MutexLock lock(&mu_);
  auto it = allocations_.find(base);
  if (it == allocations_.end()) {
    if (freed_.contains(base)) {
      return absl::FailedPreconditionError(StrCat(backend_, " ", call, ": allocation at 0x",
                                                  Hex(base), " was already freed (double free)"));
    }
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": 0x", Hex(base), " is not the start of an allocation"));
  }
  // Remembered for use-after-free and double-free errors, within a bound.
  if (freed_.size() >= kFreedRemembered) freed_.clear();
  freed_[it->first] = it->second;
  allocations_.erase(it);
  return absl::OkStatus();
}

absl::Status DeviceBook::CheckRange(uint64_t addr, uint64_t bytes, std::string_view what) const {
  MutexLock lock(&mu_);
  auto it = allocations_.upper_bound(addr);
  if (it != allocations_.begin()) {
    --it;
    const uint64_t offset = addr - it->first;
    if (offset < std::max<uint64_t>(it->second, 1)) {
      if (bytes > it->second - offset) {
        return absl::OutOfRangeError(StrCat(backend_, " ", what, ": ", bytes, " bytes at 0x",
                                            Hex(addr), " run past the end of the allocation (",
                                            it->second, " bytes at 0x", Hex(it->first), ", offset ",
                                            offset, ")"));
      }
      return absl::OkStatus();
    }
  }
  auto freed = freed_.upper_bound(addr);
  if (freed != freed_.begin()) {
    --freed;
    if (addr - freed->first < std::max<uint64_t>(freed->second, 1)) {
      return absl::FailedPreconditionError(StrCat(backend_, " ", what, ": 0x", Hex(addr),
                                                  " points into an allocation that was freed "
                                                  "(use after free)"));
    }
  }
  return absl::OkStatus();
}

void DeviceBook::AddStream(uint64_t stream) {
  MutexLock lock(&mu_);
  streams_.insert(stream);
}

absl::Status DeviceBook::RemoveStream(uint64_t stream, std::string_view call) {
  MutexLock lock(&mu_);
  if (stream == 0 || streams_.erase(stream) == 0) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": stream ", stream, " was not created here"));
  }
  capturing_.erase(stream);
  return absl::OkStatus();
}

absl::Status DeviceBook::CheckStream(uint64_t stream, std::string_view call,
                                     bool capturable) const {
  if (stream == 0) return absl::OkStatus();
  MutexLock lock(&mu_);
  if (!streams_.contains(stream)) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": stream ", stream, " was not created here"));
  }
  if (!capturable && capturing_.contains(stream)) {
    return absl::FailedPreconditionError(StrCat(backend_, " ", call, ": stream ", stream,
                                                " is capturing a graph; this call would break it"));
  }
  return absl::OkStatus();
}

absl::Status DeviceBook::CheckCanCapture(uint64_t stream) const {
  MutexLock lock(&mu_);
  if (stream == 0 || !streams_.contains(stream)) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " BeginCapture: stream ", stream,
               " is not a created stream (the default stream cannot be captured)"));
  }
  if (capturing_.contains(stream)) {
    return absl::FailedPreconditionError(
        StrCat(backend_, " BeginCapture: stream ", stream, " is already capturing"));
  }
  return absl::OkStatus();
}

void DeviceBook::MarkCapturing(uint64_t stream) {
  MutexLock lock(&mu_);
  capturing_.insert(stream);
}

absl::Status DeviceBook::EndCapture(uint64_t stream) {
  MutexLock lock(&mu_);
  if (capturing_.erase(stream) == 0) {
    return absl::FailedPreconditionError(
        StrCat(backend_, " EndCapture: stream ", stream, " is not capturing"));
  }
  return absl::OkStatus();
}

void DeviceBook::AddEvent(uint64_t event) {
  MutexLock lock(&mu_);
  events_[event] = false;
}

absl::Status DeviceBook::RemoveEvent(uint64_t event, std::string_view call) {
  MutexLock lock(&mu_);
  if (events_.erase(event) == 0) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": event ", event, " was not created here"));
  }
  return absl::OkStatus();
}

absl::Status DeviceBook::CheckEvent(uint64_t event, std::string_view call, bool recorded) const {
  MutexLock lock(&mu_);
  auto it = events_.find(event);
  if (it == events_.end()) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": event ", event, " was not created here"));
  }
  if (recorded && !it->second) {
    return absl::FailedPreconditionError(
        StrCat(backend_, " ", call, ": event ", event, " was never recorded"));
  }
  return absl::OkStatus();
}

void DeviceBook::MarkRecorded(uint64_t event) {
  MutexLock lock(&mu_);
  if (auto it = events_.find(event); it != events_.end()) it->second = true;
}

void DeviceBook::AddGraph(uint64_t graph) {
  MutexLock lock(&mu_);
  graphs_.insert(graph);
}

absl::Status DeviceBook::RemoveGraph(uint64_t graph, std::string_view call) {
  MutexLock lock(&mu_);
  if (graphs_.erase(graph) == 0) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": graph ", graph, " does not exist"));
  }
  return absl::OkStatus();
}

absl::Status DeviceBook::CheckGraph(uint64_t graph, std::string_view call) const {
  MutexLock lock(&mu_);
  if (!graphs_.contains(graph)) {
    return absl::InvalidArgumentError(
        StrCat(backend_, " ", call, ": graph ", graph, " does not exist"));
  }
  return absl::OkStatus();
}

DeviceBook::Live DeviceBook::live() const {
  MutexLock lock(&mu_);
  Live out;
  out.streams.assign(streams_.begin(), streams_.end());
  for (const auto& [e, recorded] : events_) out.events.push_back(e);
  out.graphs.assign(graphs_.begin(), graphs_.end());
  return out;
}

}  // namespace gpuops
