// docs/store-schema.md against the code, so the contract between benchd (which writes the
// store) and benchd-report (which reads it) cannot drift from what ResultStore does: the
// documented SQL creates exactly the schema and version a fresh ResultStore creates, and every
// table, column and stored name is described. (tests/gui/report_test.cpp renders a store built
// from the same SQL with the real benchd-report.)
#include "store_schema_doc.hpp"

#include "temp_dir.hpp"

#include <benchd/results/summary_row.hpp>
#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <sqlite3.h>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace benchd::store {
namespace {

namespace fs = std::filesystem;

/// An SQLite connection of the test's own (the C API, as any reader of the file would use).
class Database {
 public:
  explicit Database(const fs::path& file) {
    if (sqlite3_open(file.c_str(), &db_) != SQLITE_OK) {
      ADD_FAILURE() << "cannot open " << file << ": " << sqlite3_errmsg(db_);
    }
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  /// Runs `sql` (any number of statements); false, with a test failure naming the error, when
  /// it fails.
  bool execute(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      ADD_FAILURE() << "SQL failed: " << (error != nullptr ? error : "?");
      sqlite3_free(error);
      return false;
    }
    return true;
  }

  /// The rows of `query`, each column as text ("NULL" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& query) {
    std::vector<std::vector<std::string>> result;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, query.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "cannot prepare " << query << ": " << sqlite3_errmsg(db_);
      return result;
    }
    while (sqlite3_step(statement) == SQLITE_ROW) {
      std::vector<std::string>& row = result.emplace_back();
      for (int column = 0; column < sqlite3_column_count(statement); ++column) {
        const unsigned char* text = sqlite3_column_text(statement, column);
        row.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "NULL");
      }
    }
    sqlite3_finalize(statement);
    return result;
  }

 private:
  sqlite3* db_ = nullptr;
};

/// `sql` with each run of white space made one space, and none next to parentheses and commas:
/// the same statement laid out differently reads the same.
std::string normalised(const std::string& sql) {
  std::string text;
  bool pending_space = false;
  const auto hugs = [](char c) { return c == '(' || c == ')' || c == ','; };
  for (const char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      pending_space = !text.empty();
      continue;
    }
    if (pending_space && !hugs(c) && !hugs(text.back())) {
      text += ' ';
    }
    pending_space = false;
    text += c;
  }
  return text;
}

/// Every schema object of the file (tables, indexes, SQLite's own automatic indexes): type,
/// name, table and normalised SQL, sorted by type and name.
std::vector<std::tuple<std::string, std::string, std::string, std::string>> schemaOf(
    const fs::path& file) {
  Database db(file);
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> objects;
  for (const auto& row : db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master")) {
    objects.emplace_back(row[0], row[1], row[2], normalised(row[3]));
  }
  std::sort(objects.begin(), objects.end());
  return objects;
}

std::string userVersionOf(const fs::path& file) {
  Database db(file);
  const auto rows = db.rows("PRAGMA user_version");
  return rows.empty() ? "none" : rows[0][0];
}

