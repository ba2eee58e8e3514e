#include "json_test_support.hpp"

#include <benchd/microservice/movie_json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchd::microservice {
namespace {

using testing::compactJson;
using testing::readMoviesJsonFile;

/// Runs parseMovies and returns the InvalidMoviesError message ("" when it did not throw).
std::string parseError(const std::string& json) {
  try {
    static_cast<void>(parseMovies(json));
  } catch (const InvalidMoviesError& error) {
    return error.what();
  }
  return "";
}

TEST(MovieJsonTest, MoviesJsonRoundTripsToItsCompactForm) {
  const std::string file = readMoviesJsonFile();
  const std::vector<Movie> movies = parseMovies(file);
  EXPECT_EQ(serializeMovies(movies), compactJson(file));
}

TEST(MovieJsonTest, MoviesJsonHoldsTheEightReferenceMoviesInOrder) {
  const std::vector<Movie> movies = parseMovies(readMoviesJsonFile());
  std::vector<std::string> titles;
  for (const Movie& movie : movies) {
    titles.push_back(movie.title);
    EXPECT_FALSE(movie.id.has_value()) << movie.title;
    EXPECT_EQ(movie.characters.size(), 2U) << movie.title;
    EXPECT_EQ(movie.directors.size(), 1U) << movie.title;
    EXPECT_EQ(movie.writers.size(), 1U) << movie.title;
    EXPECT_GE(movie.awards.size(), 1U) << movie.title;
    EXPECT_LE(movie.awards.size(), 2U) << movie.title;
    for (const Character& character : movie.characters) {
      EXPECT_TRUE(character.name.has_value()) << movie.title;
      EXPECT_TRUE(character.actor.has_value()) << movie.title;
    }
  }
  EXPECT_EQ(titles, (std::vector<std::string>{
                        "Annie Hall", "Manhattan", "Zelig", "North by Northwest", "Rear Window",
                        "Vertigo", "2001: A Space Odyssey",
                        "Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb"}));
}

TEST(MovieJsonTest, MoviesJsonCompactSizeIsAboutFourKilobytes) {
  const std::size_t size = compactJson(readMoviesJsonFile()).size();
  EXPECT_GE(size, 3900U);
  EXPECT_LE(size, 4300U);
}

TEST(MovieJsonTest, AnnieHallHasTheExpectedFields) {
  const Movie annie_hall = parseMovies(readMoviesJsonFile()).at(0);
  EXPECT_EQ(annie_hall.title, "Annie Hall");
  EXPECT_EQ(annie_hall.release_year, 1977);
  EXPECT_EQ(annie_hall.genre, Genre::kRomance);
  EXPECT_EQ(annie_hall.rating, 8.0);
  ASSERT_EQ(annie_hall.characters.size(), 2U);
  EXPECT_EQ(annie_hall.characters[0].name, "Alvy Singer");
  EXPECT_EQ(annie_hall.characters[0].actor, (Person{std::nullopt, "Woody", "Allen", "1935-11-30"}));
  EXPECT_EQ(annie_hall.characters[1].name, "Annie Hall");
  EXPECT_EQ(annie_hall.characters[1].actor,
            (Person{std::nullopt, "Diane", "Keaton", "1946-01-05"}));
  EXPECT_EQ(annie_hall.directors,
            (std::vector<Person>{{std::nullopt, "Woody", "Allen", "1935-11-30"}}));
  EXPECT_EQ(annie_hall.writers, annie_hall.directors);
  ASSERT_FALSE(annie_hall.awards.empty());
  EXPECT_EQ(annie_hall.awards[0], (Award{std::nullopt, "Academy Award", 1978}));
}

TEST(MovieJsonTest, SerialisesFieldsInOrderWithIdsAndNulls) {
  Movie movie;
  movie.id = 7;
  movie.title = "T";
  movie.release_year = 2001;
  movie.genre = Genre::kScienceFiction;
  movie.characters.push_back({8, "C", Person{9, "A", "B", std::nullopt}});
  movie.characters.push_back({std::nullopt, std::nullopt, std::nullopt});
  movie.directors.push_back({10, "D", "E", "1900-01-02"});
  movie.awards.push_back({11, "W", 2002});
  movie.rating = 7.5;
  EXPECT_EQ(serializeMovie(movie),
            R"({"id":7,"title":"T","releaseYear":2001,"genre":"SCIENCE_FICTION",)"
            R"("characters":[{"id":8,"name":"C","actor":{"id":9,"firstName":"A","lastName":"B",)"
            R"("birthday":null}},{"name":null,"actor":null}],)"
            R"("directors":[{"id":10,"firstName":"D","lastName":"E","birthday":"1900-01-02"}],)"
            R"("writers":[],"awards":[{"id":11,"name":"W","year":2002}],"rating":7.5})");
}

TEST(MovieJsonTest, AbsentFieldsOfAMinimalMovieBecomeNullOrEmpty) {
  EXPECT_EQ(serializeMovies(parseMovies(R"([{"title":"Only"}])")),
            R"([{"title":"Only","releaseYear":null,"genre":null,"characters":[],"directors":[],)"
            R"("writers":[],"awards":[],"rating":null}])");
}

TEST(MovieJsonTest, EmptyArrayIsValid) {
  EXPECT_TRUE(parseMovies("[]").empty());
  EXPECT_EQ(serializeMovies({}), "[]");
}

TEST(MovieJsonTest, IgnoresUnknownKeysAndTreatsNullAsAbsent) {
  const std::vector<Movie> movies = parseMovies(
      R"([{"title":"X","sequel":{"deep":[1,2]},"genre":null,)"
      R"("characters":[{"role":"Leonard Zelig","actor":{"firstName":"W","nickname":"x"}}]}])");
  ASSERT_EQ(movies.size(), 1U);
  EXPECT_FALSE(movies[0].genre.has_value());
  ASSERT_EQ(movies[0].characters.size(), 1U);
  EXPECT_FALSE(movies[0].characters[0].name.has_value());
  EXPECT_EQ(movies[0].characters[0].actor, (Person{std::nullopt, "W", std::nullopt, std::nullopt}));
}

TEST(MovieJsonTest, KeepsIdsGivenInTheInput) {
  const std::vector<Movie> movies = parseMovies(R"([{"id":42,"title":"X","awards":[{"id":9}]}])");
  EXPECT_EQ(movies.at(0).id, 42);
  EXPECT_EQ(movies.at(0).awards.at(0).id, 9);
}

TEST(MovieJsonTest, RejectsInvalidJsonWithItsOffset) {
  const std::string message = parseError(R"([{"title": "X",, }])");
  EXPECT_EQ(message.rfind("invalid JSON at offset 15: ", 0), 0U) << message;
  EXPECT_EQ(parseError("").rfind("invalid JSON at offset 0: ", 0), 0U);
  EXPECT_EQ(parseError("[] []").rfind("invalid JSON at offset 3: ", 0), 0U);
}

TEST(MovieJsonTest, RejectsDeeplyNestedInputWithoutCrashing) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_EQ(parseError(deep), "$[0]: expected a JSON object");
}

