// AgentClient against a real TLS server on loopback that serves the agent's routes behind a
// token: the pin is checked before any request leaves (the server counts none), a wrong token
// and an unreachable agent are told apart, one connection is kept alive and replaced when the
// agent closed it, and the clock offset of the same host comes out near zero.
#include "temp_dir.hpp"

#include <benchd/agent/agent_client.hpp>
#include <benchd/agent/agent_routes.hpp>
#include <benchd/agent/clock_probe.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/server.hpp>
#include <benchd/tls/server_identity.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

namespace benchd::agent {
namespace {

using namespace std::chrono_literals;
using benchd::testing::TempDir;

constexpr const char* kToken = "agent-test-token-0123456789abcdef";

tls::IdentityRequest loopbackRequest(const std::string& name) {
  tls::IdentityRequest request;
  request.common_name = name;
  request.addresses = {"127.0.0.1"};
  return request;
}

class AgentClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    files_ = tls::loadOrCreateIdentity(dir_.path() / "tls", loopbackRequest("benchd agent test"));
    fingerprint_ = tls::certificateFingerprint(tls::readPemFile(files_.certificate));
  }

  void start(http::ServerOptions options = {}, bool tls = true, bool ipv6 = false) {
    if (ipv6)
      options.address = "::1";
    if (tls)
      options.tls = http::TlsFiles{files_.certificate, files_.private_key};
    options.policies = {http::hostCheckPolicy(), http::bearerTokenPolicy(kToken, "benchd")};
    http::Router router;
    addAgentRoutes(router, {"9.9.9", "lab-gen-1", 2, {"generator"}});
    server_ = std::make_unique<http::HttpServer>(std::move(router), options);
  }

  [[nodiscard]] AgentEndpoint endpoint(const std::string& fingerprint,
                                       const std::string& token = kToken) const {
    KnownAgent agent;
    agent.name = "lab-gen-1";
    agent.host = server_->address();
    agent.port = server_->port();
    agent.url = agent.host == "::1" ? "https://[::1]:" + std::to_string(agent.port)
                                    : "https://127.0.0.1:" + std::to_string(agent.port);
    agent.fingerprint = fingerprint;
    agent.token_file = dir_.path() / "lab-gen-1.token";
    return {agent, token};
  }

  TempDir dir_;
  tls::IdentityFiles files_;
  std::string fingerprint_;
  std::unique_ptr<http::HttpServer> server_;
};

TEST_F(AgentClientTest, APinnedAgentAnswersOnOneKeptAliveConnection) {
  start();
  AgentClient client(endpoint(fingerprint_));
  const AgentReply about = client.call("GET", "/api/v1/agent");
  EXPECT_EQ(about.status, 200U);
  EXPECT_NE(about.body.find("\"agentProtocol\":1"), std::string::npos) << about.body;
  EXPECT_NE(about.body.find("\"roles\":[\"generator\"]"), std::string::npos) << about.body;
  EXPECT_EQ(client.call("GET", "/api/v1/nothing-here").status, 404U);
  EXPECT_EQ(client.connectionsMade(), 1U);
  EXPECT_EQ(server_->stats().requests, 2U);
}

TEST_F(AgentClientTest, AnAgentOnIpv6IsNamedInBracketsAsItsUrlHasIt) {
  try {
    start({}, true, true);
  } catch (const std::system_error& error) {
    GTEST_SKIP() << "no IPv6 loopback here: " << error.what();
  }
  AgentClient client(endpoint(fingerprint_));
  const AgentReply about = client.call("GET", "/api/v1/agent");
  EXPECT_EQ(about.status, 200U) << about.body << " (the Host check wants [::1]:PORT)";
}

