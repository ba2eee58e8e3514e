#include "verify_plugin_command.hpp"

#include <benchd/common/integer_option.hpp>
#include <benchd/common/json_writing.hpp>
#include <benchd/common/usage_error.hpp>
#include <benchd/conformance/hostile_corpus.hpp>
#include <benchd/conformance/rules.hpp>
#include <benchd/microservice/service_profile.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/plugin_folders.hpp>

#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace benchd::cli {
namespace {

namespace fs = std::filesystem;

/// Requests of each family of the hostile corpus that verify-plugin sends (the in-tree suite
/// sends all of them): enough to meet every family, few enough to take seconds.
constexpr std::size_t kHostileSamplePerFamily = 3;

struct VerifyOptions {
  std::optional<fs::path> plugin;
  std::vector<std::string> rules;  ///< ids or prefixes; empty: every rule
  bool json = false;
  bool list = false;
  bool full_corpus = false;
  std::optional<unsigned> threads;
  std::vector<std::string> plugin_options;  ///< --option KEY=VALUE, for every served worker
  std::string client;  ///< --client: only the nested-call rules, with this client profile
};

std::string verifyUsage() {
  return "usage: benchd verify-plugin PATH [--rule ID]... [--client PROFILE] [--threads N]\n"
         "                            [--option KEY=VALUE]... [--full-corpus] [--json]\n"
         "       benchd verify-plugin --list\n"
         "\n"
         "Checks the approach plugin PATH (a .so) against the rules of the plugin contract\n"
         "(CONTRACT.md in benchd-plugin-dev): every endpoint and parameter combination, the\n"
         "answers to bad input, nested calls, keep-alive, HTTP framing, a sample of the hostile-\n"
         "request corpus, concurrency, and a stop with requests in flight. Each rule serves the\n"
         "plugin in a benchd-worker of its own on a loopback port and prints PASS or FAIL with\n"
         "the reason: what was sent, what was expected, what came back, and the sentence of\n"
         "CONTRACT.md the rule checks. A rule about an optional profile the plugin does not\n"
         "list (no-keep-alive) prints SKIP instead, and a rule covered by a contract exception\n"
         "the plugin declares (stack-framing, idle-header-timeout: what its HTTP stack decides)\n"
         "prints DEVIATES with what differed instead of FAIL. The rules whose requests make nested "
         "calls\n"
         "run with the plugin's native client and once more with each client profile it lists\n"
         "(client-curl, ...), as RULE[client-curl]. The in-tree conformance suite checks the\n"
         "same rules. A full check takes a few minutes.\n"
         "benchd-worker is $BENCHD_WORKER when set, else the one installed with benchd.\n"
         "\n"
         "  --rule ID          check only the rules whose id is ID or starts with it (e.g.\n"
         "                     'query' or 'stop.timeout'); repeatable\n"
         "  --client PROFILE   check only the nested-call rules, with this client profile\n"
         "                     (one the plugin lists, e.g. client-curl)\n"
         "  --threads N        --threads for every worker (1 to 1024; default: the worker's,\n"
         "                     the machine's hardware threads)\n"
         "  --option KEY=VALUE the plugin option for every worker a rule serves (e.g.\n"
         "                     mode=pool, to check one of a plugin's modes); repeatable\n"
         "  --full-corpus      send the whole hostile-request corpus instead of " +
         std::to_string(kHostileSamplePerFamily) +
         " requests\n"
         "                     of each family\n"
         "  --json             print the outcome as one JSON document instead of lines\n"
         "  --list             list the rules (id, CONTRACT.md section, statement, the\n"
         "                     optional profile it needs) and exit\n"
         "  --help             this text\n"
         "\n"
         "Exit codes: 0 no rule failed (every rule checked passed or deviated as declared;\n"
         "skipped ones are neither),\n"
         "1 a rule failed or the plugin could not be loaded (the reason names the file),\n"
         "2 bad arguments.\n";
}

VerifyOptions parseVerifyOptions(std::span<const std::string_view> arguments) {
  VerifyOptions options;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view option = arguments[i];
    const auto value = [&]() -> std::string_view {
      if (i + 1 >= arguments.size())
        throw common::UsageError(std::string(option) + ": missing value");
      return arguments[++i];
    };
    if (option == "--json") {
      options.json = true;
    } else if (option == "--list") {
      options.list = true;
    } else if (option == "--full-corpus") {
      options.full_corpus = true;
    } else if (option == "--rule") {
      const std::string_view id = value();
      if (conformance::selectRules(id).empty() || id.empty()) {
        throw common::UsageError("--rule: no rule has the id or id prefix '" + std::string(id) +
                                 "' ('benchd verify-plugin --list' lists them)");
      }
      options.rules.emplace_back(id);
    } else if (option == "--client") {
      const std::string_view client = value();
      if (!microservice::isClientProfile(client)) {
        std::string known;
        for (const std::string_view name : microservice::kClientProfiles)
          known += (known.empty() ? "" : ", ") + std::string(name);
        throw common::UsageError("--client: '" + std::string(client) +
                                 "' is no client profile (known: " + known + ")");
      }
      options.client = client;
    } else if (option == "--threads") {
      options.threads = common::parseIntegerOption<unsigned>("--threads", value(), 1, 1024);
    } else if (option == "--option") {
      const std::string_view pair = value();
      const std::size_t equals = pair.find('=');
      if (equals == std::string_view::npos || equals == 0) {
        throw common::UsageError("--option: expected KEY=VALUE, got '" + std::string(pair) + "'");
      }
      options.plugin_options.emplace_back(pair);
    } else if (option.starts_with("--")) {
      throw common::UsageError("unknown option '" + std::string(option) + "'");
    } else if (options.plugin) {
      throw common::UsageError("unexpected argument '" + std::string(option) +
                               "' (one plugin at a time)");
    } else {
      options.plugin = fs::path(option);
    }
  }
  if (!options.plugin && !options.list)
    throw common::UsageError("missing the plugin file (PATH)");
  return options;
}

