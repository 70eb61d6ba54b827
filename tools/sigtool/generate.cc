#include "generate.h"

#include <algorithm>

#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::sigtool {

absl::StatusOr<SignatureTable> GenerateSignatures(
    metadata::Bytes fatbin, std::string_view arch,
    const std::map<std::string, std::vector<std::string>>& param_names) {
  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::FatbinEntry> entries,
                          metadata::ParseFatbin(fatbin));
  std::map<std::string, std::vector<std::string>> archs;  // kernel -> ELF archs shipping it
  std::vector<metadata::CubinKernel> primary;
  bool have_primary = false;
  for (const metadata::FatbinEntry& e : entries) {
    if (e.kind != metadata::FatbinEntryKind::kElf) continue;
    if (e.compressed) {
      return absl::FailedPreconditionError(
          StrCat("fatbin: the ", e.arch_name(),
                 " ELF entry is compressed; build with -compress-mode=none"));
    }
    GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::CubinKernel> kernels,
                            metadata::ReadCubinKernels(e.payload));
    for (const auto& k : kernels) archs[k.name].push_back(e.arch_name());
    if (e.arch_name() == arch) {
      primary = std::move(kernels);
      have_primary = true;
    }
  }
  if (!have_primary) {
    return absl::NotFoundError(StrCat("fatbin has no ", arch, " ELF entry"));
  }
  std::vector<KernelSignature> out;
  for (const auto& entry : archs) {
    const std::string& kernel = entry.first;
    const std::vector<std::string>& kernel_archs = entry.second;
    auto it = std::find_if(primary.begin(), primary.end(),
                           [&](const metadata::CubinKernel& k) { return k.name == kernel; });
    if (it == primary.end()) {
      return absl::FailedPreconditionError(StrCat("kernel ", kernel, " is not in the ", arch,
                                                  " image (only in ", StrJoin(kernel_archs, ", "),
                                                  ")"));
    }
    auto names = param_names.find(kernel);
    if (names == param_names.end()) {
      return absl::NotFoundError(
          StrCat("kernel ", kernel, " is in the fatbin but no source defines it"));
    }
    if (names->second.size() != it->params.size()) {
      return absl::FailedPreconditionError(StrCat("kernel ", kernel, ": the source declares ",
                                                  names->second.size(), " parameters, the ", arch,
                                                  " cubin has ", it->params.size()));
    }
    KernelSignature sig{kernel, it->params, kernel_archs};
    std::sort(sig.archs.begin(), sig.archs.end());
    for (size_t i = 0; i < sig.params.size(); ++i) sig.params[i].name = names->second[i];
    out.push_back(std::move(sig));
  }
  return SignatureTable(std::string(arch), std::move(out));
}

}  // namespace gpuops::sigtool
