#include "generate.h"

#include <algorithm>

#include "gpuops/runtime/amd_code_object.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops::sigtool {
namespace {

// The kernels of one compiled image (one arch of a fatbin or bundle), with their parameters.
struct Image {
  std::string arch;
  std::vector<std::pair<std::string, std::vector<KernelParam>>> kernels;
};

// The table of `images`: offsets and sizes from the `arch` image, the archs of every image that
// ships each kernel, names from the sources. `container` names the input in errors.
absl::StatusOr<SignatureTable> Assemble(
    const std::vector<Image>& images, std::string_view arch, std::string_view container,
    const std::map<std::string, std::vector<std::string>>& param_names) {
  std::map<std::string, std::vector<std::string>> archs;  // kernel -> archs shipping it
  const Image* primary = nullptr;
  for (const Image& image : images) {
    for (const auto& k : image.kernels) archs[k.first].push_back(image.arch);
    if (image.arch == arch) primary = &image;
  }
  if (primary == nullptr) {
    return absl::NotFoundError(StrCat(container, " has no ", arch, " image"));
  }
  std::vector<KernelSignature> out;
  for (const auto& [kernel, kernel_archs] : archs) {
    auto it = std::find_if(primary->kernels.begin(), primary->kernels.end(),
                           [&](const auto& k) { return k.first == kernel; });
    if (it == primary->kernels.end()) {
      return absl::FailedPreconditionError(StrCat("kernel ", kernel, " is not in the ", arch,
                                                  " image (only in ", StrJoin(kernel_archs, ", "),
                                                  ")"));
    }
    auto names = param_names.find(kernel);
    if (names == param_names.end()) {
      return absl::NotFoundError(
          StrCat("kernel ", kernel, " is in the ", container, " but no source defines it"));
    }
    if (names->second.size() != it->second.size()) {
      return absl::FailedPreconditionError(StrCat("kernel ", kernel, ": the source declares ",
                                                  names->second.size(), " parameters, the ", arch,
                                                  " image has ", it->second.size()));
    }
    KernelSignature sig{kernel, it->second, kernel_archs};
    std::sort(sig.archs.begin(), sig.archs.end());
    for (size_t i = 0; i < sig.params.size(); ++i) sig.params[i].name = names->second[i];
    out.push_back(std::move(sig));
  }
  return SignatureTable(std::string(arch), std::move(out));
}

}  // namespace

absl::StatusOr<SignatureTable> GenerateSignatures(
    metadata::Bytes fatbin, std::string_view arch,
    const std::map<std::string, std::vector<std::string>>& param_names) {
  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::FatbinEntry> entries,
                          metadata::ParseFatbin(fatbin));
  std::vector<Image> images;
  for (const metadata::FatbinEntry& e : entries) {
    if (e.kind != metadata::FatbinEntryKind::kElf) continue;
    if (e.compressed) {
      return absl::FailedPreconditionError(
          StrCat("fatbin: the ", e.arch_name(),
                 " ELF entry is compressed; build with -compress-mode=none"));
    }
    GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::CubinKernel> kernels,
                            metadata::ReadCubinKernels(e.payload));
    Image& image = images.emplace_back(Image{.arch = e.arch_name()});
    for (metadata::CubinKernel& k : kernels) image.kernels.emplace_back(k.name, std::move(k.params));
  }
  return Assemble(images, arch, "fatbin", param_names);
}

absl::StatusOr<SignatureTable> GenerateHipSignatures(
    metadata::Bytes bundle, std::string_view arch,
    const std::map<std::string, std::vector<std::string>>& param_names) {
  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::OffloadBundleEntry> entries,
                          metadata::ParseOffloadBundle(bundle));
  std::vector<Image> images;
  for (const metadata::OffloadBundleEntry& e : entries) {
    if (e.arch().empty()) continue;  // the host entry
    absl::StatusOr<std::vector<metadata::AmdKernel>> kernels = metadata::ReadAmdKernels(e.payload);
    if (!kernels.ok()) {
      return absl::InvalidArgumentError(
          StrCat("code object ", e.triple, ": ", kernels.status().message()));
    }
    Image& image = images.emplace_back(Image{.arch = e.arch()});
    for (metadata::AmdKernel& k : *kernels) image.kernels.emplace_back(k.name, std::move(k.params));
  }
  return Assemble(images, arch, "code-object bundle", param_names);
}

}  // namespace gpuops::sigtool