/// The rules to check, in list order, each once.
std::vector<const conformance::Rule*> chosenRules(const std::vector<std::string>& patterns) {
  if (patterns.empty()) {
    std::vector<const conformance::Rule*> all;
    for (const conformance::Rule& rule : conformance::contractRules())
      all.push_back(&rule);
    return all;
  }
  std::set<const conformance::Rule*> wanted;
  for (const std::string& pattern : patterns) {
    for (const conformance::Rule* rule : conformance::selectRules(pattern))
      wanted.insert(rule);
  }
  std::vector<const conformance::Rule*> chosen;
  for (const conformance::Rule& rule : conformance::contractRules()) {
    if (wanted.contains(&rule))
      chosen.push_back(&rule);
  }
  return chosen;
}

int listRules() {
  for (const conformance::Rule& rule : conformance::contractRules()) {
    const std::string section = "section " + rule.section;
    std::cout << rule.id << std::string(rule.id.size() < 30 ? 30 - rule.id.size() : 1, ' ')
              << section << std::string(section.size() < 14 ? 14 - section.size() : 1, ' ')
              << rule.statement
              << (rule.profile.empty() ? "" : " (profile " + rule.profile + ", optional)") << "\n";
  }
  return 0;
}

/// The file checked before a worker sees it, so the common mistakes read plainly.
void requirePluginFile(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status))
    throw std::runtime_error(path.string() + ": no such file");
  if (!fs::is_regular_file(status))
    throw std::runtime_error(path.string() +
                             ": not a plugin file (a .so); it is a folder or "
                             "another kind of file");
}

struct Checked {
  conformance::RuleRun run;
  conformance::RuleOutcome outcome;
};

/// How many rules passed, deviated as the plugin declares, failed and were skipped.
struct Tally {
  std::size_t passed = 0;
  std::size_t deviated = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;

  void add(const conformance::RuleOutcome& outcome) {
    (outcome.skipped    ? skipped
     : outcome.passed   ? passed
     : outcome.deviated ? deviated
                        : failed) += 1;
  }
};

