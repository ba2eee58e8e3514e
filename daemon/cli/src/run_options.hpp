#pragma once

#include <benchd/scenario/phase_limits.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::cli {

/// `benchd run` arguments, checked. Defaults in comments.
struct RunOptions {
  std::string scenario_file = "scenarios-quick.csv";  ///< positional: a bare name or a path
  std::vector<std::string> approaches;                ///< -a a,b,c (default: every plugin)
  std::optional<std::string> aa_approach;             ///< --aa APPROACH
  std::uint32_t repeats = scenario::kDefaultRepeats;  ///< --repeat N
  std::optional<std::uint64_t> order_seed;            ///< --seed N
  std::optional<std::uint64_t> memory_cap_bytes;      ///< --memory-cap SIZE
  std::optional<double> capacity_resolution_percent;  ///< --capacity-resolution PCT
  std::string winner_rule = "significant";            ///< --winners RULE
  std::optional<std::string> thresholds_file;         ///< --thresholds FILE
  std::optional<std::uint32_t> warmup_seconds;        ///< -w S
  std::optional<std::uint32_t> test_seconds;          ///< -t S
  std::string output_dir = "results";                 ///< -o DIR: results go to DIR/<stem>/
  bool keep_csv = false;                              ///< -C
  bool plan_only = false;                             ///< --plan
  std::vector<std::string> plugin_dirs;               ///< --plugin-dir DIR (repeatable)
  std::optional<std::string> scenarios_dir;           ///< --scenarios-dir DIR
  std::string cpus = "split";                         ///< --cpus split|shared
  std::vector<unsigned> server_cpus;                  ///< --server-cpus LIST
  std::vector<unsigned> generator_cpus;               ///< --generator-cpus LIST
  std::optional<unsigned> threads;                    ///< --threads N (generator threads)
  std::optional<std::string> store_file;              ///< --store FILE (default DIR/benchd.sqlite)
  std::uint32_t health_timeout_seconds = 30;          ///< --health-timeout S
  bool quiet = false;                                 ///< --quiet
  std::string postgres_url;                           ///< --postgres URL (default: private)
  std::uint32_t db_pool = 16;                         ///< --db-pool N
  /// --resume RUN: go on with run RUN of the store instead of starting one; it keeps its own
  /// scenario file and settings, so none of the options that make a request may be given.
  std::optional<std::int64_t> resume_run;
};

/// An -a list: approach names separated by commas, a comma inside a variant's [options]
/// belonging to the variant. Throws UsageError naming `option` for an empty name.
std::vector<std::string> splitApproachList(std::string_view option, std::string_view text);

/// Parses the arguments after `run`. Throws UsageError with one line naming the option.
RunOptions parseRunOptions(std::span<const std::string_view> arguments);

std::string runUsage();

}  // namespace benchd::cli
