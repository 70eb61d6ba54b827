// Every op family of the build (ops/families.inc), through the interface tools see it with
// (ops/family.h): each kernel of its image has a host emulation; each of its ops meets its
// accuracy contract on every backend (on the mock the emulations execute; cases over
// GPUOPS_MOCK_MAC_BUDGET multiply-adds are skipped and counted); its golden launch traces match
// tests/ops/<family>/golden/<family>_launches.txt; and, in builds with fatbins, its
// signatures.txt agrees with the compiled kernels on every arch.
#include "ops/family.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "gmock/gmock.h"
#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/module_signatures.h"
#include "gpuops/runtime/signature_table.h"
#include "gpuops/runtime/str.h"
#include "gtest/gtest.h"
#include "tests/support/backends.h"
#include "tests/support/paths.h"
#include "trace_format.h"
#include "verify/random.h"

namespace gpuops::ops {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> FamilyNames() {
  std::vector<std::string> names;
  for (const Family* f : AllFamilies()) names.emplace_back(f->name());
  return names;
}

TEST(FamilyRegistryTest, EveryFamilyIsListedOnceAndFoundByName) {
  const std::vector<std::string> names = FamilyNames();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_THAT(names, ::testing::Contains("dense"));
  for (const std::string& name : names) {
    ASSERT_NE(FindFamily(name), nullptr) << name;
    EXPECT_EQ(FindFamily(name)->name(), name);
    EXPECT_FALSE(FindFamily(name)->ops().empty()) << name;
  }
  EXPECT_EQ(FindFamily("attention"), nullptr);
}

class FamilyTest : public ::testing::TestWithParam<std::string> {
 protected:
  const Family& family() const { return *FindFamily(GetParam()); }
};

TEST_P(FamilyTest, EveryKernelOfItsImageHasAHostEmulationAndNoEmulationIsStray) {
  HostKernelRegistry registry;
  family().RegisterHostKernels(registry);
  auto table = SignatureTable::Parse(family().image().signatures_text, GetParam());
  ASSERT_TRUE(table.ok()) << table.status();
  std::vector<std::string> kernels;
  for (const KernelSignature& k : table->kernels()) kernels.push_back(k.kernel);
  EXPECT_THAT(registry.Names(), ::testing::UnorderedElementsAreArray(kernels));
}

// A kernel shipped for both vendors takes the same arguments on both: the launchers and the
// argument structs know no vendor. Every HIP kernel has its CUDA twin.
TEST_P(FamilyTest, HipParameterListsEqualTheCudaOnes) {
  auto table = SignatureTable::Parse(family().image().signatures_text, GetParam());
  ASSERT_TRUE(table.ok()) << table.status();
  if (table->hip() == nullptr) GTEST_SKIP() << GetParam() << " has no HIP kernels yet";
  EXPECT_TRUE(table->hip()->arch().starts_with("gfx")) << table->hip()->arch();
  EXPECT_FALSE(table->hip()->kernels().empty());
  for (const KernelSignature& hip : table->hip()->kernels()) {
    const KernelSignature* cuda = table->Find(hip.kernel);
    ASSERT_NE(cuda, nullptr) << hip.kernel << " has no CUDA kernel of that name";
    EXPECT_EQ(hip.params, cuda->params) << hip.kernel << ": HIP " << hip.ToString() << " vs CUDA "
                                        << cuda->ToString();
    for (const std::string& arch : hip.archs) EXPECT_TRUE(arch.starts_with("gfx")) << arch;
  }
}

// A family's perf subject builds, plans and runs on the mock (executing its emulations), so the
// subjects `gpuops perf` times on a GPU are exercised in every build; families without perf
// cases say Unimplemented.
TEST_P(FamilyTest, PerfSubjectsPlanAndRunOnTheMock) {
  mock::RecordingBackend gpu;
  const PerfProblem problem{.name = "small", .m = 3, .n = 256, .k = 256};
  auto subject = family().PreparePerf(gpu, problem, "");
  if (absl::IsUnimplemented(subject.status())) GTEST_SKIP() << GetParam() << ": no perf cases";
  ASSERT_TRUE(subject.ok()) << subject.status();
  EXPECT_FALSE((*subject)->variant().empty());
  EXPECT_EQ((*subject)->flops(), 2.0 * 3 * 256 * 256);
  EXPECT_GT((*subject)->bytes(), 256.0 * 256 / 2);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*subject)->Run(i).ok()) << i;
  ASSERT_TRUE(gpu.Synchronize().ok());
  EXPECT_FALSE((*subject)->a().is_null());
  EXPECT_NE((*subject)->b(0), (*subject)->b(1)) << "the baseline's weight copies rotate";
  std::vector<uint16_t> c(3 * 256);
  ASSERT_TRUE(gpu.CopyToHost(absl::MakeSpan(reinterpret_cast<std::byte*>(c.data()), c.size() * 2),
                             (*subject)->c())
                  .ok());
  EXPECT_TRUE(std::any_of(c.begin(), c.end(), [](uint16_t v) { return v != 0; }))
      << "the subject's run wrote its output";
}

