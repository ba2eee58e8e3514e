// Agents on hosts of their own (network namespaces on 198.18.0.0/24): `benchd serve` bound to
// its host's address serves over TLS by itself, a coordinator on another host pins it with
// `benchd agents add`, an unpinned certificate and a wrong token are refused before anything is
// stored, a killed agent is named as unreachable, and one restarted with its state keeps its pin.
// A server agent starts a worker of its own plugins, by name, that the coordinator's host reaches.
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "temp_dir.hpp"
#include "test_network.hpp"

#include <benchd/common/child_process.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr int kCoordinator = 1;
constexpr int kServer = 2;
constexpr int kGenerator1 = 11;
constexpr int kGenerator2 = 12;

/// `benchd serve` on `host`, bound to its address, its state in `state`.
class HostAgent {
 public:
  HostAgent(const TestNetwork& network, const std::string& host, int octet, const fs::path& state,
            const std::string& extra_config = {})
      : config_(state.string() + ".conf"),
        url_("https://" + TestNetwork::address(octet) + ":7878") {
    std::ofstream(config_) << "bind = " << TestNetwork::address(octet)
                           << "\nport = 7878\nstate_dir = " << state.string() << "\n"
                           << extra_config;
    child_ = std::make_unique<common::ChildProcess>(
        "/usr/sbin/ip", network.onHost(host, cliPath(), {"serve", "--config", config_.string()}));
    const std::regex listening(R"(listening on https://\S+ \(certificate sha256:([0-9A-F:]+),)");
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (fingerprint_.empty() && std::chrono::steady_clock::now() < deadline &&
           !child_->stdoutClosed()) {
      for (const std::string& line : child_->readStdoutLines(500ms)) {
        std::smatch match;
        if (std::regex_search(line, match, listening))
          fingerprint_ = match[1];
      }
    }
    token_file_ = state / "token";
  }
  ~HostAgent() {
    if (child_)
      (void)child_->stop(5s);
  }
  HostAgent(const HostAgent&) = delete;
  HostAgent& operator=(const HostAgent&) = delete;

  void kill() { (void)child_->kill(); }
  [[nodiscard]] const std::string& fingerprint() const { return fingerprint_; }
  [[nodiscard]] const std::string& url() const { return url_; }
  [[nodiscard]] const fs::path& tokenFile() const { return token_file_; }
  [[nodiscard]] std::string stderrText() const { return child_->stderrText(); }

 private:
  fs::path config_;
  std::string url_;
  std::unique_ptr<common::ChildProcess> child_;
  std::string fingerprint_;
  fs::path token_file_;
};

class AgentsAcrossHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto reason = TestNetwork::unavailableReason())
      GTEST_SKIP() << *reason;
    network_ = std::make_unique<TestNetwork>(
        std::vector<std::pair<std::string, int>>{{"coord", kCoordinator},
                                                 {"server", kServer},
                                                 {"gen-1", kGenerator1},
                                                 {"gen-2", kGenerator2}});
  }

  /// `curl ARGUMENTS` on the coordinator's host: prints the body, then " STATUS".
  [[nodiscard]] CommandResult curlFromCoordinator(std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(), {"-sS", "-m", "30", "-w", " %{http_code}"});
    return runCommand("/usr/sbin/ip", network_->onHost("coord", "/usr/bin/curl", arguments), 60s);
  }

  /// `benchd agents ARGUMENTS` on the coordinator's host.
  [[nodiscard]] CommandResult coordinator(std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(), "agents");
    arguments.insert(arguments.end(), {"--state-dir", (dir_.path() / "coordinator").string()});
    return runCommand("/usr/sbin/ip", network_->onHost("coord", cliPath(), arguments), 60s);
  }

  TempDir dir_;
  std::unique_ptr<TestNetwork> network_;
};

