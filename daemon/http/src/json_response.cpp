#include <benchd/http/json_response.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace benchd::http {

Response jsonResponse(unsigned status, const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return Response::json(status, std::string(buffer.GetString(), buffer.GetSize()));
}

}  // namespace benchd::http
