// gpuops trace: the launches an op makes for a problem, recorded by the mock without executing.
// JSON output follows tools/gpuops/trace.schema.json.
#include <cstdio>

#include "commands.h"
#include "ops/family.h"
#include "trace_format.h"

namespace gpuops::tools {

int RunTrace(const TraceOptions& o) {
  const size_t dot = o.op.find('.');
  const std::string family_name = o.op.substr(0, dot);
  const std::string variant = dot == std::string::npos ? "" : o.op.substr(dot + 1);
  const ops::Family* family = ops::FindFamily(family_name);
  if (family == nullptr) {
    std::fprintf(stderr,
                 "gpuops trace: unknown op '%s' (ops are <family> or <family>.<op>; "
                 "families: %s)\n",
                 o.op.c_str(), ops::FamilyNames().c_str());
    return kExitUsage;
  }
  auto trace = RecordTrace(*family, variant, o.params);
  if (!trace.ok()) {
    std::fprintf(stderr, "gpuops trace: %s: %s\n", o.op.c_str(),
                 std::string(trace.status().message()).c_str());
    return trace.status().code() == absl::StatusCode::kInternal ? kExitFailed : kExitUsage;
  }
  if (o.json) {
    std::printf("%s\n", TraceJson(*trace).dump().c_str());
  } else {
    std::printf("%s", TraceText(*trace).c_str());
  }
  return kExitOk;
}

}  // namespace gpuops::tools
