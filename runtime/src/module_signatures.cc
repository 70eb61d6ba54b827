#include "gpuops/runtime/module_signatures.h"

#include <algorithm>

#include "gpuops/runtime/amd_code_object.h"
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

// `listed` (from signatures.txt, written on `written_arch`) against `compiled` (read from the
// device's image): the same kernels with the same parameter sizes, and the same offsets where the
// device is `written_arch`. Returns `listed` with the offsets the device's image uses.
absl::StatusOr<std::vector<KernelSignature>> MatchCompiled(const ModuleImage& image,
                                                           const std::string& arch,
                                                           const std::string& written_arch,
                                                           std::string_view image_kind,
                                                           std::vector<KernelSignature> listed,
                                                           std::vector<KernelSignature> compiled) {
  std::vector<KernelSignature> expected = listed;
  const std::vector<KernelSignature> compiled_layouts = compiled;
  if (arch != written_arch) {
    for (auto* list : {&expected, &compiled}) {
      for (KernelSignature& k : *list) {
        for (KernelParam& p : k.params) p.offset = 0;
      }
    }
  }
  GPUOPS_RETURN_IF_ERROR(CompareSignatureTables(
      Layouts(arch, expected), Layouts(arch, compiled),
      StrCat("module ", image.name, " (", arch, " ", image_kind, " vs signatures.txt)")));
  if (arch == written_arch) return listed;
  // Same parameter sizes; report the offsets this arch's image actually uses.
  for (KernelSignature& k : listed) {
    const auto it = std::find_if(compiled_layouts.begin(), compiled_layouts.end(),
                                 [&](const KernelSignature& c) { return c.kernel == k.kernel; });
    for (size_t i = 0; i < k.params.size(); ++i) k.params[i].offset = it->params[i].offset;
  }
  return listed;
}

std::vector<KernelSignature> ShippedFor(const SignatureTable& table, const std::string& arch) {
  std::vector<KernelSignature> listed;
  for (const KernelSignature& k : table.kernels()) {
    if (ShipsFor(k, arch)) listed.push_back(k);
  }
  return listed;
}

// An AMD device: the HIP section, checked against the bundle's code object for the target.
absl::StatusOr<std::vector<KernelSignature>> ResolveHip(const ModuleImage& image,
                                                        const SignatureTable& table,
                                                        const std::string& arch) {
  const SignatureTable* hip = table.hip();
  if (hip == nullptr) {
    return absl::FailedPreconditionError(
        StrCat("module ", image.name,
               ": its signatures.txt has no HIP section, so the family "
               "ships no kernels for ",
               arch));
  }
  std::vector<KernelSignature> listed = ShippedFor(*hip, arch);
  if (image.hip_bundle.empty()) return listed;
  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::OffloadBundleEntry> entries,
                          metadata::ParseOffloadBundle(image.hip_bundle));
  auto object = metadata::SelectCodeObject(entries, arch);
  if (!object.ok()) {
    return absl::FailedPreconditionError(StrCat("module ", image.name, ": no code object for ",
                                                arch, ": ", object.status().message()));
  }
  GPUOPS_ASSIGN_OR_RETURN(std::vector<metadata::AmdKernel> kernels,
                          metadata::ReadAmdKernels(object->payload));
  std::vector<KernelSignature> compiled;
  for (metadata::AmdKernel& k : kernels) {
    compiled.push_back(KernelSignature{k.name, std::move(k.params), {}});
  }
  return MatchCompiled(image, arch, hip->arch(), "code object", std::move(listed),
                       std::move(compiled));
}

}  // namespace

absl::StatusOr<std::vector<KernelSignature>> ResolveModuleSignatures(const ModuleImage& image,
                                                                     const DeviceInfo& device) {
  GPUOPS_ASSIGN_OR_RETURN(
      SignatureTable table,
      SignatureTable::Parse(image.signatures_text, StrCat(image.name, "/signatures.txt")));
  const std::string arch = device.arch_name();
  if (device.is_amd()) return ResolveHip(image, table, arch);
  std::vector<KernelSignature> listed = ShippedFor(table, arch);
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
  return MatchCompiled(image, arch, table.arch(), "cubin", std::move(listed), std::move(compiled));
}

}  // namespace gpuops
