#include "gpuops/runtime/signature_table.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kText = R"(# a comment
arch sm_90a
zeta sm_90a -
alpha sm_80,sm_90a a:0:8 n:8:4
)";

TEST(SignatureTableTest, ParsesKernelsSortedByName) {
  auto table = SignatureTable::Parse(kText, "t.txt");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->arch(), "sm_90a");
  ASSERT_EQ(table->kernels().size(), 2u);
  EXPECT_EQ(table->kernels()[0].kernel, "alpha");
  EXPECT_THAT(table->kernels()[0].archs, ::testing::ElementsAre("sm_80", "sm_90a"));
  EXPECT_EQ(table->kernels()[0].params, (std::vector<KernelParam>{{"a", 0, 8}, {"n", 8, 4}}));
  EXPECT_TRUE(table->kernels()[1].params.empty());
  ASSERT_NE(table->Find("zeta"), nullptr);
  EXPECT_EQ(table->Find("missing"), nullptr);
}

TEST(SignatureTableTest, FormatRoundTrips) {
  auto table = SignatureTable::Parse(kText, "t.txt");
  ASSERT_TRUE(table.ok());
  const std::string text = table->Format("demo");
  auto again = SignatureTable::Parse(text, "formatted");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->kernels(), table->kernels());
  EXPECT_EQ(again->Format("demo"), text);
}

constexpr std::string_view kWithHip = R"(arch sm_90a
k sm_80,sm_90a a:0:8 n:8:4
hip-arch gfx90a
k gfx1030,gfx90a a:0:8 n:8:4
only_hip gfx90a -
)";

TEST(SignatureTableTest, TheHipSectionParsesKeepsItsOwnKernelsAndRoundTrips) {
  auto table = SignatureTable::Parse(kWithHip, "t.txt");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->kernels().size(), 1u) << "the CUDA section holds only its own kernels";
  EXPECT_EQ(table->Find("only_hip"), nullptr);
  ASSERT_NE(table->hip(), nullptr);
  EXPECT_EQ(table->hip()->arch(), "gfx90a");
  ASSERT_NE(table->hip()->Find("k"), nullptr);
  EXPECT_THAT(table->hip()->Find("k")->archs, ::testing::ElementsAre("gfx1030", "gfx90a"));
  EXPECT_EQ(table->hip()->Find("k")->params, table->Find("k")->params);
  const std::string text = table->Format("demo");
  auto again = SignatureTable::Parse(text, "formatted");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->Format("demo"), text);
  ASSERT_NE(again->hip(), nullptr);
  EXPECT_EQ(again->hip()->kernels(), table->hip()->kernels());
  EXPECT_EQ(table->WithoutHip().hip(), nullptr);
  EXPECT_EQ(table->WithoutHip().WithHip(*table->hip()).Format("demo"), text);
}

TEST(SignatureTableTest, CompareReportsTheHipSectionsDiffMarked) {
  auto expected = SignatureTable::Parse(kWithHip, "e");
  auto actual = SignatureTable::Parse(std::string(kWithHip).replace(
                                          std::string(kWithHip).find("gfx1030,gfx90a a:0:8 n:8:4"),
                                          26, "gfx1030,gfx90a a:0:8 n:8:8"),
                                      "a");
  ASSERT_TRUE(expected.ok() && actual.ok()) << actual.status();
  absl::Status s = CompareSignatureTables(*expected, *actual, "demo");
  EXPECT_THAT(s.message(), HasSubstr("- hip k gfx1030,gfx90a a:0:8 n:8:4\n"
                                     "+ hip k gfx1030,gfx90a a:0:8 n:8:8\n"));
  absl::Status gone = CompareSignatureTables(*expected, expected->WithoutHip(), "demo");
  EXPECT_THAT(gone.message(), HasSubstr("- hip arch gfx90a"));
}

struct BadCase {
  std::string name;
  std::string text;
  std::string message;
};

class SignatureTableParseErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(SignatureTableParseErrors, NamesLineAndProblem) {
  auto table = SignatureTable::Parse(GetParam().text, "bad.txt");
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(table.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, SignatureTableParseErrors,
    ::testing::Values(
        BadCase{"NoArchLine", "k sm_90a a:0:8\n", "no 'arch <sm_XX>' line"},
        BadCase{"ParamMissingSize", "arch sm_90a\nk sm_90a a:0\n", "bad.txt:2: parameter \"a:0\""},
        BadCase{"ParamOffsetNotANumber", "arch sm_90a\nk sm_90a a:x:8\n",
                "is not name:offset:size"},
        BadCase{"ParamSizeOverflows", "arch sm_90a\nk sm_90a a:0:99999999999\n",
                "name:offset:size"},
        BadCase{"NoParamsField", "arch sm_90a\nk sm_90a\n", "expected 'kernel archs params...'"},
        BadCase{"KernelListedTwice", "arch sm_90a\nk - -\nk - -\n", "kernel listed twice"},
        BadCase{"TwoArchLines", "arch sm_90a\narch sm_80\n", "one 'arch <sm_XX>' line"},
        BadCase{"NameStartsWithDigit", "arch sm_90a\n9k - -\n", "not an identifier"},
        BadCase{"HipArchBeforeArch", "hip-arch gfx90a\narch sm_90a\n", "before any 'hip-arch'"},
        BadCase{"TwoHipArchLines", "arch sm_90a\nhip-arch gfx90a\nhip-arch gfx908\n",
                "one 'hip-arch <gfxNNN>' line"},
        BadCase{"HipKernelListedTwice", "arch sm_90a\nk - -\nhip-arch gfx90a\nh - -\nh - -\n",
                "bad.txt:5: kernel listed twice"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST(SignatureTableTest, CompareReportsALineDiff) {
  auto expected = SignatureTable::Parse("arch sm_90a\nk - a:0:8 n:8:4\nsame - -\n", "e");
  auto actual = SignatureTable::Parse("arch sm_90a\nk - a:0:8 n:8:4 extra:12:4\nsame - -\n", "a");
  ASSERT_TRUE(expected.ok() && actual.ok());
  absl::Status s = CompareSignatureTables(*expected, *actual, "dense");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "dense: compiled signatures differ (- expected, + actual):\n"
            "- k - a:0:8 n:8:4\n"
            "+ k - a:0:8 n:8:4 extra:12:4\n");
  EXPECT_TRUE(CompareSignatureTables(*expected, *expected, "dense").ok());
}

}  // namespace
}  // namespace gpuops
