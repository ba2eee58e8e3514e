#include "agents_command.hpp"

#include <benchd/agent/agent_client.hpp>
#include <benchd/agent/agent_routes.hpp>
#include <benchd/agent/clock_probe.hpp>
#include <benchd/agent/known_agents.hpp>
#include <benchd/common/state_folder.hpp>
#include <benchd/common/usage_error.hpp>
#include <benchd/control/daemon_config.hpp>

#include <rapidjson/document.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace benchd::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto kCallDeadline = 5s;

std::string agentsUsage() {
  return "usage: benchd agents add NAME https://HOST:PORT --token-file FILE\n"
         "                         (--fingerprint sha256:HEX | --yes) [--state-dir DIR]\n"
         "       benchd agents list [--state-dir DIR]\n"
         "       benchd agents remove NAME [--state-dir DIR]\n"
         "\n"
         "The agents this host trusts when it coordinates a run on several hosts: `benchd serve`\n"
         "on each of them, over TLS. Like SSH's known_hosts, each agent is pinned to the\n"
         "SHA-256 fingerprint of its certificate, which its `benchd serve` prints at start\n"
         "(listening on https://... (certificate sha256:...)); nothing, and no token, is sent to\n"
         "an agent that shows another certificate.\n"
         "\n"
         "  add        checks the agent's certificate against --fingerprint (or, with --yes,\n"
         "             trusts the one it shows now, printing it), checks the token at\n"
         "             GET /api/v1/agent, then stores NAME, the URL, the fingerprint and a\n"
         "             private copy of the token (0600). Adding a NAME again replaces it.\n"
         "  list       every known agent: reachable or why not, its version and clock offset\n"
         "  remove     forgets NAME and deletes its token copy\n"
         "\n"
         "  --token-file FILE   the agent's token file (its <state_dir>/token)\n"
         "  --state-dir DIR     where known_agents lives, in DIR/agents (default: the state\n"
         "                      folder of `benchd serve`)\n"
         "  --help              this text\n"
         "\n"
         "Exit codes: 0 done (list: every agent reachable), 1 an agent refused or could not be\n"
         "reached, or a file could not be written, 2 bad arguments.\n";
}

struct AgentsOptions {
  std::string action;
  std::vector<std::string> names;  ///< NAME [URL]
  std::optional<fs::path> token_file;
  std::optional<std::string> fingerprint;
  bool yes = false;
  fs::path state_dir = common::defaultStateFolder();
};

AgentsOptions parseAgentsOptions(std::span<const std::string_view> arguments) {
  AgentsOptions options;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view argument = arguments[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= arguments.size())
        throw common::UsageError(std::string(argument) + ": missing value");
      return std::string(arguments[++i]);
    };
    if (argument == "--token-file") {
      options.token_file = value();
    } else if (argument == "--fingerprint") {
      options.fingerprint = value();
    } else if (argument == "--state-dir") {
      options.state_dir = value();
    } else if (argument == "--yes") {
      options.yes = true;
    } else if (argument.starts_with("--")) {
      throw common::UsageError("unknown option '" + std::string(argument) + "'");
    } else if (options.action.empty()) {
      options.action = std::string(argument);
    } else {
      options.names.emplace_back(argument);
    }
  }
  const std::size_t wanted = options.action == "add" ? 2 : options.action == "remove" ? 1 : 0;
  if (options.action != "add" && options.action != "list" && options.action != "remove")
    throw common::UsageError("expected add, list or remove");
  if (options.names.size() != wanted) {
    throw common::UsageError("'" + options.action + "' takes " +
                             (wanted == 2   ? std::string("NAME and https://HOST:PORT")
                              : wanted == 1 ? std::string("NAME")
                                            : std::string("no names")));
  }
  // known_agents holds absolute token paths: a relative folder would be taken twice over.
  options.state_dir = fs::absolute(options.state_dir);
  if (options.action == "add") {
    if (!options.token_file)
      throw common::UsageError("add needs --token-file FILE");
    if (options.fingerprint.has_value() == options.yes)
      throw common::UsageError("add needs either --fingerprint sha256:HEX or --yes");
  }
  return options;
}

