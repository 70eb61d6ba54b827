#include "gpuops/runtime/types.h"

#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/kernel_signature.h"
#include "gpuops/runtime/str.h"

namespace gpuops {

std::string ToString(const Dim3& d) { return StrCat("(", d.x, ", ", d.y, ", ", d.z, ")"); }

std::string DeviceInfo::arch_name() const {
  if (is_amd()) return amd_target;
  return StrCat("sm_", arch_major, arch_minor, arch_specific ? "a" : "");
}

std::string_view ToString(ArgKind kind) {
  switch (kind) {
    case ArgKind::kPtr:
      return "ptr";
    case ArgKind::kU32:
      return "u32";
    case ArgKind::kI32:
      return "i32";
    case ArgKind::kU64:
      return "u64";
    case ArgKind::kF32:
      return "f32";
    case ArgKind::kBytes:
      return "bytes";
  }
  return "?";
}

uint32_t KernelSignature::param_bytes() const {
  uint32_t end = 0;
  for (const KernelParam& p : params) end = std::max(end, p.offset + p.size);
  return end;
}

std::string KernelSignature::ToString() const {
  return StrCat(kernel, "(",
                StrJoin(params, ", ",
                        [](std::string* out, const KernelParam& p) {
                          StrAppend(out, p.name, ":", p.offset, ":", p.size);
                        }),
                ")");
}

const std::string& KernelHandle::name() const {
  static const std::string kEmpty;
  return info_ == nullptr ? kEmpty : info_->name();
}

}  // namespace gpuops
