#include <benchd/microservice/movie_json.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <optional>
#include <string>

namespace benchd::microservice {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

/// A compact movie is about 500 bytes; reserving that avoids most buffer growth.
constexpr std::size_t kTypicalMovieBytes = 640;

void writeString(JsonWriter& writer, const std::string& text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void writeOptionalString(JsonWriter& writer, const std::optional<std::string>& text) {
  if (text) {
    writeString(writer, *text);
  } else {
    writer.Null();
  }
}

void writeId(JsonWriter& writer, const std::optional<std::int64_t>& id) {
  if (id) {
    writer.Key("id");
    writer.Int64(*id);
  }
}

void writePerson(JsonWriter& writer, const Person& person) {
  writer.StartObject();
  writeId(writer, person.id);
  writer.Key("firstName");
  writeOptionalString(writer, person.first_name);
  writer.Key("lastName");
  writeOptionalString(writer, person.last_name);
  writer.Key("birthday");
  writeOptionalString(writer, person.birthday);
  writer.EndObject();
}

void writeCharacter(JsonWriter& writer, const Character& character) {
  writer.StartObject();
  writeId(writer, character.id);
  writer.Key("name");
  writeOptionalString(writer, character.name);
  writer.Key("actor");
  if (character.actor) {
    writePerson(writer, *character.actor);
  } else {
    writer.Null();
  }
  writer.EndObject();
}

void writeAward(JsonWriter& writer, const Award& award) {
  writer.StartObject();
  writeId(writer, award.id);
  writer.Key("name");
  writeOptionalString(writer, award.name);
  writer.Key("year");
  if (award.year) {
    writer.Int(*award.year);
  } else {
    writer.Null();
  }
  writer.EndObject();
}

template <typename Element, typename WriteElement>
void writeArray(JsonWriter& writer, const char* key, const std::vector<Element>& elements,
                WriteElement write_element) {
  writer.Key(key);
  writer.StartArray();
  for (const Element& element : elements) {
    write_element(writer, element);
  }
  writer.EndArray();
}

void writeMovie(JsonWriter& writer, const Movie& movie) {
  writer.StartObject();
  writeId(writer, movie.id);
  writer.Key("title");
  writeString(writer, movie.title);
  writer.Key("releaseYear");
  if (movie.release_year) {
    writer.Int(*movie.release_year);
  } else {
    writer.Null();
  }
  writer.Key("genre");
  if (movie.genre) {
    const std::string_view name = genreName(*movie.genre);
    writer.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  } else {
    writer.Null();
  }
  writeArray(writer, "characters", movie.characters, writeCharacter);
  writeArray(writer, "directors", movie.directors, writePerson);
  writeArray(writer, "writers", movie.writers, writePerson);
  writeArray(writer, "awards", movie.awards, writeAward);
  writer.Key("rating");
  if (movie.rating) {
    writer.Double(*movie.rating);
  } else {
    writer.Null();
  }
  writer.EndObject();
}

std::string toString(const rapidjson::StringBuffer& buffer) {
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

std::string serializeMovie(const Movie& movie) {
  rapidjson::StringBuffer buffer(nullptr, kTypicalMovieBytes);
  JsonWriter writer(buffer);
  writeMovie(writer, movie);
  return toString(buffer);
}

std::string serializeMovies(std::span<const Movie> movies) {
  rapidjson::StringBuffer buffer(nullptr, kTypicalMovieBytes * (movies.size() + 1));
  JsonWriter writer(buffer);
  writer.StartArray();
  for (const Movie& movie : movies) {
    writeMovie(writer, movie);
  }
  writer.EndArray();
  return toString(buffer);
}

}  // namespace benchd::microservice
