#include <benchd/loadgen/engine_options.hpp>
#include <benchd/loadgen/host_limits.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/runner/approach_variant.hpp>
#include <benchd/runner/capacity_search.hpp>
#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/memory_cap.hpp>
#include <benchd/runner/round_order.hpp>
#include <benchd/runner/run_preparation.hpp>
#include <benchd/runner/stored_request.hpp>
#include <benchd/scenario/phase_limits.hpp>
#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <utility>

namespace benchd::runner {
namespace {

/// `value` in the shortest form that reads back the same (0.5, 50, 0.1).
std::string shortNumber(double value) {
  std::array<char, 32> text{};
  const auto result = std::to_chars(text.data(), text.data() + text.size(), value);
  return {text.data(), result.ptr};
}

/// One line for results.md and the store: what was run and how.
std::string settingsNote(const RunRequest& request, const RunSettings& settings,
                         unsigned generator_threads) {
  std::string note = "Approaches:";
  for (const std::string& approach : settings.plan.approaches) {
    note += " " + approach;
  }
  note += ". ";
  if (settings.repeats > 1) {
    note += "Repeats: " + std::to_string(settings.repeats) +
            " rounds per row, each in its own shuffled order (seed " +
            std::to_string(settings.order_seed) + "). ";
  }
  note += "Winners: " + std::string(results::winnerRuleName(settings.winner_rule)) + " rule. ";
  if (request.overrides.warmup_seconds || request.overrides.test_seconds) {
    note += "Overrides:";
    if (request.overrides.warmup_seconds) {
      note += " warm-up " + std::to_string(*request.overrides.warmup_seconds) + " s";
    }
    if (request.overrides.test_seconds) {
      note += " test " + std::to_string(*request.overrides.test_seconds) + " s";
    }
    note += " for every row (the table shows the durations used). ";
  }
  note += "Server CPUs: " + formatCpuList(settings.server_cpus) +
          "; load generator CPUs: " + formatCpuList(settings.generator_cpus) + " (" +
          std::to_string(generator_threads) + (generator_threads == 1 ? " thread" : " threads") +
          ")";
  if (request.server_cpus.empty() && request.generator_cpus.empty()) {
    note += settings.cpus == CpuPlacement::kShared ? ", shared as in the original study"
            : settings.server_cpus.empty()         ? ", shared: one CPU cannot be split"
                                                   : ", split by default";
  }
  note += ".";
  if (settings.memory_cap_bytes) {
    note += " Memory cap: " + mebibytesText(*settings.memory_cap_bytes) + " per worker, " +
            detectMemoryCapSupport().kindName() + ".";
  }
  if (!settings.plan.database.empty()) {
    note += " Database of the postgres rows: " + settings.plan.database + ".";
  }
  return note;
}

}  // namespace

RunRequestError::RunRequestError(RunRequestField field, const std::string& reason)
    : std::invalid_argument(reason), field_(field) {}

namespace {

/// The overrides apply to every row, so they are held to the limits a scenario file's own
/// durations are; a test phase of 0 s would measure nothing.
void checkOverrides(const DurationOverrides& overrides) {
  if (overrides.warmup_seconds && *overrides.warmup_seconds > scenario::kMaxPhaseSeconds) {
    throw RunRequestError(RunRequestField::kWarmup,
                          "expected " + scenario::phaseSecondsExpectation() + ", got " +
                              std::to_string(*overrides.warmup_seconds));
  }
  if (overrides.test_seconds) {
    if (*overrides.test_seconds == 0) {
      throw RunRequestError(RunRequestField::kTest, "the test phase needs at least 1 second");
    }
    if (*overrides.test_seconds > scenario::kMaxPhaseSeconds) {
      throw RunRequestError(RunRequestField::kTest,
                            "expected " + scenario::phaseSecondsExpectation(1) + ", got " +
                                std::to_string(*overrides.test_seconds));
    }
  }
}

/// The request's choices that front ends pass as the user wrote them, parsed here once.
struct ParsedChoices {
  results::WinnerRule winner_rule = results::WinnerRule::kSignificant;
  CpuPlacement cpus = CpuPlacement::kSplit;
};

/// Throws RunRequestError (kMemoryCap) when this machine offers no memory cap; `whose` names
/// what asked for one when it is not the run ("approach 'x[memory_cap=64M]': ").
void checkMemoryCapSupport(const std::string& whose) {
  if (const MemoryCapSupport support = detectMemoryCapSupport();
      support.kind == MemoryCapSupport::Kind::kNone) {
    throw RunRequestError(RunRequestField::kMemoryCap,
                          whose + "this machine offers no memory cap: " + support.why_not +
                              " (a cap needs a writable cgroup v2 that hands the memory "
                              "controller to its children, or the v1 memory controller)");
  }
}

/// Checks the repeats, the winner rule, the CPU placement and the A/A request: the one check
/// of each for `benchd run` and the daemon (the front ends pass the values as given).
ParsedChoices checkChoices(const RunRequest& request) {
  if (request.repeats == 0 || request.repeats > scenario::kMaxRepeats) {
    throw RunRequestError(RunRequestField::kRepeats, "expected a number of runs from 1 to " +
                                                         std::to_string(scenario::kMaxRepeats) +
                                                         ", got " +
                                                         std::to_string(request.repeats));
  }
  ParsedChoices choices;
  if (const auto rule = results::winnerRuleFromName(request.winner_rule)) {
    choices.winner_rule = *rule;
  } else {
    throw RunRequestError(
        RunRequestField::kWinnerRule,
        "expected 'significant' or 'original', got '" + request.winner_rule + "'");
  }
  if (const auto placement = cpuPlacementFromName(request.cpus)) {
    choices.cpus = *placement;
  } else {
    throw RunRequestError(RunRequestField::kCpus,
                          "expected 'split' or 'shared', got '" + request.cpus + "'");
  }
  if (choices.cpus == CpuPlacement::kShared &&
      (!request.server_cpus.empty() || !request.generator_cpus.empty())) {
    throw RunRequestError(RunRequestField::kCpus,
                          "'shared' leaves both unpinned; it takes no CPU list");
  }
  if (request.capacity_resolution_percent) {
    const double percent = *request.capacity_resolution_percent;
    if (!(percent >= kMinCapacityResolutionPercent && percent <= kMaxCapacityResolutionPercent)) {
      throw RunRequestError(
          RunRequestField::kCapacityResolution,
          "expected a percentage from " + shortNumber(kMinCapacityResolutionPercent) + " to " +
              shortNumber(kMaxCapacityResolutionPercent) + ", got " + shortNumber(percent));
    }
  }
  if (request.memory_cap_bytes) {
    const std::uint64_t cap = *request.memory_cap_bytes;
    if (cap < kMinimumMemoryCap || cap > kMaximumMemoryCap) {
      throw RunRequestError(RunRequestField::kMemoryCap,
                            "expected bytes from " + std::to_string(kMinimumMemoryCap) +
                                " (4 MiB) to " + std::to_string(kMaximumMemoryCap) +
                                " (1 TiB), got " + std::to_string(cap));
    }
    checkMemoryCapSupport("");
  }
  if (request.aa_approach && !request.approaches.empty()) {
    throw RunRequestError(RunRequestField::kAa,
                          "an A/A check runs one approach against itself; it takes no list of "
                          "approaches besides");
  }
  return choices;
}

/// The approach names of a request: its list, or an A/A check's pair.
std::vector<std::string> requestedApproaches(const RunRequest& request) {
  if (!request.aa_approach) {
    return request.approaches;
  }
  try {
    const ApproachVariant variant = parseApproachVariant(*request.aa_approach);
    return {variant.name(), aaPartner(variant).name()};
  } catch (const ApproachVariantError& error) {
    throw UnknownApproachError(error.what(), false);
  }
}

/// Each requested variant with the accepted plugin it runs; every accepted plugin as installed
/// when none is requested. A name given twice runs once (as before variants existed).
std::vector<Approach> resolveVariants(const PluginCatalog& catalog,
                                      const std::vector<std::string>& requested) {
  std::vector<Approach> approaches;
  if (requested.empty()) {
    for (const PluginDescription& plugin : resolveApproaches(catalog, {})) {
      Approach approach;
      approach.name = plugin.name;
      approach.plugin = plugin.path;
      approach.plugin_name = plugin.name;
      approach.profiles = plugin.profiles;
      approaches.push_back(std::move(approach));
    }
    return approaches;
  }
  for (const std::string& text : requested) {
    ApproachVariant variant;
    try {
      variant = parseApproachVariant(text);
    } catch (const ApproachVariantError& error) {
      throw UnknownApproachError(error.what(), false);
    }
    const PluginDescription plugin = resolveApproaches(catalog, {variant.plugin}).front();
    Approach approach;
    approach.name = variant.name();
    approach.plugin = plugin.path;
    approach.plugin_name = plugin.name;
    approach.profiles = plugin.profiles;
    // `memory_cap` (the worker's cgroup) and `threads` (its --threads) are the runner's keys,
    // every other one the plugin's.
    for (const auto& [key, value] : variant.options) {
      try {
        if (key == kMemoryCapVariantKey) {
          approach.memory_cap_bytes = parseMemorySize(value);
        } else if (key == kThreadsVariantKey) {
          approach.worker_threads = parseWorkerThreads(value);
        } else {
          std::string argument = key;
          argument += '=';
          argument += value;
          approach.plugin_options.push_back(std::move(argument));
        }
      } catch (const std::invalid_argument& error) {
        throw UnknownApproachError("approach '" + text + "': " + error.what(), false);
      }
    }
    const bool repeated =
        std::any_of(approaches.begin(), approaches.end(),
                    [&approach](const Approach& chosen) { return chosen.name == approach.name; });
    if (!repeated) {
      approaches.push_back(std::move(approach));
    }
  }
  return approaches;
}

/// `name` in `folder`, with ".csv" added when it is missing and that file exists.
std::optional<std::filesystem::path> scenarioFileIn(const std::filesystem::path& folder,
                                                    const std::string& name) {
  std::filesystem::path path = folder / name;
  if (!std::filesystem::exists(path) && path.extension() != ".csv") {
    path += ".csv";
  }
  if (std::filesystem::is_regular_file(path)) {
    return path;
  }
  return std::nullopt;
}

/// The .csv files of `folder`, sorted, comma-separated.
std::string csvFilesIn(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ignored)) {
    if (entry.path().extension() == ".csv") {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  std::string known;
  for (const std::string& file : names) {
    known += (known.empty() ? "" : ", ") + file;
  }
  return known.empty() ? "none" : known;
}

}  // namespace

std::filesystem::path resolveScenarioFile(const std::string& name,
                                          const std::filesystem::path& scenarios_dir,
                                          const std::filesystem::path& uploaded_dir) {
  if (name.find('/') != std::string::npos) {
    return name;
  }
  if (auto path = scenarioFileIn(scenarios_dir, name)) {
    return *path;
  }
  if (!uploaded_dir.empty()) {
    if (auto path = scenarioFileIn(uploaded_dir, name)) {
      return *path;
    }
  }
  std::string message = "no scenario file '" + name + "' in " + scenarios_dir.string() +
                        " (there: " + csvFilesIn(scenarios_dir) + ")";
  if (!uploaded_dir.empty()) {
    message += " nor among the uploaded ones (" + csvFilesIn(uploaded_dir) + ")";
  }
  throw RunRequestError(RunRequestField::kScenarioFile, message);
}

void checkCpuSets(const std::vector<unsigned>& server, const std::vector<unsigned>& generator) {
  const std::vector<unsigned> allowed = allowedCpus();
  for (const auto& [set, field] : {std::pair{&server, RunRequestField::kServerCpus},
                                   std::pair{&generator, RunRequestField::kGeneratorCpus}}) {
    for (const unsigned cpu : *set) {
      if (!std::binary_search(allowed.begin(), allowed.end(), cpu)) {
        throw RunRequestError(field, "CPU " + std::to_string(cpu) +
                                         " is not available to this process (available: " +
                                         formatCpuList(allowed) + ")");
      }
    }
  }
  for (const unsigned cpu : server) {
    if (std::binary_search(generator.begin(), generator.end(), cpu)) {
      throw RunRequestError(RunRequestField::kGeneratorCpus,
                            "the server and the load generator share CPU " + std::to_string(cpu) +
                                "; pinning is for keeping the two apart, give them disjoint sets");
    }
  }
}

PreparedRun prepareRun(const RunRequest& request, const RunEnvironment& environment,
                       const PluginCatalog* catalog) {
  checkOverrides(request.overrides);
  checkCpuSets(request.server_cpus, request.generator_cpus);
  const ParsedChoices choices = checkChoices(request);
  const std::filesystem::path scenario_file = resolveScenarioFile(
      request.scenario_file, environment.scenarios_dir, environment.uploaded_scenarios_dir);
  const scenario::WorkloadCatalog workloads =
      scenario::WorkloadCatalog::loadDirectory(environment.scenarios_dir / "workloads");
  const std::vector<scenario::ScenarioRow> rows =
      scenario::loadScenarioFile(scenario_file, workloads);

  PreparedRun prepared;
  prepared.catalog = catalog != nullptr
                         ? *catalog
                         : inspectPlugins(environment.plugin_folders, environment.worker);
  RunSettings& settings = prepared.settings;
  settings.approaches = resolveVariants(prepared.catalog, requestedApproaches(request));
  std::vector<std::string> names;
  std::vector<PlannedApproach> planned;
  for (const Approach& approach : settings.approaches) {
    names.push_back(approach.name);
    planned.push_back({approach.name, approach.profiles});
  }

  loadgen::raiseOpenFileLimit();
  settings.plan = planRun(rows, workloads, names, request.overrides, loadgen::readHostLimits(),
                          request.repeats);
  skipUnimplementedClients(settings.plan, planned);
  settings.repeats = request.repeats;
  settings.memory_cap_bytes = request.memory_cap_bytes;
  settings.capacity_resolution =
      request.capacity_resolution_percent.value_or(100.0 * kDefaultCapacityResolution) / 100.0;
  if (!request.memory_cap_bytes) {  // checked with the request's choices when it has one
    const auto capped = std::find_if(
        settings.approaches.begin(), settings.approaches.end(),
        [](const Approach& approach) { return approach.memory_cap_bytes.has_value(); });
    if (capped != settings.approaches.end()) {
      checkMemoryCapSupport("approach '" + capped->name + "': ");
    }
  }
  settings.order_seed = request.order_seed.value_or(freshOrderSeed());
  settings.winner_rule = choices.winner_rule;
  settings.noise_thresholds = request.noise_thresholds.value_or(results::shippedNoiseThresholds());
  settings.aa_check = request.aa_approach.has_value();
  settings.cpus = choices.cpus;
  settings.server_cpus = request.server_cpus;
  settings.generator_cpus = request.generator_cpus;
  if (settings.cpus == CpuPlacement::kSplit && request.server_cpus.empty() &&
      request.generator_cpus.empty()) {
    CpuSplit split = splitCpus(allowedCpus());
    settings.server_cpus = std::move(split.server);
    settings.generator_cpus = std::move(split.generator);
  }
  settings.generator_threads = request.generator_threads.value_or(
      settings.generator_cpus.empty()
          ? loadgen::defaultLoadThreads()
          : static_cast<unsigned>(std::max<std::size_t>(1, settings.generator_cpus.size())));
  settings.scenario_file = scenario_file;
  settings.scenario_set = scenario_file.stem().string();
  settings.worker = environment.worker;
  settings.report_tool = environment.report_tool;
  // Absolute: the store records it, and a resumption from another folder writes to the same.
  settings.results_dir = std::filesystem::absolute(environment.output_dir) / settings.scenario_set;
  settings.keep_csv = request.keep_csv;
  settings.health_timeout = request.health_timeout;
  settings.database = environment.database;
  const bool needs_database = std::any_of(settings.plan.rows.begin(), settings.plan.rows.end(),
                                          [](const RowPlan& row) { return row.needs_database; });
  if (needs_database) {
    settings.plan.database = describeDatabaseServer(settings.database);
    settings.plan.database_problem = databaseServerProblem(settings.database);
  }
  settings.options_text = settingsNote(request, settings, settings.generator_threads);
  RunRequest as_run = request;
  as_run.order_seed = settings.order_seed;
  as_run.scenario_file = std::filesystem::absolute(scenario_file).lexically_normal().string();
  settings.stored_request = storedRequestJson(as_run);
  return prepared;
}

}  // namespace benchd::runner
