#pragma once

#include <benchd/loadgen/host_limits.hpp>
#include <benchd/scenario/scenario_row.hpp>
#include <benchd/scenario/workload.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace benchd::runner {

/// Seconds a (row, approach) costs besides its phases: starting the worker, the health check,
/// verifying answers, stopping it. An estimate for the plan and the ETA, not a limit.
inline constexpr std::chrono::seconds kPerRunOverhead{3};

/// An approach the row does not run, and why (its plugin does not implement the row's client).
struct SkippedApproach {
  std::string approach;
  std::string reason;  ///< "threads-poco does not implement client-beast (its clients: ...)"
};

/// One scenario row as it will run.
struct RowPlan {
  scenario::ScenarioRow row;    ///< with -w/-t overrides applied
  scenario::Workload workload;  ///< a copy: a plan outlives the catalog it was made from
  /// Profiles of the row that nothing installed implements (e.g. "postgres"): the row gets a
  /// failed result for every approach, naming them.
  std::vector<std::string> unsupported_profiles;
  /// The row's profiles name `postgres`: it runs against the run's PostgreSQL server.
  bool needs_database = false;
  std::uint32_t peak_connections = 0;            ///< the most connections its phases open at once
  std::chrono::seconds seconds_per_approach{0};  ///< warm-up + test + kPerRunOverhead
  loadgen::HostLimitCheck limits;                ///< problems refuse the row, warnings don't
  /// Approaches this row does not run (skipUnimplementedClients): no result, not ranked.
  std::vector<SkippedApproach> skipped;

  /// The reason `approach` is skipped in this row, or null when it runs.
  [[nodiscard]] const std::string* skipReason(const std::string& approach) const;
};

/// What `benchd run` will do: rows × approaches, their lengths and what the host may refuse.
struct RunPlan {
  std::vector<RowPlan> rows;
  std::vector<std::string> approaches;
  /// Runs of every (row, approach), in rounds: each round runs every approach once.
  std::uint32_t repeats = 1;
  std::chrono::seconds total{0};  ///< estimated wall time of the whole run, repeats included
  std::uint32_t peak_connections = 0;
  /// When a row needs PostgreSQL: the server the run would use (database_server.hpp's
  /// describeDatabaseServer) and, when it cannot have one, why not (else empty).
  std::string database;
  std::string database_problem;
};

/// The -w/-t overrides of the original's benchmark.sh: replace every row's warm-up / test
/// seconds when given.
struct DurationOverrides {
  std::optional<std::uint32_t> warmup_seconds;
  std::optional<std::uint32_t> test_seconds;
};

/// Plans the run. `limits` are this host's (loadgen::readHostLimits() after raising the
/// open-file limit); `repeats` (at least 1) multiplies the time. Pure function.
RunPlan planRun(const std::vector<scenario::ScenarioRow>& rows,
                const scenario::WorkloadCatalog& workloads,
                const std::vector<std::string>& approaches, const DurationOverrides& overrides,
                const loadgen::HostLimits& limits, std::uint32_t repeats = 1);

/// An approach as the plan sees it: its name and the profiles its plugin implements itself
/// (its descriptor's implemented_profiles).
struct PlannedApproach {
  std::string name;
  std::vector<std::string> profiles;
};

/// Marks each (row, approach) whose row names a client profile (microservice::kClientProfiles)
/// or `tls` that the approach's plugin does not list as skipped, and takes its time out of the
/// total: a client or a transport a plugin does not offer is not a failure of that plugin. Pure
/// function.
void skipUnimplementedClients(RunPlan& plan, const std::vector<PlannedApproach>& approaches);

/// How many (row, approach, round) runs the plan has, skipped ones left out.
[[nodiscard]] std::size_t runCount(const RunPlan& plan);

/// "1 h 02 min 05 s", "3 min 10 s", "45 s".
std::string formatDuration(std::chrono::seconds duration);

/// The plan for people: one line per row with its phases, workload, profiles, connections and
/// rate; then unsupported profiles, skipped approaches, host-limit problems and warnings, and
/// the totals.
void printPlan(std::ostream& out, const RunPlan& plan, const std::string& scenario_file);

}  // namespace benchd::runner
