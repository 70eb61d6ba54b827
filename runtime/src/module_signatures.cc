#include "gpuops/runtime/module_signatures.h"

#include <algorithm>

#include "gpuops/runtime/kernel_metadata.h"
#include "gpuops/runtime/signature_table.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"

namespace gpuops {
namespace {

bool ShipsFor(const KernelSignature& k, const std::string& arch) {
  return k.archs.empty() || std::find(k.archs.begin(), k.archs.end(), arch) != k.archs.end();
}

// Offsets and sizes only: the cubin knows no names and no architecture lists.
SignatureTable Layouts(std::string arch, const std::vector<KernelSignature>& kernels) {
  std::vector<KernelSignature> out;
  for (KernelSignature k : kernels) {
    k.archs.clear();
    for (size_t i = 0; i < k.params.size(); ++i) k.params[i].name = StrCat("#", i);
    out.push_back(std::move(k));
  }
  return SignatureTable(std::move(arch), std::move(out));
}

}  // namespace

absl::StatusOr<std::vector<KernelSignature>> ResolveModuleSignatures(const ModuleImage& image,
                                                                     const DeviceInfo& device) {
  GPUOPS_ASSIGN_OR_RETURN(
      SignatureTable table,
      SignatureTable::Parse(image.signatures_text, StrCat(image.name, "/signatures.txt")));
  const std::string arch = device.arch_name();
  std::vector<KernelSignature> listed;
  for (const KernelSignature& k : table.kernels()) {
    if (ShipsFor(k, arch)) listed.push_back(k);
  }
  if (image.fatbin.empty()) return listed;

  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::FatbinEntry> entries,
                          metadata::ParseFatbin(image.fatbin));
  auto elf = metadata::SelectElf(entries, arch);
  if (!elf.ok()) {
    return absl::FailedPreconditionError(
        StrCat("module ", image.name, ": no code for ", arch, ": ", elf.status().message()));
  }
  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::CubinKernel> cubin,
                          metadata::ReadCubinKernels(elf->payload));
  std::vector<KernelSignature> compiled;
  for (metadata::CubinKernel& k : cubin) {
    compiled.push_back(KernelSignature{k.name, std::move(k.params), {}});
  }
  // Offsets are compared only on the arch signatures.txt was written for; elsewhere only sizes.
  std::vector<KernelSignature> expected = listed;
  const std::vector<KernelSignature> compiled_layouts = compiled;
  if (arch != table.arch()) {
    for (auto* list : {&expected, &compiled}) {
      for (KernelSignature& k : *list) {
        for (KernelParam& p : k.params) p.offset = 0;
      }
    }
  }
  GPUOPS_RETURN_IF_ERROR(CompareSignatureTables(
      Layouts(arch, expected), Layouts(arch, compiled),
      StrCat("module ", image.name, " (", arch, " cubin vs signatures.txt)")));
  if (arch == table.arch()) return listed;
  // Same parameter sizes; report the offsets this arch's cubin actually uses.
  for (KernelSignature& k : listed) {
    const auto it = std::find_if(compiled_layouts.begin(), compiled_layouts.end(),
                                 [&](const KernelSignature& c) { return c.kernel == k.kernel; });
    for (size_t i = 0; i < k.params.size(); ++i) k.params[i].offset = it->params[i].offset;
  }
  return listed;
}

}  // namespace gpuops
