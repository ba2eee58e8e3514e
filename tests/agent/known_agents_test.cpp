// The known_agents file: what it accepts, what it refuses (naming the line and the field), and
// that its own output reads back the same.
#include <benchd/agent/known_agents.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using benchd::agent::KnownAgentsError;
using benchd::agent::parseKnownAgents;

const std::string kFingerprint =
    "ab:CD:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:"
    "AB";

std::string errorOf(const std::string& text) {
  try {
    (void)parseKnownAgents(text, "known_agents", "/etc/benchd/agents");
  } catch (const KnownAgentsError& error) {
    return error.what();
  }
  return "no error";
}

TEST(KnownAgents, ReadsEachAgentWithItsPinAndTokenFile) {
  const auto agents =
      parseKnownAgents("# lab\n\nlab-server https://198.18.0.2:7878 sha256:" + kFingerprint +
                           " lab-server.token\nlab-gen-1 https://[fd00::11]:7878/ " + kFingerprint +
                           " /run/secrets/token\n",
                       "known_agents", "/etc/benchd/agents");
  ASSERT_EQ(agents.size(), 2U);
  EXPECT_EQ(agents[0].name, "lab-server");
  EXPECT_EQ(agents[0].host, "198.18.0.2");
  EXPECT_EQ(agents[0].port, 7878);
  EXPECT_EQ(agents[0].fingerprint.substr(0, 6), "AB:CD:") << "stored upper-case";
  EXPECT_EQ(agents[0].token_file, "/etc/benchd/agents/lab-server.token");
  EXPECT_EQ(agents[1].host, "fd00::11");
  EXPECT_EQ(agents[1].token_file, "/run/secrets/token");

  const auto again = parseKnownAgents(benchd::agent::formatKnownAgents(agents), "again", "/x");
  ASSERT_EQ(again.size(), 2U);
  EXPECT_EQ(again[1].url, agents[1].url);
  EXPECT_EQ(again[0].fingerprint, agents[0].fingerprint);
  EXPECT_EQ(again[0].token_file, agents[0].token_file);
  EXPECT_NE(benchd::agent::findAgent(again, "lab-gen-1"), nullptr);
  EXPECT_EQ(benchd::agent::findAgent(again, "lab-gen-2"), nullptr);
}

TEST(KnownAgents, NamesTheLineAndTheFieldOfWhatItRefuses) {
  const std::string pin = " sha256:" + kFingerprint + " t\n";
  EXPECT_EQ(
      errorOf("a https://h:1\n"),
      "known_agents:1: expected 'NAME https://HOST:PORT sha256:FINGERPRINT TOKEN_FILE', got 2 "
      "fields");
  EXPECT_EQ(errorOf("\nlab/server https://h:1" + pin),
            "known_agents:2: field 'name': 'lab/server' is not letters, digits, '.', '_' and '-' "
            "(at most 64)");
  EXPECT_EQ(errorOf("a https://h:1" + pin + "a https://h:2" + pin),
            "known_agents:2: field 'name': 'a' is listed twice");
  EXPECT_EQ(errorOf("a http://h:1" + pin),
            "known_agents:1: field 'url': expected https://HOST:PORT, got 'http://h:1'");
  EXPECT_EQ(errorOf("a https://h:0" + pin),
            "known_agents:1: field 'url': expected a port from 1 to 65535, got 'https://h:0'");
  EXPECT_EQ(errorOf("a https://h:1 sha256:AB:CD t\n"),
            "known_agents:1: field 'fingerprint': expected 32 hex pairs joined by ':' (a SHA-256 "
            "fingerprint), got 'sha256:AB:CD'");
}

}  // namespace
