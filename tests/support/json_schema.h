// A validator for the subset of JSON Schema (2020-12) the tool's schemas use, over documents
// parsed by nlohmann::json: type (one or several), properties, required, additionalProperties
// (false, or a schema for the rest), items, enum, minimum, minItems, maxItems. Enough to check
// `gpuops trace --json` against its schema in tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuops/runtime/str.h"
#include "nlohmann/json.hpp"

namespace gpuops::testing {

// JSON Schema's name for the type of `v` ("integer" for integral numbers).
inline std::string_view SchemaType(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

inline bool HasSchemaType(const nlohmann::json& v, std::string_view type) {
  const std::string_view actual = SchemaType(v);
  return actual == type || (type == "number" && actual == "integer");
}

// Appends one line per violation of `schema` by `value` at `path`.
inline void Validate(const nlohmann::json& schema, const nlohmann::json& value,
                     const std::string& path, std::vector<std::string>* errors) {
  if (auto type = schema.find("type"); type != schema.end()) {
    bool ok = false;
    if (type->is_string()) {
      ok = HasSchemaType(value, type->get<std::string>());
    } else {
      for (const auto& t : *type) ok = ok || HasSchemaType(value, t.get<std::string>());
    }
    if (!ok) {
      errors->push_back(StrCat(path, ": is ", SchemaType(value), ", schema wants another type"));
      return;
    }
  }
  if (auto options = schema.find("enum"); options != schema.end()) {
    bool found = false;
    for (const auto& o : *options) found = found || o == value;
    if (!found) errors->push_back(StrCat(path, ": not one of the enum values"));
  }
  if (auto minimum = schema.find("minimum"); minimum != schema.end() && value.is_number() &&
                                             value.get<double>() < minimum->get<double>()) {
    errors->push_back(
        StrCat(path, ": ", value.get<double>(), " is below the minimum ", minimum->get<double>()));
  }
  if (value.is_array()) {
    if (auto m = schema.find("minItems"); m != schema.end() && value.size() < m->get<size_t>()) {
      errors->push_back(StrCat(path, ": fewer than ", m->get<size_t>(), " items"));
    }
    if (auto m = schema.find("maxItems"); m != schema.end() && value.size() > m->get<size_t>()) {
      errors->push_back(StrCat(path, ": more than ", m->get<size_t>(), " items"));
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        Validate(*items, value[i], StrCat(path, "[", i, "]"), errors);
      }
    }
  }
  if (value.is_object()) {
    if (auto required = schema.find("required"); required != schema.end()) {
      for (const auto& r : *required) {
        if (!value.contains(r.get<std::string>())) {
          errors->push_back(StrCat(path, ": missing ", r.get<std::string>()));
        }
      }
    }
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, v] : value.items()) {
      if (properties != schema.end() && properties->contains(key)) {
        Validate((*properties)[key], v, StrCat(path, ".", key), errors);
      } else if (additional != schema.end() && additional->is_boolean() &&
                 !additional->get<bool>()) {
        errors->push_back(StrCat(path, ": unexpected property ", key));
      } else if (additional != schema.end() && additional->is_object()) {
        Validate(*additional, v, StrCat(path, ".", key), errors);
      }
    }
  }
}

}  // namespace gpuops::testing
