// AllFamilies(): the families of ops/families.inc, in order.
#include "ops/family.h"

#define GPUOPS_FAMILY(name)            \
  namespace gpuops::ops::name {        \
  const ::gpuops::ops::Family& Unit(); \
  }
#include "ops/families.inc"
#undef GPUOPS_FAMILY

namespace gpuops::ops {

absl::Span<const Family* const> AllFamilies() {
  static const Family* const kFamilies[] = {
#define GPUOPS_FAMILY(name) &name::Unit(),
#include "ops/families.inc"
#undef GPUOPS_FAMILY
  };
  return kFamilies;
}

const Family* FindFamily(std::string_view name) {
  for (const Family* f : AllFamilies()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

std::string FamilyNames() {
  std::string out;
  for (const Family* f : AllFamilies()) {
    if (!out.empty()) out += ", ";
    out += f->name();
  }
  return out;
}

}  // namespace gpuops::ops
