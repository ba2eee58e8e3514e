#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::scenario {

/// Where a value sits in a JSON document, rendered like "scenarios[1].stages[0].target"; the
/// document root renders as "".
class JsonPath {
 public:
  JsonPath() = default;

  [[nodiscard]] JsonPath field(std::string_view key) const;
  [[nodiscard]] JsonPath element(std::size_t index) const;
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

 private:
  explicit JsonPath(std::string text) : text_(std::move(text)) {}

  std::string text_;
};

/// A value that breaks the schema: where and why. Callers add the file name.
class SchemaViolation : public std::runtime_error {
 public:
  SchemaViolation(JsonPath path, const std::string& reason)
      : std::runtime_error(reason), path_(std::move(path)) {}

  [[nodiscard]] const JsonPath& path() const noexcept { return path_; }

 private:
  JsonPath path_;
};

[[noreturn]] void failAt(const JsonPath& path, const std::string& reason);

/// The fields of one JSON object, read by name. Every name asked for becomes a known field;
/// rejectUnknownFields() then fails on the first field nobody asked for, so typos are caught.
/// Duplicate names fail at construction. Keys passed to find/require must outlive the object
/// (string literals do).
class ObjectFields {
 public:
  /// Fails unless `value` is an object.
  ObjectFields(const rapidjson::Value& value, JsonPath path);

  /// The field's value, or nullptr when it is absent.
  [[nodiscard]] const rapidjson::Value* find(std::string_view key);

  /// The field's value; fails when it is absent.
  [[nodiscard]] const rapidjson::Value& require(std::string_view key);

  void rejectUnknownFields() const;

  [[nodiscard]] const JsonPath& path() const noexcept { return path_; }
  [[nodiscard]] JsonPath pathOf(std::string_view key) const { return path_.field(key); }

 private:
  const rapidjson::Value& object_;
  JsonPath path_;
  std::vector<std::string_view> known_;
};

[[nodiscard]] std::string_view stringView(const rapidjson::Value& string_value);

/// The value as a string; fails unless it is one.
[[nodiscard]] std::string readString(const rapidjson::Value& value, const JsonPath& path);

/// The value as a number within [minimum, maximum]; fails with "expected <expectation>"
/// otherwise.
[[nodiscard]] double readNumber(const rapidjson::Value& value, const JsonPath& path, double minimum,
                                double maximum, std::string_view expectation);

[[nodiscard]] bool readBool(const rapidjson::Value& value, const JsonPath& path);

/// Fails unless the value is an array with at least one element.
void requireNonEmptyArray(const rapidjson::Value& value, const JsonPath& path);

/// "line 3, column 5" for a byte offset into `text`.
[[nodiscard]] std::string describeOffset(std::string_view text, std::size_t offset);

}  // namespace benchd::scenario
