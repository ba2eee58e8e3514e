#include <benchd/http/problem.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace benchd::http {

namespace {

/// A JSON string literal (quotes included) with RapidJSON's escaping.
std::string jsonString(const std::string& text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

Problem::Problem(unsigned status, std::string detail, std::string title)
    : status_(status),
      title_(title.empty() ? std::string(reasonPhrase(status)) : std::move(title)),
      detail_(std::move(detail)) {}

Problem& Problem::type(std::string uri) {
  type_ = std::move(uri);
  return *this;
}

Problem& Problem::instance(std::string uri) {
  instance_ = std::move(uri);
  return *this;
}

Problem& Problem::extension(std::string name, const std::string& value) {
  extensions_.push_back({std::move(name), jsonString(value)});
  return *this;
}

Problem& Problem::extension(std::string name, std::int64_t value) {
  extensions_.push_back({std::move(name), std::to_string(value)});
  return *this;
}

Problem& Problem::extensionJson(std::string name, std::string json_value) {
  extensions_.push_back({std::move(name), std::move(json_value)});
  return *this;
}

std::string Problem::toJson() const {
  // Built by hand around jsonString() so that extensionJson() values are embedded verbatim.
  std::string out = "{\"type\":" + jsonString(type_) + ",\"title\":" + jsonString(title_) +
                    ",\"status\":" + std::to_string(status_);
  if (!detail_.empty())
    out += ",\"detail\":" + jsonString(detail_);
  if (!instance_.empty())
    out += ",\"instance\":" + jsonString(instance_);
  for (const auto& member : extensions_)
    out += "," + jsonString(member.name) + ":" + member.json;
  out += "}";
  return out;
}

Response Problem::toResponse() const {
  return Response::text(status_, toJson(), "application/problem+json");
}

Response problemResponse(unsigned status, const std::string& reason, std::string detail) {
  return Problem(status, std::move(detail)).extension("reason", reason).toResponse();
}

}  // namespace benchd::http
