// signatures.txt: one op family's compiled kernel parameter lists, committed next to its sources.
//
//   # comment lines start with '#'
//   arch sm_90a
//   dense_gemm_bf16 sm_80,sm_90a a:0:8 b:8:8 c:16:8 m:24:4 n:28:4 k:32:4
//   kernel_without_params sm_90a -
//
//   hip-arch gfx90a
//   dense_gemm_bf16 gfx1030,gfx908,gfx90a,gfx940 a:0:8 b:8:8 c:16:8 m:24:4 n:28:4 k:32:4
//
// The `arch` line names the architecture the offsets were read from. Each kernel line holds the
// kernel's symbol, the architectures whose image ships it, and its parameters in order as
// name:offset:size. An optional `hip-arch` line starts the HIP section: the same for the AMD code
// objects hipcc built (the caller's parameters only; the hidden ones the runtime fills are left
// out). gpuops_sigtool writes each section from the built fatbin or code-object bundle, keeping
// the other; backends and the mock read them.
#pragma once

#include <memory>
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

  // The HIP section (its arch() a gfx target); null when the file has none.
  const SignatureTable* hip() const { return hip_.get(); }
  // This table with `hip` as its HIP section (a table without one of its own), or without any.
  SignatureTable WithHip(SignatureTable hip) const;
  SignatureTable WithoutHip() const;

 private:
  std::string arch_;
  std::vector<KernelSignature> kernels_;  // sorted by kernel name
  std::shared_ptr<const SignatureTable> hip_;
};

// OK when both tables hold the same kernels with the same parameters and architectures, in both
// sections; otherwise kFailedPrecondition with a line diff ("- expected", "+ actual") of the
// kernels that differ (HIP lines marked "hip").
absl::Status CompareSignatureTables(const SignatureTable& expected, const SignatureTable& actual,
                                    std::string_view what);

}  // namespace gpuops
