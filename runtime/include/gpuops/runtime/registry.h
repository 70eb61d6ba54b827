// Picking a backend by name. Backends register a factory; `auto` takes the first registered
// backend (in auto-priority order) that this build can run ops on: its probe reports it
// available and the build serves it (ships kernels for it). The environment variable
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
  // OK when this build can run ops on the backend (it embeds kernels for it); otherwise
  // kFailedPrecondition saying why, and `auto` passes the backend over (naming it explicitly
  // still creates it). Empty: always served.
  std::function<absl::Status()> served;
};

// Thread safety: Register while no other thread uses the registry (at start-up); the const
// methods may then be called from several threads at once. DefaultBackendRegistry() is built
// once, thread-safely.
class BackendRegistry {
 public:
  absl::Status Register(BackendFactory factory);

  // `name` is a registered name or "auto".
  absl::StatusOr<std::unique_ptr<GpuBackend>> Create(std::string_view name) const;
  // The backend name `auto` picks here (after GPUOPS_BACKEND), or why none can be. With
  // `passed_over`, why each backend tried before the pick was not taken ("cuda: ...").
  absl::StatusOr<std::string> ResolveAuto(std::vector<std::string>* passed_over = nullptr) const;
  absl::Status Probe(std::string_view name) const;
  // Whether this build serves the backend (BackendFactory::served).
  absl::Status Served(std::string_view name) const;

  std::vector<std::string> names() const;

 private:
  const BackendFactory* Find(std::string_view name) const;
  std::vector<BackendFactory> factories_;
};

}  // namespace gpuops
