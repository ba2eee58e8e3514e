#include <benchd/postgres/pg_error.hpp>

#include <utility>

namespace benchd::postgres {

PgError::PgError(const std::string& message, std::string sqlstate)
    : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}

}  // namespace benchd::postgres
