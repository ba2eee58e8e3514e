#include <benchd/microservice/movie_json.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace benchd::microservice {
namespace {

using rapidjson::Value;

/// One step of the JSON path to the value being read, chained to its parent on the stack. The
/// path text is only rendered when reporting an error.
class JsonPath {
 public:
  JsonPath() = default;
  JsonPath(const JsonPath& parent, std::string_view key) : parent_(&parent), key_(key) {}
  JsonPath(const JsonPath& parent, std::size_t index)
      : parent_(&parent), index_(index), is_index_(true) {}

  [[nodiscard]] std::string render() const {
    if (parent_ == nullptr) {
      return "$";
    }
    std::string text = parent_->render();
    if (is_index_) {
      text += '[';
      text += std::to_string(index_);
      text += ']';
    } else {
      text += '.';
      text += key_;
    }
    return text;
  }

 private:
  const JsonPath* parent_ = nullptr;
  std::string_view key_;
  std::size_t index_ = 0;
  bool is_index_ = false;
};

[[noreturn]] void fail(const JsonPath& path, std::string_view reason) {
  std::string message = path.render();
  message += ": ";
  message += reason;
  throw InvalidMoviesError(message);
}

/// The member's value, or nullptr when the key is missing or its value is null.
const Value* findMember(const Value& object, std::string_view key) {
  const auto member = object.FindMember(
      Value(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (member == object.MemberEnd() || member->value.IsNull()) {
    return nullptr;
  }
  return &member->value;
}

std::string toString(const Value& value) {
  return {value.GetString(), value.GetStringLength()};
}

std::optional<std::string> readString(const Value& object, std::string_view key,
                                      const JsonPath& parent) {
  const Value* value = findMember(object, key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->IsString()) {
    fail(JsonPath(parent, key), "expected a string");
  }
  return toString(*value);
}

std::optional<std::int64_t> readId(const Value& object, const JsonPath& parent) {
  const Value* value = findMember(object, "id");
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->IsInt64()) {
    fail(JsonPath(parent, "id"), "expected a 64-bit integer");
  }
  return value->GetInt64();
}

std::optional<std::int32_t> readInt(const Value& object, std::string_view key,
                                    const JsonPath& parent) {
  const Value* value = findMember(object, key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->IsInt()) {
    fail(JsonPath(parent, key), "expected an integer");
  }
  return value->GetInt();
}

std::optional<double> readNumber(const Value& object, std::string_view key,
                                 const JsonPath& parent) {
  const Value* value = findMember(object, key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->IsNumber()) {
    fail(JsonPath(parent, key), "expected a number");
  }
  return value->GetDouble();
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

int twoDigits(std::string_view text, std::size_t at) {
  return (text[at] - '0') * 10 + (text[at + 1] - '0');
}

/// Accepts "YYYY-MM-DD" with month 01..12 and day 01..31 (like an ISO local date, without the
/// per-month day check).
bool isIsoDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return false;
  }
  for (const std::size_t digit : {0U, 1U, 2U, 3U, 5U, 6U, 8U, 9U}) {
    if (!isDigit(text[digit])) {
      return false;
    }
  }
  const int month = twoDigits(text, 5);
  const int day = twoDigits(text, 8);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

unsigned hexDigit(char c) {
  if (c >= '0' && c <= '9') {
    return static_cast<unsigned>(c - '0');
  }
  if (c >= 'a' && c <= 'f') {
    return static_cast<unsigned>(c - 'a' + 10);
  }
  return static_cast<unsigned>(c - 'A' + 10);  // valid JSON: 'A'..'F'
}

/// The UTF-16 code unit of the \uXXXX escape starting at `at` (the backslash).
unsigned escapedCodeUnit(std::string_view json, std::size_t at) {
  unsigned unit = 0;
  for (std::size_t digit = at + 2; digit < at + 6; ++digit) {
    unit = unit * 16 + hexDigit(json[digit]);
  }
  return unit;
}

bool isHighSurrogate(unsigned unit) {
  return unit >= 0xD800 && unit <= 0xDBFF;
}

bool isLowSurrogate(unsigned unit) {
  return unit >= 0xDC00 && unit <= 0xDFFF;
}

/// The offset of the first \u escape in `json` that is a low surrogate not preceded by a high
/// one, or a high surrogate not followed by a low one; nullopt if there is none. RapidJSON
/// decodes a lone low surrogate ("\udc00") into the 3-byte form of the surrogate code point,
/// which is not UTF-8, and kParseValidateEncodingFlag checks only the raw input. `json` must
/// be valid JSON, so every backslash starts an escape inside a string and \u has 4 hex digits.
std::optional<std::size_t> findLoneSurrogateEscape(std::string_view json) {
  constexpr std::size_t kEscapeLength = 6;  // \uXXXX
  std::size_t at = json.find('\\');
  while (at != std::string_view::npos) {
    std::size_t next = at + 2;
    if (json[at + 1] == 'u') {
      const unsigned unit = escapedCodeUnit(json, at);
      next = at + kEscapeLength;
      if (isLowSurrogate(unit)) {
        return at;
      }
      if (isHighSurrogate(unit)) {
        if (json.size() < next + kEscapeLength || json[next] != '\\' || json[next + 1] != 'u' ||
            !isLowSurrogate(escapedCodeUnit(json, next))) {
          return at;
        }
        next += kEscapeLength;
      }
    }
    at = json.find('\\', next);
  }
  return std::nullopt;
}

void requireObject(const Value& value, const JsonPath& path) {
  if (!value.IsObject()) {
    fail(path, "expected a JSON object");
  }
}

Person readPerson(const Value& value, const JsonPath& path) {
  requireObject(value, path);
  Person person;
  person.id = readId(value, path);
  person.first_name = readString(value, "firstName", path);
  person.last_name = readString(value, "lastName", path);
  person.birthday = readString(value, "birthday", path);
  if (person.birthday && !isIsoDate(*person.birthday)) {
    fail(JsonPath(path, "birthday"), "expected a date YYYY-MM-DD");
  }
  return person;
}

Character readCharacter(const Value& value, const JsonPath& path) {
  requireObject(value, path);
  Character character;
  character.id = readId(value, path);
  character.name = readString(value, "name", path);
  if (const Value* actor = findMember(value, "actor")) {
    character.actor = readPerson(*actor, JsonPath(path, "actor"));
  }
  return character;
}

Award readAward(const Value& value, const JsonPath& path) {
  requireObject(value, path);
  Award award;
  award.id = readId(value, path);
  award.name = readString(value, "name", path);
  award.year = readInt(value, "year", path);
  return award;
}

/// Reads the array under `key` element by element; a missing or null array is empty.
template <typename Element, typename ReadElement>
std::vector<Element> readArray(const Value& object, std::string_view key, const JsonPath& parent,
                               ReadElement read_element) {
  std::vector<Element> elements;
  const Value* array = findMember(object, key);
  if (array == nullptr) {
    return elements;
  }
  const JsonPath path(parent, key);
  if (!array->IsArray()) {
    fail(path, "expected a JSON array");
  }
  elements.reserve(array->Size());
  for (rapidjson::SizeType index = 0; index < array->Size(); ++index) {
    elements.push_back(read_element((*array)[index], JsonPath(path, index)));
  }
  return elements;
}

Movie readMovie(const Value& value, const JsonPath& path) {
  requireObject(value, path);
  Movie movie;
  movie.id = readId(value, path);
  std::optional<std::string> title = readString(value, "title", path);
  if (!title) {
    fail(JsonPath(path, "title"), "required string is missing");
  }
  movie.title = std::move(*title);
  movie.release_year = readInt(value, "releaseYear", path);
  if (std::optional<std::string> genre_name = readString(value, "genre", path)) {
    movie.genre = genreFromName(*genre_name);
    if (!movie.genre) {
      fail(JsonPath(path, "genre"), "unknown genre \"" + *genre_name + "\"");
    }
  }
  movie.characters = readArray<Character>(value, "characters", path, readCharacter);
  movie.directors = readArray<Person>(value, "directors", path, readPerson);
  movie.writers = readArray<Person>(value, "writers", path, readPerson);
  movie.awards = readArray<Award>(value, "awards", path, readAward);
  movie.rating = readNumber(value, "rating", path);
  return movie;
}

}  // namespace

std::vector<Movie> parseMovies(std::string_view json) {
  rapidjson::Document document;
  // Iterative parsing keeps deeply nested hostile input from exhausting the stack.
  document.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
      json.data(), json.size());
  if (document.HasParseError()) {
    throw InvalidMoviesError("invalid JSON at offset " + std::to_string(document.GetErrorOffset()) +
                             ": " + rapidjson::GetParseError_En(document.GetParseError()));
  }
  if (const std::optional<std::size_t> offset = findLoneSurrogateEscape(json)) {
    throw InvalidMoviesError("invalid JSON at offset " + std::to_string(*offset) +
                             ": lone UTF-16 surrogate in a \\u escape");
  }
  const JsonPath root;
  if (!document.IsArray()) {
    fail(root, "expected a JSON array");
  }
  std::vector<Movie> movies;
  movies.reserve(document.Size());
  for (rapidjson::SizeType index = 0; index < document.Size(); ++index) {
    movies.push_back(readMovie(document[index], JsonPath(root, index)));
  }
  return movies;
}

}  // namespace benchd::microservice
