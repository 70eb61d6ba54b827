// signatures.txt: one op family's compiled kernel parameter lists, committed next to its sources.
//
//   # comment lines start with '#'
//   arch sm_90a
//   dense_gemm_bf16 sm_80,sm_90a a:0:8 b:8:8 c:16:8 m:24:4 n:28:4 k:32:4
//   kernel_without_params sm_90a -
//
// The `arch` line names the architecture the offsets were read from. Each kernel line holds the
// kernel's symbol, the architectures whose image ships it, and its parameters in order as
// name:offset:size. gpuops_sigtool writes the file from the built fatbin; backends read it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpuops/runtime/kernel_signature.h"

namespace gpuops {

class SignatureTable {
 public:
  SignatureTable() = default;
  SignatureTable(std::string arch, std::vector<KernelSignature> kernels);

  // `origin` names the text in error messages ("ops/dense/signatures.txt").
  static absl::StatusOr<SignatureTable> Parse(std::string_view text, std::string_view origin);

  // The canonical text, with a header comment naming `family`. Parse(Format()) round-trips.
  std::string Format(std::string_view family) const;

  const KernelSignature* Find(std::string_view kernel) const;
  const std::vector<KernelSignature>& kernels() const { return kernels_; }
  const std::string& arch() const { return arch_; }

 private:
  std::string arch_;
  std::vector<KernelSignature> kernels_;  // sorted by kernel name
};

// OK when both tables hold the same kernels with the same parameters and architectures; otherwise
// kFailedPrecondition with a line diff ("- expected", "+ actual") of the kernels that differ.
absl::Status CompareSignatureTables(const SignatureTable& expected, const SignatureTable& actual,
                                    std::string_view what);

}  // namespace gpuops