// A forced variant that cannot take the shape says so before the weight is made: here one of
// 2^40 elements (a terabyte to quantize) for a kernel of at most 32 rows asked for 48.
TEST(FamilyPerfTest, AForcedVariantRefusesItsShapeBeforeTheWeightIsMade) {
  mock::RecordingBackend gpu;
  const Family* fp8 = FindFamily("fp8");
  ASSERT_NE(fp8, nullptr);
  const PerfProblem huge{.name = "huge", .m = 48, .n = 1u << 20, .k = 1u << 20};
  auto subject = fp8->PreparePerf(gpu, huge, "wg_m32_streamk");
  ASSERT_FALSE(subject.ok());
  EXPECT_EQ(subject.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(subject.status().message()), ::testing::HasSubstr("m=48 outside 1..32"));
  EXPECT_EQ(gpu.live_allocations(), 0u);
  // A stream-K variant gets the workspace it needs (without one its plans are refused), and the
  // subject's plans run one after another on it (the emulation refuses a flag left set).
  const PerfProblem small{.name = "small", .m = 17, .n = 256, .k = 512};
  auto streamk = fp8->PreparePerf(gpu, small, "wg_m32_streamk");
  ASSERT_TRUE(streamk.ok()) << streamk.status();
  EXPECT_EQ((*streamk)->variant(), "wg_m32_streamk");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*streamk)->Run(i).ok()) << i;
  ASSERT_TRUE(gpu.Synchronize().ok());
}

// The families with golden traces.
class GoldenTraceTest : public FamilyTest {};

