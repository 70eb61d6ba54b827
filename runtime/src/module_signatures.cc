#include "gpuops/runtime/module_signatures.h"

#include <algorithm>

#include "gpuops/runtime/str.h"
#include "gpuops/runtime/signature_table.h"
#include "gpuops/runtime/status.h"

namespace gpuops {

absl::StatusOr<std::vector<KernelSignature>> ResolveModuleSignatures(const ModuleImage& image,
                                                                     const DeviceInfo& device) {
  GPUOPS_ASSIGN_OR_RETURN(
      SignatureTable table,
      SignatureTable::Parse(image.signatures_text, StrCat(image.name, "/signatures.txt")));
  const std::string arch = device.arch_name();
  std::vector<KernelSignature> out;
  for (const KernelSignature& k : table.kernels()) {
    if (k.archs.empty() || std::find(k.archs.begin(), k.archs.end(), arch) != k.archs.end()) {
      out.push_back(k);
    }
  }
  return out;
}

}  // namespace gpuops
