#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdint>
#include <string_view>

namespace benchd::control {

// Small helpers for the API's JSON documents, written with RapidJSON's SAX writer. JSON has no
// NaN or infinity (a winners lead can be +inf, an empty percentile NaN): such numbers are
// written as null, and the API contract says so.

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

inline void key(JsonWriter& json, std::string_view name) {
  json.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

inline void value(JsonWriter& json, std::string_view text) {
  json.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

inline void numberOrNull(JsonWriter& json, double number) {
  if (std::isfinite(number)) {
    json.Double(number);
  } else {
    json.Null();
  }
}

inline void field(JsonWriter& json, std::string_view name, std::string_view text) {
  key(json, name);
  value(json, text);
}
inline void field(JsonWriter& json, std::string_view name, const char* text) {
  field(json, name, std::string_view(text));
}
inline void field(JsonWriter& json, std::string_view name, double number) {
  key(json, name);
  numberOrNull(json, number);
}
inline void field(JsonWriter& json, std::string_view name, std::uint64_t number) {
  key(json, name);
  json.Uint64(number);
}
inline void field(JsonWriter& json, std::string_view name, std::int64_t number) {
  key(json, name);
  json.Int64(number);
}
inline void field(JsonWriter& json, std::string_view name, bool flag) {
  key(json, name);
  json.Bool(flag);
}

}  // namespace benchd::control
