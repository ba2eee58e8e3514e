#include "json_test_support.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace benchd::microservice::testing {
namespace {

rapidjson::Document parse(std::string_view json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  if (document.HasParseError()) {
    throw std::invalid_argument("test input is not JSON: " + std::string(json));
  }
  return document;
}

void collectIds(const rapidjson::Value& value, std::vector<std::int64_t>& ids) {
  if (value.IsObject()) {
    for (const auto& member : value.GetObject()) {
      if (std::string_view(member.name.GetString()) == "id" && member.value.IsInt64()) {
        ids.push_back(member.value.GetInt64());
      } else {
        collectIds(member.value, ids);
      }
    }
  } else if (value.IsArray()) {
    for (const auto& element : value.GetArray()) {
      collectIds(element, ids);
    }
  }
}

}  // namespace

std::string readMoviesJsonFile() {
  std::ifstream file(BENCHD_MOVIES_JSON_PATH, std::ios::binary);
  if (!file) {
    throw std::runtime_error("cannot read " BENCHD_MOVIES_JSON_PATH);
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string compactJson(std::string_view json) {
  const rapidjson::Document document = parse(json);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  document.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

std::vector<std::string> titlesOf(std::string_view movies_json) {
  const rapidjson::Document movies = parse(movies_json);
  std::vector<std::string> titles;
  for (const auto& movie : movies.GetArray()) {
    titles.emplace_back(movie["title"].GetString());
  }
  return titles;
}

std::vector<std::int64_t> movieIdsOf(std::string_view movies_json) {
  const rapidjson::Document movies = parse(movies_json);
  std::vector<std::int64_t> ids;
  for (const auto& movie : movies.GetArray()) {
    const auto id = movie.FindMember("id");
    ids.push_back(id != movie.MemberEnd() ? id->value.GetInt64() : -1);
  }
  return ids;
}

std::vector<std::int64_t> allIdsIn(std::string_view json) {
  const rapidjson::Document document = parse(json);
  std::vector<std::int64_t> ids;
  collectIds(document, ids);
  return ids;
}

}  // namespace benchd::microservice::testing
