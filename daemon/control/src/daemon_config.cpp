#include <benchd/common/state_folder.hpp>
#include <benchd/common/text_trim.hpp>
#include <benchd/control/daemon_config.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <netinet/in.h>
#include <sstream>
#include <sys/random.h>
#include <sys/stat.h>

namespace benchd::control {
namespace {

/// One message from its parts, built in one string.
std::string message(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) {
    text.append(part);
  }
  return text;
}

template <typename Int>
Int number(const std::string& where, const std::string& text, Int minimum, Int maximum) {
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value < minimum ||
      value > maximum) {
    throw DaemonConfigError(where + "expected an integer from " + std::to_string(minimum) + " to " +
                            std::to_string(maximum) + ", got '" + text + "'");
  }
  return value;
}

/// The items of a `separator`-joined list, each trimmed; empty items kept.
std::vector<std::string> listItems(std::string_view text, char separator) {
  std::vector<std::string> items;
  while (!text.empty()) {
    const std::size_t at = text.find(separator);
    items.emplace_back(common::trimBlanks(text.substr(0, at)));
    text = at == std::string_view::npos ? std::string_view{} : text.substr(at + 1);
  }
  return items;
}

}  // namespace

DaemonConfig defaultDaemonConfig() {
  DaemonConfig config;
  config.state_dir = common::defaultStateFolder();
  return config;
}

