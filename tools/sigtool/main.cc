// gpuops_sigtool: writes or checks an op family's signatures.txt from its built fatbin.
//
//   gpuops_sigtool --family dense --fatbin build/cuda/ops/dense/dense.fatbin
//       --sources ops/dense/cuda/*.cu ops/dense/cuda/*.cuh (--out F | --check F)
//
// --check exits 1 and prints a diff when the committed file differs from the compiled code.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "CLI/CLI.hpp"
#include "generate.h"
#include "gpuops/runtime/status.h"
#include "gpuops/runtime/str.h"
#include "kernel_source.h"

namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(gpuops::StrCat("cannot read ", path));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

absl::Status Run(const std::string& family, const std::string& fatbin_path,
                 const std::vector<std::string>& sources, const std::string& arch,
                 const std::string& out_path, const std::string& check_path) {
  using namespace gpuops;  // NOLINT
  GPUOPS_ASSIGN_OR_RETURN(std::string fatbin, ReadFile(fatbin_path));
  std::map<std::string, std::vector<std::string>> names;
  for (const std::string& path : sources) {
    GPUOPS_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    GPUOPS_ASSIGN_OR_RETURN(auto found, sigtool::ParseKernelParamNames(text, path));
    names.merge(found);
  }
  GPUOPS_ASSIGN_OR_RETURN(
      SignatureTable table,
      sigtool::GenerateSignatures(
          metadata::Bytes(reinterpret_cast<const uint8_t*>(fatbin.data()), fatbin.size()), arch,
          names));
  if (!check_path.empty()) {
    GPUOPS_ASSIGN_OR_RETURN(std::string committed_text, ReadFile(check_path));
    GPUOPS_ASSIGN_OR_RETURN(SignatureTable committed,
                            SignatureTable::Parse(committed_text, check_path));
    GPUOPS_RETURN_IF_ERROR(CompareSignatureTables(
        committed, table,
        StrCat(check_path,
               " is out of date (regenerate: cmake --build --preset cuda --target "
               "update_signatures)")));
    if (committed_text != table.Format(family)) {
      return absl::FailedPreconditionError(StrCat(
          check_path, ": same signatures, different text; regenerate it with update_signatures"));
    }
    std::printf("%s matches the compiled %s fatbin (%zu kernels)\n", check_path.c_str(),
                family.c_str(), table.kernels().size());
    return absl::OkStatus();
  }
  std::ofstream out(out_path, std::ios::binary);
  out << table.Format(family);
  if (!out) return absl::InternalError(StrCat("cannot write ", out_path));
  std::printf("wrote %s (%zu kernels)\n", out_path.c_str(), table.kernels().size());
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes or checks an op family's signatures.txt from its compiled fatbin"};
  std::string family;
  std::string fatbin;
  std::vector<std::string> sources;
  std::string arch = "sm_90a";
  std::string out;
  std::string check;
  app.add_option("--family", family, "op family name")->required();
  app.add_option("--fatbin", fatbin, "the family's built fatbin")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--sources", sources, "the family's CUDA sources (parameter names)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--arch", arch, "architecture whose offsets are recorded");
  auto* out_opt = app.add_option("--out", out, "write signatures.txt here");
  auto* check_opt = app.add_option("--check", check, "compare with this committed file");
  out_opt->excludes(check_opt);
  CLI11_PARSE(app, argc, argv);
  if (out.empty() && check.empty()) {
    std::fprintf(stderr, "gpuops_sigtool: give --out or --check\n");
    return 2;
  }
  absl::Status s = Run(family, fatbin, sources, arch, out, check);
  if (!s.ok()) {
    std::fprintf(stderr, "gpuops_sigtool: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