/// The words of a list, or `none`.
std::string joinedOr(const std::vector<std::string>& words, std::string_view none) {
  std::string text;
  for (const std::string& word : words)
    text += (text.empty() ? "" : ", ") + word;
  return text.empty() ? std::string(none) : text;
}

void writeJson(const runner::PluginDescription& plugin, const fs::path& worker,
               const std::vector<Checked>& checked, const Tally& tally) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  common::key(json, "plugin");
  json.StartObject();
  common::field(json, "path", plugin.path.string());
  common::field(json, "name", plugin.name);
  common::field(json, "version", plugin.version);
  common::field(json, "concurrencyModel", plugin.concurrency_model);
  common::field(json, "ioStack", plugin.io_stack);
  common::field(json, "abi", plugin.abi);
  common::key(json, "profiles");
  json.StartArray();
  for (const std::string& profile : plugin.profiles)
    json.String(profile.c_str(), static_cast<rapidjson::SizeType>(profile.size()));
  json.EndArray();
  common::key(json, "contractExceptions");
  json.StartArray();
  for (const std::string& exception : plugin.contract_exceptions)
    json.String(exception.c_str(), static_cast<rapidjson::SizeType>(exception.size()));
  json.EndArray();
  json.EndObject();
  common::field(json, "workerPath", worker.string());
  common::key(json, "rules");
  json.StartArray();
  for (const Checked& each : checked) {
    json.StartObject();
    const conformance::Rule& rule = *each.run.rule;
    common::field(json, "id", each.run.id());
    common::field(json, "statement", rule.statement);
    common::field(json, "contractSection", rule.section);
    common::field(json, "contractText", rule.citation);
    if (!rule.profile.empty())
      common::field(json, "profile", rule.profile);
    if (!each.run.client_profile.empty())
      common::field(json, "clientProfile", each.run.client_profile);
    common::field(json, "passed", each.outcome.passed);
    common::field(json, "skipped", each.outcome.skipped);
    common::field(json, "deviated", each.outcome.deviated);
    if (each.outcome.deviated)
      common::field(json, "contractException", rule.exception);
    if (!each.outcome.passed)
      common::field(json, "reason", each.outcome.reason);
    common::field(json, "millis", static_cast<std::int64_t>(each.outcome.took.count()));
    json.EndObject();
  }
  json.EndArray();
  common::field(json, "rulesPassed", static_cast<std::uint64_t>(tally.passed));
  common::field(json, "rulesDeviated", static_cast<std::uint64_t>(tally.deviated));
  common::field(json, "rulesFailed", static_cast<std::uint64_t>(tally.failed));
  common::field(json, "rulesSkipped", static_cast<std::uint64_t>(tally.skipped));
  common::field(json, "rulesChecked", static_cast<std::uint64_t>(checked.size() - tally.skipped));
  json.EndObject();
  std::cout << buffer.GetString() << "\n";
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words)
    text += (text.empty() ? "" : ", ") + word;
  return text;
}

/// A reason's lines, each indented under its rule.
std::string indented(const std::string& reason) {
  std::string text = "      ";
  for (const char character : reason) {
    text += character;
    if (character == '\n')
      text += "      ";
  }
  return text;
}

