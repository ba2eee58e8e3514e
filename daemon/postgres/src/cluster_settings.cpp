#include "cluster_settings.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace benchd::postgres {

std::string privateClusterSettings(const ClusterOptions& options) {
  std::string settings =
      "\n# benchd private cluster: reachable only on its Unix socket, and throw-away, so\n"
      "# nothing needs to survive a crash (PostgreSQL documentation, Non-Durable Settings).\n";
  settings += "listen_addresses = ''\n";
  settings += "unix_socket_directories = '" + options.folder.string() + "'\n";
  settings += "port = " + std::to_string(options.port) + "\n";
  settings += "max_connections = " + std::to_string(options.max_connections) + "\n";
  settings += "fsync = off\n";
  settings += "synchronous_commit = off\n";
  settings += "full_page_writes = off\n";
  // The movies' statements are far too cheap for JIT compilation, and benchd.service's
  // MemoryDenyWriteExecute forbids the executable pages it would write.
  settings += "jit = off\n";
  return settings;
}

void appendSettings(const std::filesystem::path& config_file, const std::string& settings) {
  // Appending keeps the file's owner: the server's user, who created it through initdb.
  std::ofstream out(config_file, std::ios::binary | std::ios::app);
  if (!out)
    throw std::runtime_error("cannot open " + config_file.string() + ": " + std::strerror(errno));
  out << settings;
  out.flush();
  if (!out)
    throw std::runtime_error("cannot write " + config_file.string() + ": " + std::strerror(errno));
}

}  // namespace benchd::postgres