TEST_F(AgentClientTest, AnotherCertificateIsRefusedBeforeAnyRequestIsSent) {
  start();
  TempDir other_dir;
  const auto other = tls::loadOrCreateIdentity(other_dir.path(), loopbackRequest("other"));
  const std::string pinned = tls::certificateFingerprint(tls::readPemFile(other.certificate));
  AgentClient client(endpoint(pinned));
  try {
    (void)client.call("GET", "/api/v1/agent");
    FAIL() << "an unpinned certificate was accepted";
  } catch (const AgentError& error) {
    EXPECT_EQ(error.kind(), AgentError::Kind::kCertificateMismatch);
    const std::string what = error.what();
    EXPECT_NE(what.find("showed the certificate sha256:" + fingerprint_), std::string::npos)
        << what;
    EXPECT_NE(what.find("but sha256:" + pinned + " is pinned; nothing was sent"), std::string::npos)
        << what;
  }
  EXPECT_EQ(server_->stats().requests, 0U) << "a request (and its token) reached the agent";
}

TEST_F(AgentClientTest, AWrongTokenAndAnAgentThatIsNotThereAreToldApart) {
  start();
  AgentClient wrong_token(endpoint(fingerprint_, "not-the-token-0123456789abcdef"));
  try {
    (void)wrong_token.call("GET", "/api/v1/agent");
    FAIL() << "a wrong token was accepted";
  } catch (const AgentError& error) {
    EXPECT_EQ(error.kind(), AgentError::Kind::kRefusedToken);
    EXPECT_NE(
        std::string(error.what())
            .find("refused the token in " + (dir_.path() / "lab-gen-1.token").string() + " (401)"),
        std::string::npos)
        << error.what();
  }

  const AgentEndpoint gone = endpoint(fingerprint_);
  server_.reset();
  AgentClient unreachable(gone, 2s);
  try {
    (void)unreachable.call("GET", "/api/v1/agent");
    FAIL() << "a stopped agent answered";
  } catch (const AgentError& error) {
    EXPECT_EQ(error.kind(), AgentError::Kind::kUnreachable);
    EXPECT_NE(std::string(error.what()).find("is unreachable: connect: "), std::string::npos)
        << error.what();
  }
}

TEST_F(AgentClientTest, AnAgentInClearFailsTheHandshake) {
  start({}, false);
  AgentClient client(endpoint(fingerprint_), 2s);
  try {
    (void)client.call("GET", "/api/v1/agent");
    FAIL() << "plain HTTP was taken for TLS";
  } catch (const AgentError& error) {
    EXPECT_EQ(error.kind(), AgentError::Kind::kUnreachable);
    EXPECT_NE(std::string(error.what()).find("TLS handshake"), std::string::npos) << error.what();
  }
  EXPECT_EQ(server_->stats().requests, 0U);
}

TEST_F(AgentClientTest, AConnectionTheAgentClosedIsReplacedOnce) {
  http::ServerOptions options;
  options.idle_timeout = 100ms;
  start(options);
  AgentClient client(endpoint(fingerprint_));
  EXPECT_EQ(client.call("GET", "/api/v1/agent").status, 200U);
  const auto idle_until = std::chrono::steady_clock::now() + 2s;
  while (server_->stats().open_connections != 0 && std::chrono::steady_clock::now() < idle_until)
    std::this_thread::sleep_for(20ms);
  ASSERT_EQ(server_->stats().open_connections, 0U);
  EXPECT_EQ(client.call("GET", "/api/v1/agent").status, 200U);
  EXPECT_EQ(client.connectionsMade(), 2U);
}

TEST_F(AgentClientTest, TheSameHostsClockIsWithinItsUncertaintyOfZero) {
  start();
  AgentClient client(endpoint(fingerprint_));
  const ClockOffset offset = measureClockOffset(client, 16);
  EXPECT_EQ(client.connectionsMade(), 1U) << "the samples went over one connection";
  EXPECT_EQ(server_->stats().requests, 17U);
  EXPECT_GT(offset.round_trip_micros, 0);
  // One clock on both sides: the estimate can be off by at most half the round trip.
  EXPECT_LE(std::abs(offset.offset_micros), offset.uncertainty_micros + 1);
}

}  // namespace
}  // namespace benchd::agent