fs::path knownAgentsFile(const AgentsOptions& options) {
  return options.state_dir / "agents" / "known_agents";
}

/// Writes `text` to `file` through a temporary file renamed over it, with `mode`.
void replaceFile(const fs::path& file, const std::string& text, mode_t mode) {
  const fs::path temporary = file.string() + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    throw std::runtime_error(temporary.string() + ": cannot create: " + std::strerror(errno));
  ::fchmod(fd, mode);
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || std::rename(temporary.c_str(), file.c_str()) != 0) {
    fs::remove(temporary);
    throw std::runtime_error(file.string() + ": cannot write: " + std::strerror(errno));
  }
}

/// "+0.012 ms ± 0.050 ms"
std::string describeOffset(const agent::ClockOffset& offset) {
  char text[96];
  std::snprintf(text, sizeof(text), "%+.3f ms \u00b1 %.3f ms",
                static_cast<double>(offset.offset_micros) / 1000.0,
                static_cast<double>(offset.uncertainty_micros) / 1000.0);
  return text;
}

/// "benchd 0.1.0 on lab-gen-1, 2 CPUs, roles: generator" from the agent's GET /api/v1/agent.
/// Throws std::runtime_error when it is no agent of this protocol.
std::string describeAgent(agent::AgentClient& client) {
  const agent::AgentReply reply = client.call("GET", "/api/v1/agent");
  rapidjson::Document about;
  about.Parse(reply.body.c_str());
  const std::string who = client.agent().name + " (" + client.agent().url + ")";
  if (reply.status != 200 || about.HasParseError() || !about.IsObject() ||
      !about.HasMember("agentProtocol") || !about["agentProtocol"].IsInt()) {
    throw std::runtime_error(who + " answered GET /api/v1/agent with " +
                             std::to_string(reply.status) + ", not as a benchd agent");
  }
  if (about["agentProtocol"].GetInt() != agent::kAgentProtocol) {
    throw std::runtime_error(who + " speaks agent protocol " +
                             std::to_string(about["agentProtocol"].GetInt()) + ", this benchd " +
                             std::to_string(agent::kAgentProtocol) +
                             ": install the same benchd version on every host");
  }
  const auto text = [&](const char* name) {
    return about.HasMember(name) && about[name].IsString() ? std::string(about[name].GetString())
                                                           : std::string("?");
  };
  std::string description = "benchd " + text("benchd") + " on " + text("hostname");
  if (about.HasMember("cpus") && about["cpus"].IsUint())
    description += ", " + std::to_string(about["cpus"].GetUint()) + " CPUs";
  std::string roles;
  if (about.HasMember("roles") && about["roles"].IsArray()) {
    for (const auto& role : about["roles"].GetArray()) {
      if (role.IsString())
        roles += (roles.empty() ? "" : ", ") + std::string(role.GetString());
    }
  }
  return description + ", roles: " + (roles.empty() ? "none" : roles);
}