DaemonConfig parseDaemonConfig(const std::string& text, const std::string& source) {
  DaemonConfig config = defaultDaemonConfig();
  bool token_file_given = false;
  std::string tls_where;  // where `tls` was set, for the check against `bind` after the loop
  std::istringstream lines(text);
  std::string line;
  std::size_t number_of_line = 0;
  while (std::getline(lines, line)) {
    ++number_of_line;
    const std::string content = std::string(common::trimBlanks(line));
    if (content.empty() || content.front() == '#') {
      continue;
    }
    const std::string location = message({source, ":", std::to_string(number_of_line), ": "});
    const std::size_t equals = content.find('=');
    if (equals == std::string::npos) {
      throw DaemonConfigError(message({location, "expected 'key = value', got '", content, "'"}));
    }
    const std::string key =
        std::string(common::trimBlanks(std::string_view(content).substr(0, equals)));
    const std::string value =
        std::string(common::trimBlanks(std::string_view(content).substr(equals + 1)));
    const std::string where = message({location, "key '", key, "': "});
    if (key == "bind") {
      if (value.empty()) {
        throw DaemonConfigError(where + "expected a numeric address, got nothing");
      }
      config.bind = value;
    } else if (key == "port") {
      config.port = number<std::uint16_t>(where, value, 0, 65535);
    } else if (key == "state_dir") {
      if (value.empty() || value.front() != '/') {
        throw DaemonConfigError(message({where, "expected an absolute path, got '", value, "'"}));
      }
      config.state_dir = value;
    } else if (key == "token_file") {
      if (value.empty() || value.front() != '/') {
        throw DaemonConfigError(message({where, "expected an absolute path, got '", value, "'"}));
      }
      config.token_file = value;
      token_file_given = true;
    } else if (key == "plugin_dirs") {
      config.plugin_dirs.clear();
      for (const std::string& folder : listItems(value, ':')) {
        if (!folder.empty()) {
          config.plugin_dirs.emplace_back(folder);
        }
      }
    } else if (key == "scenarios_dir") {
      config.scenarios_dir = value;
    } else if (key == "max_streams") {
      config.max_streams = number<std::size_t>(where, value, 1, 10'000);
    } else if (key == "max_body_bytes") {
      config.max_body_bytes = number<std::size_t>(where, value, 1024, 64 << 20);
    } else if (key == "max_queued") {
      config.max_queued = number<std::size_t>(where, value, 0, 10'000);
    } else if (key == "postgres_url") {
      config.postgres_url = value;
    } else if (key == "db_pool") {
      config.db_pool = number<std::uint32_t>(where, value, 1, 500);
    } else if (key == "tls") {
      if (value == "auto") {
        config.tls = TlsMode::kAuto;
      } else if (value == "on") {
        config.tls = TlsMode::kOn;
      } else if (value == "off") {
        config.tls = TlsMode::kOff;
      } else {
        throw DaemonConfigError(message({where, "expected auto, on or off, got '", value, "'"}));
      }
      tls_where = where;
    } else if (key == "tls_cert" || key == "tls_key") {
      if (value.empty() || value.front() != '/') {
        throw DaemonConfigError(message({where, "expected an absolute path, got '", value, "'"}));
      }
      (key == "tls_cert" ? config.tls_cert : config.tls_key) = value;
    } else if (key == "host_names") {
      config.host_names.clear();
      std::string_view rest = value;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string name = std::string(common::trimBlanks(rest.substr(0, comma)));
        if (name.empty() || name.find_first_of(" /:@") != std::string::npos) {
          throw DaemonConfigError(
              message({where, "expected host names separated by ',', got '", value, "'"}));
        }
        config.host_names.push_back(name);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
    } else if (key == "agent_roles") {
      config.agent_roles = listItems(value, ',');
      for (const std::string& role : config.agent_roles) {
        if (role != "server") {
          throw DaemonConfigError(message({where,
                                           "expected server (the generator and database "
                                           "roles are not built yet), got '",
                                           role, "'"}));
        }
      }
    } else {
      throw DaemonConfigError(
          message({location, "unknown key '", key,
                   "' (known: bind, port, state_dir, token_file, plugin_dirs, scenarios_dir, "
                   "max_streams, max_body_bytes, max_queued, postgres_url, db_pool, tls, "
                   "tls_cert, tls_key, host_names, agent_roles)"}));
    }
  }
  if (config.tls_cert.has_value() != config.tls_key.has_value()) {
    throw DaemonConfigError(source + ": tls_cert and tls_key go together: " +
                            (config.tls_cert ? "tls_key" : "tls_cert") + " is missing");
  }
  if (config.tls == TlsMode::kOff && !isLoopbackAddress(config.bind)) {
    throw DaemonConfigError(tls_where + "off is refused with bind = " + config.bind +
                            ", which is not loopback: the API token would cross the network in "
                            "clear (use tls = auto or on)");
  }
  if (!token_file_given) {
    config.token_file = config.state_dir / "token";
  }
  return config;
}

DaemonConfig loadDaemonConfig(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw DaemonConfigError(path.string() +
                            ": cannot read the config file: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseDaemonConfig(text.str(), path.string());
}

bool isLoopbackAddress(const std::string& address) {
  in_addr v4{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24U) == 127U;
  in6_addr v6{};
  return ::inet_pton(AF_INET6, address.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool DaemonConfig::servesTls() const {
  return tls == TlsMode::kOn || (tls == TlsMode::kAuto && !isLoopbackAddress(bind));
}

std::string describeDaemonConfig() {
  const DaemonConfig defaults = defaultDaemonConfig();
  return "  bind = " + defaults.bind + "\n" + "  port = " + std::to_string(defaults.port) + "\n" +
         "  state_dir = " + defaults.state_dir.string() + "\n" +
         "  token_file = <state_dir>/token\n"
         "  plugin_dirs = (none; ':'-separated drop-in folders, searched before the built-in)\n"
         "  scenarios_dir = (the built-in scenarios folder)\n" +
         "  max_streams = " + std::to_string(defaults.max_streams) + "\n" +
         "  max_body_bytes = " + std::to_string(defaults.max_body_bytes) + "\n" +
         "  max_queued = " + std::to_string(defaults.max_queued) + "\n" +
         "  postgres_url = (none: a private PostgreSQL 15 cluster for the postgres rows)\n" +
         "  db_pool = " + std::to_string(defaults.db_pool) + "\n" +
         "  tls = auto (TLS when bind is not loopback; on; off, refused off loopback)\n"
         "  tls_cert, tls_key = (none: an identity made at first start in <state_dir>/tls)\n"
         "  host_names = (none; ','-separated names clients reach the daemon by)\n"
         "  agent_roles = (none; server: start workers for a coordinator on another host)\n";
}

std::string readToken(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw DaemonConfigError(path.string() +
                            ": cannot read the token file: " + std::strerror(errno));
  }
  std::string token;
  std::getline(in, token);
  token = std::string(common::trimBlanks(token));
  if (token.size() < 32) {
    throw DaemonConfigError(path.string() +
                            ": expected a token of at least 32 characters; delete the file to "
                            "get a new one");
  }
  return token;
}

std::string loadOrCreateToken(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) {
    if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      throw DaemonConfigError(path.string() +
                              ": the token file may be read by others; chmod 600 it (or delete "
                              "it to get a new token)");
    }
    return readToken(path);
  }
  std::error_code ignored;
  std::filesystem::create_directories(path.parent_path(), ignored);
  std::array<unsigned char, 32> random{};
  if (::getrandom(random.data(), random.size(), 0) != static_cast<ssize_t>(random.size())) {
    throw DaemonConfigError(std::string("cannot make a token: getrandom failed: ") +
                            std::strerror(errno));
  }
  std::string token;
  constexpr std::string_view kHex = "0123456789abcdef";
  for (const unsigned char byte : random) {
    token += kHex[byte >> 4U];
    token += kHex[byte & 0x0FU];
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw DaemonConfigError(path.string() +
                            ": cannot create the token file: " + std::strerror(errno));
  }
  const std::string line = token + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!written) {
    throw DaemonConfigError(path.string() + ": cannot write the token file");
  }
  return token;
}

}  // namespace benchd::control
