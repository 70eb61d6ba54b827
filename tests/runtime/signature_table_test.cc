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
        BadCase{"NameStartsWithDigit", "arch sm_90a\n9k - -\n", "not an identifier"}),
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
