#pragma once

#include <stdexcept>
#include <string>

namespace benchd::postgres {

/// A failed libpq call. what() is "<context>: <libpq's message>" (PQerrorMessage or
/// PQresultErrorMessage, trailing newline removed).
class PgError : public std::runtime_error {
 public:
  PgError(const std::string& message, std::string sqlstate);

  /// The five-character SQLSTATE the server reported (e.g. "42P07" for a table that already
  /// exists); empty when the error did not come from the server (connection failures).
  /// Callers map errors by this code, never by the text.
  [[nodiscard]] const std::string& sqlstate() const noexcept { return sqlstate_; }

 private:
  std::string sqlstate_;
};

}  // namespace benchd::postgres
