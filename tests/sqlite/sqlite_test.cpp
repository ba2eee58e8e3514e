// The SQLite RAII layer the results store and the microservice's movie database share
// (daemon/sqlite), on real database files in a temporary folder: a failure names what failed and
// SQLite's reason; every column type reads back as it was bound; a prepared statement runs again
// after reset(), which also gives up its locks; a transaction is seen by another connection only
// once committed, and is rolled back when it is left without a commit.
#include "temp_dir.hpp"

#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_error.hpp>
#include <benchd/sqlite/sqlite_statement.hpp>
#include <benchd/sqlite/sqlite_transaction.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace benchd::sqlite {
namespace {

/// A fresh temporary folder for the database files of one test.
class SqliteTest : public ::testing::Test {
 protected:
  [[nodiscard]] std::string file() const { return (dir_.path() / "test.sqlite").string(); }

  benchd::testing::TempDir dir_;
};

/// Thrown by a test to leave a scope the way a caller's failure would; not a SqliteError, so
/// catching it cannot hide one.
struct GivingUp {};

/// The message of the SqliteError `action` throws; a test failure when it throws none.
template <typename Action>
std::string sqliteErrorOf(Action action) {
  try {
    action();
  } catch (const SqliteError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no SqliteError was thrown";
  return {};
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

/// The rows of `table`, read by a statement that is finished (and so holds no lock) on return.
std::int64_t countRows(SqliteConnection& connection, std::string_view table) {
  SqliteStatement count = connection.prepare("SELECT count(*) FROM " + std::string(table));
  if (!count.step()) {
    ADD_FAILURE() << "count(*) gave no row";
    return -1;
  }
  return count.columnInt64(0);
}

// ---- Opening -------------------------------------------------------------------------------

TEST_F(SqliteTest, OpeningAFileInAFolderThatDoesNotExistNamesThePathAndSqlitesReason) {
  const std::string missing = (dir_.path() / "no-such-folder" / "test.sqlite").string();
  const std::string message = sqliteErrorOf([&] { const SqliteConnection connection(missing); });
  EXPECT_TRUE(contains(message, missing)) << message;
  EXPECT_TRUE(contains(message, ": unable to open database file")) << message;
  // Creating the folder is the caller's business (the results store does it).
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "no-such-folder"));
}

TEST_F(SqliteTest, OpeningAPathThatDoesNotExistCreatesTheDatabaseAndItsDataOutlivesTheConnection) {
  {
    SqliteConnection connection(file());
    EXPECT_TRUE(std::filesystem::exists(file()));
    connection.execute("CREATE TABLE movie(title TEXT); INSERT INTO movie VALUES ('Elephant')");
  }
  SqliteConnection reopened(file());
  EXPECT_EQ(countRows(reopened, "movie"), 1);
}

TEST_F(SqliteTest, AFileUriNamesTheSameDatabaseAsItsPath) {
  // The constructor takes URIs: "file:" is not read as part of a relative file name.
  {
    SqliteConnection by_uri("file:" + file());
    by_uri.execute("CREATE TABLE movie(title TEXT); INSERT INTO movie VALUES ('Gerry')");
  }
  SqliteConnection by_path(file());
  EXPECT_EQ(countRows(by_path, "movie"), 1);
}

TEST_F(SqliteTest, AMemdbUriIsOneDatabaseSharedByEveryConnectionThatNamesIt) {
  // The header's example, and how the microservice gives each thread its own connection to one
  // in-memory movie database.
  const std::string uri = "file:/benchd-sqlite-test-shared?vfs=memdb";
  SqliteConnection writer(uri);
  writer.execute("CREATE TABLE movie(title TEXT); INSERT INTO movie VALUES ('Milk'), ('Gerry')");
  SqliteConnection reader(uri);
  EXPECT_EQ(countRows(reader, "movie"), 2);
}

// ---- Binding and reading every column type -------------------------------------------------
// The columns have no declared type, so SQLite stores each value as bound (no affinity
// conversion); the values are read back by a second connection, from the file.

TEST_F(SqliteTest, IntegersReadBackExactlyIncludingThe64BitExtremes) {
  const std::vector<std::int64_t> values = {std::numeric_limits<std::int64_t>::min(),
                                            -1,
                                            0,
                                            1,
                                            9'007'199'254'740'993,  // 2^53 + 1: no double holds it
                                            std::numeric_limits<std::int64_t>::max()};
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE value(v)");
  SqliteStatement insert = writer.prepare("INSERT INTO value(v) VALUES (?)");
  for (const std::int64_t value : values) {
    insert.bind(1, value);
    insert.run();
    insert.reset();
  }

  SqliteConnection reader(file());
  SqliteStatement select = reader.prepare("SELECT v, typeof(v) FROM value ORDER BY rowid");
  for (const std::int64_t value : values) {
    ASSERT_TRUE(select.step());
    EXPECT_EQ(select.columnInt64(0), value);
    EXPECT_EQ(select.columnText(1), "integer");
  }
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteTest, DoublesReadBackBitForBit) {
  // The header says nothing of NaN (SQLite stores a bound NaN as NULL), so it is not here.
  const std::vector<double> values = {std::numeric_limits<double>::lowest(),
                                      -2.5,
                                      0.1,
                                      3.0,
                                      std::numeric_limits<double>::denorm_min(),
                                      1e300,
                                      std::numeric_limits<double>::max()};
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE value(v)");
  SqliteStatement insert = writer.prepare("INSERT INTO value(v) VALUES (?)");
  for (const double value : values) {
    insert.bind(1, value);
    insert.run();
    insert.reset();
  }

  SqliteConnection reader(file());
  SqliteStatement select = reader.prepare("SELECT v, typeof(v) FROM value ORDER BY rowid");
  for (const double value : values) {
    ASSERT_TRUE(select.step());
    EXPECT_EQ(select.columnDouble(0), value) << "not rounded, not turned into an integer";
    EXPECT_EQ(select.columnText(1), "real");
  }
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteTest, TextReadsBackAsBoundQuotesUtf8AndEmptyIncluded) {
  // Bound, never spliced into the SQL: quotes and SQL in a value are only text. The empty view
  // (even one whose data() is null) is '', which a NOT NULL column takes, not NULL.
  const std::vector<std::string_view> values = {
      "Van Sant",
      "it's \"quoted\"",
      "Robert'); DROP TABLE value; --",
      // UTF-8: "ete" with two e-acutes, two CJK characters, a four-byte emoji.
      "\xC3\xA9t\xC3\xA9 \xE6\xBC\xA2\xE5\xAD\x97 \xF0\x9F\x8E\xAC",
      "",
      std::string_view{},
  };
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE value(v NOT NULL)");
  SqliteStatement insert = writer.prepare("INSERT INTO value(v) VALUES (?)");
  for (const std::string_view value : values) {
    insert.bind(1, value);
    insert.run();
    insert.reset();
  }

  SqliteConnection reader(file());
  SqliteStatement select = reader.prepare("SELECT v, typeof(v) FROM value ORDER BY rowid");
  for (const std::string_view value : values) {
    ASSERT_TRUE(select.step());
    EXPECT_FALSE(select.columnIsNull(0));
    EXPECT_EQ(select.columnText(0), value);
    EXPECT_EQ(select.columnText(1), "text");
  }
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteTest, BlobsReadBackByteForByteAndAnEmptyOneIsNotNull) {
  // An empty blob is how the store keeps the latency buckets of a second without one answer.
  const std::vector<std::vector<std::byte>> values = {
      {std::byte{0x00}, std::byte{0xFF}, std::byte{0x27}, std::byte{0x00}},
      {},
  };
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE value(v NOT NULL)");
  SqliteStatement insert = writer.prepare("INSERT INTO value(v) VALUES (?)");
  for (const std::vector<std::byte>& value : values) {
    insert.bindBlob(1, value);
    insert.run();
    insert.reset();
  }

  SqliteConnection reader(file());
  SqliteStatement select = reader.prepare("SELECT v, typeof(v) FROM value ORDER BY rowid");
  for (const std::vector<std::byte>& value : values) {
    ASSERT_TRUE(select.step());
    EXPECT_FALSE(select.columnIsNull(0));
    const std::span<const std::byte> read = select.columnBlob(0);
    EXPECT_EQ(std::vector<std::byte>(read.begin(), read.end()), value);
    EXPECT_EQ(select.columnText(1), "blob") << "bound as a BLOB, not as text";
  }
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteTest, NullIsBoundExplicitlyOrByAnEmptyOptionalAndAFullOptionalBindsItsValue) {
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE value(v)");
  SqliteStatement insert = writer.prepare("INSERT INTO value(v) VALUES (?)");
  insert.bindNull(1);
  insert.run();
  insert.reset();
  insert.bind(1, std::optional<std::int64_t>{});
  insert.run();
  insert.reset();
  insert.bind(1, std::optional<std::string>{});
  insert.run();
  insert.reset();
  insert.bind(1, std::optional<std::int64_t>{7});
  insert.run();
  insert.reset();
  insert.bind(1, std::optional<double>{2.5});
  insert.run();
  insert.reset();
  insert.bind(1, std::optional<std::string>{"Lynch"});
  insert.run();
  insert.reset();

  SqliteConnection reader(file());
  SqliteStatement select = reader.prepare("SELECT v, typeof(v) FROM value ORDER BY rowid");
  for (int null_row = 0; null_row < 3; ++null_row) {
    ASSERT_TRUE(select.step());
    EXPECT_TRUE(select.columnIsNull(0)) << "row " << null_row;
    EXPECT_EQ(select.columnText(1), "null") << "row " << null_row;
  }
  ASSERT_TRUE(select.step());
  EXPECT_FALSE(select.columnIsNull(0));
  EXPECT_EQ(select.columnInt64(0), 7);
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.columnDouble(0), 2.5);
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.columnText(0), "Lynch");
  EXPECT_FALSE(select.step());
}

