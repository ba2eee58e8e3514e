#pragma once
// libpq connection strings as benchd hands them on: a user's server (`--postgres URL`, a URI
// or key=value conninfo) narrowed to the schema benchd creates there.

#include <string>

namespace benchd::postgres {

/// `conninfo` (either of libpq's forms) as a key=value conninfo whose sessions use `schema`
/// (options -c search_path), every other parameter kept. Throws PgError "bad PostgreSQL
/// connection string: <libpq's reason>" for one libpq cannot parse.
[[nodiscard]] std::string withSearchPath(const std::string& conninfo, const std::string& schema);

/// `text` as one libpq conninfo value: single-quoted, with backslashes and quotes escaped.
[[nodiscard]] std::string conninfoValue(const std::string& text);

}  // namespace benchd::postgres
