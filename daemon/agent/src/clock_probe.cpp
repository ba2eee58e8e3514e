#include <benchd/agent/clock_probe.hpp>
#include <benchd/common/epoch_time.hpp>

#include <rapidjson/document.h>

#include <chrono>
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
    // t3 is t0 plus the round trip on the steady clock: a step of the wall clock during the
    // probe cannot make a round trip negative.
    const std::int64_t sent = common::epochMicrosNow();
    const auto started = std::chrono::steady_clock::now();
    const AgentReply reply = client.call("GET", "/api/v1/agent/clock");
    const auto took = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - started);
    ClockSample sample = stampsOf(client, reply);
    sample.t0 = sent;
    sample.t3 = sent + took.count();
    samples.push_back(sample);
  }
  return estimateClockOffset(samples);
}

}  // namespace benchd::agent