TEST(MovieJsonTest, RejectsANonArrayBody) {
  EXPECT_EQ(parseError(R"({"title":"X"})"), "$: expected a JSON array");
  EXPECT_EQ(parseError("null"), "$: expected a JSON array");
}

TEST(MovieJsonTest, RejectsWrongTypesNamingThePath) {
  EXPECT_EQ(parseError(R"([{"title":"A"},{"title":"B"},{"title":"C","releaseYear":"1977"}])"),
            "$[2].releaseYear: expected an integer");
  EXPECT_EQ(parseError(R"([{"title":"A","releaseYear":1977.5}])"),
            "$[0].releaseYear: expected an integer");
  EXPECT_EQ(parseError(R"([42])"), "$[0]: expected a JSON object");
  EXPECT_EQ(parseError(R"([{"title":7}])"), "$[0].title: expected a string");
  EXPECT_EQ(parseError(R"([{"title":"A","rating":"high"}])"), "$[0].rating: expected a number");
  EXPECT_EQ(parseError(R"([{"title":"A","id":"one"}])"), "$[0].id: expected a 64-bit integer");
  EXPECT_EQ(parseError(R"([{"title":"A","characters":{}}])"),
            "$[0].characters: expected a JSON array");
  EXPECT_EQ(parseError(R"([{"title":"A","characters":[{"name":"n"},{"actor":[]}]}])"),
            "$[0].characters[1].actor: expected a JSON object");
  EXPECT_EQ(parseError(R"([{"title":"A","directors":[{"lastName":false}]}])"),
            "$[0].directors[0].lastName: expected a string");
  EXPECT_EQ(parseError(R"([{"title":"A","awards":[{"name":"x","year":1e3}]}])"),
            "$[0].awards[0].year: expected an integer");
}

