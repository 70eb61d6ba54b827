#include "gpuops/runtime/dynamic_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include "gpuops/runtime/str.h"

namespace gpuops {

absl::StatusOr<DynamicLibrary> DynamicLibrary::Open(
    std::string_view what, const char* env_var, const std::vector<std::string>& candidates,
    absl::FunctionRef<absl::Status(const DynamicLibrary&)> accept) {
  std::vector<std::string> paths = candidates;
  if (const char* env = env_var != nullptr ? std::getenv(env_var) : nullptr;
      env != nullptr && *env != '\0') {
    paths = {env};
  }
  std::string tried;
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();  // names the path
      StrAppend(&tried, tried.empty() ? "" : "; ",
                why != nullptr ? std::string(why) : StrCat(path, ": dlopen failed"));
      continue;
    }
    DynamicLibrary library(handle, path);
    if (absl::Status s = accept(library); !s.ok()) {
      StrAppend(&tried, tried.empty() ? "" : "; ", path, ": ", s.message());
      dlclose(handle);
      continue;
    }
    return library;
  }
  return absl::UnavailableError(
      StrCat(what, " (tried ", tried, ")",
             env_var != nullptr ? StrCat("; set ", env_var, " to its path") : ""));
}

void* DynamicLibrary::Symbol(const char* name) const {
  return handle_ == nullptr ? nullptr : dlsym(handle_, name);
}

}  // namespace gpuops