// ---- Errors --------------------------------------------------------------------------------

TEST_F(SqliteTest, BadSqlIsRefusedNamingTheSqlAndSqlitesMessage) {
  SqliteConnection connection(file());
  const std::string prepared = sqliteErrorOf([&] { (void)connection.prepare("SELEC 1"); });
  EXPECT_TRUE(contains(prepared, "\"SELEC 1\"")) << prepared;
  EXPECT_TRUE(contains(prepared, ": near \"SELEC\": syntax error")) << prepared;

  const std::string executed =
      sqliteErrorOf([&] { connection.execute("INSERT INTO missing VALUES (1)"); });
  EXPECT_TRUE(contains(executed, "\"INSERT INTO missing VALUES (1)\"")) << executed;
  EXPECT_TRUE(contains(executed, ": no such table: missing")) << executed;
}

TEST_F(SqliteTest, AFailedStepNamesTheStatementAndTheStatementServesAgainAfterReset) {
  SqliteConnection connection(file());
  connection.execute("CREATE TABLE movie(id INTEGER PRIMARY KEY, title TEXT NOT NULL)");
  SqliteStatement insert = connection.prepare("INSERT INTO movie(title) VALUES (?)");
  insert.bindNull(1);
  const std::string message = sqliteErrorOf([&] { insert.run(); });
  EXPECT_TRUE(contains(message, "\"INSERT INTO movie(title) VALUES (?)\"")) << message;
  EXPECT_TRUE(contains(message, ": NOT NULL constraint failed: movie.title")) << message;

  insert.reset();
  insert.bind(1, "Elephant");
  insert.run();
  EXPECT_EQ(connection.changes(), 1);
  EXPECT_EQ(countRows(connection, "movie"), 1);
}

