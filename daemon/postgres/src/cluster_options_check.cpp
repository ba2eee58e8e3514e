#include "cluster_options_check.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/un.h>
#include <system_error>

namespace benchd::postgres {
namespace {

namespace fs = std::filesystem;

/// PostgreSQL's MAX_BACKENDS (2^18 - 1), the upper bound of max_connections.
constexpr int kMostConnections = 262143;

fs::path normalized(const fs::path& path, const char* field) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) {
    throw std::invalid_argument(std::string("ClusterOptions::") + field + " '" + path.string() +
                                "' cannot be made absolute: " + error.message());
  }
  absolute = absolute.lexically_normal();
  if (!absolute.has_filename() && absolute.has_relative_path())
    absolute = absolute.parent_path();  // "/tmp/x/" -> "/tmp/x"
  return absolute;
}

/// The first character of `path` that one of its readers would misread: pg_ctl puts paths
/// between double quotes in a /bin/sh command ('"', '\\', '$', '`'); postgresql.conf strings
/// are single-quoted ('\''); unix_socket_directories is a comma-separated list (','); env(1)
/// takes a program path with '=' for a variable; no reader takes control characters.
std::string_view firstMisreadCharacter(const std::string& path, bool is_program_folder) {
  constexpr std::string_view kShellAndConfig = "\"\\$`',";
  for (std::size_t index = 0; index < path.size(); ++index) {
    const char c = path[index];
    const bool control = static_cast<unsigned char>(c) < 0x20 || c == '\x7f';
    if (control || kShellAndConfig.find(c) != std::string_view::npos ||
        (is_program_folder && c == '=')) {
      return std::string_view(path).substr(index, 1);
    }
  }
  return {};
}

void requireReadablePath(const fs::path& path, const char* field, bool is_program_folder) {
  const std::string text = path.string();
  const std::string_view bad = firstMisreadCharacter(text, is_program_folder);
  if (bad.empty())
    return;
  const bool control = static_cast<unsigned char>(bad.front()) < 0x20 || bad.front() == '\x7f';
  throw std::invalid_argument(
      std::string("ClusterOptions::") + field + " '" + text + "' contains " +
      (control ? std::string("a control character") : "'" + std::string(bad) + "'") +
      ", which PostgreSQL's tools cannot take in a path (pg_ctl passes paths through /bin/sh, "
      "unix_socket_directories splits at commas); choose a plainer path");
}

}  // namespace

ClusterOptions normalizedClusterOptions(ClusterOptions options) {
  if (options.folder.empty())
    throw std::invalid_argument(
        "ClusterOptions::folder is empty: name the folder to create the "
        "cluster in");
  options.folder = normalized(options.folder, "folder");
  options.bin_dir = normalized(options.bin_dir, "bin_dir");
  return options;
}

void checkClusterOptions(const ClusterOptions& options) {
  requireReadablePath(options.folder, "folder", false);
  requireReadablePath(options.bin_dir, "bin_dir", true);

  std::error_code error;
  if (!fs::is_directory(options.folder, error)) {
    throw std::invalid_argument(
        options.folder.string() + " is not an existing folder" +
        (error ? " (" + error.message() + ")" : std::string()) +
        ": the caller creates the cluster's folder before start() and removes it afterwards");
  }

  if (options.port == 0)
    throw std::invalid_argument("ClusterOptions::port must be 1..65535, got 0");
  const std::string socket_path =
      (options.folder / (".s.PGSQL." + std::to_string(options.port))).string();
  constexpr std::size_t kLongestSocketPath = sizeof(sockaddr_un::sun_path) - 1;
  if (socket_path.size() > kLongestSocketPath) {
    throw std::invalid_argument("the server's socket " + socket_path + " would be " +
                                std::to_string(socket_path.size()) + " bytes long, more than the " +
                                std::to_string(kLongestSocketPath) +
                                " a Unix socket address holds; choose a shorter folder");
  }

  if (options.max_connections < 1 || options.max_connections > kMostConnections) {
    throw std::invalid_argument("ClusterOptions::max_connections must be 1.." +
                                std::to_string(kMostConnections) + ", got " +
                                std::to_string(options.max_connections));
  }
  if (options.step_timeout.count() <= 0) {
    throw std::invalid_argument("ClusterOptions::step_timeout must be positive, got " +
                                std::to_string(options.step_timeout.count()) + " s");
  }
}

}  // namespace benchd::postgres
