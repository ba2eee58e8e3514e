#pragma once

#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/runner/run_plan.hpp>
#include <benchd/scenario/phase_limits.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::runner {

/// What a user asks for: the arguments of `benchd run`, or a run request to the daemon.
struct RunRequest {
  std::string scenario_file = "scenarios-quick.csv";  ///< a bare name or a path
  /// Approach names, each a plugin or a variant of one (approach_variant.hpp); empty: every
  /// accepted plugin. A name given twice runs once.
  std::vector<std::string> approaches;
  /// An A/A check: this approach and its aaPartner() instead of `approaches` (which must then
  /// be empty).
  std::optional<std::string> aa_approach;
  /// Runs of every (row, approach), in rounds; 1 to scenario::kMaxRepeats (checked by
  /// prepareRun, the one check: front ends pass the number given).
  std::uint32_t repeats = scenario::kDefaultRepeats;
  /// Seeds the rounds' orders; none: a fresh seed, recorded with the run.
  std::optional<std::uint64_t> order_seed;
  /// "significant" (default) or "original" as the user wrote it; prepareRun parses it
  /// (results::winnerRuleFromName) into RunSettings::winner_rule.
  std::string winner_rule = "significant";
  DurationOverrides overrides;
  bool keep_csv = false;
  /// Where the worker and the load generator run when neither list below is given: "split"
  /// (default: splitCpus over the CPUs this process may use) or "shared" (both unpinned, as
  /// the original study ran). "shared" takes no list. As the user wrote it; prepareRun parses
  /// it (cpuPlacementFromName) into RunSettings::cpus.
  std::string cpus = "split";
  std::vector<unsigned> server_cpus;     ///< empty: the `cpus` default
  std::vector<unsigned> generator_cpus;  ///< empty: the `cpus` default
  /// Load-generator threads; default: one per generator CPU when pinned, else cores - 1.
  std::optional<unsigned> generator_threads;
  std::chrono::seconds health_timeout{30};
  /// The noise thresholds the winners are decided with (`benchd run --thresholds FILE`); none:
  /// the shipped ones. Recorded with the run (a resumption keeps them).
  std::optional<results::NoiseThresholds> noise_thresholds;
  /// The memory each worker's process tree may use (`benchd run --memory-cap`, the API's
  /// `memoryCap`), in bytes; none: uncapped. prepareRun refuses it (kMemoryCap) where the kernel
  /// offers no cap (detectMemoryCapSupport) or outside 4 MiB to 1 TiB.
  std::optional<std::uint64_t> memory_cap_bytes;
  /// Capacity rows: the bracket width each search stops at, in percent of its low end
  /// (`benchd run --capacity-resolution`, the API's `capacityResolutionPercent`); none:
  /// kDefaultCapacityResolution. prepareRun refuses it (kCapacityResolution) outside
  /// kMinCapacityResolutionPercent to kMaxCapacityResolutionPercent.
  std::optional<double> capacity_resolution_percent;
};

/// Where a run's inputs and outputs are.
struct RunEnvironment {
  std::filesystem::path scenarios_dir;  ///< bare scenario names and workloads/
  /// The daemon's uploaded scenario files: bare names not found in scenarios_dir are looked up
  /// here (their workloads still come from scenarios_dir/workloads). Empty: none.
  std::filesystem::path uploaded_scenarios_dir;
  std::vector<PluginFolder> plugin_folders;
  std::filesystem::path worker;       ///< the benchd-worker executable
  std::filesystem::path report_tool;  ///< benchd-report; empty or missing: no PNG charts
  std::filesystem::path output_dir;   ///< results go to output_dir/<scenario file stem>/
  /// The PostgreSQL of the `postgres` rows: a private cluster unless a server is named
  /// (`benchd run --postgres`, the daemon's postgres_url), and the pool per plugin.
  DatabaseServerSettings database;
};

/// The part of a RunRequest that a RunRequestError is about, and what was wrong with it. Each
/// front end names these in its own words (the CLI its options, the REST API its body members)
/// and adds its own remedy; the runner speaks none of them.
enum class RunRequestField : std::uint8_t {
  /// scenario_file: a bare name that is in none of the environment's scenario folders.
  kScenarioFile = 1,
  kWarmup,      ///< overrides.warmup_seconds: above scenario::kMaxPhaseSeconds
  kTest,        ///< overrides.test_seconds: 0, or above scenario::kMaxPhaseSeconds
  kServerCpus,  ///< server_cpus: a CPU this process may not run on
  /// generator_cpus: a CPU this process may not run on, or one that server_cpus has too.
  kGeneratorCpus,
  kRepeats,             ///< repeats: 0 or above scenario::kMaxRepeats
  kWinnerRule,          ///< winner_rule: not a rule's name
  kAa,                  ///< aa_approach given together with approaches
  kCpus,                ///< cpus: not "split" or "shared", or "shared" with a CPU list
  kMemoryCap,           ///< memory_cap_bytes: out of range, or no memory cap on this machine
  kCapacityResolution,  ///< capacity_resolution_percent: out of range
};

/// A request that cannot run as asked. what() is one line for the user in neutral words: it
/// names no option, member or URL, so a front end can put its own name for field() before it
/// and its own remedy after it.
class RunRequestError : public std::invalid_argument {
 public:
  RunRequestError(RunRequestField field, const std::string& reason);
  [[nodiscard]] RunRequestField field() const noexcept { return field_; }

 private:
  RunRequestField field_;
};

/// A checked request: ready for BenchmarkRun, with the catalog it chose from.
struct PreparedRun {
  RunSettings settings;
  PluginCatalog catalog;
};

/// The scenario file a request names: a path when it contains '/', else a file of
/// `scenarios_dir` or, failing that, of `uploaded_dir` when given (".csv" may be left off).
/// Throws RunRequestError (kScenarioFile) listing the files of the folders searched.
std::filesystem::path resolveScenarioFile(const std::string& name,
                                          const std::filesystem::path& scenarios_dir,
                                          const std::filesystem::path& uploaded_dir = {});

/// Checks a request's CPU sets: every CPU must be one this process may run on, and the two sets
/// must not share one (pinning is for keeping the server and the load generator apart). Throws
/// RunRequestError (kServerCpus or kGeneratorCpus).
void checkCpuSets(const std::vector<unsigned>& server, const std::vector<unsigned>& generator);

/// Checks a request and turns it into RunSettings: checks the duration overrides and the CPU
/// sets, the repeats and the winner rule (RunRequestError), resolves and loads the scenario file
/// (RunRequestError when it is not found, scenario::ScenarioFileError for a bad file), inspects
/// the plugins (PluginSearchError) and resolves the approaches and their variants
/// (UnknownApproachError, also for a variant that cannot be read), raises the open-file limit and
/// plans the run against this host's limits. Nothing runs. One path for `benchd run` and the
/// daemon. With `catalog`, the plugins are taken from it instead of being inspected again (the
/// daemon's catalog of its last scan: inspecting takes up to seconds per plugin, and a run should
/// use the approaches the API lists).
PreparedRun prepareRun(const RunRequest& request, const RunEnvironment& environment,
                       const PluginCatalog* catalog = nullptr);

}  // namespace benchd::runner