int runVerifyPlugin(std::span<const std::string_view> arguments) {
  const VerifyOptions options = parseVerifyOptions(arguments);
  if (options.list)
    return listRules();
  const fs::path& path = *options.plugin;
  requirePluginFile(path);
  const fs::path worker = runner::workerPath();
  const runner::InspectedFile inspected = runner::inspectPluginFile(path, worker);
  if (inspected.rejected) {
    throw std::runtime_error(path.string() +
                             ": refused by the plugin loader: " + inspected.rejected->reason);
  }
  const runner::PluginDescription& description = *inspected.accepted;

  conformance::PluginUnderTest plugin;
  plugin.worker = worker;
  plugin.plugin = path;
  plugin.name = description.name;
  plugin.threads = options.threads;
  plugin.options = options.plugin_options;
  plugin.implemented_profiles = description.profiles;
  plugin.contract_exceptions = description.contract_exceptions;
  const runner::Installation installation = runner::currentInstallation();
  const fs::path corpus_path =
      conformance::hostileCorpusPath(installation.build_tree, runner::currentExecutable());
  try {
    plugin.corpus =
        conformance::sampleHostileCorpus(conformance::readHostileCorpus(corpus_path),
                                         options.full_corpus ? 0 : kHostileSamplePerFamily);
  } catch (const conformance::HostileCorpusError& error) {
    plugin.corpus_problem = error.what();
  }

  if (!options.client.empty() && std::find(description.profiles.begin(), description.profiles.end(),
                                           options.client) == description.profiles.end()) {
    throw std::runtime_error(path.string() + ": " + description.name + " does not implement " +
                             options.client + " (its profiles: " +
                             (description.profiles.empty() ? std::string("none beyond the core's")
                                                           : joined(description.profiles)) +
                             ")");
  }
  const std::vector<conformance::RuleRun> runs =
      conformance::ruleRuns(chosenRules(options.rules), description.profiles, options.client);
  if (!options.json) {
    std::cout << "Verifying " << path.string() << ": " << description.name << " "
              << description.version << " (" << description.concurrency_model << ", "
              << description.io_stack << "), ABI " << description.abi << ", profiles "
              << (description.profiles.empty() ? std::string("none beyond the core's")
                                               : joined(description.profiles))
              << ", contract exceptions " << joinedOr(description.contract_exceptions, "none")
              << (options.plugin_options.empty()
                      ? std::string()
                      : ", options " + joinedOr(options.plugin_options, ""))
              << "\n"
              << "with " << worker.string() << ", " << runs.size()
              << (runs.size() == 1 ? " rule\n\n" : " rules\n\n") << std::flush;
  }
  std::vector<Checked> checked;
  Tally tally;
  for (const conformance::RuleRun& run : runs) {
    plugin.client_profile = run.client_profile;
    const conformance::Rule* rule = run.rule;
    conformance::RuleOutcome outcome = conformance::checkRule(*rule, plugin);
    tally.add(outcome);
    if (!options.json) {
      std::cout << (outcome.skipped    ? "SKIP  "
                    : outcome.passed   ? "PASS  "
                    : outcome.deviated ? "DEVIATES  "
                                       : "FAIL  ")
                << run.id() << "  " << rule->statement << "\n";
      if (outcome.skipped)
        std::cout << indented(outcome.reason) << "\n";
      if (outcome.deviated) {
        std::cout << indented("as its contract exception " + rule->exception +
                              " allows (its HTTP stack decides this):")
                  << "\n";
      }
      if (!outcome.passed && !outcome.skipped) {
        std::cout << indented(outcome.reason) << "\n"
                  << indented("CONTRACT.md section " + rule->section + ": " + rule->citation)
                  << "\n";
      }
      std::cout << std::flush;
    }
    checked.push_back({run, std::move(outcome)});
  }
  if (options.json) {
    writeJson(description, worker, checked, tally);
  } else {
    const std::size_t checked_count = checked.size() - tally.skipped;
    std::cout << "\n"
              << tally.passed << " of " << checked_count
              << (checked_count == 1 ? " rule passed" : " rules passed");
    if (tally.deviated > 0) {
      std::cout << ", " << tally.deviated << " deviated"
                << " as the plugin's contract exceptions allow ("
                << joinedOr(description.contract_exceptions, "none") << ")";
    }
    if (tally.skipped > 0) {
      std::cout << ", " << tally.skipped
                << (tally.skipped == 1 ? " skipped (an optional profile the plugin does not list)"
                                       : " skipped (optional profiles the plugin does not list)");
    }
    std::cout << "\n";
  }
  return tally.failed == 0 ? common::kExitOk : common::kExitFailure;
}

}  // namespace

Subcommand verifyPluginSubcommand() {
  return {"verify-plugin", "check a plugin file against the plugin contract, rule by rule",
          verifyUsage(), runVerifyPlugin};
}

}  // namespace benchd::cli