TEST_P(GoldenTraceTest, LaunchTracesMatchTheCommittedFile) {
  const std::vector<TraceCase> cases = family().GoldenTraces();
  ASSERT_FALSE(cases.empty());
  const std::string path = StrCat(::gpuops::testing::SourceDir(), "/tests/ops/", GetParam(),
                                  "/golden/", GetParam(), "_launches.txt");
  std::string actual =
      StrCat("# `gpuops trace` of each ", GetParam(),
             " op for fixed problems (tests/ops/family_test.cc).\n"
             "# Regenerate: GPUOPS_UPDATE_GOLDEN=1 build/mock/tests/ops/family_test\n");
  for (const TraceCase& c : cases) {
    const size_t dot = c.op.find('.');
    const std::string op = dot == std::string::npos ? "" : c.op.substr(dot + 1);
    auto trace = tools::RecordTrace(family(), op, c.params);
    if (trace.ok()) {
      StrAppend(&actual, tools::TraceText(*trace));
    } else {
      // A golden refusal is the op's own (CanImplement's), never the trace's buffers falling
      // short of a launch's pointers.
      EXPECT_THAT(trace.status().message(), Not(HasSubstr("not inside any allocation")))
          << c.op << " refused by the mock's pointer check";
      StrAppend(
          &actual, c.op, " ",
          StrJoin(c.params, " ",
                  [](std::string* out, const auto& p) { StrAppend(out, p.first, "=", p.second); }),
          " -> refused: ", trace.status().message(), "\n");
    }
  }
  if (std::getenv("GPUOPS_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path << "; run with GPUOPS_UPDATE_GOLDEN=1 to create it";
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() == actual) return;
  // A readable diff: the first differing lines.
  std::vector<std::string> want;
  std::vector<std::string> got;
  for (std::istringstream s(expected.str()); std::getline(s, want.emplace_back());) {
  }
  for (std::istringstream s(actual); std::getline(s, got.emplace_back());) {
  }
  std::string diff;
  int shown = 0;
  for (size_t i = 0; i < std::max(want.size(), got.size()) && shown < 12; ++i) {
    const std::string w = i < want.size() ? want[i] : "<end>";
    const std::string g = i < got.size() ? got[i] : "<end>";
    if (w == g) continue;
    StrAppend(&diff, "line ", i + 1, ":\n- ", w, "\n+ ", g, "\n");
    ++shown;
  }
  ADD_FAILURE() << "launch traces differ from " << path
                << " (- committed, + now); if the change is intended, regenerate with "
                   "GPUOPS_UPDATE_GOLDEN=1:\n"
                << diff;
}

#ifdef GPUOPS_HAS_FATBINS
TEST_P(FamilyTest, EmbeddedFatbinAgreesWithSignaturesTxtOnEveryArch) {
  const ModuleImage image = family().image();
  ASSERT_FALSE(image.fatbin.empty());
  for (bool hopper : {true, false}) {
    DeviceInfo device = mock::RecordingBackend::DefaultDevice();
    device.arch_major = hopper ? 9 : 8;
    device.arch_specific = hopper;
    auto sigs = ResolveModuleSignatures(image, device);
    EXPECT_TRUE(sigs.ok()) << GetParam() << " on " << device.arch_name() << ": " << sigs.status();
  }
}

TEST_P(FamilyTest, DriftBetweenFatbinAndSignaturesTxtIsRefusedAtLoad) {
  ModuleImage image = family().image();
  std::string stale(image.signatures_text);
  // Grow the first parameter of the first kernel that has one by 8 bytes.
  const size_t colon = stale.find(":0:");
  ASSERT_NE(colon, std::string::npos);
  const size_t size_at = colon + 3;
  const size_t size_end = stale.find_first_of(" \n", size_at);
  stale.replace(size_at, size_end - size_at,
                StrCat(std::stoi(stale.substr(size_at, size_end - size_at)) + 8));
  image.signatures_text = stale;
  mock::RecordingBackend gpu;
  auto module = gpu.LoadModule(image);
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(module.status().message(), HasSubstr("differ"));
}
#endif

std::vector<std::string> FamiliesWithGoldenTraces() {
  std::vector<std::string> names;
  for (const Family* f : AllFamilies()) {
    if (!f->GoldenTraces().empty()) names.emplace_back(f->name());
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, FamilyTest, ::testing::ValuesIn(FamilyNames()),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Families, GoldenTraceTest, ::testing::ValuesIn(FamiliesWithGoldenTraces()),
                         [](const auto& info) { return info.param; });

// --- Numerics: every op of every family on every backend that runs kernels.

uint64_t MockBudget() {
  uint64_t budget = uint64_t{1} << 28;
  if (const char* env = std::getenv("GPUOPS_MOCK_MAC_BUDGET"); env != nullptr && *env != '\0') {
    EXPECT_TRUE(ParseDecimal(std::string_view(env), &budget))
        << "GPUOPS_MOCK_MAC_BUDGET='" << env << "' is not a decimal integer";
  }
  return budget;
}

struct NumericsCase {
  std::string backend;
  std::string family;
  std::string op;
};

void PrintTo(const NumericsCase& c, std::ostream* os) {
  *os << c.backend << " " << c.family << "." << c.op;
}

class FamilyNumerics : public ::testing::TestWithParam<NumericsCase> {};

TEST_P(FamilyNumerics, EveryCaseMeetsTheOpsContract) {
  const NumericsCase& c = GetParam();
  std::unique_ptr<GpuBackend> gpu;
  GPUOPS_CREATE_OR_SKIP(gpu, c.backend);
  const std::string op = StrCat(c.family, ".", c.op);
  CheckOptions options;
  options.shapes = ShapeSet::kFull;
  options.include = [&](std::string_view candidate) { return candidate == op; };
  options.mac_budget = c.backend == "mock" ? MockBudget() : 0;
  auto seed = verify::RunSeed();
  ASSERT_TRUE(seed.ok()) << seed.status();
  options.seed = *seed;
  std::printf("seed %llu (rerun with GPUOPS_SEED=%llu)\n",
              static_cast<unsigned long long>(options.seed),
              static_cast<unsigned long long>(options.seed));
  int ran = 0;
  int skipped = 0;
  options.on_case = [&](const CheckReport& r) {
    std::printf("  %s\n", r.line.c_str());
    std::fflush(stdout);
    EXPECT_EQ(r.op, op);
    (r.verdict == CheckReport::Verdict::kSkip ? skipped : ran)++;
    EXPECT_NE(r.verdict, CheckReport::Verdict::kFail) << r.line;
  };
  absl::Status s = FindFamily(c.family)->Check(*gpu, options);
  ASSERT_TRUE(s.ok()) << s;
  std::printf("%s on %s: %d cases ran, %d over the budget\n", op.c_str(), c.backend.c_str(), ran,
              skipped);
  EXPECT_GT(ran, 0);
}

std::vector<NumericsCase> NumericsCases() {
  std::vector<NumericsCase> out;
  for (const std::string& backend : testing::KernelBackendNames()) {
    for (const Family* f : AllFamilies()) {
      for (const std::string& op : f->ops()) out.push_back({backend, std::string(f->name()), op});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, FamilyNumerics, ::testing::ValuesIn(NumericsCases()),
                         [](const ::testing::TestParamInfo<NumericsCase>& info) {
                           return StrCat(info.param.backend, "_", info.param.family, "_",
                                         info.param.op);
                         });

}  // namespace
}  // namespace gpuops::ops
