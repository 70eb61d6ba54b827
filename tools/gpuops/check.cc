// gpuops check: every op variant on a backend against its CPU reference, one row per case.
#include <cstdio>
#include <regex>

#include "commands.h"
#include "gpuops/backends/default_registry.h"
#include "gpuops/runtime/str.h"
#include "ops/dense/dense_gemm.h"
#include "verify/common_suite.h"
#include "verify/dense_suite.h"
#include "verify/random.h"

namespace gpuops::tools {

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

std::unique_ptr<GpuBackend> CreateBackendOrReport(std::string_view command,
                                                  const std::string& name, int* exit_code) {
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
  auto shapes = verify::ParseShapeSet(options.shapes);
  if (!shapes.ok()) {
    std::fprintf(stderr, "gpuops check: --shapes: %s\n",
                 std::string(shapes.status().message()).c_str());
    return kExitUsage;
  }
  auto matches = [&](const std::string& op) { return std::regex_search(op, *op_filter); };
  std::vector<std::string> ops;
  for (const std::string& c : verify::CommonOps()) {
    if (matches("common." + c)) ops.push_back("common." + c);
  }
  for (const auto& s : ops::dense::kVariants) {
    if (matches(StrCat("dense.", s.name))) ops.push_back(StrCat("dense.", s.name));
  }
  if (ops.empty()) {
    std::fprintf(stderr,
                 "gpuops check: no op matches --op '%s' (ops are common.<kernel> and "
                 "dense.<variant>; see gpuops info)\n",
                 options.op.c_str());
    return kExitUsage;
  }
  int exit_code = kExitOk;
  std::unique_ptr<GpuBackend> gpu = CreateBackendOrReport("check", options.backend, &exit_code);
  if (gpu == nullptr) return exit_code;
  const bool mock = gpu->name() == "mock";
  const uint64_t seed = verify::RunSeed();
  std::printf("gpuops check: backend %s (%s, %s), shapes %s, %zu ops, seed %llu\n",
              std::string(gpu->name()).c_str(), gpu->device_info().name.c_str(),
              gpu->device_info().arch_name().c_str(), options.shapes.c_str(), ops.size(),
              static_cast<unsigned long long>(seed));
  std::printf(
      "  (each row: op, shape, max error, bound, verdict; rerun a failure with "
      "GPUOPS_SEED=%llu)\n",
      static_cast<unsigned long long>(seed));

  // Total for progress: dense cases of the shipped variants plus four per common op.
  auto dense = ops::dense::DenseGemm::Load(*gpu);
  size_t total = 0;
  for (const std::string& op : ops) {
    if (op.starts_with("common.")) {
      total += 4;
      continue;
    }
    auto v = ops::dense::ParseVariant(op.substr(6));
    if (dense.ok() && v.ok() && dense->Ships(*v)) total += verify::DenseShapes(*shapes, *v).size();
  }
  size_t done = 0;
  size_t passed = 0;
  size_t failed = 0;
  size_t skipped = 0;
  auto row = [&](const std::string& op, const std::string& text, bool ok, bool skip) {
    ++done;
    (skip ? skipped : ok ? passed : failed)++;
    std::printf("[%4zu/%zu] %-7s %s\n", done, total, op.c_str(), text.c_str());
    std::fflush(stdout);
  };
  int status = kExitOk;
  auto common = verify::RunCommonSuite(
      *gpu, [&](const std::string& op) { return matches("common." + op); }, seed,
      [&](const verify::CommonCaseResult& r) { row("common", r.Describe(), r.pass(), false); });
  if (!common.ok()) {
    std::fprintf(stderr, "gpuops check: common family: %s\n",
                 std::string(common.status().message()).c_str());
    status = kExitFailed;
  }
  verify::DenseSuiteOptions dense_options;
  dense_options.shapes = *shapes;
  dense_options.include = [&](ops::dense::Variant v) {
    return matches(StrCat("dense.", ops::dense::Spec(v).name));
  };
  // The mock executes on this CPU: bound the cost of one case.
  dense_options.mac_budget = mock ? uint64_t{1} << 28 : 0;
  dense_options.seed = seed;
  dense_options.on_case = [&](const verify::DenseCaseResult& r) {
    row("dense", r.Describe(), r.pass(), !r.skipped.empty());
  };
  auto results = verify::RunDenseSuite(*gpu, dense_options);
  if (!results.ok()) {
    std::fprintf(stderr, "gpuops check: dense family: %s\n",
                 std::string(results.status().message()).c_str());
    status = kExitFailed;
  }
  std::printf("summary: %zu passed, %zu failed, %zu skipped%s\n", passed, failed, skipped,
              skipped > 0 ? " (over the mock's per-case budget; the GPU runs them)" : "");
  return failed > 0 ? kExitFailed : status;
}

}  // namespace gpuops::tools
