#include <benchd/postgres/pg_result.hpp>

#include <cstdlib>
#include <utility>

namespace benchd::postgres {

PgResult::~PgResult() {
  if (result_ != nullptr)
    PQclear(result_);
}

PgResult::PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr)
      PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

int PgResult::rows() const noexcept {
  return result_ == nullptr ? 0 : PQntuples(result_);
}

int PgResult::columns() const noexcept {
  return result_ == nullptr ? 0 : PQnfields(result_);
}

long PgResult::affectedRows() const noexcept {
  if (result_ == nullptr)
    return 0;
  // PQcmdTuples is "" for commands that touch no rows, which strtol reads as 0.
  return std::strtol(PQcmdTuples(result_), nullptr, 10);
}

bool PgResult::isNull(int row, int column) const noexcept {
  return PQgetisnull(result_, row, column) == 1;
}

std::string_view PgResult::text(int row, int column) const noexcept {
  const int length = PQgetlength(result_, row, column);
  return {PQgetvalue(result_, row, column), static_cast<std::size_t>(length)};
}

}  // namespace benchd::postgres