TEST(MovieJsonTest, RejectsAMissingTitle) {
  EXPECT_EQ(parseError(R"([{"releaseYear":1977}])"), "$[0].title: required string is missing");
  EXPECT_EQ(parseError(R"([{"title":null}])"), "$[0].title: required string is missing");
}

TEST(MovieJsonTest, RejectsAnUnknownGenre) {
  EXPECT_EQ(parseError(R"([{"title":"A","genre":"WESTERN"}])"),
            R"($[0].genre: unknown genre "WESTERN")");
  EXPECT_EQ(parseError(R"([{"title":"A","genre":"comedy"}])"),
            R"($[0].genre: unknown genre "comedy")");
}

TEST(MovieJsonTest, RejectsBadBirthdays) {
  for (const char* birthday :
       {"1935-11-3", "1935/11/30", "1935-13-01", "1935-00-10", "1935-11-32", "19x5-11-30", ""}) {
    const std::string body =
        R"([{"title":"A","writers":[{"birthday":")" + std::string(birthday) + R"("}]}])";
    EXPECT_EQ(parseError(body), "$[0].writers[0].birthday: expected a date YYYY-MM-DD") << birthday;
  }
  EXPECT_EQ(parseError(R"([{"title":"A","writers":[{"birthday":"1935-11-30"}]}])"), "");
}

TEST(MovieJsonTest, RejectsInvalidUtf8) {
  const std::string message = parseError("[{\"title\":\"\xC3\x28\"}]");
  EXPECT_EQ(message.rfind("invalid JSON at offset ", 0), 0U) << message;
}

TEST(MovieJsonTest, RejectsLoneSurrogateEscapes) {
  // A low surrogate without a high one, anywhere (a key too, though unknown keys are ignored).
  EXPECT_EQ(parseError(R"([{"title":"\udc00"}])").rfind("invalid JSON at offset 11: ", 0), 0U)
      << parseError(R"([{"title":"\udc00"}])");
  EXPECT_EQ(parseError(R"([{"title":"ok\uDFFFok"}])").rfind("invalid JSON at offset ", 0), 0U);
  EXPECT_EQ(parseError(R"([{"title":"A","x\udc00":1}])").rfind("invalid JSON at offset ", 0), 0U);
  // A high surrogate not followed by a low one, and a high one at the end of the string.
  EXPECT_EQ(parseError(R"([{"title":"\ud800x"}])").rfind("invalid JSON at offset ", 0), 0U);
  EXPECT_EQ(parseError(R"([{"title":"\ud800\u0041"}])").rfind("invalid JSON at offset ", 0), 0U);
  EXPECT_EQ(parseError(R"([{"title":"\ud800\ud800"}])").rfind("invalid JSON at offset ", 0), 0U);
  EXPECT_EQ(parseError(R"([{"title":"x\ud800"}])").rfind("invalid JSON at offset ", 0), 0U);
}

TEST(MovieJsonTest, AcceptsSurrogatePairsAndEscapedBackslashes) {
  // "\\udc00" is a backslash and the text "udc00", not an escape.
  const std::vector<Movie> movies =
      parseMovies(R"([{"title":"\ud83c\udfac \\udc00 \u00e9 \\\ud83c\udfac"}])");
  ASSERT_EQ(movies.size(), 1U);
  EXPECT_EQ(movies[0].title, "\xF0\x9F\x8E\xAC \\udc00 \xC3\xA9 \\\xF0\x9F\x8E\xAC");
}

TEST(GenreTest, NamesRoundTrip) {
  for (const Genre genre : {Genre::kAction, Genre::kAdventure, Genre::kAnimation, Genre::kComedy,
                            Genre::kDrama, Genre::kFantasy, Genre::kHorror, Genre::kMystery,
                            Genre::kRomance, Genre::kScienceFiction, Genre::kThriller}) {
    EXPECT_EQ(genreFromName(genreName(genre)), genre);
  }
  EXPECT_EQ(genreName(Genre::kScienceFiction), "SCIENCE_FICTION");
  EXPECT_FALSE(genreFromName("SCIENCE FICTION").has_value());
}

TEST(GenreTest, EnumeratorOrderMatchesNameOrder) {
  for (int index = 0; index < 10; ++index) {
    EXPECT_LT(genreName(static_cast<Genre>(index)), genreName(static_cast<Genre>(index + 1)));
  }
}

}  // namespace
}  // namespace benchd::microservice
