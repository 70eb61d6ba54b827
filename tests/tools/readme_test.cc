// README.md's "Use it from your project" snippets are the examples' own lines: every ```cmake
// block of that section appears, line for line, in one of examples/*/CMakeLists.txt, which CI
// builds against the installed package. So the README cannot drift from what is built.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gpuops/runtime/str.h"
#include "gtest/gtest.h"
#include "tests/support/paths.h"

namespace gpuops {
namespace {

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ReadmeTest, EveryCMakeSnippetOfUseItFromYourProjectIsAnExamplesOwnLines) {
  const std::filesystem::path root = ::gpuops::testing::SourceDir();
  const std::string readme = Read(root / "README.md");
  const size_t begin = readme.find("## Use it from your project");
  ASSERT_NE(begin, std::string::npos) << "README.md has no \"Use it from your project\" section";
  const size_t end = readme.find("\n## ", begin + 1);
  const std::string section = readme.substr(begin, end - begin);
  std::vector<std::string> examples;
  for (const auto& dir : std::filesystem::directory_iterator(root / "examples")) {
    if (std::filesystem::exists(dir.path() / "CMakeLists.txt")) {
      examples.push_back(Read(dir.path() / "CMakeLists.txt"));
    }
  }
  ASSERT_GE(examples.size(), 3u);
  int snippets = 0;
  for (size_t at = section.find("```cmake\n"); at != std::string::npos;
       at = section.find("```cmake\n", at + 1)) {
    const size_t body = at + 9;
    const std::string snippet = section.substr(body, section.find("```", body) - body);
    ++snippets;
    const bool found = std::any_of(examples.begin(), examples.end(), [&](const std::string& e) {
      return e.find(snippet) != std::string::npos;
    });
    EXPECT_TRUE(found) << "no example's CMakeLists.txt holds this README snippet:\n" << snippet;
  }
  EXPECT_GE(snippets, 3);
}

}  // namespace
}  // namespace gpuops
