#include "ops/families.h"

#include <array>

#include "ops/common/common_ops.h"
#include "ops/dense/dense_gemm.h"

namespace gpuops::ops {

absl::Span<const Family> AllFamilies() {
  static constexpr std::array<Family, 2> kFamilies{{
      {"common", &common::EmbeddedModuleImage},
      {"dense", &dense::EmbeddedModuleImage},
  }};
  return kFamilies;
}

}  // namespace gpuops::ops
