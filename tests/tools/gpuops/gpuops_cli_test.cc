// The gpuops command as a user runs it: exit codes for argument errors, `info` naming why CUDA is
// (un)available, `trace --json` valid against its schema, and `check` on the mock.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gpuops/cuda/cuda_backend.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/json_schema.h"
#include "tests/support/paths.h"

namespace gpuops::tools {
namespace {

using ::testing::HasSubstr;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// The tool under test: GPUOPS_TOOL_PATH when set (a relocated build), else this build's.
std::string Tool() {
  const char* env = std::getenv("GPUOPS_TOOL_PATH");
  return env != nullptr && *env != '\0' ? env : GPUOPS_TOOL;
}

// Runs the tool with `args`, and `env` (NAME=VALUE ...) in its environment.
Result RunTool(const std::string& args, const std::string& env = "") {
  const std::string command = StrCat("GPUOPS_BACKEND= ", env, " ", Tool(), " ", args, " 2>&1");
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

struct UsageError {
  std::string name;
  std::string args;
  std::string message;
  std::string env = "";
};

void PrintTo(const UsageError& e, std::ostream* os) { *os << e.name << ": gpuops " << e.args; }

class GpuopsUsageErrors : public ::testing::TestWithParam<UsageError> {};

TEST_P(GpuopsUsageErrors, ExitWithCode2AndSayWhy) {
  const Result r = RunTool(GetParam().args, GetParam().env);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cli, GpuopsUsageErrors,
    ::testing::Values(
        UsageError{"NoSubcommand", "", "A subcommand is required"},
        UsageError{"UnknownSubcommand", "frobnicate", "unknown command 'frobnicate'"},
        UsageError{"UnknownFlag", "check --fast", "--fast"},
        UsageError{"CheckUnknownOp", "check --op 'attention\\..*'", "no op matches --op"},
        UsageError{"CheckBadRegex", "check --op '('", "is not a valid regular expression"},
        UsageError{"CheckUnknownShapes", "check --shapes huge", "unknown shape set 'huge'"},
        UsageError{"CheckUnknownBackend", "check --backend tpu", "unknown backend 'tpu'"},
        UsageError{"TraceUnknownOp", "trace attention --m 1 --n 1 --k 1", "unknown op 'attention'"},
        UsageError{"TraceUnknownVariant", "trace dense.fast --m 1 --n 8 --k 8",
                   "no variant 'fast'"},
        UsageError{"TraceZeroShape", "trace dense --m 0 --n 64 --k 64", "empty problem m=0"},
        UsageError{"TraceNonNumericShape", "trace dense --m x --n 64 --k 64",
                   "m='x' is not a decimal integer"},
        UsageError{"TraceMissingShape", "trace dense --m 1 --n 64", "dense needs k"},
        UsageError{"TraceParameterTheOpDoesNotTake", "trace dense --m 1 --n 64 --k 64 --param x=1",
                   "dense takes no parameter 'x'"},
        UsageError{"TraceWeightSettledNotABool",
                   "trace fp8 --m 1 --n 4096 --k 4096 --param weight_settled=2",
                   "fp8 takes weight_settled 0 or 1, got 2"},
        UsageError{"TraceShapeTheVariantCannotRun", "trace dense.tc --m 1 --n 151937 --k 4096",
                   "n=151937 is not a multiple of 8"},
        UsageError{"TraceOctalLookingShape", "trace dense --m 010 --n 64 --k 64",
                   "m='010' is not a decimal integer"},
        UsageError{"TraceNegativeShape", "trace dense --m -5 --n 64 --k 64",
                   "m='-5' is not a decimal integer"},
        UsageError{"TraceShapeOverThirtyTwoBits", "trace dense --m 4294967296 --n 64 --k 64",
                   "m='4294967296' is not a decimal integer in 0..4294967295"},
        UsageError{"TraceSplitsNoVariantCanTake",
                   "trace dense --m 4 --n 64 --k 256 --splits 100000",
                   "splits=100000 is outside 1..64"},
        UsageError{"TraceSplitsForAVariantThatDoesNotSplit",
                   "trace dense.tc --m 4 --n 64 --k 256 --splits 2", "does not split K"},
        UsageError{"TraceNanScale", "trace dense.tc_scaled_acc --m 1 --n 64 --k 64 --scale nan",
                   "scale='nan' is not a finite number"},
        UsageError{"TraceScaleForAVariantWithoutOne",
                   "trace dense.tc --m 1 --n 64 --k 64 --scale 2",
                   "only tc_scaled_acc takes a scale"},
        UsageError{"TraceMalformedParam", "trace dense --m 1 --n 64 --k 64 --param ldb",
                   "--param 'ldb' is not NAME=VALUE"},
        UsageError{"TraceAGridPastTheDevice", "trace dense.tc --m 4294967295 --n 64 --k 64",
                   "over the device limit"},
        UsageError{"CheckSeedNotANumber", "check --backend mock --op common.fill",
                   "GPUOPS_SEED='notanumber' is not a decimal integer", "GPUOPS_SEED=notanumber"},
        UsageError{"CheckSeedWithTrailingText", "check --backend mock --op common.fill",
                   "GPUOPS_SEED='12abc'", "GPUOPS_SEED=12abc"},
        UsageError{"CheckNegativeSeed", "check --backend mock --op common.fill", "GPUOPS_SEED='-5'",
                   "GPUOPS_SEED=-5"},
        UsageError{"InfoUnknownBackendInTheEnvironment", "info",
                   "GPUOPS_BACKEND=bogus names no backend", "GPUOPS_BACKEND=bogus"},
        UsageError{"CheckUnknownBackendInTheEnvironment", "check",
                   "GPUOPS_BACKEND=bogus names no backend", "GPUOPS_BACKEND=bogus"},
        UsageError{"PerfOnTheMock", "perf --backend mock", "use --backend cuda"},
        UsageError{"PerfNegativeShape", "perf --shapes none --shape -1,2,3", "is not M,N,K"},
        UsageError{"PerfOctalIterations", "perf --iterations 030", "--iterations '030'"},
        UsageError{"PerfBatchWithTrailingText", "perf --batch 10x", "--batch '10x'"},
        UsageError{"PerfBadOnlyRegex", "perf --only '['", "is not a valid regular expression"},
        UsageError{"PerfOnlyMatchesNothing", "perf --only nothing_like_this",
                   "no shape matches --only"},
        UsageError{"PerfBadShape", "perf --shapes none --shape 1,2", "is not M,N,K"},
        UsageError{"PerfTooFewIterations", "perf --iterations 5",
                   "--iterations '5' is not a decimal integer in 10..100000"},
        UsageError{"PerfUnknownOp", "perf --op dense.fast", "no op matches --op 'dense.fast'"},
        UsageError{"PerfVersusUnknownFamily", "perf --versus bf16",
                   "--versus 'bf16' is not a family (common, dense, nvfp4, fp8"},
        UsageError{"PerfVersusUnknownOp", "perf --versus fp8.fast",
                   "--versus 'fp8.fast': fp8 has no op 'fast' (m16, m16_n64"},
        UsageError{"PerfVersusUnknownFamilyOfAnOp", "perf --versus bf16.tc_m8",
                   "--versus 'bf16.tc_m8' is not a family"},
        // A known op passes: the error is the next check's.
        UsageError{"PerfVersusAnOpOnTheMock", "perf --versus fp8.tc_m8 --backend mock",
                   "use --backend cuda"},
        UsageError{"PerfZeroBatch", "perf --batch 0",
                   "--batch '0' is not a decimal integer in 1..1000"},
        // --no-read is a flag that parses: the error is the next check's, not CLI11's.
        UsageError{"PerfNoReadOnTheMock", "perf --no-read --backend mock", "use --backend cuda"},
        UsageError{"PerfWeightSettledOnTheMock", "perf --weight-settled --backend mock",
                   "use --backend cuda"},
        // Output paths are checked before anything is measured (or a backend is even looked for).
        UsageError{"PerfCsvInAMissingFolder", "perf --csv /nonexistent-gpuops-dir/rows.csv",
                   "cannot write --csv '/nonexistent-gpuops-dir/rows.csv': No such file"},
        UsageError{"PerfJsonInAMissingFolder", "perf --json /nonexistent-gpuops-dir/rows.json",
                   "cannot write --json '/nonexistent-gpuops-dir/rows.json'"},
        UsageError{"PerfPlotInAMissingFolder", "perf --plot /nonexistent-gpuops-dir/plot.svg",
                   "cannot write --plot"},
        UsageError{"PerfHeatmapOnADirectory", "perf --heatmap /", "cannot write --heatmap '/'"}),
    [](const auto& info) { return info.param.name; });

TEST(GpuopsCliTest, HelpExitsZeroForEverySubcommand) {
  for (const std::string cmd : {"", "info ", "check ", "trace ", "perf "}) {
    const Result r = RunTool(cmd + "--help");
    EXPECT_EQ(r.exit_code, 0) << cmd << r.output;
    EXPECT_THAT(r.output, HasSubstr("Usage")) << cmd;
  }
}

TEST(GpuopsCliTest, PerfHelpNamesTheSameSizeReadAndItsSkipFlag) {
  const Result r = RunTool("perf --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--no-read"));
  EXPECT_THAT(r.output, HasSubstr("same-size read"));
  EXPECT_THAT(r.output, HasSubstr("--weight-settled"));
}

TEST(GpuopsCliTest, InfoSaysWhetherCudaIsAvailableAndWhy) {
  const Result r = RunTool("info");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("mock  available"));
  if (absl::Status cuda = cuda::ProbeCuda(); cuda.ok()) {
    EXPECT_THAT(r.output, HasSubstr("cuda  available"));
  } else {
    EXPECT_THAT(r.output, HasSubstr(StrCat("cuda  unavailable: ", cuda.message())));
  }
  EXPECT_THAT(r.output, HasSubstr("dense_gemm_bf16_tc [sm_80,sm_90a] (a:0:8, b:8:8, c:16:8, "
                                  "m:24:4, n:28:4, k:32:4)"));
}

// The hip backend: without a HIP runtime, every path tried and why; through the stand-in runtime,
// available, with the families' HIP kernels marked as the device's.
TEST(GpuopsCliTest, InfoSaysWhetherHipIsAvailableAndWhy) {
  const Result none = RunTool("info", "GPUOPS_HIP_RUNTIME=/nonexistent/libamdhip64.so");
  EXPECT_EQ(none.exit_code, 0) << none.output;
  EXPECT_THAT(none.output, HasSubstr("hip   unavailable: hip: no usable HIP runtime (tried "
                                     "/nonexistent/libamdhip64.so: "));
  EXPECT_THAT(none.output, HasSubstr("set GPUOPS_HIP_RUNTIME to its path"));
  EXPECT_THAT(none.output, HasSubstr("HIP: 3 kernels, offsets for gfx90a"));
  // The stand-in this build made, or the one a GPU session staged (GPUOPS_HIP_RUNTIME).
  const char* staged = std::getenv("GPUOPS_HIP_RUNTIME");
  const std::string runtime =
      staged != nullptr && *staged != '\0' ? staged : std::string(GPUOPS_HIP_STANDIN);
  if (runtime.find("hip_standin") == std::string::npos) {
    GTEST_SKIP() << "GPUOPS_HIP_RUNTIME names a runtime other than the stand-in: " << runtime;
  }
  const Result standin =
      RunTool("info", StrCat("GPUOPS_BACKEND=hip GPUOPS_HIP_RUNTIME=", runtime));
  EXPECT_EQ(standin.exit_code, 0) << standin.output;
  EXPECT_THAT(standin.output, HasSubstr("hip   available"));
  EXPECT_THAT(standin.output, HasSubstr("device (hip): gpuops HIP stand-in, gfx90a, 104 SMs"));
  EXPECT_THAT(standin.output, HasSubstr("* common_fill_u16 [gfx1030,gfx908,gfx90a,gfx940]"));
}

TEST(GpuopsCliTest, TraceJsonFollowsItsSchema) {
  std::ifstream schema_file(StrCat(testing::SourceDir(), "/tools/gpuops/trace.schema.json"));
  const nlohmann::json schema = nlohmann::json::parse(schema_file, nullptr, false);
  ASSERT_FALSE(schema.is_discarded()) << "the schema is not JSON";
  for (const std::string args :
       {"dense --m 17 --n 151937 --k 4096", "dense.splitk --m 4 --n 200 --k 4096 --splits 8",
        "dense.tc_scaled_acc --m 1 --n 64 --k 64 --scale 0.5",
        "dense --m 4096 --n 4096 --k 4096"}) {
    const Result r = RunTool("trace --json " + args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json doc = nlohmann::json::parse(r.output, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.output;
    std::vector<std::string> violations;
    testing::Validate(schema, doc, "$", &violations);
    EXPECT_THAT(violations, ::testing::IsEmpty()) << args << "\n" << r.output;
  }
  // The validator itself rejects a document that breaks the schema.
  const nlohmann::json bad =
      nlohmann::json::parse(R"({"op": 1, "launches": [], "params": {"m": 1}, "extra": true})");
  std::vector<std::string> violations;
  testing::Validate(schema, bad, "$", &violations);
  EXPECT_THAT(violations, ::testing::Contains(HasSubstr("$.op: is integer")));
  EXPECT_THAT(violations, ::testing::Contains(HasSubstr("missing variant")));
  EXPECT_THAT(violations, ::testing::Contains(HasSubstr("unexpected property extra")));
  EXPECT_THAT(violations, ::testing::Contains(HasSubstr("$.launches: fewer than 1 items")));
  EXPECT_THAT(violations, ::testing::Contains(HasSubstr("$.params.m: is integer")));
}

TEST(GpuopsCliTest, TraceNamesEveryArgument) {
  const Result r = RunTool("trace dense.splitk --m 4 --n 200 --k 4096 --splits 8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("#0 dense_gemm_bf16_splitk_partial grid (13, 1, 8) block (16, 16, 1)"));
  EXPECT_THAT(r.output, HasSubstr("workspace  ptr"));
  EXPECT_THAT(r.output, HasSubstr("splits     u32   8"));
  EXPECT_THAT(r.output,
              HasSubstr("#1 dense_gemm_bf16_splitk_reduce grid (1, 4, 1) block (256, 1, 1)"));
}

// The trace's buffers are the problem's whole extents (TraceBuffer), so launches that point
// inside them past their first bytes trace: fp8's later 64-row slabs at M > 64, and problems
// whose buffers together pass the mock's usual 8 GiB budget (A alone is 8 GiB here).
TEST(GpuopsCliTest, TraceFollowsLaunchesIntoTheWholeBuffers) {
  Result r = RunTool("trace fp8.m64 --m 100 --n 4096 --k 4096");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("-> variant m64, 2 launches:"));
  EXPECT_THAT(r.output, HasSubstr("(input +524288)"));
  EXPECT_THAT(r.output, HasSubstr("(output +524288)"));
  // The dispatcher: wg_m128 (here its stream-K form: 32 tiles leave SMs idle), every row.
  r = RunTool("trace fp8 --m 100 --n 4096 --k 4096");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("-> variant wg_m128_streamk, 1 launch:"));
  EXPECT_THAT(r.output, HasSubstr("box 100x64"));
  r = RunTool("trace dense --m 65536 --n 200000 --k 65536");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 launch:"));
}

// `auto` is the best backend this build can run: CUDA where a driver, a GPU and this build's
// kernels are; otherwise the mock, with why CUDA was passed over.
TEST(GpuopsCliTest, CheckOnAutoRunsTheBestBackendTheBuildServesAndSaysWhatItPassedOver) {
  const Result r = RunTool("check --op 'common\\.fill'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.output.find("backend cuda") != std::string::npos) {
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("auto passed over")));
  } else {
    EXPECT_THAT(r.output, HasSubstr("backend mock"));
    EXPECT_THAT(r.output, HasSubstr("gpuops check: auto passed over cuda: "));
  }
}