/// The part of the document under the heading "### `table`", up to the next heading.
std::string sectionOf(const std::string& document, const std::string& table) {
  const std::string heading = "\n### `" + table + "`\n";
  const std::size_t start = document.find(heading);
  if (start == std::string::npos) {
    return {};
  }
  const std::size_t end = document.find("\n#", start + heading.size());
  return document.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

class StoreSchemaDocTest : public ::testing::Test {
 protected:
  /// A file ResultStore created (and closed again).
  fs::path freshStore() const {
    const fs::path file = dir_.path() / "fresh.sqlite";
    const ResultStore store(file);
    return file;
  }

  /// A file made by running the document's SQL in an empty file.
  fs::path documentedStore() const {
    const fs::path file = dir_.path() / "documented.sqlite";
    Database db(file);
    db.execute(benchd::testing::documentedStoreSchemaSql());
    return file;
  }

  benchd::testing::TempDir dir_;
  const std::string document_ = benchd::testing::storeSchemaDocument();
};

TEST_F(StoreSchemaDocTest, TheDocumentedSqlCreatesTheSchemaAFreshStoreHas) {
  const fs::path fresh = freshStore();
  const fs::path documented = documentedStore();
  const auto expected = schemaOf(fresh);
  const auto actual = schemaOf(documented);
  ASSERT_FALSE(expected.empty());
  for (const auto& object : expected) {
    EXPECT_NE(std::find(actual.begin(), actual.end(), object), actual.end())
        << "the document lacks, or differs in, " << std::get<0>(object) << " "
        << std::get<1>(object) << ": " << std::get<3>(object);
  }
  for (const auto& object : actual) {
    EXPECT_NE(std::find(expected.begin(), expected.end(), object), expected.end())
        << "the document has what a fresh store lacks: " << std::get<0>(object) << " "
        << std::get<1>(object) << ": " << std::get<3>(object);
  }
  EXPECT_EQ(userVersionOf(documented), std::to_string(ResultStore::kSchemaVersion));
  EXPECT_EQ(userVersionOf(fresh), std::to_string(ResultStore::kSchemaVersion));
  Database fresh_db(fresh);
  Database documented_db(documented);
  EXPECT_EQ(documented_db.rows("SELECT id FROM run_id_high_water"),
            fresh_db.rows("SELECT id FROM run_id_high_water"));
  EXPECT_NE(
      document_.find("PRAGMA user_version = " + std::to_string(ResultStore::kSchemaVersion) + ";"),
      std::string::npos);
  const std::string version = std::to_string(ResultStore::kSchemaVersion);
  EXPECT_NE(document_.find("`PRAGMA user_version`: **" + version + "**"), std::string::npos)
      << "the version the text states";
  EXPECT_NE(document_.find("\n## The schema, version " + version + "\n"), std::string::npos)
      << "the version the SQL's heading states";
}

TEST_F(StoreSchemaDocTest, ADocumentedStoreOpensWithoutMigration) {
  const fs::path documented = documentedStore();
  const ResultStore store(documented);
  EXPECT_EQ(store.schemaVersion(), ResultStore::kSchemaVersion);
  EXPECT_TRUE(store.listRuns().empty());
}

TEST_F(StoreSchemaDocTest, EveryTableAndColumnIsDescribed) {
  Database db(freshStore());
  const auto tables =
      db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  ASSERT_FALSE(tables.empty());
  for (const auto& table : tables) {
    const std::string section = sectionOf(document_, table[0]);
    EXPECT_FALSE(section.empty()) << "no section \"### `" << table[0] << "`\"";
    for (const auto& column : db.rows("SELECT name FROM pragma_table_info('" + table[0] + "')")) {
      EXPECT_NE(section.find("| `" + column[0] + "` |"), std::string::npos)
          << table[0] << "." << column[0] << " is not in its section's table";
    }
  }
}

TEST_F(StoreSchemaDocTest, EveryStoredNameIsDescribed) {
  const auto described = [this](const std::string& section, const std::string& name) {
    return sectionOf(document_, section).find("`" + name + "`") != std::string::npos;
  };
  for (const std::string_view metric : results::kMetricNames) {
    EXPECT_TRUE(described("result_metric", std::string(metric))) << metric;
  }
  // The diagnostics a finished result stores, as the writer names them.
  const fs::path file = dir_.path() / "written.sqlite";
  {
    ResultStore store(file);
    const RunId run = store.createRun(NewRun{});
    results::SummaryRow summary;
    summary.scenario = "row";
    summary.approach = "approach";
    store.finishResult(store.beginResult(run, 0, summary.scenario, summary.approach), summary);
  }
  Database db(file);
  const auto diagnostics = db.rows("SELECT name FROM result_diagnostic");
  ASSERT_FALSE(diagnostics.empty());
  for (const auto& name : diagnostics) {
    EXPECT_TRUE(described("result_diagnostic", name[0])) << name[0];
  }
  for (int value = 0; value <= 32; ++value) {
    const std::string_view status = runStatusName(static_cast<RunStatus>(value));
    if (status != "unknown") {
      EXPECT_TRUE(described("run", std::string(status))) << status;
    }
  }
  for (const measurement::PhaseKind phase :
       {measurement::PhaseKind::kWarmup, measurement::PhaseKind::kTest}) {
    EXPECT_TRUE(described("load_second", std::string(measurement::phaseKindName(phase))));
  }
}

}  // namespace
}  // namespace benchd::store
