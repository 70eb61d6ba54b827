// Builds a family's signatures.txt sections from its compiled fatbin (CUDA) or code-object
// bundle (HIP) and its sources.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/runtime/kernel_metadata.h"
#include "gpuops/runtime/signature_table.h"

namespace gpuops::sigtool {

// Offsets and sizes from the fatbin's `arch` ELF entry, the architectures of every ELF entry that
// ships each kernel, and parameter names from `param_names` (kernel -> names, from the sources).
// Every kernel of the fatbin must be in `arch`'s image and have names for each parameter.
absl::StatusOr<SignatureTable> GenerateSignatures(
    metadata::Bytes fatbin, std::string_view arch,
    const std::map<std::string, std::vector<std::string>>& param_names);

// The HIP section: offsets and sizes of the caller's parameters from the bundle's `arch` code
// object ("gfx90a"), the archs of every code object that ships each kernel, names from the .hip
// sources.
absl::StatusOr<SignatureTable> GenerateHipSignatures(
    metadata::Bytes bundle, std::string_view arch,
    const std::map<std::string, std::vector<std::string>>& param_names);

}  // namespace gpuops::sigtool
