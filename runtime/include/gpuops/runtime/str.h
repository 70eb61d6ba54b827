// String building for messages. Debian's Abseil is built with its own absl::string_view (not
// std::string_view), so absl::StrCat does not take std::string_view; these helpers take both.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"

namespace gpuops {

// An unsigned value printed as lower-case hexadecimal without prefix.
struct Hex {
  explicit Hex(uint64_t v) : value(v) {}
  uint64_t value;
};

namespace str_internal {

inline void Append(std::string& out, std::string_view s) { out.append(s); }
inline void Append(std::string& out, const std::string& s) { out.append(s); }
inline void Append(std::string& out, const char* s) { out.append(s == nullptr ? "(null)" : s); }
inline void Append(std::string& out, absl::string_view s) { out.append(s.data(), s.size()); }
inline void Append(std::string& out, char c) { out.push_back(c); }
inline void Append(std::string& out, bool b) { out.append(b ? "true" : "false"); }
inline void Append(std::string& out, Hex h) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), h.value, 16);
  out.append(buf, r.ptr);
}
template <typename T>
requires(std::integral<T> && !std::same_as<T, bool> &&
         !std::same_as<T, char>) void Append(std::string& out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}
template <typename T>
requires std::floating_point<T>
void Append(std::string& out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

}  // namespace str_internal

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (str_internal::Append(*out, args), ...);
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  StrAppend(&out, args...);
  return out;
}

// Joins `items` with `sep`, formatting each through `format(std::string*, item)`.
template <typename Range, typename Format>
std::string StrJoin(const Range& items, std::string_view sep, Format format) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    first = false;
    format(&out, item);
  }
  return out;
}

template <typename Range>
std::string StrJoin(const Range& items, std::string_view sep) {
  return StrJoin(items, sep, [](std::string* out, const auto& item) { StrAppend(out, item); });
}

// Splits `text` at every `sep`; with `skip_empty`, empty pieces are dropped.
inline std::vector<std::string_view> StrSplit(std::string_view text, char sep,
                                              bool skip_empty = false) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    std::string_view piece =
        text.substr(start, end == std::string_view::npos ? text.npos : end - start);
    if (!(skip_empty && piece.empty())) out.push_back(piece);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

inline std::string_view StripWhitespace(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Parses all of `text` as a decimal (base 10) or, with base 16, hexadecimal unsigned integer.
template <typename T>
requires std::unsigned_integral<T>
bool ParseUnsigned(std::string_view text, T* out, int base = 10) {
  if (text.empty()) return false;
  auto r = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

// Parses all of `text` as a plain decimal: digits only, no sign, base prefix or leading zero, so
// that "010" is refused instead of read as octal (or as ten), and "12abc" or "-5" fail.
template <typename T>
requires std::unsigned_integral<T>
bool ParseDecimal(std::string_view text, T* out) {
  if (text.size() > 1 && text[0] == '0') return false;
  return ParseUnsigned(text, out, 10);
}

}  // namespace gpuops
