// The common family as tools and suites see it (ops/family.h): its kernels as ops and their
// check suite (common_checks.h).
#include "gpuops/runtime/str.h"
#include "ops/common/common_checks.h"
#include "ops/common/common_ops.h"
#include "ops/family.h"

namespace gpuops::ops::common {
namespace {

class CommonFamily final : public Family {
 public:
  std::string_view name() const override { return "common"; }
  ModuleImage image() const override { return EmbeddedModuleImage(); }
  std::vector<std::string> ops() const override { return CommonOps(); }
  void RegisterHostKernels(HostKernelRegistry& registry) const override {
    common::RegisterHostKernels(registry);
  }

  absl::Status Check(GpuBackend& gpu, const CheckOptions& options) const override {
    return RunCommonChecks(
               gpu, [&](const std::string& op) { return Included(options, op); }, options.seed,
               [&](const CommonCaseResult& r) {
                 if (!options.on_case) return;
                 options.on_case({.op = StrCat("common.", r.op),
                                  .line = r.Describe(),
                                  .verdict = r.pass() ? CheckReport::Verdict::kPass
                                                      : CheckReport::Verdict::kFail});
               })
        .status();
  }

  absl::StatusOr<size_t> CountChecks(GpuBackend&, const CheckOptions& options) const override {
    size_t total = 0;
    for (const std::string& op : CommonOps()) {
      if (Included(options, op)) total += CommonCheckSizes().size();
    }
    return total;
  }

 private:
  static bool Included(const CheckOptions& options, std::string_view op) {
    return options.Includes(StrCat("common.", op));
  }
};

}  // namespace

const Family& Unit() {
  static const auto* family = new CommonFamily();
  return *family;
}

}  // namespace gpuops::ops::common
