// gpuops info: backends (available or why not), the device, and the kernels each family ships.
#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "gpuops/backends/default_registry.h"
#include "gpuops/runtime/amd_code_object.h"
#include "gpuops/runtime/kernel_metadata.h"
#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/signature_table.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"

namespace gpuops::tools {
namespace {

std::string Bytes(uint64_t b) {
  char buf[32];
  if (b >= (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.1f GiB", b / double(uint64_t{1} << 30));
  } else if (b >= (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof(buf), "%.0f MiB", b / double(uint64_t{1} << 20));
  } else if (b >= 1024) {
    std::snprintf(buf, sizeof(buf), "%.0f KiB", b / 1024.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%llu B", static_cast<unsigned long long>(b));
  }
  return buf;
}

std::string DescribeFatbin(const ModuleImage& image) {
  if (image.fatbin.empty()) return "no fatbin in this build (signatures.txt only; mock backend)";
  auto entries = metadata::ParseFatbin(image.fatbin);
  if (!entries.ok()) return StrCat("fatbin unreadable: ", entries.status().message());
  return StrCat("fatbin ", Bytes(image.fatbin.size()), ": ",
                StrJoin(*entries, ", ", [](std::string* out, const metadata::FatbinEntry& e) {
                  StrAppend(out, e.arch_name(),
                            e.kind == metadata::FatbinEntryKind::kPtx ? " PTX" : " SASS",
                            e.compressed ? " (compressed)" : "");
                }));
}

std::string DescribeBundle(const ModuleImage& image) {
  if (image.hip_bundle.empty()) return "no code objects in this build (the hip preset embeds them)";
  auto entries = metadata::ParseOffloadBundle(image.hip_bundle);
  if (!entries.ok()) return StrCat("code-object bundle unreadable: ", entries.status().message());
  std::vector<std::string> targets;
  for (const metadata::OffloadBundleEntry& e : *entries) {
    if (!e.arch().empty()) targets.push_back(e.arch());
  }
  return StrCat("code-object bundle ", Bytes(image.hip_bundle.size()), ": ",
                StrJoin(targets, ", "));
}

}  // namespace

int RunInfo(const InfoOptions&) {
  const BackendRegistry& registry = DefaultBackendRegistry();
  auto chosen = registry.ResolveAuto();
  if (absl::IsInvalidArgument(chosen.status())) {  // GPUOPS_BACKEND names no backend
    std::fprintf(stderr, "gpuops info: %s\n", std::string(chosen.status().message()).c_str());
    return kExitUsage;
  }
  std::printf("backends (auto picks %s; GPUOPS_BACKEND overrides):\n",
              chosen.ok() ? chosen->c_str() : StrCat("none: ", chosen.status().message()).c_str());
  for (const std::string& name : registry.names()) {
    absl::Status s = registry.Probe(name);
    absl::Status served = s.ok() ? registry.Served(name) : absl::OkStatus();
    std::printf("  %-5s %s%s%s\n", name.c_str(), s.ok() ? "available" : "unavailable: ",
                s.ok() ? "" : std::string(s.message()).c_str(),
                served.ok() ? "" : StrCat(", but auto passes it over: ", served.message()).c_str());
  }
  DeviceInfo device;
  if (chosen.ok()) {
    auto gpu = registry.Create(*chosen);
    if (gpu.ok()) {
      device = (*gpu)->device_info();
      std::printf(
          "device (%s): %s, %s, %d SMs, %s memory, %s L2, shared memory %s per block "
          "(opt-in %s), grid (%u, %u, %u), %u threads per block\n",
          chosen->c_str(), device.name.c_str(), device.arch_name().c_str(), device.sm_count,
          Bytes(device.total_memory_bytes).c_str(), Bytes(device.l2_bytes).c_str(),
          Bytes(device.shared_mem_per_block).c_str(),
          Bytes(device.shared_mem_per_block_optin).c_str(), device.max_grid.x, device.max_grid.y,
          device.max_grid.z, device.max_threads_per_block);
    } else {
      std::printf("device (%s): cannot open: %s\n", chosen->c_str(),
                  std::string(gpu.status().message()).c_str());
    }
  }
  std::printf("families (parameters as name:offset:size in bytes; * = shipped for %s):\n",
              device.arch_name().c_str());
  int status = kExitOk;
  for (const ops::Family* family : ops::AllFamilies()) {
    const ModuleImage image = family->image();
    auto table =
        SignatureTable::Parse(image.signatures_text, StrCat(family->name(), "/signatures.txt"));
    if (!table.ok()) {
      std::printf("  %s: %s\n", std::string(family->name()).c_str(),
                  std::string(table.status().message()).c_str());
      status = kExitFailed;
      continue;
    }
    std::vector<std::string> shipped;
    if (device.arch_major != 0 || device.is_amd()) {
      if (auto sigs = ResolveModuleSignatures(image, device); sigs.ok()) {
        for (const KernelSignature& k : *sigs) shipped.push_back(k.kernel);
      }
    }
    std::printf("  %s%s: %zu kernels, offsets for %s; %s\n", std::string(family->name()).c_str(),
                family->test_only() ? " (tests and benchmarks only)" : "", table->kernels().size(),
                table->arch().c_str(), DescribeFatbin(image).c_str());
    auto print = [&](const KernelSignature& k, bool here) {
      std::printf("    %s %s [%s] (%s)\n", here ? "*" : " ", k.kernel.c_str(),
                  StrJoin(k.archs, ",").c_str(),
                  StrJoin(k.params, ", ", [](std::string* out, const KernelParam& p) {
                    StrAppend(out, p.name, ":", p.offset, ":", p.size);
                  }).c_str());
    };
    auto here = [&](const KernelSignature& k) {
      return std::find(shipped.begin(), shipped.end(), k.kernel) != shipped.end();
    };
    for (const KernelSignature& k : table->kernels()) print(k, !device.is_amd() && here(k));
    if (const SignatureTable* hip = table->hip()) {
      std::printf("    HIP: %zu kernels, offsets for %s; %s\n", hip->kernels().size(),
                  hip->arch().c_str(), DescribeBundle(image).c_str());
      for (const KernelSignature& k : hip->kernels()) print(k, device.is_amd() && here(k));
    }
  }
  return status;
}

}  // namespace gpuops::tools