TEST_F(SqliteTest, BindingAParameterTheStatementDoesNotHaveIsRefused) {
  SqliteConnection connection(file());
  SqliteStatement select = connection.prepare("SELECT ?, ?");
  // Parameters count from 1: neither 0 nor one past the last exists.
  for (const int index : {0, 3}) {
    const std::string message = sqliteErrorOf([&] { select.bind(index, std::int64_t{1}); });
    EXPECT_TRUE(contains(message, "bind")) << message;
    EXPECT_TRUE(contains(message, "out of range")) << message;
  }
}

// ---- Statements: reuse, reset, the view they are given -------------------------------------

TEST_F(SqliteTest, ResetRestartsTheStatementAndClearsItsBindings) {
  SqliteConnection connection(file());
  connection.execute("CREATE TABLE n(v); INSERT INTO n VALUES (1), (2), (3)");
  SqliteStatement select = connection.prepare("SELECT v FROM n WHERE v >= ? ORDER BY v");
  select.bind(1, std::int64_t{2});
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.columnInt64(0), 2);

  select.reset();  // mid-execution: the 3 is never read
  select.bind(1, std::int64_t{1});
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.columnInt64(0), 1) << "a new execution, with the new binding";

  select.reset();
  // The parameter is unbound again, i.e. NULL, and no value is >= NULL.
  EXPECT_FALSE(select.step());
}

