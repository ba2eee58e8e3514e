#pragma once
// Several hosts on this machine for tests: network namespaces on a sealed bridge, addresses
// 198.18.0.N/24 (tests/support/test-network.sh does the work, so shell benches share it).
// Traffic stays inside the network: nothing in it routes anywhere else.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace benchd::testing {

class TestNetwork {
 public:
  /// Why hosts cannot be made here (not root, no network namespaces), or nothing when they can.
  [[nodiscard]] static std::optional<std::string> unavailableReason();

  /// Makes the hosts, each {name, last octet}: namespace bdt<pid>-<name>, address
  /// 198.18.0.<octet>. Removes namespaces left by test processes that died. Throws
  /// std::runtime_error with the script's output when it fails.
  explicit TestNetwork(const std::vector<std::pair<std::string, int>>& hosts);
  /// Removes every namespace of this network (processes still in them keep running until they
  /// exit; stop them first).
  ~TestNetwork();
  TestNetwork(const TestNetwork&) = delete;
  TestNetwork& operator=(const TestNetwork&) = delete;

  [[nodiscard]] static std::string address(int octet) {
    return "198.18.0." + std::to_string(octet);
  }
  /// The arguments of /usr/sbin/ip that run `program` with `arguments` on `host`.
  [[nodiscard]] std::vector<std::string> onHost(const std::string& host, const std::string& program,
                                                const std::vector<std::string>& arguments) const;

 private:
  std::string name_;
};

}  // namespace benchd::testing
