#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdint>
#include <string_view>

namespace benchd::common {

// Small helpers for every JSON document benchd writes with RapidJSON's SAX writer (the API's
// documents, `--json` outputs, the worker's event lines). They take any RapidJSON writer
// (compact or pretty, to a buffer or a stream). JSON has no NaN or infinity (a winners lead
// can be +inf, an empty percentile NaN): such numbers are written as null, and the API
// contract says so.

/// The writer most documents use: compact, into a string buffer.
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

template <typename Writer>
void key(Writer& json, std::string_view name) {
  json.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

template <typename Writer>
void value(Writer& json, std::string_view text) {
  json.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

template <typename Writer>
void numberOrNull(Writer& json, double number) {
  if (std::isfinite(number)) {
    json.Double(number);
  } else {
    json.Null();
  }
}

template <typename Writer>
void field(Writer& json, std::string_view name, std::string_view text) {
  key(json, name);
  value(json, text);
}
template <typename Writer>
void field(Writer& json, std::string_view name, const char* text) {
  field(json, name, std::string_view(text));
}
template <typename Writer>
void field(Writer& json, std::string_view name, double number) {
  key(json, name);
  numberOrNull(json, number);
}
template <typename Writer>
void field(Writer& json, std::string_view name, std::uint64_t number) {
  key(json, name);
  json.Uint64(number);
}
template <typename Writer>
void field(Writer& json, std::string_view name, std::int64_t number) {
  key(json, name);
  json.Int64(number);
}
template <typename Writer>
void field(Writer& json, std::string_view name, bool flag) {
  key(json, name);
  json.Bool(flag);
}

}  // namespace benchd::common
