#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::control {

/// tls: whether the API is served over TLS.
enum class TlsMode {
  kAuto,  ///< "auto": over TLS when `bind` is not a loopback address, in clear on loopback
  kOn,    ///< "on": over TLS wherever it binds
  kOff,   ///< "off": in clear; refused with a non-loopback `bind` (the token would cross in clear)
};

/// `benchd serve`'s settings. Every key has a default, so the file may be absent or list only
/// what differs. File format: `key = value` lines; blank lines and lines starting with '#' are
/// skipped; unknown keys are errors (a typo must not be silently ignored).
struct DaemonConfig {
  std::string bind = "127.0.0.1";  ///< bind: a numeric address; loopback unless told otherwise
  std::uint16_t port = 7878;       ///< port: 0 picks a free one (printed at start)
  /// state_dir: the SQLite store (benchd.sqlite), results folders (results/), the token file.
  std::filesystem::path state_dir;
  std::filesystem::path token_file;                    ///< token_file (default state_dir/token)
  std::vector<std::filesystem::path> plugin_dirs;      ///< plugin_dirs: drop-in folders, ':'-joined
  std::optional<std::filesystem::path> scenarios_dir;  ///< scenarios_dir (default built-in)
  std::size_t max_streams = 16;                        ///< max_streams: concurrent event streams
  std::size_t max_body_bytes = 1 << 20;  ///< max_body_bytes: larger request bodies get 413
  std::size_t max_queued = 16;           ///< max_queued: runs waiting behind the running one
  /// postgres_url: the PostgreSQL server of the postgres rows (libpq URI or conninfo); empty:
  /// a private cluster per run, run as the daemon's own user.
  std::string postgres_url;
  std::uint32_t db_pool = 16;    ///< db_pool: database connections per plugin, 1 to 500
  TlsMode tls = TlsMode::kAuto;  ///< tls: auto, on or off
  /// tls_cert and tls_key: the server's PEM certificate and key, both or neither (e.g. from a
  /// Kubernetes Secret; never written). Neither: an identity made at the first start in
  /// state_dir/tls and kept there.
  std::optional<std::filesystem::path> tls_cert;
  std::optional<std::filesystem::path> tls_key;
  /// host_names: ','-separated names clients reach the daemon by (a DNS name, a Kubernetes
  /// Service): the Host check accepts them and a certificate made at first start lists them.
  std::vector<std::string> host_names;
  /// agent_roles: what this daemon does for a coordinator on another host, ','-separated. Only
  /// "server" (workers of its own plugins, on its address) is built; empty: none.
  std::vector<std::string> agent_roles;

  /// Whether `tls` and `bind` make the API serve over TLS.
  [[nodiscard]] bool servesTls() const;
};

/// Whether `address` is a numeric loopback address (127.0.0.0/8 or ::1).
[[nodiscard]] bool isLoopbackAddress(const std::string& address);

/// A config file that cannot be used; what() names the file, the line, the key and the reason.
class DaemonConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The defaults: state in common::defaultStateFolder() ($STATE_DIRECTORY under systemd, else
/// $XDG_STATE_HOME/benchd, else ~/.local/state/benchd).
DaemonConfig defaultDaemonConfig();

/// Defaults overridden by `path`'s keys. Throws DaemonConfigError.
DaemonConfig loadDaemonConfig(const std::filesystem::path& path);
/// The same for text in memory; `source` names it in errors.
DaemonConfig parseDaemonConfig(const std::string& text, const std::string& source);

/// The keys with their defaults, for --help.
std::string describeDaemonConfig();

/// The token in `path`: its first line, trimmed, at least 32 characters. Throws
/// DaemonConfigError naming the file (`benchd agents` reads an agent's token with it too).
std::string readToken(const std::filesystem::path& path);

/// The API token: read from `path`, or made at first start (32 random bytes, hex) into a new
/// file readable and writable by this user only (0600, created exclusively). A token file that
/// others may read is refused. Throws DaemonConfigError naming the file and what to do.
std::string loadOrCreateToken(const std::filesystem::path& path);

}  // namespace benchd::control
