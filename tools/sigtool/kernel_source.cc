#include "kernel_source.h"

#include <cctype>

#include "gpuops/runtime/str.h"

namespace gpuops::sigtool {
namespace {

struct Token {
  std::string text;
  int line = 0;
};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Identifiers, numbers and single punctuation characters; comments, string and character
// literals and preprocessor lines are dropped.
std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> out;
  int line = 1;
  bool line_start = true;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // preprocessor line, with continuations
      while (i < s.size() && s[i] != '\n') i += (s[i] == '\\' && i + 1 < s.size()) ? 2 : 1;
      continue;
    }
    line_start = false;
    if (s.substr(i, 2) == "//") {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (s.substr(i, 2) == "/*") {
      const size_t end = s.find("*/", i + 2);
      for (size_t j = i; j < std::min(end, s.size()); ++j) line += s[j] == '\n' ? 1 : 0;
      i = end == std::string_view::npos ? s.size() : end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      out.push_back({std::string(1, c), line});  // keep a marker: extern "C"
      for (++i; i < s.size() && s[i] != c; ++i) {
        if (s[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    if (IsIdentStart(c)) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      out.push_back({std::string(s.substr(i, j - i)), line});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      size_t j = i;
      while (j < s.size() && (IsIdentChar(s[j]) || s[j] == '.')) ++j;
      out.push_back({std::string(s.substr(i, j - i)), line});
      i = j;
      continue;
    }
    out.push_back({std::string(1, c), line});
    ++i;
  }
  return out;
}

bool IsIdentifier(const std::string& t) { return !t.empty() && IsIdentStart(t[0]); }

// Index just past the bracket that closes the one at `open`, or tokens.size().
size_t SkipBalanced(const std::vector<Token>& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == "(" || t[i].text == "[" || t[i].text == "{") ++depth;
    if (t[i].text == ")" || t[i].text == "]" || t[i].text == "}") {
      if (--depth == 0) return i + 1;
    }
  }
  return t.size();
}

}  // namespace

absl::StatusOr<std::map<std::string, std::vector<std::string>>> ParseKernelParamNames(
    std::string_view source, std::string_view origin) {
  const std::vector<Token> t = Tokenize(source);
  std::map<std::string, std::vector<std::string>> kernels;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text != "__global__") continue;
    const int line = t[i].line;
    auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError(StrCat(origin, ":", line, ": __global__ function: ", what));
    };
    // The kernel name is the first identifier followed by '(' that is not an attribute macro.
    size_t j = i + 1;
    std::string name;
    while (j + 1 < t.size()) {
      if (t[j].text == "__launch_bounds__" || t[j].text == "__cluster_dims__" ||
          t[j].text == "__maxnreg__") {
        j = SkipBalanced(t, j + 1);
        continue;
      }
      if (IsIdentifier(t[j].text) && t[j + 1].text == "(") {
        name = t[j].text;
        break;
      }
      if (t[j].text == ";" || t[j].text == "{") break;
      ++j;
    }
    if (name.empty()) return error("no name followed by a parameter list");
    const size_t open = j + 1;
    const size_t close = SkipBalanced(t, open) - 1;  // index of ')'
    if (close >= t.size() || t[close].text != ")")
      return error(StrCat(name, ": unbalanced parentheses"));
    // Only definitions count: the parameter list must be followed by a body.
    if (close + 1 >= t.size() || t[close + 1].text != "{") continue;
    std::vector<std::string> names;
    std::vector<std::string> current;
    int depth = 0;
    auto finish_param = [&]() -> absl::Status {
      // Drop a default value, then trailing array extents; the name is the last identifier.
      for (size_t k = 0; k < current.size(); ++k) {
        if (current[k] == "=") {
          current.resize(k);
          break;
        }
      }
      while (!current.empty() && current.back() == "]") {
        while (!current.empty() && current.back() != "[") current.pop_back();
        if (!current.empty()) current.pop_back();
      }
      if (current.empty()) return error(StrCat(name, ": empty parameter"));
      if (current.size() == 1 && current[0] == "void" && names.empty()) return absl::OkStatus();
      if (!IsIdentifier(current.back()) || current.size() < 2) {
        return error(StrCat(name, ": parameter #", names.size(), " has no name"));
      }
      names.push_back(current.back());
      current.clear();
      return absl::OkStatus();
    };
    for (size_t k = open + 1; k < close; ++k) {
      const std::string& tok = t[k].text;
      if (tok == "(" || tok == "<" || tok == "[") ++depth;
      if (tok == ")" || tok == ">" || tok == "]") --depth;
      if (tok == "," && depth == 0) {
        if (absl::Status s = finish_param(); !s.ok()) return s;
        continue;
      }
      current.push_back(tok);
    }
    if (!current.empty()) {
      if (absl::Status s = finish_param(); !s.ok()) return s;
    }
    if (kernels.contains(name) && kernels[name] != names) {
      return error(StrCat(name, ": defined twice with different parameter names"));
    }
    kernels[name] = std::move(names);
    i = close;
  }
  return kernels;
}

}  // namespace gpuops::sigtool
