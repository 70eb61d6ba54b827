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
  // sections[0]: CUDA (`arch`), sections[1]: HIP (`hip-arch`, optional).
  std::string archs[2];
  std::vector<KernelSignature> kernels[2];
  int section = 0;
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
      if (fields.size() != 2 || !archs[0].empty() || section != 0) {
        return error("expected one 'arch <sm_XX>' line, before any 'hip-arch'");
      }
      archs[0] = std::string(fields[1]);
      continue;
    }
    if (fields[0] == "hip-arch") {
      if (fields.size() != 2 || section != 0) return error("expected one 'hip-arch <gfxNNN>' line");
      section = 1;
      archs[1] = std::string(fields[1]);
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
    std::vector<KernelSignature>& mine = kernels[section];
    if (std::any_of(mine.begin(), mine.end(),
                    [&](const KernelSignature& k) { return k.kernel == sig.kernel; })) {
      return error("kernel listed twice");
    }
    mine.push_back(std::move(sig));
  }
  if (archs[0].empty()) {
    return absl::InvalidArgumentError(StrCat(origin, ": no 'arch <sm_XX>' line"));
  }
  SignatureTable table(std::move(archs[0]), std::move(kernels[0]));
  if (section == 1) return table.WithHip(SignatureTable(std::move(archs[1]), std::move(kernels[1])));
  return table;
}

SignatureTable SignatureTable::WithHip(SignatureTable hip) const {
  SignatureTable out = *this;
  out.hip_ = std::make_shared<const SignatureTable>(hip.WithoutHip());
  return out;
}

SignatureTable SignatureTable::WithoutHip() const {
  SignatureTable out = *this;
  out.hip_.reset();
  return out;
}

std::string SignatureTable::Format(std::string_view family) const {
  std::string out = StrCat(
      "# Compiled parameter lists of the '", family,
      "' kernels: name:offset:size (bytes) for each parameter\n"
      "# on the arch below, and the architectures whose image ships the kernel. Written by\n"
      "# gpuops_sigtool from the built fatbin; a test regenerates it and fails on any drift.\n",
      "arch ", arch_, "\n");
  for (const KernelSignature& k : kernels_) StrAppend(&out, FormatKernel(k), "\n");
  if (hip_ != nullptr) {
    StrAppend(&out,
              "# HIP: the same from the AMD code objects hipcc built (the caller's parameters; "
              "hidden ones\n# left out), offsets on the hip-arch below. Written by gpuops_sigtool "
              "--hsaco.\nhip-arch ",
              hip_->arch_, "\n");
    for (const KernelSignature& k : hip_->kernels_) StrAppend(&out, FormatKernel(k), "\n");
  }
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
  std::string diff;
  auto compare = [&diff](const SignatureTable* e, const SignatureTable* a, std::string_view tag) {
    static const SignatureTable kEmpty;
    if (e == nullptr) e = &kEmpty;
    if (a == nullptr) a = &kEmpty;
    std::map<std::string, std::pair<std::string, std::string>> lines;  // kernel -> (exp, act)
    for (const KernelSignature& k : e->kernels()) lines[k.kernel].first = FormatKernel(k);
    for (const KernelSignature& k : a->kernels()) lines[k.kernel].second = FormatKernel(k);
    if (e->arch() != a->arch()) {
      StrAppend(&diff, "- ", tag, "arch ", e->arch(), "\n+ ", tag, "arch ", a->arch(), "\n");
    }
    for (const auto& [kernel, pair] : lines) {
      if (pair.first == pair.second) continue;
      if (!pair.first.empty()) StrAppend(&diff, "- ", tag, pair.first, "\n");
      if (!pair.second.empty()) StrAppend(&diff, "+ ", tag, pair.second, "\n");
    }
  };
  compare(&expected, &actual, "");
  compare(expected.hip(), actual.hip(), "hip ");
  if (diff.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      StrCat(what, ": compiled signatures differ (- expected, + actual):\n", diff));
}

}  // namespace gpuops
