// A small JSON reader and a validator for the subset of JSON Schema (2020-12) the tool's schemas
// use: type (one or several), properties, required, additionalProperties (bool), items, enum,
// minimum, minItems, maxItems. Enough to check `gpuops trace --json` against its schema in tests.
#pragma once

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpuops/runtime/str.h"

namespace gpuops::testing {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  bool integral = false;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json* Get(const std::string& key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}

  // The document, or an error naming the offset.
  bool Parse(Json* out, std::string* error) {
    if (!Value(out)) {
      *error = StrCat("JSON error at offset ", pos_, ": ", error_);
      return false;
    }
    SkipSpace();
    if (pos_ != s_.size()) {
      *error = StrCat("JSON error at offset ", pos_, ": trailing characters");
      return false;
    }
    return true;
  }

 private:
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }
  bool Fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return Fail(StrCat("expected ", word));
    pos_ += word.size();
    return true;
  }
  bool String(std::string* out) {
    if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a string");
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) return Fail("unterminated escape");
        const char e = s_[pos_++];
        switch (e) {
          case 'n':
            out->push_back('\n');
            break;
          case 't':
            out->push_back('\t');
            break;
          case 'r':
            out->push_back('\r');
            break;
          case 'b':
            out->push_back('\b');
            break;
          case 'f':
            out->push_back('\f');
            break;
          case 'u':
            if (pos_ + 4 > s_.size()) return Fail("short \\u escape");
            out->push_back(static_cast<char>(
                std::strtol(std::string(s_.substr(pos_, 4)).c_str(), nullptr, 16)));
            pos_ += 4;
            break;
          default:
            out->push_back(e);
        }
      } else {
        out->push_back(c);
      }
    }
    if (pos_ >= s_.size()) return Fail("unterminated string");
    ++pos_;
    return true;
  }
  bool Value(Json* out) {
    SkipSpace();
    if (pos_ >= s_.size()) return Fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') {
      out->type = Json::Type::kObject;
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      while (true) {
        SkipSpace();
        std::string key;
        if (!String(&key)) return false;
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':'");
        ++pos_;
        if (out->object.contains(key)) return Fail(StrCat("duplicate key ", key));
        if (!Value(&out->object[key])) return false;
        SkipSpace();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          return true;
        }
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      out->type = Json::Type::kArray;
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      while (true) {
        if (!Value(&out->array.emplace_back())) return false;
        SkipSpace();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          return true;
        }
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      out->type = Json::Type::kString;
      return String(&out->string);
    }
    if (c == 't' || c == 'f') {
      out->type = Json::Type::kBool;
      out->boolean = c == 't';
      return Literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      out->type = Json::Type::kNull;
      return Literal("null");
    }
    const size_t start = pos_;
    while (pos_ < s_.size() &&
           std::string_view("+-0123456789.eE").find(s_[pos_]) != std::string_view::npos)
      ++pos_;
    if (start == pos_) return Fail("unexpected character");
    const std::string number(s_.substr(start, pos_ - start));
    char* end = nullptr;
    out->type = Json::Type::kNumber;
    out->number = std::strtod(number.c_str(), &end);
    out->integral = number.find_first_of(".eE") == std::string::npos;
    if (end != number.c_str() + number.size()) return Fail(StrCat("bad number ", number));
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

inline std::string_view TypeName(const Json& v) {
  switch (v.type) {
    case Json::Type::kNull:
      return "null";
    case Json::Type::kBool:
      return "boolean";
    case Json::Type::kNumber:
      return v.integral ? "integer" : "number";
    case Json::Type::kString:
      return "string";
    case Json::Type::kArray:
      return "array";
    case Json::Type::kObject:
      return "object";
  }
  return "?";
}

inline bool HasType(const Json& v, std::string_view type) {
  const std::string_view actual = TypeName(v);
  return actual == type || (type == "number" && actual == "integer");
}

// Appends one line per violation of `schema` by `value` at `path`.
inline void Validate(const Json& schema, const Json& value, const std::string& path,
                     std::vector<std::string>* errors) {
  if (const Json* type = schema.Get("type")) {
    bool ok = false;
    if (type->type == Json::Type::kString) {
      ok = HasType(value, type->string);
    } else {
      for (const Json& t : type->array) ok = ok || HasType(value, t.string);
    }
    if (!ok) {
      errors->push_back(StrCat(path, ": is ", TypeName(value), ", schema wants another type"));
      return;
    }
  }
  if (const Json* options = schema.Get("enum")) {
    bool found = false;
    for (const Json& o : options->array) {
      found =
          found || (o.type == value.type && o.string == value.string && o.number == value.number);
    }
    if (!found) errors->push_back(StrCat(path, ": not one of the enum values"));
  }
  if (const Json* minimum = schema.Get("minimum");
      minimum && value.type == Json::Type::kNumber && value.number < minimum->number) {
    errors->push_back(StrCat(path, ": ", value.number, " is below the minimum ", minimum->number));
  }
  if (value.type == Json::Type::kArray) {
    if (const Json* m = schema.Get("minItems"); m && value.array.size() < m->number) {
      errors->push_back(StrCat(path, ": fewer than ", m->number, " items"));
    }
    if (const Json* m = schema.Get("maxItems"); m && value.array.size() > m->number) {
      errors->push_back(StrCat(path, ": more than ", m->number, " items"));
    }
    if (const Json* items = schema.Get("items")) {
      for (size_t i = 0; i < value.array.size(); ++i) {
        Validate(*items, value.array[i], StrCat(path, "[", i, "]"), errors);
      }
    }
  }
  if (value.type == Json::Type::kObject) {
    if (const Json* required = schema.Get("required")) {
      for (const Json& r : required->array) {
        if (value.Get(r.string) == nullptr) errors->push_back(StrCat(path, ": missing ", r.string));
      }
    }
    const Json* properties = schema.Get("properties");
    const Json* additional = schema.Get("additionalProperties");
    for (const auto& [key, v] : value.object) {
      const Json* sub = properties != nullptr ? properties->Get(key) : nullptr;
      if (sub != nullptr) {
        Validate(*sub, v, StrCat(path, ".", key), errors);
      } else if (additional != nullptr && additional->type == Json::Type::kBool &&
                 !additional->boolean) {
        errors->push_back(StrCat(path, ": unexpected property ", key));
      }
    }
  }
}

}  // namespace gpuops::testing
