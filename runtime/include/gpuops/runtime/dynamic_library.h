// A vendor library opened at run time (dlopen), so that builds link nothing from it: the CUDA
// driver, cuBLASLt. Open tries candidate paths in order and keeps the first that loads and that
// `accept` takes (it resolves and checks the symbols it needs); every path tried and why it was
// not taken goes into the kUnavailable error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gpuops {

class DynamicLibrary {
 public:
  // The library: `$env_var` alone when that is set and not empty (an override), else the first
  // of `candidates` that dlopen loads and `accept` returns OK for. `what` opens the error:
  // "<what> (tried <path>: <why>; ...; set <env_var> to its path)".
  static absl::StatusOr<DynamicLibrary> Open(
      std::string_view what, const char* env_var, const std::vector<std::string>& candidates,
      absl::FunctionRef<absl::Status(const DynamicLibrary&)> accept);

  // The symbol's address, or null when the library does not export it.
  void* Symbol(const char* name) const;
  const std::string& path() const { return path_; }

 private:
  // An accepted library stays loaded for the life of the process (no dlclose): the handles it
  // gave out outlive any one owner, and unloading a driver at exit races its own teardown.
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace gpuops
