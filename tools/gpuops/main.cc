// gpuops: the command-line tool. `gpuops --help` and `gpuops <command> --help` describe it;
// exit codes: 0 success, 1 a check failed or an error occurred, 2 a usage error (bad flag,
// unknown op, bad shape, unknown backend), 3 the requested backend is unavailable here.
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "commands.h"
#include "ops/family.h"

int main(int argc, char** argv) {
  using namespace gpuops::tools;  // NOLINT
  CLI::App app{
      "gpuops: GPU ops for LLM inference.\n"
      "Exit codes: 0 ok, 1 check failed or error, 2 usage error, 3 backend unavailable."};
  app.require_subcommand(1);

  InfoOptions info;
  app.add_subcommand("info",
                     "List backends (available or why not), the device, and the kernels "
                     "each op family ships with their parameter lists");

  CheckOptions check;
  auto* check_cmd = app.add_subcommand(
      "check",
      "Run every op variant on a backend against its CPU reference; one row per case; "
      "exit 1 on any failure");
  check_cmd
      ->add_option("--backend", check.backend,
                   "auto (CUDA where a GPU is present, else the "
                   "mock executing on the CPU), mock or cuda")
      ->capture_default_str();
  check_cmd
      ->add_option("--op", check.op, "regex over op names: <family>.<op> (gpuops info lists them)")
      ->capture_default_str();
  check_cmd->add_option("--shapes", check.shapes, "quick or full (the tests' shapes)")
      ->capture_default_str();

  TraceOptions trace;
  auto* trace_cmd = app.add_subcommand(
      "trace",
      "Print the launches an op makes for a problem, recorded by the mock (kernel, grid, "
      "block, shared memory, each argument by name, kind and value)");
  trace_cmd->add_option("op", trace.op, "<family> (its dispatcher's pick) or <family>.<op>")
      ->required();
  // The GEMM parameters as flags, and any other as --param; the family checks them.
  const std::vector<std::pair<std::string, std::string>> gemm_flags = {
      {"m", "rows of A and C"},
      {"n", "rows of B (the weight), columns of C"},
      {"k", "the reduction length"},
      {"ldb", "B's row stride in elements (default K)"},
      {"scale", "a fused epilogue's scale"},
      {"splits", "split-K's split count (default: chosen)"}};
  std::vector<std::string> gemm_values(gemm_flags.size());
  for (size_t i = 0; i < gemm_flags.size(); ++i) {
    trace_cmd->add_option("--" + gemm_flags[i].first, gemm_values[i], gemm_flags[i].second);
  }
  std::vector<std::string> extra_params;
  trace_cmd->add_option("--param", extra_params, "another parameter as NAME=VALUE (repeatable)");
  trace_cmd->add_flag("--json", trace.json, "JSON following tools/gpuops/trace.schema.json");

  PerfOptions perf;
  auto* perf_cmd = app.add_subcommand(
      "perf",
      "Time ops against cuBLASLt on the same shapes on the GPU (CUDA events, weights rotated "
      "beyond L2, ours and cuBLAS's samples interleaved, medians of >= 10 samples), with the "
      "read roof and each row's same-size read measured in the same run");
  perf_cmd->add_option("--backend", perf.backend, "cuda")->capture_default_str();
  perf_cmd->add_option("--op", perf.op,
                       "full-match regex over <family> (its dispatcher) and <family>.<op> "
                       "(default: every family's dispatcher)");
  perf_cmd
      ->add_option("--only", perf.only,
                   "regex over shape names: qkv, o, gate_up, down, lm_head, sq...")
      ->capture_default_str();
  perf_cmd
      ->add_option("--shapes", perf.shapes,
                   "llama (the Llama-3-8B projections and lm_head at M=1..4096), decode (M=1, "
                   "16), batch (M=17..64), prefill, square, variants (every op at M=1,16,4096 on N=K=4096), sweep (nine "
                   "open models' projections and vocab heads, and ragged shapes, at 23 Ms from 1 "
                   "to 8192), none")
      ->capture_default_str();
  perf_cmd->add_option("--shape", perf.shape, "extra M,N,K shapes (repeatable)");
  perf_cmd->add_option("--iterations", perf.iterations, "timed samples per measurement (>= 10)")
      ->capture_default_str();
  perf_cmd
      ->add_option("--batch", perf.batch,
                   "back-to-back launches per timed sample (1: the anchors' per-launch method; "
                   "more hides launch latency as in an inference step)")
      ->capture_default_str();
  perf_cmd->add_flag("--no-read", perf.no_read,
                     "skip each row's same-size read (a read-only streaming kernel over exactly "
                     "the row's fewest bytes, timed interleaved with ours and cuBLAS's) and its "
                     "allocation: a shorter run, e.g. for --shapes sweep");
  perf_cmd->add_flag("--weight-settled", perf.weight_settled,
                     "tell the ops the weights are written once, never by a launch still "
                     "running (as in inference): FP8's decode kernels (M <= 16) then overlap "
                     "each launch with the one before it (programmatic dependent launch on "
                     "sm_90+), which shows with --batch");
  // The families --versus takes, from the registry (a new family appears without an edit here).
  std::string families;
  for (const gpuops::ops::Family* family : gpuops::ops::AllFamilies()) {
    families += (families.empty() ? "" : ", ") + std::string(family->name());
  }
  perf_cmd->add_option("--versus", perf.versus,
                       "a family (" + families +
                           ": its dispatcher) or one of its ops (<family>.<op>: that variant) "
                           "also timed on each row's shape, its samples interleaved with ours "
                           "and cuBLAS's: columns versus_us and versus_ratio (its time / ours; "
                           "above 1 ours is faster)");
  perf_cmd->add_option("--csv", perf.csv, "write the rows as CSV, each as it is measured");
  perf_cmd->add_option("--json", perf.json, "write the rows as JSON");
  perf_cmd->add_option("--plot", perf.plot, "write an SVG plot of ours vs cuBLAS per shape");
  perf_cmd->add_option("--heatmap", perf.heatmap,
                       "write an SVG heat map: shape x M, coloured by the speedup over cuBLAS");

  // Name an unknown command instead of CLI11's generic "a subcommand is required".
  const std::string_view first = argc > 1 ? argv[1] : "";
  if (!first.empty() && first[0] != '-' && first != "info" && first != "check" &&
      first != "trace" && first != "perf") {
    std::fprintf(stderr,
                 "gpuops: unknown command '%s' (commands: info, check, trace, perf; see "
                 "gpuops --help)\n",
                 argv[1]);
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (app.got_subcommand("info")) return RunInfo(info);
  if (app.got_subcommand("check")) return RunCheck(check);
  if (app.got_subcommand("trace")) {
    for (size_t i = 0; i < gemm_flags.size(); ++i) {
      if (trace_cmd->count("--" + gemm_flags[i].first) > 0) {
        trace.params.emplace_back(gemm_flags[i].first, gemm_values[i]);
      }
    }
    for (const std::string& p : extra_params) {
      const size_t eq = p.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "gpuops trace: --param '%s' is not NAME=VALUE\n", p.c_str());
        return kExitUsage;
      }
      trace.params.emplace_back(p.substr(0, eq), p.substr(eq + 1));
    }
    return RunTrace(trace);
  }
  if (app.got_subcommand("perf")) return RunPerf(perf);
  return kExitUsage;
}