TEST_F(AgentsAcrossHosts, ACoordinatorPinsItsAgentsAndNamesWhatItRefuses) {
  auto gen1 = std::make_unique<HostAgent>(*network_, "gen-1", kGenerator1, dir_.path() / "gen-1");
  const HostAgent gen2(*network_, "gen-2", kGenerator2, dir_.path() / "gen-2");
  ASSERT_FALSE(gen1->fingerprint().empty())
      << "gen-1 did not listen over TLS on its address: " << gen1->stderrText();
  ASSERT_FALSE(gen2.fingerprint().empty()) << gen2.stderrText();
  EXPECT_NE(gen1->fingerprint(), gen2.fingerprint()) << "each host made an identity of its own";

  const CommandResult added =
      coordinator({"add", "gen-1", gen1->url(), "--token-file", gen1->tokenFile().string(),
                   "--fingerprint", "sha256:" + gen1->fingerprint()});
  ASSERT_EQ(added.exit_code, 0) << added.out << added.err;
  EXPECT_NE(added.out.find("added gen-1 https://198.18.0.11:7878"), std::string::npos) << added.out;

  // gen-2 pinned with gen-1's fingerprint: another certificate, refused before the token goes.
  const CommandResult unpinned =
      coordinator({"add", "gen-2", gen2.url(), "--token-file", gen2.tokenFile().string(),
                   "--fingerprint", "sha256:" + gen1->fingerprint()});
  EXPECT_EQ(unpinned.exit_code, 1);
  EXPECT_NE(unpinned.err.find("shows the certificate sha256:" + gen2.fingerprint()),
            std::string::npos)
      << unpinned.err;
  // gen-2 with gen-1's token: refused by gen-2.
  const CommandResult wrong_token =
      coordinator({"add", "gen-2", gen2.url(), "--token-file", gen1->tokenFile().string(),
                   "--fingerprint", "sha256:" + gen2.fingerprint()});
  EXPECT_EQ(wrong_token.exit_code, 1);
  EXPECT_NE(wrong_token.err.find("refused the token"), std::string::npos) << wrong_token.err;

  const CommandResult listed = coordinator({"list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.out << listed.err;
  EXPECT_NE(listed.out.find("gen-1 https://198.18.0.11:7878 reachable: "), std::string::npos)
      << listed.out;
  EXPECT_EQ(listed.out.find("gen-2"), std::string::npos) << "a refused agent was stored";

  // A host lost: named, within the call's deadline.
  gen1->kill();
  const auto started = std::chrono::steady_clock::now();
  const CommandResult lost = coordinator({"list"});
  EXPECT_EQ(lost.exit_code, 1);
  EXPECT_NE(lost.out.find("gen-1 https://198.18.0.11:7878 NOT usable: agent gen-1 "
                          "(https://198.18.0.11:7878) is unreachable"),
            std::string::npos)
      << lost.out;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);

  // Restarted with its state: the same identity, so the pin holds.
  gen1 = std::make_unique<HostAgent>(*network_, "gen-1", kGenerator1, dir_.path() / "gen-1");
  const CommandResult back = coordinator({"list"});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  EXPECT_NE(back.out.find("gen-1 https://198.18.0.11:7878 reachable: "), std::string::npos)
      << back.out;
}

TEST_F(AgentsAcrossHosts, AServerAgentStartsAWorkerOfItsOwnPluginsThatOtherHostsReach) {
  // Bound to every address of its host: the worker's address in the answers is the one the
  // coordinator reached, not 0.0.0.0. (No IP in its certificate then: curl trusts it with -k.)
  const HostAgent server(*network_, "server", kServer, dir_.path() / "server",
                         "bind = 0.0.0.0\nagent_roles = server\n");
  ASSERT_FALSE(server.fingerprint().empty()) << server.stderrText();
  std::string token;
  std::ifstream(server.tokenFile()) >> token;
  const std::vector<std::string> authorised = {"-k", "-H", "Authorization: Bearer " + token, "-H",
                                               "Content-Type: application/json"};
  const auto call = [&](const std::string& method, const std::string& path,
                        const std::string& body = {}) {
    std::vector<std::string> arguments = authorised;
    arguments.insert(arguments.end(), {"-X", method, server.url() + path});
    if (!body.empty())
      arguments.insert(arguments.end(), {"--data-binary", body});
    return curlFromCoordinator(arguments);
  };

  const CommandResult unknown =
      call("POST", "/api/v1/agent/workers", R"({"approach":"no-such-plugin"})");
  EXPECT_TRUE(unknown.out.ends_with(" 404")) << unknown.out << unknown.err;
  EXPECT_NE(unknown.out.find("it has: "), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("callbacks-asio"), std::string::npos) << unknown.out;
  const CommandResult path = call("POST", "/api/v1/agent/workers", R"({"approach":"../evil"})");
  EXPECT_TRUE(path.out.ends_with(" 400")) << path.out;

  const CommandResult started =
      call("POST", "/api/v1/agent/workers", R"({"approach":"callbacks-asio","threads":1})");
  ASSERT_TRUE(started.out.ends_with(" 201")) << started.out << started.err << server.stderrText();
  const std::smatch port_match = [&] {
    std::smatch match;
    std::regex_search(started.out, match, std::regex(R"("port":(\d+))"));
    return match;
  }();
  ASSERT_FALSE(port_match.empty()) << started.out;
  EXPECT_NE(started.out.find(R"("address":"198.18.0.2")"), std::string::npos) << started.out;
  const std::string worker_url = "http://198.18.0.2:" + port_match[1].str();

  // The coordinator's host reaches the worker on the server's host.
  const CommandResult answered = curlFromCoordinator(
      {worker_url + "/callbacks-asio/epoch-millis?delayCallDepth=0&delayInMillis=0"});
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_TRUE(answered.out.ends_with(" 200")) << answered.out;

  const CommandResult state = call("GET", "/api/v1/agent/workers/w1");
  EXPECT_NE(state.out.find(R"("alive":true)"), std::string::npos) << state.out;
  const CommandResult stopped = call("DELETE", "/api/v1/agent/workers/w1");
  EXPECT_TRUE(stopped.out.ends_with(" 200")) << stopped.out;
  EXPECT_NE(stopped.out.find(R"("end":"exit code 0")"), std::string::npos) << stopped.out;
  const CommandResult gone = curlFromCoordinator({worker_url + "/health"});
  EXPECT_NE(gone.exit_code, 0) << "the stopped worker still answered: " << gone.out;
  EXPECT_TRUE(call("GET", "/api/v1/agent/workers/w1").out.ends_with(" 404"));
}

}  // namespace
}  // namespace benchd::testing