TEST(GpuopsCliTest, CheckOnTheMockPassesEveryCase) {
  const Result r = RunTool("check --backend mock --op 'dense\\.(tc|router)$|common\\.fill'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("backend mock"));
  EXPECT_THAT(r.output, HasSubstr("router"));
  EXPECT_THAT(r.output, HasSubstr("fill_u16"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("FAIL")));
  EXPECT_THAT(r.output, HasSubstr(" 0 failed"));
}

// A perf run that ends before measuring anything (here: no CUDA driver where it is told to look,
// on any machine) leaves the output paths as it found them: a new one is not left behind empty,
// an existing one keeps its content.
TEST(GpuopsCliTest, PerfThatMeasuresNothingLeavesItsOutputPathsAsTheyWere) {
  const std::string dir = ::testing::TempDir();
  const std::string fresh = dir + "gpuops_perf_fresh.csv";
  const std::string kept = dir + "gpuops_perf_kept.json";
  std::remove(fresh.c_str());
  std::ofstream(kept) << "earlier run\n";
  const Result r = RunTool(StrCat("perf --csv ", fresh, " --json ", kept),
                           "GPUOPS_CUDA_DRIVER=/nonexistent-gpuops-dir/libcuda.so.1");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no usable CUDA driver"));
  EXPECT_FALSE(std::ifstream(fresh).good()) << fresh << " was left behind";
  std::stringstream earlier;
  earlier << std::ifstream(kept).rdbuf();
  EXPECT_EQ(earlier.str(), "earlier run\n");
  std::remove(kept.c_str());
}

}  // namespace
}  // namespace gpuops::tools
