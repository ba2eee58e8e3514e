#pragma once

#include <optional>
#include <span>
#include <string>

namespace benchd::postgres {

/// The shortest text that reads back as the same double (PostgreSQL's float8in reads it
/// exactly), so a rating column holds the core's value bit for bit.
[[nodiscard]] std::string exactText(double value);

/// A PostgreSQL array literal in text form, e.g. {"a","b \"c\"",NULL}: every element quoted,
/// with '"' and '\' escaped; nullopt is NULL. For $n::text[] (or ::bigint[], ...) parameters,
/// which carry any number of rows in one parameter.
[[nodiscard]] std::string arrayLiteral(std::span<const std::optional<std::string>> elements);

}  // namespace benchd::postgres