TEST_F(SqliteTest, ResetMidExecutionGivesUpTheReadLockAWriterNeeds) {
  SqliteConnection reader(file());
  reader.execute("CREATE TABLE n(v); INSERT INTO n VALUES (1), (2)");
  SqliteConnection writer(file());
  // Refused at once rather than after the busy timeout, so the first attempt fails fast.
  writer.execute("PRAGMA busy_timeout = 0");
  SqliteStatement select = reader.prepare("SELECT v FROM n");
  ASSERT_TRUE(select.step());
  // A statement stopped mid-way still reads: the writer cannot commit past it...
  EXPECT_THROW(writer.execute("INSERT INTO n VALUES (3)"), SqliteError);

  // ...until it is reset.
  select.reset();
  writer.execute("INSERT INTO n VALUES (3)");
  EXPECT_EQ(countRows(reader, "n"), 3);
}

TEST_F(SqliteTest, StatementExecutionResetsTheStatementWhenAnExceptionLeavesItsScope) {
  SqliteConnection connection(file());
  connection.execute("CREATE TABLE n(v); INSERT INTO n VALUES (1), (2)");
  SqliteConnection writer(file());
  writer.execute("PRAGMA busy_timeout = 0");
  SqliteStatement select = connection.prepare("SELECT v FROM n WHERE v >= ? ORDER BY v");
  try {
    const StatementExecution execution(select);
    execution->bind(1, std::int64_t{1});
    ASSERT_TRUE(execution->step());
    EXPECT_EQ((*execution).columnInt64(0), 1);
    throw GivingUp{};
  } catch (const GivingUp&) {
  }

  // No read lock is left behind: another connection commits at once.
  writer.execute("INSERT INTO n VALUES (0)");
  // The binding went with the reset: unbound, the parameter is NULL and matches nothing.
  EXPECT_FALSE(select.step());
  select.reset();
  select.bind(1, std::int64_t{0});
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.columnInt64(0), 0);
}

TEST_F(SqliteTest, PrepareCompilesTheTextOfTheViewAndNothingAfterIt) {
  SqliteConnection connection(file());
  // Read past the view's end, the text would be "SELECT 7)", a syntax error.
  constexpr std::string_view kBuffer = "SELECT 7)";
  SqliteStatement select = connection.prepare(kBuffer.substr(0, kBuffer.size() - 1));
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.columnInt64(0), 7);
}

TEST_F(SqliteTest, ExecuteRunsEveryStatementItIsGiven) {
  SqliteConnection connection(file());
  connection.execute(
      "CREATE TABLE movie(title TEXT); INSERT INTO movie VALUES ('Milk');"
      "INSERT INTO movie VALUES ('Gerry');");
  EXPECT_EQ(countRows(connection, "movie"), 2);
}

TEST_F(SqliteTest, ReportsTheLastInsertedRowIdAndTheRowsChanged) {
  SqliteConnection connection(file());
  connection.execute("CREATE TABLE movie(id INTEGER PRIMARY KEY, title TEXT)");
  SqliteStatement insert = connection.prepare("INSERT INTO movie(id, title) VALUES (?, ?)");
  insert.bind(1, std::int64_t{41});
  insert.bind(2, "Elephant");
  insert.run();
  insert.reset();
  EXPECT_EQ(connection.lastInsertRowId(), 41);
  EXPECT_EQ(connection.changes(), 1);

  connection.execute("INSERT INTO movie(title) VALUES ('Gerry'), ('Milk')");
  EXPECT_EQ(connection.lastInsertRowId(), 43) << "the last of the rows inserted";
  EXPECT_EQ(connection.changes(), 2);
  connection.execute("UPDATE movie SET title = upper(title) WHERE id > 41");
  EXPECT_EQ(connection.changes(), 2);
  connection.execute("DELETE FROM movie WHERE id = 999");
  EXPECT_EQ(connection.changes(), 0);
}

// ---- Transactions --------------------------------------------------------------------------

