// Run-time library loading (dynamic_library.h): the first candidate that loads and is accepted
// wins, every refusal is named in the error, and the environment override replaces the list.
#include "gpuops/runtime/dynamic_library.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gpuops {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

absl::Status AcceptAny(const DynamicLibrary&) { return absl::OkStatus(); }

TEST(DynamicLibraryTest, TakesTheFirstCandidateThatLoadsAndIsAccepted) {
  auto lib =
      DynamicLibrary::Open("libc", nullptr, {"/nonexistent/libnothing.so", "libc.so.6"}, AcceptAny);
  ASSERT_TRUE(lib.ok()) << lib.status();
  EXPECT_EQ(lib->path(), "libc.so.6");
  EXPECT_NE(lib->Symbol("malloc"), nullptr);
  EXPECT_EQ(lib->Symbol("gpuops_no_such_symbol"), nullptr);
}

TEST(DynamicLibraryTest, NamesEveryPathTriedAndWhyItWasNotTaken) {
  auto lib = DynamicLibrary::Open(
      "demo: no usable library", "GPUOPS_TEST_NO_SUCH_VARIABLE",
      {"/nonexistent/libnothing.so", "libc.so.6"},
      [](const DynamicLibrary&) { return absl::UnavailableError("lacks cuDemo"); });
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(lib.status().message(),
              AllOf(HasSubstr("demo: no usable library (tried /nonexistent/libnothing.so: "),
                    HasSubstr("; libc.so.6: lacks cuDemo)"),
                    HasSubstr("set GPUOPS_TEST_NO_SUCH_VARIABLE to its path")));
}

TEST(DynamicLibraryTest, TheEnvironmentVariableReplacesTheCandidates) {
  setenv("GPUOPS_TEST_LIBRARY", "/nonexistent/override.so", 1);
  auto lib = DynamicLibrary::Open("demo", "GPUOPS_TEST_LIBRARY", {"libc.so.6"}, AcceptAny);
  unsetenv("GPUOPS_TEST_LIBRARY");
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(lib.status().message(), HasSubstr("/nonexistent/override.so"));
  EXPECT_THAT(lib.status().message(), ::testing::Not(HasSubstr("libc.so.6")));
}

}  // namespace
}  // namespace gpuops
