#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::agent {

/// An agent the coordinator trusts, like a line of SSH's known_hosts: its name (what a topology
/// names), where it listens, the certificate it must show and the file holding its token.
struct KnownAgent {
  std::string name;
  std::string url;  ///< https://HOST:PORT
  std::string host;
  std::uint16_t port = 0;
  std::string
      fingerprint;  ///< SHA-256 of the certificate's DER: 32 upper-case hex pairs, ':'-joined
  std::filesystem::path token_file;
};

/// A known_agents file, or a field of one, that cannot be used; what() names the file, the line
/// and the field.
class KnownAgentsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `https://HOST:PORT` (an IPv6 host in brackets) split; throws std::invalid_argument saying
/// what is wrong.
struct AgentUrl {
  std::string host;
  std::uint16_t port = 0;
};
[[nodiscard]] AgentUrl parseAgentUrl(std::string_view url);

/// A fingerprint as `openssl x509 -fingerprint -sha256` prints it, with or without a
/// `sha256:` prefix, in either case; returned upper-case without the prefix. Throws
/// std::invalid_argument when it is not 32 hex pairs.
[[nodiscard]] std::string normalizeFingerprint(std::string_view text);

/// The lines of a known_agents file: `NAME URL sha256:FINGERPRINT TOKEN_FILE`, blank lines and
/// '#' comments skipped. A relative TOKEN_FILE is taken from `folder`. Names are letters,
/// digits, '.', '_' and '-', and unique. Throws KnownAgentsError naming `source`, the line and
/// the field.
[[nodiscard]] std::vector<KnownAgent> parseKnownAgents(const std::string& text,
                                                       const std::string& source,
                                                       const std::filesystem::path& folder);
/// The file's agents; none when it does not exist. Throws KnownAgentsError.
[[nodiscard]] std::vector<KnownAgent> loadKnownAgents(const std::filesystem::path& file);
/// The text parseKnownAgents reads back as `agents`.
[[nodiscard]] std::string formatKnownAgents(const std::vector<KnownAgent>& agents);
/// The agent named `name`, or nullptr.
[[nodiscard]] const KnownAgent* findAgent(const std::vector<KnownAgent>& agents,
                                          std::string_view name);

}  // namespace benchd::agent