TEST_F(SqliteTest, ATransactionsWritesReachOtherConnectionsOnlyWhenItCommits) {
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE movie(title TEXT)");
  SqliteConnection reader(file());
  {
    SqliteTransaction transaction(writer);
    writer.execute("INSERT INTO movie VALUES ('Elephant'), ('Gerry')");
    EXPECT_EQ(countRows(reader, "movie"), 0) << "not committed yet";
    transaction.commit();
    EXPECT_EQ(countRows(reader, "movie"), 2);
  }
  EXPECT_EQ(countRows(reader, "movie"), 2) << "a committed transaction stays committed";
}

TEST_F(SqliteTest, ATransactionLeftByAnExceptionIsRolledBack) {
  SqliteConnection writer(file());
  writer.execute("CREATE TABLE movie(title TEXT); INSERT INTO movie VALUES ('Elephant')");
  try {
    SqliteTransaction transaction(writer);
    writer.execute("INSERT INTO movie VALUES ('Gerry')");
    writer.execute("DELETE FROM movie WHERE title = 'Elephant'");
    throw GivingUp{};
  } catch (const GivingUp&) {
  }

  SqliteConnection reader(file());
  {
    SqliteStatement titles = reader.prepare("SELECT title FROM movie");
    ASSERT_TRUE(titles.step());
    EXPECT_EQ(titles.columnText(0), "Elephant");
    EXPECT_FALSE(titles.step());
  }
  // The writer is out of the transaction: a second one begins (BEGIN inside a transaction would
  // throw) and commits.
  SqliteTransaction next(writer);
  writer.execute("INSERT INTO movie VALUES ('Milk')");
  next.commit();
  EXPECT_EQ(countRows(reader, "movie"), 2);
}

TEST_F(SqliteTest, ATransactionHoldsTheWriteLockFromItsStartButLetsOthersRead) {
  // BEGIN IMMEDIATE: two writers find out at BEGIN, not at their first write or at COMMIT.
  SqliteConnection first(file());
  first.execute("CREATE TABLE movie(title TEXT)");
  SqliteConnection second(file());
  second.execute("PRAGMA busy_timeout = 0");
  {
    const SqliteTransaction holding(first);  // nothing written yet
    const std::string message = sqliteErrorOf([&] { const SqliteTransaction refused(second); });
    EXPECT_TRUE(contains(message, "database is locked")) << message;
    EXPECT_EQ(countRows(second, "movie"), 0) << "readers are not blocked";
  }
  // The lock went with the rollback of the uncommitted transaction.
  SqliteTransaction after(second);
  second.execute("INSERT INTO movie VALUES ('Milk')");
  after.commit();
  EXPECT_EQ(countRows(first, "movie"), 1);
}

// ---- Threads -------------------------------------------------------------------------------

TEST_F(SqliteTest, ConnectionsInDifferentThreadsWriteOneFileWithoutLosingARow) {
  // "Different connections may be used concurrently": each thread has its own connection, and
  // a writer that finds the other's transaction in the way waits for it instead of failing.
  {
    SqliteConnection setup(file());
    setup.execute("CREATE TABLE entry(writer INTEGER, n INTEGER)");
  }
  constexpr std::int64_t kRowsPerWriter = 25;
  std::array<std::string, 2> failures;
  {
    std::vector<std::jthread> writers;
    for (std::size_t writer = 0; writer < failures.size(); ++writer) {
      writers.emplace_back([this, writer, &failures] {
        try {
          SqliteConnection connection(file());
          // The test is about locking, not durability: no fsync per commit.
          connection.execute("PRAGMA synchronous = OFF");
          SqliteStatement insert = connection.prepare("INSERT INTO entry(writer, n) VALUES (?, ?)");
          for (std::int64_t n = 0; n < kRowsPerWriter; ++n) {
            SqliteTransaction transaction(connection);
            {
              const StatementExecution execution(insert);
              execution->bind(1, static_cast<std::int64_t>(writer));
              execution->bind(2, n);
              execution->run();
            }
            transaction.commit();
          }
        } catch (const SqliteError& error) {
          failures[writer] = error.what();
        }
      });
    }
  }  // the jthreads join here
  for (const std::string& failure : failures) {
    EXPECT_EQ(failure, "");
  }
  SqliteConnection reader(file());
  EXPECT_EQ(countRows(reader, "entry"), 2 * kRowsPerWriter);
}

}  // namespace
}  // namespace benchd::sqlite
