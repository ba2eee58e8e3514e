#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::control {

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
  std::uint32_t db_pool = 16;  ///< db_pool: database connections per plugin, 1 to 500
};

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

/// The API token: read from `path`, or made at first start (32 random bytes, hex) into a new
/// file readable and writable by this user only (0600, created exclusively). A token file that
/// others may read is refused. Throws DaemonConfigError naming the file and what to do.
std::string loadOrCreateToken(const std::filesystem::path& path);

}  // namespace benchd::control
