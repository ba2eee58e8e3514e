#include "json_fields.hpp"

#include <algorithm>
#include <unordered_set>
#include <utility>

namespace benchd::scenario {

JsonPath JsonPath::field(std::string_view key) const {
  std::string text = text_;
  if (!text.empty()) {
    text += '.';
  }
  text += key;
  return JsonPath(std::move(text));
}

JsonPath JsonPath::element(std::size_t index) const {
  return JsonPath(text_ + '[' + std::to_string(index) + ']');
}

void failAt(const JsonPath& path, const std::string& reason) {
  throw SchemaViolation(path, reason);
}

std::string_view stringView(const rapidjson::Value& string_value) {
  return {string_value.GetString(), string_value.GetStringLength()};
}

ObjectFields::ObjectFields(const rapidjson::Value& value, JsonPath path)
    : object_(value), path_(std::move(path)) {
  if (!object_.IsObject()) {
    failAt(path_, "expected a JSON object");
  }
  // A hash set keeps the check linear in the member count: a file of a million distinct keys
  // (within the size cap) must fail fast on its unknown fields, not spend minutes here.
  std::unordered_set<std::string_view> seen;
  seen.reserve(object_.MemberCount());
  for (const auto& member : object_.GetObject()) {
    const std::string_view key = stringView(member.name);
    if (!seen.insert(key).second) {
      failAt(path_.field(key), "the field appears twice");
    }
  }
}

const rapidjson::Value* ObjectFields::find(std::string_view key) {
  known_.push_back(key);
  for (const auto& member : object_.GetObject()) {
    if (stringView(member.name) == key) {
      return &member.value;
    }
  }
  return nullptr;
}

const rapidjson::Value& ObjectFields::require(std::string_view key) {
  const rapidjson::Value* value = find(key);
  if (value == nullptr) {
    failAt(path_.field(key), "required field is missing");
  }
  return *value;
}

void ObjectFields::rejectUnknownFields() const {
  for (const auto& member : object_.GetObject()) {
    const std::string_view key = stringView(member.name);
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      std::string known;
      for (const std::string_view name : known_) {
        known += known.empty() ? "" : ", ";
        known += name;
      }
      failAt(path_.field(key), "unknown field (known here: " + known + ")");
    }
  }
}

std::string readString(const rapidjson::Value& value, const JsonPath& path) {
  if (!value.IsString()) {
    failAt(path, "expected a string");
  }
  return std::string(stringView(value));
}

double readNumber(const rapidjson::Value& value, const JsonPath& path, double minimum,
                  double maximum, std::string_view expectation) {
  if (!value.IsNumber() || value.GetDouble() < minimum || value.GetDouble() > maximum) {
    failAt(path, "expected " + std::string(expectation));
  }
  return value.GetDouble();
}

bool readBool(const rapidjson::Value& value, const JsonPath& path) {
  if (!value.IsBool()) {
    failAt(path, "expected true or false");
  }
  return value.GetBool();
}

void requireNonEmptyArray(const rapidjson::Value& value, const JsonPath& path) {
  if (!value.IsArray() || value.Empty()) {
    failAt(path, "expected a non-empty array");
  }
}

std::string describeOffset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t index = 0; index < offset; ++index) {
    if (text[index] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace benchd::scenario
