#include "gpuops/runtime/signature_table.h"

#include <algorithm>
#include <map>

#include "gpuops/runtime/str.h"

namespace gpuops {
namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (std::isdigit(static_cast<unsigned char>(s[0])) != 0)) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '#';
  });
}

std::string FormatKernel(const KernelSignature& k) {
  std::string line = StrCat(k.kernel, " ", k.archs.empty() ? "-" : StrJoin(k.archs, ","));
  if (k.params.empty()) return StrCat(line, " -");
  for (const KernelParam& p : k.params) StrAppend(&line, " ", p.name, ":", p.offset, ":", p.size);
  return line;
}

}  // namespace

SignatureTable::SignatureTable(std::string arch, std::vector<KernelSignature> kernels)
    : arch_(std::move(arch)), kernels_(std::move(kernels)) {
  std::sort(kernels_.begin(), kernels_.end(),
            [](const KernelSignature& a, const KernelSignature& b) { return a.kernel < b.kernel; });
}

absl::StatusOr<SignatureTable> SignatureTable::Parse(std::string_view text,
                                                     std::string_view origin) {
  std::string arch;
  std::vector<KernelSignature> kernels;
  int line_number = 0;
  for (std::string_view line : StrSplit(text, '\n')) {
    ++line_number;
    line = StripWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError(
          StrCat(origin, ":", line_number, ": ", what, " in \"", line, "\""));
    };
    std::vector<std::string_view> fields = StrSplit(line, ' ', /*skip_empty=*/true);
    if (fields[0] == "arch") {
      if (fields.size() != 2 || !arch.empty()) return error("expected one 'arch <sm_XX>' line");
      arch = std::string(fields[1]);
      continue;
    }
    if (fields.size() < 3) return error("expected 'kernel archs params...'");
    KernelSignature sig;
    sig.kernel = std::string(fields[0]);
    if (!IsIdentifier(sig.kernel)) return error("kernel name is not an identifier");
    if (fields[1] != "-") {
      for (std::string_view a : StrSplit(fields[1], ',')) sig.archs.emplace_back(a);
    }
    if (!(fields.size() == 3 && fields[2] == "-")) {
      for (size_t i = 2; i < fields.size(); ++i) {
        std::vector<std::string_view> parts = StrSplit(fields[i], ':');
        KernelParam p;
        if (parts.size() != 3 || !IsIdentifier(parts[0]) || !ParseUnsigned(parts[1], &p.offset) ||
            !ParseUnsigned(parts[2], &p.size)) {
          return error(StrCat("parameter \"", fields[i], "\" is not name:offset:size"));
        }
        p.name = std::string(parts[0]);
        sig.params.push_back(std::move(p));
      }
    }
    if (std::any_of(kernels.begin(), kernels.end(),
                    [&](const KernelSignature& k) { return k.kernel == sig.kernel; })) {
      return error("kernel listed twice");
    }
    kernels.push_back(std::move(sig));
  }
  if (arch.empty()) {
    return absl::InvalidArgumentError(StrCat(origin, ": no 'arch <sm_XX>' line"));
  }
  return SignatureTable(std::move(arch), std::move(kernels));
}

std::string SignatureTable::Format(std::string_view family) const {
  std::string out = StrCat(
      "# Compiled parameter lists of the '", family,
      "' kernels: name:offset:size (bytes) for each parameter\n"
      "# on the arch below, and the architectures whose image ships the kernel. Written by\n"
      "# gpuops_sigtool from the built fatbin; a test regenerates it and fails on any drift.\n",
      "arch ", arch_, "\n");
  for (const KernelSignature& k : kernels_) StrAppend(&out, FormatKernel(k), "\n");
  return out;
}

const KernelSignature* SignatureTable::Find(std::string_view kernel) const {
  auto it = std::lower_bound(
      kernels_.begin(), kernels_.end(), kernel,
      [](const KernelSignature& k, std::string_view name) { return k.kernel < name; });
  return (it != kernels_.end() && it->kernel == kernel) ? &*it : nullptr;
}

absl::Status CompareSignatureTables(const SignatureTable& expected, const SignatureTable& actual,
                                    std::string_view what) {
  std::map<std::string, std::pair<std::string, std::string>> lines;  // kernel -> (exp, act)
  for (const KernelSignature& k : expected.kernels()) lines[k.kernel].first = FormatKernel(k);
  for (const KernelSignature& k : actual.kernels()) lines[k.kernel].second = FormatKernel(k);
  std::string diff;
  if (expected.arch() != actual.arch()) {
    StrAppend(&diff, "- arch ", expected.arch(), "\n+ arch ", actual.arch(), "\n");
  }
  for (const auto& [kernel, pair] : lines) {
    if (pair.first == pair.second) continue;
    if (!pair.first.empty()) StrAppend(&diff, "- ", pair.first, "\n");
    if (!pair.second.empty()) StrAppend(&diff, "+ ", pair.second, "\n");
  }
  if (diff.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      StrCat(what, ": compiled signatures differ (- expected, + actual):\n", diff));
}

}  // namespace gpuops
