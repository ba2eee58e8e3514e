#include <benchd/postgres/conninfo.hpp>
#include <benchd/postgres/pg_error.hpp>

#include <libpq-fe.h>
#include <memory>

namespace benchd::postgres {

std::string conninfoValue(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'')
      quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

std::string withSearchPath(const std::string& conninfo, const std::string& schema) {
  char* error = nullptr;
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
      PQconninfoParse(conninfo.c_str(), &error), &PQconninfoFree);
  if (!options) {
    std::string reason = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!reason.empty() && reason.back() == '\n')
      reason.pop_back();
    throw PgError("bad PostgreSQL connection string: " + reason, "");
  }
  std::string result;
  std::string server_options;
  for (const PQconninfoOption* option = options.get(); option->keyword != nullptr; ++option) {
    if (option->val == nullptr)
      continue;
    if (std::string(option->keyword) == "options") {
      server_options = option->val;
      continue;
    }
    result += std::string(option->keyword) + "=" + conninfoValue(option->val) + " ";
  }
  // A schema name is an identifier; benchd's own are lower-case letters, digits and '_'.
  server_options += (server_options.empty() ? "" : " ") + std::string("-c search_path=") + schema;
  return result + "options=" + conninfoValue(server_options);
}

}  // namespace benchd::postgres
