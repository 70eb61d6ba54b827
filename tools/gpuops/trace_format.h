// A trace: the launches one op makes for one problem, recorded by a mock that does not execute
// them, with every argument named by its kernel parameter. `gpuops trace` prints it as text or
// JSON (tools/gpuops/trace.schema.json); the golden-trace test compares the text with
// tests/ops/<family>/golden/<family>_launches.txt.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gpuops/mock/recording_backend.h"
#include "nlohmann/json.hpp"
#include "ops/family.h"

namespace gpuops::tools {

struct RecordedTrace {
  std::string op;  // "dense", "dense.tc"
  ops::ProblemParams params;
  ops::TraceResult result;
  std::vector<mock::LaunchRecord> launches;
  std::vector<std::vector<std::string>> param_names;  // per launch, per argument
};

// Runs `op` of `family` ("" for its dispatcher) for `params` on a fresh non-executing mock.
absl::StatusOr<RecordedTrace> RecordTrace(const ops::Family& family, std::string_view op,
                                          const ops::ProblemParams& params);

// "dense m=17 n=200 k=64 -> variant tc, 1 launch:" then per launch its kernel, grid, block and
// shared memory, and per argument its name, kind and value (pointers with the buffer they point
// into; tensor maps decoded).
std::string TraceText(const RecordedTrace& trace);
nlohmann::json TraceJson(const RecordedTrace& trace);

}  // namespace gpuops::tools
