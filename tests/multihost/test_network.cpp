#include "test_network.hpp"

#include "command_runner.hpp"

#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace benchd::testing {
namespace {

CommandResult script(const std::vector<std::string>& arguments) {
  return runCommand(BENCHD_TEST_NETWORK_SCRIPT, arguments, std::chrono::seconds(60));
}

}  // namespace

std::optional<std::string> TestNetwork::unavailableReason() {
  if (::geteuid() != 0)
    return "multi-host tests need root to make network namespaces (they run in CI as root)";
  const std::string probe = "bdt" + std::to_string(::getpid()) + "probe";
  const CommandResult made = script({"up", probe, "probe:1"});
  (void)script({"down", probe});
  if (made.exit_code != 0)
    return "multi-host tests need network namespaces: " + made.err;
  return std::nullopt;
}

TestNetwork::TestNetwork(const std::vector<std::pair<std::string, int>>& hosts)
    : name_("bdt" + std::to_string(::getpid())) {
  (void)script({"sweep"});
  std::vector<std::string> arguments = {"up", name_};
  for (const auto& [host, octet] : hosts)
    arguments.push_back(host + ":" + std::to_string(octet));
  const CommandResult made = script(arguments);
  if (made.exit_code != 0) {
    (void)script({"down", name_});
    throw std::runtime_error("test-network.sh up failed: " + made.out + made.err);
  }
}

TestNetwork::~TestNetwork() {
  (void)script({"down", name_});
}

std::vector<std::string> TestNetwork::onHost(const std::string& host, const std::string& program,
                                             const std::vector<std::string>& arguments) const {
  std::vector<std::string> command = {"netns", "exec", name_ + "-" + host, program};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return command;
}

}  // namespace benchd::testing