int addAgent(const AgentsOptions& options) {
  agent::KnownAgent added;
  added.name = options.names[0];
  // The known_agents parser is the one place that checks a name, a URL and a fingerprint.
  std::string unpinned = "00";
  for (int pair = 1; pair < 32; ++pair)
    unpinned += ":00";
  const std::string pin = options.fingerprint.value_or(unpinned);
  try {
    const auto parsed = agent::parseKnownAgents(
        added.name + " " + options.names[1] + " " + pin + " token\n", "arguments", ".");
    added = parsed.front();
  } catch (const agent::KnownAgentsError& error) {
    throw common::UsageError(error.what());
  }
  const std::string token = control::readToken(*options.token_file);

  const std::string shown = agent::AgentClient::certificateOf(added, kCallDeadline);
  if (options.fingerprint && shown != added.fingerprint) {
    std::cerr << "benchd agents: " << added.name << " (" << added.url
              << ") shows the certificate sha256:" << shown
              << ", not the sha256:" << added.fingerprint
              << " given; nothing was sent and nothing stored\n";
    return 1;
  }
  if (options.yes)
    std::cout << added.name << " shows the certificate sha256:" << shown
              << "; trusting it (--yes)\n";
  added.fingerprint = shown;
  added.token_file = *options.token_file;  // named by a refusal until the copy is made

  agent::AgentClient client({added, token}, kCallDeadline);
  const std::string about = describeAgent(client);
  const agent::ClockOffset offset = agent::measureClockOffset(client, 8);
  added.token_file = options.state_dir / "agents" / (added.name + ".token");
  if (added.token_file.string().find_first_of(" \t") != std::string::npos) {
    throw std::runtime_error(added.token_file.string() +
                             ": known_agents cannot hold a path with blanks; use --state-dir with "
                             "a folder without them");
  }

  fs::create_directories(added.token_file.parent_path());
  ::chmod(added.token_file.parent_path().c_str(), 0700);
  std::vector<agent::KnownAgent> agents = agent::loadKnownAgents(knownAgentsFile(options));
  std::erase_if(agents, [&](const agent::KnownAgent& known) { return known.name == added.name; });
  agents.push_back(added);
  replaceFile(added.token_file, token + "\n", 0600);
  replaceFile(knownAgentsFile(options), agent::formatKnownAgents(agents), 0644);
  std::cout << "added " << added.name << " " << added.url << " sha256:" << shown << " (" << about
            << ", clock offset " << describeOffset(offset) << ")\n";
  return 0;
}

int listAgents(const AgentsOptions& options) {
  const std::vector<agent::KnownAgent> agents = agent::loadKnownAgents(knownAgentsFile(options));
  if (agents.empty()) {
    std::cout << "no known agents in " << knownAgentsFile(options).string() << "\n";
    return 0;
  }
  int exit_code = 0;
  for (const agent::KnownAgent& known : agents) {
    std::cout << known.name << " " << known.url << " ";
    try {
      agent::AgentClient client({known, control::readToken(known.token_file)}, kCallDeadline);
      const std::string about = describeAgent(client);
      const agent::ClockOffset offset = agent::measureClockOffset(client, 8);
      std::cout << "reachable: " << about << ", clock offset " << describeOffset(offset) << "\n";
    } catch (const std::exception& error) {
      std::cout << "NOT usable: " << error.what() << "\n";
      exit_code = 1;
    }
  }
  return exit_code;
}

int removeAgent(const AgentsOptions& options) {
  std::vector<agent::KnownAgent> agents = agent::loadKnownAgents(knownAgentsFile(options));
  const agent::KnownAgent* known = agent::findAgent(agents, options.names[0]);
  if (known == nullptr) {
    std::cerr << "benchd agents: no agent named '" << options.names[0] << "' in "
              << knownAgentsFile(options).string() << "\n";
    return 1;
  }
  // The copy `add` made, by its name (a hand-written line's own token file is left alone).
  fs::remove(options.state_dir / "agents" / (known->name + ".token"));
  std::erase_if(agents,
                [&](const agent::KnownAgent& other) { return other.name == options.names[0]; });
  replaceFile(knownAgentsFile(options), agent::formatKnownAgents(agents), 0644);
  std::cout << "removed " << options.names[0] << "\n";
  return 0;
}

int agents(std::span<const std::string_view> arguments) {
  const AgentsOptions options = parseAgentsOptions(arguments);
  if (options.action == "add")
    return addAgent(options);
  if (options.action == "list")
    return listAgents(options);
  return removeAgent(options);
}

}  // namespace

Subcommand agentsSubcommand() {
  return {"agents", "the agents (other hosts' benchd serve) this host trusts as a coordinator",
          agentsUsage(), agents};
}

}  // namespace benchd::cli
