#include <benchd/agent/agent_routes.hpp>
#include <benchd/common/epoch_time.hpp>
#include <benchd/http/response.hpp>
#include <benchd/measurement/latency_histogram.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <string>
#include <utility>

namespace benchd::agent {

void addAgentRoutes(http::Router& router, const AgentIdentity& identity) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  json.Key("agentProtocol");
  json.Int(kAgentProtocol);
  json.Key("benchd");
  json.String(identity.benchd_version.c_str());
  json.Key("histogramLayout");
  const std::string layout(measurement::LatencyHistogram::kLayout);
  json.String(layout.c_str());
  json.Key("hostname");
  json.String(identity.hostname.c_str());
  json.Key("cpus");
  json.Uint(identity.cpus);
  json.Key("roles");
  json.StartArray();
  for (const std::string& role : identity.roles)
    json.String(role.c_str());
  json.EndArray();
  json.EndObject();
  std::string about = buffer.GetString();
  router.add("GET", "/api/v1/agent", [about = std::move(about)](const http::Request&) {
    return http::Response::json(200, about);
  });

  router.add("GET", "/api/v1/agent/clock", [](const http::Request&) {
    const std::int64_t received = common::epochMicrosNow();
    std::string body = "{\"receivedEpochMicros\":" + std::to_string(received);
    body += ",\"sentEpochMicros\":" + std::to_string(common::epochMicrosNow()) + "}";
    return http::Response::json(200, body);
  });
}

}  // namespace benchd::agent
