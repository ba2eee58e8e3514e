#pragma once
// docs/store-schema.md, the results store's documented schema, as the tests that hold benchd to
// it read it: the document's text, and the SQL of its ```sql blocks (which create a store of
// the documented version in an empty file).

#include "build_paths.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace benchd::testing {

/// docs/store-schema.md of this checkout. Throws std::runtime_error when it cannot be read.
inline std::string storeSchemaDocument() {
  const std::filesystem::path file =
      std::filesystem::path(sourceDir()) / "docs" / "store-schema.md";
  std::ifstream in(file);
  if (!in) {
    throw std::runtime_error("cannot read " + file.string());
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The lines between each "```sql" line and the next "```" line of the document, in order.
/// Throws std::runtime_error when there is no such block, or one is not closed.
inline std::string documentedStoreSchemaSql() {
  std::istringstream document(storeSchemaDocument());
  std::string sql;
  std::string line;
  bool inside = false;
  bool found = false;
  while (std::getline(document, line)) {
    if (!inside && line == "```sql") {
      inside = true;
      found = true;
    } else if (inside && line == "```") {
      inside = false;
    } else if (inside) {
      sql += line + "\n";
    }
  }
  if (!found || inside) {
    throw std::runtime_error(found ? "docs/store-schema.md: a ```sql block is not closed"
                                   : "docs/store-schema.md has no ```sql block");
  }
  return sql;
}

}  // namespace benchd::testing
