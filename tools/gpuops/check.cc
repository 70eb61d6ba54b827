// gpuops check: every op variant on a backend against its CPU reference, one row per case.
#include <algorithm>
#include <cstdio>
#include <regex>

#include "commands.h"
#include "gpuops/backends/default_registry.h"
#include "gpuops/runtime/str.h"
#include "ops/family.h"
#include "verify/random.h"

namespace gpuops::tools {

std::optional<uint64_t> ParseFlag(std::string_view command, std::string_view flag,
                                  const std::string& text, uint64_t min, uint64_t max) {
  uint64_t value = 0;
  if (!ParseDecimal(std::string_view(text), &value) || value < min || value > max) {
    std::fprintf(stderr, "gpuops %s: %s '%s' is not a decimal integer in %llu..%llu\n",
                 std::string(command).c_str(), std::string(flag).c_str(), text.c_str(),
                 static_cast<unsigned long long>(min), static_cast<unsigned long long>(max));
    return std::nullopt;
  }
  return value;
}

std::optional<std::regex> CompileFilter(std::string_view command, std::string_view flag,
                                        const std::string& pattern) {
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "gpuops %s: %s '%s' is not a valid regular expression: %s\n",
                 std::string(command).c_str(), std::string(flag).c_str(), pattern.c_str(),
                 e.what());
    return std::nullopt;
  }
}

std::unique_ptr<GpuBackend> CreateBackendOrReport(std::string_view command, const std::string& name,
                                                  int* exit_code) {
  auto gpu = DefaultBackendRegistry().Create(name);
  if (gpu.ok()) return *std::move(gpu);
  std::fprintf(stderr, "gpuops %s: backend '%s': %s\n", std::string(command).c_str(), name.c_str(),
               std::string(gpu.status().message()).c_str());
  *exit_code = absl::IsUnavailable(gpu.status()) ? kExitUnavailable : kExitUsage;
  return nullptr;
}

int RunCheck(const CheckOptions& options) {
  const std::optional<std::regex> op_filter = CompileFilter("check", "--op", options.op);
  if (!op_filter) return kExitUsage;
  auto shapes = ops::ParseShapeSet(options.shapes);
  if (!shapes.ok()) {
    std::fprintf(stderr, "gpuops check: --shapes: %s\n",
                 std::string(shapes.status().message()).c_str());
    return kExitUsage;
  }
  auto matches = [&](std::string_view op) {
    return std::regex_search(op.begin(), op.end(), *op_filter);
  };
  std::vector<const ops::Family*> families;
  size_t op_count = 0;
  for (const ops::Family* family : ops::AllFamilies()) {
    size_t matched = 0;
    for (const std::string& op : family->ops()) {
      if (matches(StrCat(family->name(), ".", op))) ++matched;
    }
    if (matched > 0) families.push_back(family);
    op_count += matched;
  }
  if (families.empty()) {
    std::fprintf(stderr,
                 "gpuops check: no op matches --op '%s' (ops are <family>.<op>; see gpuops "
                 "info)\n",
                 options.op.c_str());
    return kExitUsage;
  }
  const absl::StatusOr<uint64_t> run_seed = verify::RunSeed();
  if (!run_seed.ok()) {
    std::fprintf(stderr, "gpuops check: %s\n", std::string(run_seed.status().message()).c_str());
    return kExitUsage;
  }
  const uint64_t seed = *run_seed;
  int exit_code = kExitOk;
  std::unique_ptr<GpuBackend> gpu = CreateBackendOrReport("check", options.backend, &exit_code);
  if (gpu == nullptr) return exit_code;
  const bool mock = gpu->name() == "mock";
  std::vector<std::string> passed_over;
  if (options.backend == "auto" && DefaultBackendRegistry().ResolveAuto(&passed_over).ok()) {
    for (const std::string& why : passed_over) {
      std::printf("gpuops check: auto passed over %s\n", why.c_str());
    }
  }
  std::printf("gpuops check: backend %s (%s, %s), shapes %s, %zu ops, seed %llu\n",
              std::string(gpu->name()).c_str(), gpu->device_info().name.c_str(),
              gpu->device_info().arch_name().c_str(), options.shapes.c_str(), op_count,
              static_cast<unsigned long long>(seed));
  std::printf(
      "  (each row: op, shape, max error, bound, verdict; rerun a failure with "
      "GPUOPS_SEED=%llu)\n",
      static_cast<unsigned long long>(seed));

  size_t done = 0;
  size_t total = 0;
  size_t passed = 0;
  size_t failed = 0;
  size_t skipped = 0;
  ops::CheckOptions check;
  check.shapes = *shapes;
  check.include = matches;
  // The mock executes on this CPU: bound the cost of one case.
  check.mac_budget = mock ? uint64_t{1} << 28 : 0;
  check.seed = seed;
  check.on_case = [&](const ops::CheckReport& r) {
    ++done;
    switch (r.verdict) {
      case ops::CheckReport::Verdict::kPass:
        ++passed;
        break;
      case ops::CheckReport::Verdict::kFail:
        ++failed;
        break;
      case ops::CheckReport::Verdict::kSkip:
        ++skipped;
        break;
    }
    const std::string family(r.op.substr(0, r.op.find('.')));
    std::printf("[%4zu/%zu] %-7s %s\n", done, std::max(total, done), family.c_str(),
                r.line.c_str());
    std::fflush(stdout);
  };
  for (const ops::Family* family : families) {
    if (auto count = family->CountChecks(*gpu, check); count.ok()) total += *count;
  }
  int status = kExitOk;
  for (const ops::Family* family : families) {
    if (absl::Status s = family->Check(*gpu, check); !s.ok()) {
      std::fprintf(stderr, "gpuops check: %s family: %s\n", std::string(family->name()).c_str(),
                   std::string(s.message()).c_str());
      status = kExitFailed;
    }
  }
  std::printf("summary: %zu passed, %zu failed, %zu skipped%s\n", passed, failed, skipped,
              skipped > 0 ? " (over the mock's per-case budget; the GPU runs them)" : "");
  return failed > 0 ? kExitFailed : status;
}

}  // namespace gpuops::tools
