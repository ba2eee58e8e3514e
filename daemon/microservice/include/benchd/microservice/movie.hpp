#pragma once

#include <benchd/microservice/genre.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace benchd::microservice {

/// The domain model of the benchmark microservice (the JSON documents of GET and POST
/// /movies). Plain values. An absent id means "not stored yet"; every other absent field is
/// serialised as JSON null.

struct Person {
  std::optional<std::int64_t> id;
  std::optional<std::string> first_name;
  std::optional<std::string> last_name;
  std::optional<std::string> birthday;  ///< ISO date "YYYY-MM-DD"

  friend bool operator==(const Person&, const Person&) = default;
};

struct Character {
  std::optional<std::int64_t> id;
  std::optional<std::string> name;
  std::optional<Person> actor;

  friend bool operator==(const Character&, const Character&) = default;
};

struct Award {
  std::optional<std::int64_t> id;
  std::optional<std::string> name;
  std::optional<std::int32_t> year;

  friend bool operator==(const Award&, const Award&) = default;
};

struct Movie {
  std::optional<std::int64_t> id;
  std::string title;  ///< the only required field
  std::optional<std::int32_t> release_year;
  std::optional<Genre> genre;
  std::vector<Character> characters;
  std::vector<Person> directors;
  std::vector<Person> writers;
  std::vector<Award> awards;
  std::optional<double> rating;

  friend bool operator==(const Movie&, const Movie&) = default;
};

}  // namespace benchd::microservice
