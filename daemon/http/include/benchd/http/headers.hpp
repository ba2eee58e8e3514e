#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::http {

/// ASCII case-insensitive equality, as HTTP field names compare.
[[nodiscard]] bool equalsIgnoreCase(std::string_view a, std::string_view b) noexcept;

/// An ordered list of HTTP header fields. Names compare case-insensitively (RFC 9110 §5.1);
/// order and duplicates are kept as received or added. A plain value type: not synchronised.
class HeaderList {
 public:
  using Field = std::pair<std::string, std::string>;

  /// The first value of `name`, or nothing.
  [[nodiscard]] std::optional<std::string_view> get(std::string_view name) const;
  [[nodiscard]] bool contains(std::string_view name) const { return get(name).has_value(); }
  /// Replaces every field `name` with one field.
  void set(std::string name, std::string value);
  /// Appends a field, keeping existing ones of the same name (e.g. several `Link`).
  void add(std::string name, std::string value);
  /// Removes every field `name`.
  void erase(std::string_view name);

  [[nodiscard]] const std::vector<Field>& fields() const noexcept { return fields_; }
  [[nodiscard]] bool empty() const noexcept { return fields_.empty(); }

 private:
  std::vector<Field> fields_;
};

}  // namespace benchd::http
