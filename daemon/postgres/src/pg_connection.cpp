#include <benchd/postgres/pg_connection.hpp>
#include <benchd/postgres/pg_error.hpp>

#include <cctype>
#include <climits>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::postgres {
namespace {

/// libpq's messages end with a newline (and sometimes carry several lines); what() reads
/// better without the last one.
std::string withoutTrailingSpace(const char* message) {
  std::string text = message == nullptr ? std::string() : std::string(message);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0)
    text.pop_back();
  return text.empty() ? std::string("no error message") : text;
}

/// The statement as error messages quote it: one line, at most 80 characters.
std::string statementSummary(std::string_view sql) {
  constexpr std::size_t kLongest = 80;
  std::string summary;
  bool pending_space = false;
  for (const char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      pending_space = !summary.empty();
      continue;
    }
    if (pending_space)
      summary += ' ';
    pending_space = false;
    summary += c;
    if (summary.size() > kLongest)
      return summary.substr(0, kLongest) + "...";
  }
  return summary;
}

/// Takes ownership of `raw` and returns it when the command succeeded; throws PgError with
/// the server's message and SQLSTATE otherwise.
PgResult checked(PGconn* connection, PGresult* raw, std::string_view sql) {
  PgResult result(raw);
  const std::string context = "PostgreSQL: " + statementSummary(sql) + ": ";
  if (raw == nullptr)  // out of memory, or the connection is broken
    throw PgError(context + withoutTrailingSpace(PQerrorMessage(connection)), "");
  const ExecStatusType status = PQresultStatus(raw);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY)
    return result;
  if (status == PGRES_FATAL_ERROR || status == PGRES_NONFATAL_ERROR ||
      status == PGRES_BAD_RESPONSE) {
    const char* sqlstate = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
    throw PgError(context + withoutTrailingSpace(PQresultErrorMessage(raw)),
                  sqlstate == nullptr ? "" : sqlstate);
  }
  // COPY and the replication protocols need calls this blocking wrapper does not make.
  throw PgError(context + "unexpected result status " + PQresStatus(status) +
                    " (COPY is not supported by PgConnection)",
                "");
}

}  // namespace

PgConnection::PgConnection(const std::string& conninfo)
    : connection_(PQconnectdb(conninfo.c_str())) {
  if (connection_ == nullptr)
    throw PgError("cannot connect to PostgreSQL: libpq is out of memory", "");
  if (PQstatus(connection_) != CONNECTION_OK) {
    const std::string message =
        "cannot connect to PostgreSQL: " + withoutTrailingSpace(PQerrorMessage(connection_));
    PQfinish(std::exchange(connection_, nullptr));
    throw PgError(message, "");
  }
  if (PQsetClientEncoding(connection_, "UTF8") != 0) {
    const std::string message = "PostgreSQL: cannot set client_encoding to UTF8: " +
                                withoutTrailingSpace(PQerrorMessage(connection_));
    PQfinish(std::exchange(connection_, nullptr));
    throw PgError(message, "");
  }
}

PgConnection::~PgConnection() {
  if (connection_ != nullptr)
    PQfinish(connection_);
}

PgConnection::PgConnection(PgConnection&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)) {}

PgConnection& PgConnection::operator=(PgConnection&& other) noexcept {
  if (this != &other) {
    if (connection_ != nullptr)
      PQfinish(connection_);
    connection_ = std::exchange(other.connection_, nullptr);
  }
  return *this;
}

PgResult PgConnection::execute(const std::string& sql) {
  return checked(connection_, PQexec(connection_, sql.c_str()), sql);
}

PgResult PgConnection::execute(const std::string& sql,
                               std::span<const std::optional<std::string>> parameters) {
  if (parameters.size() > static_cast<std::size_t>(INT_MAX))
    throw PgError("PostgreSQL: " + statementSummary(sql) + ": too many parameters", "");
  std::vector<const char*> values;
  values.reserve(parameters.size());
  for (const std::optional<std::string>& parameter : parameters)
    values.push_back(parameter ? parameter->c_str() : nullptr);
  PGresult* raw = PQexecParams(connection_, sql.c_str(), static_cast<int>(values.size()),
                               nullptr /* types from context */, values.data(),
                               nullptr /* text: lengths unused */, nullptr /* all text */,
                               0 /* text results */);
  return checked(connection_, raw, sql);
}

}  // namespace benchd::postgres
