#include <benchd/agent/agent_routes.hpp>
#include <benchd/agent/clock_probe.hpp>

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::agent {
namespace {

/// The agent's two stamps from a clock answer.
ClockSample stampsOf(const AgentClient& client, const AgentReply& reply) {
  rapidjson::Document answer;
  answer.Parse(reply.body.c_str());
  if (reply.status != 200 || answer.HasParseError() || !answer.IsObject() ||
      !answer.HasMember("receivedEpochMicros") || !answer["receivedEpochMicros"].IsInt64() ||
      !answer.HasMember("sentEpochMicros") || !answer["sentEpochMicros"].IsInt64()) {
    throw std::runtime_error("agent " + client.agent().name +
                             " gave no clock stamps at GET /api/v1/agent/clock (status " +
                             std::to_string(reply.status) + ")");
  }
  ClockSample sample;
  sample.t1 = answer["receivedEpochMicros"].GetInt64();
  sample.t2 = answer["sentEpochMicros"].GetInt64();
  return sample;
}

}  // namespace

ClockOffset measureClockOffset(AgentClient& client, int rounds) {
  (void)client.call("GET", "/api/v1/agent/clock");  // connects: no handshake in the samples
  std::vector<ClockSample> samples;
  for (int round = 0; round < rounds; ++round) {
    const std::int64_t sent = epochMicrosNow();
    const AgentReply reply = client.call("GET", "/api/v1/agent/clock");
    const std::int64_t received = epochMicrosNow();
    ClockSample sample = stampsOf(client, reply);
    sample.t0 = sent;
    sample.t3 = received;
    samples.push_back(sample);
  }
  return estimateClockOffset(samples);
}

}  // namespace benchd::agent
