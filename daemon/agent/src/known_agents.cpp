#include <benchd/agent/known_agents.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

namespace benchd::agent {

AgentUrl parseAgentUrl(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (!url.starts_with(kScheme))
    throw std::invalid_argument("expected https://HOST:PORT");
  std::string_view rest = url.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/')
    rest.remove_suffix(1);
  AgentUrl parsed;
  std::size_t colon = std::string_view::npos;
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      throw std::invalid_argument("expected https://[IPV6]:PORT");
    parsed.host = std::string(rest.substr(1, close - 1));
    colon = close + 1;
  } else {
    colon = rest.rfind(':');
    if (colon == std::string_view::npos)
      throw std::invalid_argument("expected https://HOST:PORT (the port is required)");
    parsed.host = std::string(rest.substr(0, colon));
  }
  const std::string_view port = rest.substr(colon + 1);
  unsigned value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (parsed.host.empty() || parsed.host.find_first_of("/@?# ") != std::string::npos)
    throw std::invalid_argument("expected a host name or address before the port");
  if (port.empty() || error != std::errc{} || end != port.data() + port.size() || value == 0 ||
      value > 65535)
    throw std::invalid_argument("expected a port from 1 to 65535");
  parsed.port = static_cast<std::uint16_t>(value);
  return parsed;
}

std::string normalizeFingerprint(std::string_view text) {
  if (text.size() > 7 && (text.substr(0, 7) == "sha256:" || text.substr(0, 7) == "SHA256:"))
    text.remove_prefix(7);
  std::string normal;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i % 3 == 2) {
      if (c != ':')
        throw std::invalid_argument("expected 32 hex pairs joined by ':'");
      normal += ':';
    } else if (std::isxdigit(static_cast<unsigned char>(c)) != 0) {
      normal += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else {
      throw std::invalid_argument("expected 32 hex pairs joined by ':'");
    }
  }
  if (normal.size() != 32 * 3 - 1)
    throw std::invalid_argument("expected 32 hex pairs joined by ':' (a SHA-256 fingerprint)");
  return normal;
}

std::vector<KnownAgent> parseKnownAgents(const std::string& text, const std::string& source,
                                         const std::filesystem::path& folder) {
  std::vector<KnownAgent> agents;
  std::istringstream lines(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string word; words >> word;)
      fields.push_back(word);
    if (fields.empty() || fields.front().front() == '#')
      continue;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    if (fields.size() != 4) {
      throw KnownAgentsError(where +
                             "expected 'NAME https://HOST:PORT sha256:FINGERPRINT "
                             "TOKEN_FILE', got " +
                             std::to_string(fields.size()) + " fields");
    }
    KnownAgent agent;
    agent.name = fields[0];
    if (agent.name.size() > 64 || !std::all_of(agent.name.begin(), agent.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' ||
                 c == '-';
        })) {
      throw KnownAgentsError(where + "field 'name': '" + agent.name +
                             "' is not letters, digits, '.', '_' and '-' (at most 64)");
    }
    if (findAgent(agents, agent.name) != nullptr)
      throw KnownAgentsError(where + "field 'name': '" + agent.name + "' is listed twice");
    try {
      const AgentUrl url = parseAgentUrl(fields[1]);
      agent.url = fields[1];
      agent.host = url.host;
      agent.port = url.port;
    } catch (const std::invalid_argument& error) {
      throw KnownAgentsError(where + "field 'url': " + error.what() + ", got '" + fields[1] + "'");
    }
    try {
      agent.fingerprint = normalizeFingerprint(fields[2]);
    } catch (const std::invalid_argument& error) {
      throw KnownAgentsError(where + "field 'fingerprint': " + error.what() + ", got '" +
                             fields[2] + "'");
    }
    agent.token_file = fields[3];
    if (agent.token_file.is_relative())
      agent.token_file = folder / agent.token_file;
    agents.push_back(std::move(agent));
  }
  return agents;
}

std::vector<KnownAgent> loadKnownAgents(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in)
    return {};
  std::ostringstream text;
  text << in.rdbuf();
  return parseKnownAgents(text.str(), file.string(), file.parent_path());
}

std::string formatKnownAgents(const std::vector<KnownAgent>& agents) {
  std::string text = "# benchd's known agents: NAME URL sha256:FINGERPRINT TOKEN_FILE\n";
  for (const KnownAgent& agent : agents) {
    text += agent.name + " " + agent.url + " sha256:" + agent.fingerprint + " " +
            agent.token_file.string() + "\n";
  }
  return text;
}

const KnownAgent* findAgent(const std::vector<KnownAgent>& agents, std::string_view name) {
  const auto found = std::find_if(agents.begin(), agents.end(),
                                  [&](const KnownAgent& agent) { return agent.name == name; });
  return found == agents.end() ? nullptr : &*found;
}

}  // namespace benchd::agent
