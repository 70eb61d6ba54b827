// The gpuops subcommands. Each returns the process exit code (see kExit*).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "gpuops/runtime/backend.h"
#include "ops/family.h"

namespace gpuops::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // a check failed, or the command hit an error
inline constexpr int kExitUsage = 2;        // bad flags, unknown op, bad shape, unknown backend
inline constexpr int kExitUnavailable = 3;  // the backend asked for is not available here

// `text` as a plain decimal in [min, max] (ParseDecimal: no sign, base prefix or leading zero),
// or nullopt after telling stderr why (`command` and `flag` name it).
std::optional<uint64_t> ParseFlag(std::string_view command, std::string_view flag,
                                  const std::string& text, uint64_t min, uint64_t max);

// `pattern` as a regex, or nullopt after telling stderr why (`command` and `flag` name it).
std::optional<std::regex> CompileFilter(std::string_view command, std::string_view flag,
                                        const std::string& pattern);

// The backend `name` ("auto", "mock", "cuda"), or nullptr after telling stderr why with
// *exit_code set: kExitUnavailable when it is not available here, kExitUsage otherwise.
std::unique_ptr<GpuBackend> CreateBackendOrReport(std::string_view command, const std::string& name,
                                                  int* exit_code);

struct InfoOptions {};
int RunInfo(const InfoOptions& options);

struct CheckOptions {
  std::string backend = "auto";
  std::string op = ".*";  // regex over "family.op", e.g. "dense\\.tc.*"
  std::string shapes = "quick";
};
int RunCheck(const CheckOptions& options);

struct TraceOptions {
  std::string op;             // "<family>" (its dispatcher) or "<family>.<op>"
  ops::ProblemParams params;  // as given, in order: {"m", "17"}, ...
  bool json = false;
};
int RunTrace(const TraceOptions& options);

struct PerfOptions {
  std::string backend = "cuda";
  std::string op;                  // full-match regex over "family" (its dispatcher) and
                                   // "family.op"; empty: every family's dispatcher
  std::string only = ".*";         // regex over shape names ("qkv", "lm_head", ...)
  std::string shapes = "llama";    // llama, decode, prefill, square, variants, sweep, none
  std::vector<std::string> shape;  // extra "M,N,K" shapes
  std::string iterations = "30";   // timed samples, each the median's input (a decimal >= 10)
  std::string batch = "1";         // back-to-back launches per sample (a decimal in 1..1000)
  bool no_read = false;            // skip each row's same-size read (a shorter run)
  bool weight_settled = false;     // ops may overlap a launch with the one before it (GemmArgs)
  std::string versus;              // a family (its dispatcher) or "family.op" (that op) timed
                                   // on each row's shape, interleaved with ours ("": none)
  std::string csv, json, plot, heatmap;
};
int RunPerf(const PerfOptions& options);

}  // namespace gpuops::tools
