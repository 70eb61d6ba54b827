// Every op family this build has, for tools that list or load them all.
#pragma once

#include <string_view>

#include "absl/types/span.h"
#include "gpuops/runtime/backend.h"

namespace gpuops::ops {

struct Family {
  std::string_view name;
  ModuleImage (*image)();
};

absl::Span<const Family> AllFamilies();

}  // namespace gpuops::ops
