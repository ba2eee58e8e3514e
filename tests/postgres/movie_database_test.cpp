// The postgres profile's movie database in a real private cluster: it holds the core's seed
// movies with the core's ids, columns and documents, and reset() brings it back to that state
// after changes (movie_session_test.cpp checks the answers). Each test starts its own cluster
// (~1 s).
#include "test_cluster.hpp"

#include <benchd/microservice/genre.hpp>
#include <benchd/microservice/movie.hpp>
#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_storage.hpp>
#include <benchd/postgres/movie_database.hpp>
#include <benchd/postgres/pg_connection.hpp>
#include <benchd/postgres/pg_error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace benchd::postgres {
namespace {

using microservice::Movie;
using testing::TestCluster;

/// Everything the two tables and the id sequence hold, as text, for before/after comparisons.
/// Reads the sequence without advancing it.
std::string contents(PgConnection& connection) {
  std::string text;
  const PgResult movies = connection.execute(
      "SELECT id, title, release_year, genre, rating, document FROM movie ORDER BY id");
  for (int row = 0; row < movies.rows(); ++row) {
    for (int column = 0; column < movies.columns(); ++column)
      text.append(movies.isNull(row, column) ? "NULL" : movies.text(row, column)).append("|");
    text += "\n";
  }
  const PgResult directors =
      connection.execute("SELECT movie_id, last_name FROM movie_director ORDER BY 1, 2");
  for (int row = 0; row < directors.rows(); ++row)
    text.append(directors.text(row, 0)).append("|").append(directors.text(row, 1)).append("\n");
  const PgResult sequence = connection.execute("SELECT last_value, is_called FROM movie_object_id");
  text.append(sequence.text(0, 0)).append("|").append(sequence.text(0, 1));
  return text;
}

TEST(MovieDatabaseTest, HoldsTheCoreSeedMoviesWithTheCoreIdsAndColumns) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  PgConnection connection(test.cluster.connectionString());

  const std::vector<Movie> seed = microservice::seedMovies().movies;
  ASSERT_EQ(seed.size(), 8U);
  const PgResult rows = connection.execute(
      "SELECT id, title, release_year, genre, rating, document FROM movie ORDER BY id");
  ASSERT_EQ(rows.rows(), 8);
  std::int64_t previous_id = 0;
  for (int row = 0; row < rows.rows(); ++row) {
    // The core stores the seed in file order, each movie with the next ids.
    const auto index = static_cast<std::size_t>(row);
    const std::vector<Movie> parsed =
        microservice::parseMovies("[" + std::string(rows.text(row, 5)) + "]");
    ASSERT_EQ(parsed.size(), 1U);
    const Movie& stored = parsed.front();
    ASSERT_TRUE(stored.id);
    EXPECT_EQ(rows.text(row, 0), std::to_string(*stored.id));
    EXPECT_GT(*stored.id, previous_id);
    previous_id = *stored.id;
    EXPECT_EQ(rows.text(row, 1), seed[index].title);
    EXPECT_EQ(stored.title, seed[index].title);
    EXPECT_EQ(rows.text(row, 2), std::to_string(seed[index].release_year.value_or(0)));
    EXPECT_EQ(rows.text(row, 3), microservice::genreName(seed[index].genre.value()));
    EXPECT_EQ(std::stod(std::string(rows.text(row, 4))), seed[index].rating.value());
    EXPECT_EQ(stored.directors.size(), seed[index].directors.size());
  }

  const PgResult directors = connection.execute("SELECT count(*) FROM movie_director");
  std::size_t seed_directors = 0;
  for (const Movie& movie : seed)
    seed_directors += movie.directors.size();
  EXPECT_EQ(directors.text(0, 0), std::to_string(seed_directors));
}

TEST(MovieDatabaseTest, ResetRestoresTheSeedAfterChanges) {
  const TestCluster test;
  PgConnection connection(test.cluster.connectionString());
  createMovieDatabase(connection);
  const std::string seeded = contents(connection);
  const std::string first_new_id =
      std::string(connection.execute("SELECT nextval('movie_object_id')").text(0, 0));
  resetMovieDatabase(connection);
  ASSERT_EQ(contents(connection), seeded);

  // What a read-write run leaves behind: a deleted movie, a changed one, a new one.
  connection.execute(R"sql(
    DELETE FROM movie_director WHERE movie_id = (SELECT min(id) FROM movie);
    DELETE FROM movie WHERE id = (SELECT min(id) FROM movie);
    UPDATE movie SET title = 'Changed', rating = 1.5 WHERE id = (SELECT max(id) FROM movie);
    INSERT INTO movie (id, title, document)
      VALUES (nextval('movie_object_id'), 'New', '{"title":"New"}');
    INSERT INTO movie_director (movie_id, last_name)
      VALUES (currval('movie_object_id'), 'Allen');
  )sql");
  ASSERT_NE(contents(connection), seeded);

  resetMovieDatabase(test.cluster.connectionString());

  EXPECT_EQ(contents(connection), seeded);
  EXPECT_EQ(connection.execute("SELECT nextval('movie_object_id')").text(0, 0), first_new_id);
}

TEST(MovieDatabaseTest, CreatingItTwiceIsADuplicateTableErrorThatChangesNothing) {
  const TestCluster test;
  PgConnection connection(test.cluster.connectionString());
  createMovieDatabase(connection);
  const std::string seeded = contents(connection);
  try {
    createMovieDatabase(connection);
    FAIL() << "a second createMovieDatabase succeeded";
  } catch (const PgError& error) {
    EXPECT_EQ(error.sqlstate(), "42P07") << error.what();  // duplicate_table
    EXPECT_NE(std::string(error.what()).find("already exists"), std::string::npos) << error.what();
  }
  EXPECT_EQ(contents(connection), seeded);  // the failed transaction was rolled back
}

TEST(MovieDatabaseTest, AServerThatIsNotThereIsAConnectionErrorWithLibpqMessage) {
  const benchd::testing::TempDir nowhere;
  try {
    createMovieDatabase("host=" + nowhere.path().string() + " port=5432 dbname=postgres");
    FAIL() << "connected to a server that does not exist";
  } catch (const PgError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot connect to PostgreSQL: "), std::string::npos) << message;
    // libpq's own words name the socket it tried.
    EXPECT_NE(message.find(nowhere.path().string() + "/.s.PGSQL.5432"), std::string::npos)
        << message;
    EXPECT_TRUE(error.sqlstate().empty());
  }
}

}  // namespace
}  // namespace benchd::postgres
