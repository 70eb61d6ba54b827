#include "gpuops/runtime/registry.h"

#include <algorithm>
#include <cstdlib>

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::Status BackendRegistry::Register(BackendFactory factory) {
  if (factory.name.empty() || factory.name == "auto" || !factory.create || !factory.probe) {
    return absl::InvalidArgumentError(
        StrCat("BackendRegistry::Register: backend '", factory.name,
               "' needs a name other than 'auto', a probe and a create function"));
  }
  if (Find(factory.name) != nullptr) {
    return absl::AlreadyExistsError(
        StrCat("BackendRegistry::Register: backend '", factory.name, "' is registered"));
  }
  factories_.push_back(std::move(factory));
  std::stable_sort(factories_.begin(), factories_.end(),
                   [](const BackendFactory& a, const BackendFactory& b) {
                     return a.auto_priority < b.auto_priority;
                   });
  return absl::OkStatus();
}

const BackendFactory* BackendRegistry::Find(std::string_view name) const {
  for (const BackendFactory& f : factories_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(factories_.size());
  for (const BackendFactory& f : factories_) out.push_back(f.name);
  return out;
}

absl::Status BackendRegistry::Probe(std::string_view name) const {
  const BackendFactory* f = Find(name);
  if (f == nullptr) {
    return absl::NotFoundError(
        StrCat("unknown backend '", name, "' (known: ", StrJoin(names(), ", "), ", auto)"));
  }
  return f->probe();
}

absl::Status BackendRegistry::Served(std::string_view name) const {
  const BackendFactory* f = Find(name);
  if (f == nullptr) {
    return absl::NotFoundError(
        StrCat("unknown backend '", name, "' (known: ", StrJoin(names(), ", "), ", auto)"));
  }
  return f->served ? f->served() : absl::OkStatus();
}

absl::StatusOr<std::string> BackendRegistry::ResolveAuto(
    std::vector<std::string>* passed_over) const {
  if (const char* env = std::getenv(std::string(kBackendEnvVar).c_str());
      env != nullptr && *env != '\0' && std::string_view(env) != "auto") {
    if (Find(env) == nullptr) {
      return absl::InvalidArgumentError(StrCat(kBackendEnvVar, "=", env,
                                               " names no backend (known: ", StrJoin(names(), ", "),
                                               ", auto)"));
    }
    return std::string(env);
  }
  std::vector<std::string> why;
  for (const BackendFactory& f : factories_) {
    if (f.auto_priority < 0) continue;
    absl::Status s = f.probe();
    if (s.ok() && f.served) s = f.served();
    if (s.ok()) {
      if (passed_over != nullptr) *passed_over = std::move(why);
      return f.name;
    }
    why.push_back(StrCat(f.name, ": ", s.message()));
  }
  if (passed_over != nullptr) *passed_over = why;
  return absl::UnavailableError(StrCat("no backend is available (", StrJoin(why, "; "), ")"));
}

absl::StatusOr<std::unique_ptr<GpuBackend>> BackendRegistry::Create(std::string_view name) const {
  std::string resolved(name);
  if (name == "auto") {
    auto r = ResolveAuto();
    if (!r.ok()) return r.status();
    resolved = *r;
  }
  const BackendFactory* f = Find(resolved);
  if (f == nullptr) {
    return absl::NotFoundError(
        StrCat("unknown backend '", resolved, "' (known: ", StrJoin(names(), ", "), ", auto)"));
  }
  return f->create();
}

}  // namespace gpuops
