#pragma once

#include <libpq-fe.h>
#include <string_view>

namespace benchd::postgres {

/// Owns one PGresult of a successful command (PgConnection throws for the others). Values
/// are read as text, the format of libpq's blocking calls here. Move-only.
///
/// Thread-safety: a PgResult is independent of its connection (libpq copies the data into
/// it), so it may be read on any thread, by one thread at a time when moved.
class PgResult {
 public:
  /// Takes ownership of `result`, which may be null (an empty result).
  explicit PgResult(PGresult* result) noexcept : result_(result) {}
  ~PgResult();
  PgResult(PgResult&& other) noexcept;
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  [[nodiscard]] int rows() const noexcept;
  [[nodiscard]] int columns() const noexcept;
  /// Rows touched by an INSERT, UPDATE, DELETE, ... (PQcmdTuples); 0 for other commands.
  [[nodiscard]] long affectedRows() const noexcept;

  /// `row` and `column` must be in range. A NULL reads as "" by text(); tell it apart with
  /// isNull(). The view lives as long as this result.
  [[nodiscard]] bool isNull(int row, int column) const noexcept;
  [[nodiscard]] std::string_view text(int row, int column) const noexcept;

  [[nodiscard]] PGresult* native() const noexcept { return result_; }

 private:
  PGresult* result_ = nullptr;
};

}  // namespace benchd::postgres
