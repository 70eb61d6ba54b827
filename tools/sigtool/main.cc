// gpuops_sigtool: writes or checks an op family's signatures.txt from its built fatbin (the CUDA
// section) or its code-object bundle (the HIP section), keeping the other section as the file has
// it.
//
//   gpuops_sigtool --family dense --fatbin build/cuda/ops/dense/dense.fatbin
//       --sources ops/dense/cuda/*.cu ops/dense/cuda/*.cuh (--out F | --check F)
//   gpuops_sigtool --family common --hsaco build/hip/ops/common/common.hsaco
//       --sources ops/common/hip/*.hip --arch gfx90a (--out F | --check F)
//
// --check exits 1 and prints a diff when the committed file differs from the compiled code.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
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

struct Options {
  std::string family;
  std::string fatbin;  // one of fatbin and hsaco
  std::string hsaco;
  std::vector<std::string> sources;
  std::string arch;
  std::string out;
  std::string check;
};

absl::Status Run(const Options& o) {
  using namespace gpuops;  // NOLINT
  const bool hip = !o.hsaco.empty();
  GPUOPS_ASSIGN_OR_RETURN(std::string compiled, ReadFile(hip ? o.hsaco : o.fatbin));
  std::map<std::string, std::vector<std::string>> names;
  for (const std::string& path : o.sources) {
    GPUOPS_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    GPUOPS_ASSIGN_OR_RETURN(auto found, sigtool::ParseKernelParamNames(text, path));
    names.merge(found);
  }
  const metadata::Bytes bytes(reinterpret_cast<const uint8_t*>(compiled.data()), compiled.size());
  const std::string arch = !o.arch.empty() ? o.arch : hip ? "gfx90a" : "sm_90a";
  GPUOPS_ASSIGN_OR_RETURN(SignatureTable section,
                          hip ? sigtool::GenerateHipSignatures(bytes, arch, names)
                              : sigtool::GenerateSignatures(bytes, arch, names));
  // The file as the compiled code says it should read: this section, the other one kept.
  const std::string& path = o.check.empty() ? o.out : o.check;
  std::optional<SignatureTable> current;
  std::string current_text;
  if (absl::StatusOr<std::string> text = ReadFile(path); text.ok()) {
    current_text = *text;
    GPUOPS_ASSIGN_OR_RETURN(current, SignatureTable::Parse(current_text, path));
  } else if (!o.check.empty() || hip) {
    return absl::NotFoundError(StrCat(path, ": cannot read it",
                                      hip ? " (the HIP section goes into a file with its CUDA "
                                            "section)"
                                          : ""));
  }
  SignatureTable expected = section;
  if (hip) {
    expected = current->WithHip(section);
  } else if (current.has_value() && current->hip() != nullptr) {
    expected = section.WithHip(*current->hip());
  }
  if (!o.check.empty()) {
    GPUOPS_RETURN_IF_ERROR(CompareSignatureTables(
        *current, expected,
        StrCat(o.check, " is out of date (regenerate: cmake --build --preset ",
               hip ? "hip" : "cuda", " --target update_signatures)")));
    if (current_text != expected.Format(o.family)) {
      return absl::FailedPreconditionError(StrCat(
          o.check, ": same signatures, different text; regenerate it with update_signatures"));
    }
    std::printf("%s matches the compiled %s %s (%zu kernels)\n", o.check.c_str(),
                o.family.c_str(), hip ? "code objects" : "fatbin", section.kernels().size());
    return absl::OkStatus();
  }
  std::ofstream out(o.out, std::ios::binary);
  out << expected.Format(o.family);
  if (!out) return absl::InternalError(StrCat("cannot write ", o.out));
  std::printf("wrote %s (%zu %s kernels)\n", o.out.c_str(), section.kernels().size(),
              hip ? "HIP" : "CUDA");
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes or checks an op family's signatures.txt from its compiled code"};
  Options o;
  app.add_option("--family", o.family, "op family name")->required();
  auto* fatbin = app.add_option("--fatbin", o.fatbin, "the family's built fatbin (CUDA section)")
                     ->check(CLI::ExistingFile);
  auto* hsaco = app.add_option("--hsaco", o.hsaco,
                               "the family's code-object bundle from hipcc (HIP section)")
                    ->check(CLI::ExistingFile);
  fatbin->excludes(hsaco);
  app.add_option("--sources", o.sources, "the family's kernel sources (parameter names)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--arch", o.arch,
                 "architecture whose offsets are recorded (default sm_90a, gfx90a with --hsaco)");
  auto* out_opt = app.add_option("--out", o.out, "write signatures.txt here");
  auto* check_opt = app.add_option("--check", o.check, "compare with this committed file");
  out_opt->excludes(check_opt);
  CLI11_PARSE(app, argc, argv);
  if (o.out.empty() && o.check.empty()) {
    std::fprintf(stderr, "gpuops_sigtool: give --out or --check\n");
    return 2;
  }
  if (o.fatbin.empty() == o.hsaco.empty()) {
    std::fprintf(stderr, "gpuops_sigtool: give one of --fatbin and --hsaco\n");
    return 2;
  }
  absl::Status s = Run(o);
  if (!s.ok()) {
    std::fprintf(stderr, "gpuops_sigtool: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
