// `benchd agents` as a process against a real TLS agent on loopback: trust on first use with
// --yes or a given fingerprint, the private token copy, list and remove; a wrong pin or token
// stores nothing; an agent that is gone is named by list.
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "temp_dir.hpp"

#include <benchd/agent/agent_routes.hpp>
#include <benchd/agent/known_agents.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/server.hpp>
#include <benchd/tls/server_identity.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace benchd::agent {
namespace {

namespace fs = std::filesystem;
using benchd::testing::CommandResult;
using benchd::testing::runCommand;
using benchd::testing::TempDir;

constexpr const char* kToken = "agents-command-token-0123456789abcdef";

class AgentsCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    tls::IdentityRequest request;
    request.common_name = "agents command test";
    request.addresses = {"127.0.0.1"};
    files_ = tls::loadOrCreateIdentity(dir_.path() / "tls", request);
    fingerprint_ = tls::certificateFingerprint(tls::readPemFile(files_.certificate));
    std::ofstream(dir_.path() / "token") << kToken << "\n";
    std::ofstream(dir_.path() / "wrong-token") << "not-the-agents-token-0123456789abcdef\n";
    http::ServerOptions options;
    options.tls = http::TlsFiles{files_.certificate, files_.private_key};
    options.policies = {http::hostCheckPolicy(), http::bearerTokenPolicy(kToken, "benchd")};
    http::Router router;
    addAgentRoutes(router, {"9.9.9", "lab-gen-1", 2, {"generator"}});
    server_ = std::make_unique<http::HttpServer>(std::move(router), options);
  }

  [[nodiscard]] CommandResult agents(std::vector<std::string> arguments) const {
    arguments.insert(arguments.begin(), "agents");
    arguments.insert(arguments.end(), {"--state-dir", (dir_.path() / "coordinator").string()});
    return runCommand(benchd::testing::cliPath(), arguments, std::chrono::seconds(60));
  }

  [[nodiscard]] std::string url() const {
    return "https://127.0.0.1:" + std::to_string(server_->port());
  }
  [[nodiscard]] fs::path agentsFolder() const { return dir_.path() / "coordinator" / "agents"; }

  TempDir dir_;
  tls::IdentityFiles files_;
  std::string fingerprint_;
  std::unique_ptr<http::HttpServer> server_;
};

TEST_F(AgentsCommand, AddsAnAgentPinnedWithItsTokenListsAndRemovesIt) {
  const CommandResult added = agents(
      {"add", "lab-gen-1", url(), "--token-file", (dir_.path() / "token").string(), "--yes"});
  ASSERT_EQ(added.exit_code, 0) << added.out << added.err;
  EXPECT_NE(added.out.find("shows the certificate sha256:" + fingerprint_ + "; trusting it"),
            std::string::npos)
      << added.out;
  const auto known = loadKnownAgents(agentsFolder() / "known_agents");
  ASSERT_EQ(known.size(), 1U);
  EXPECT_EQ(known[0].fingerprint, fingerprint_);
  EXPECT_EQ(known[0].token_file, agentsFolder() / "lab-gen-1.token");
  struct stat status {};
  ASSERT_EQ(::stat(known[0].token_file.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777U, 0600U);

  const CommandResult pinned =
      agents({"add", "lab-gen-2", url(), "--token-file", (dir_.path() / "token").string(),
              "--fingerprint", "sha256:" + fingerprint_});
  ASSERT_EQ(pinned.exit_code, 0) << pinned.out << pinned.err;

  const CommandResult listed = agents({"list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.out << listed.err;
  EXPECT_NE(listed.out.find("lab-gen-1 " + url() +
                            " reachable: benchd 9.9.9 on lab-gen-1, 2 CPUs, roles: generator, "
                            "clock offset "),
            std::string::npos)
      << listed.out;

  const CommandResult removed = agents({"remove", "lab-gen-1"});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  const auto left = loadKnownAgents(agentsFolder() / "known_agents");
  ASSERT_EQ(left.size(), 1U);
  EXPECT_EQ(left[0].name, "lab-gen-2");
  EXPECT_FALSE(fs::exists(agentsFolder() / "lab-gen-1.token"));
}

TEST_F(AgentsCommand, AnotherCertificateOrAWrongTokenStoresNothing) {
  std::string other = fingerprint_;
  other[0] = other[0] == 'A' ? 'B' : 'A';
  const CommandResult unpinned =
      agents({"add", "lab-gen-1", url(), "--token-file", (dir_.path() / "token").string(),
              "--fingerprint", "sha256:" + other});
  EXPECT_EQ(unpinned.exit_code, 1);
  EXPECT_NE(unpinned.err.find("shows the certificate sha256:" + fingerprint_ +
                              ", not the sha256:" + other + " given; nothing was sent"),
            std::string::npos)
      << unpinned.err;
  EXPECT_EQ(server_->stats().requests, 0U);

  const CommandResult wrong = agents(
      {"add", "lab-gen-1", url(), "--token-file", (dir_.path() / "wrong-token").string(), "--yes"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(
      wrong.err.find("refused the token in " + (dir_.path() / "wrong-token").string() + " (401)"),
      std::string::npos)
      << wrong.err;
  EXPECT_FALSE(fs::exists(agentsFolder() / "known_agents"));
  EXPECT_FALSE(fs::exists(agentsFolder() / "lab-gen-1.token"));

  const CommandResult bad_url = agents({"add", "lab-gen-1", "http://127.0.0.1:1", "--token-file",
                                        (dir_.path() / "token").string(), "--yes"});
  EXPECT_EQ(bad_url.exit_code, 2);
  EXPECT_NE(bad_url.err.find("field 'url': expected https://HOST:PORT"), std::string::npos)
      << bad_url.err;
}

TEST_F(AgentsCommand, ListNamesAnAgentThatIsGone) {
  ASSERT_EQ(
      agents({"add", "lab-gen-1", url(), "--token-file", (dir_.path() / "token").string(), "--yes"})
          .exit_code,
      0);
  const std::string where = url();
  server_.reset();
  const CommandResult listed = agents({"list"});
  EXPECT_EQ(listed.exit_code, 1);
  EXPECT_NE(listed.out.find("lab-gen-1 " + where + " NOT usable: agent lab-gen-1 (" + where +
                            ") is unreachable: connect: "),
            std::string::npos)
      << listed.out;
}

}  // namespace
}  // namespace benchd::agent
