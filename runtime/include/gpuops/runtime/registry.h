// Picking a backend by name. Backends register a factory; `auto` takes the first registered
// backend (in auto-priority order) whose probe reports it available. The environment variable
// GPUOPS_BACKEND=mock|cuda|hip, when set, replaces what `auto` resolves to.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"

namespace gpuops {

inline constexpr std::string_view kBackendEnvVar = "GPUOPS_BACKEND";

struct BackendFactory {
  std::string name;
  // OK when the backend can be created here; otherwise kUnavailable saying why.
  std::function<absl::Status()> probe;
  std::function<absl::StatusOr<std::unique_ptr<GpuBackend>>()> create;
  // Lower tries first for `auto`; a negative value keeps the backend out of `auto`.
  int auto_priority = 0;
};

// Thread safety: Register while no other thread uses the registry (at start-up); the const
// methods may then be called from several threads at once. DefaultBackendRegistry() is built
// once, thread-safely.
class BackendRegistry {
 public:
  absl::Status Register(BackendFactory factory);

  // `name` is a registered name or "auto".
  absl::StatusOr<std::unique_ptr<GpuBackend>> Create(std::string_view name) const;
  // The backend name `auto` picks here (after GPUOPS_BACKEND), or why none can be.
  absl::StatusOr<std::string> ResolveAuto() const;
  absl::Status Probe(std::string_view name) const;

  std::vector<std::string> names() const;

 private:
  const BackendFactory* Find(std::string_view name) const;
  std::vector<BackendFactory> factories_;
};

}  // namespace gpuops
