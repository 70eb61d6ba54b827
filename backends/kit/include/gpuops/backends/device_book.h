// What a backend over a vendor runtime (CUDA, HIP) remembers about the objects it made, and the
// checks and error messages built on it, written once for every such backend: live allocations
// and recently freed ones (use after free, double free, copies past an allocation's end),
// streams and which of them capture a graph, events and whether they were recorded, graphs, and
// the poison a sticky device fault leaves. Handles are the runtime's own pointers as integers.
// Thread-safe; every message starts with the backend's name ("cuda DestroyStream: ...").
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "gpuops/runtime/mutex.h"

namespace gpuops {

class DeviceBook {
 public:
  explicit DeviceBook(std::string backend) : backend_(std::move(backend)) {}

  // --- Poison: after a sticky fault every call fails fast with it.
  // OK, or the poison.
  absl::Status Poisoned() const;
  // Records the first sticky fault (`cause`: the runtime's error); returns kInternal with
  // cause's message.
  absl::Status Poison(const absl::Status& cause);

  // --- Memory
  void AddAllocation(uint64_t base, uint64_t bytes);
  // Forgets the allocation at `base` (remembering it as freed); kInvalidArgument when `base`
  // starts none, kFailedPrecondition when it was already freed.
  absl::Status RemoveAllocation(uint64_t base, std::string_view call);
  // [addr, addr + bytes) as the runtime would see it: inside one allocation of this backend, or
  // in memory it did not allocate (another library's: the runtime checks that). A range that
  // starts in one of ours and runs past its end, or points into one that was freed, is refused.
  absl::Status CheckRange(uint64_t addr, uint64_t bytes, std::string_view what) const;

  // --- Streams (0 is the default stream: always valid, never captured)
  void AddStream(uint64_t stream);
  absl::Status RemoveStream(uint64_t stream, std::string_view call);
  // The stream was created here; `capturable` false: refused while it captures.
  absl::Status CheckStream(uint64_t stream, std::string_view call, bool capturable) const;
  // A created stream not capturing yet (BeginCapture's precondition), and the bookkeeping after.
  absl::Status CheckCanCapture(uint64_t stream) const;
  void MarkCapturing(uint64_t stream);
  // Ends the capture; kFailedPrecondition when the stream was not capturing.
  absl::Status EndCapture(uint64_t stream);

  // --- Events
  void AddEvent(uint64_t event);
  absl::Status RemoveEvent(uint64_t event, std::string_view call);
  // `recorded`: the event must also have been recorded (ElapsedMs).
  absl::Status CheckEvent(uint64_t event, std::string_view call, bool recorded = false) const;
  void MarkRecorded(uint64_t event);

  // --- Graphs
  void AddGraph(uint64_t graph);
  absl::Status RemoveGraph(uint64_t graph, std::string_view call);
  absl::Status CheckGraph(uint64_t graph, std::string_view call) const;

  // What is still live, for the backend's destructor.
  struct Live {
    std::vector<uint64_t> streams, events, graphs;
  };
  Live live() const;

 private:
  const std::string backend_;

  std::atomic<bool> poisoned_flag_{false};
  mutable Mutex poison_mu_;
  absl::Status poisoned_ ABSL_GUARDED_BY(poison_mu_);

  mutable Mutex mu_;
  // Live allocations and freed ones, base -> bytes.
  std::map<uint64_t, uint64_t> allocations_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, uint64_t> freed_ ABSL_GUARDED_BY(mu_);
  static constexpr size_t kFreedRemembered = 1 << 16;
  absl::flat_hash_set<uint64_t> streams_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<uint64_t> capturing_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, bool> events_ ABSL_GUARDED_BY(mu_);  // -> recorded
  absl::flat_hash_set<uint64_t> graphs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpuops
