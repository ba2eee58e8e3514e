#include <benchd/microservice/service_profile.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/runner/capacity_search.hpp>
#include <benchd/runner/run_plan.hpp>
#include <benchd/scenario/stage_plan.hpp>

#include <algorithm>
#include <ostream>

namespace benchd::runner {
namespace {

std::string twoDigits(std::int64_t value) {
  return (value < 10 ? "0" : "") + std::to_string(value);
}

}  // namespace

std::string formatDuration(std::chrono::seconds duration) {
  const std::int64_t total = duration.count();
  const std::int64_t hours = total / 3600;
  const std::int64_t minutes = total / 60 % 60;
  const std::int64_t seconds = total % 60;
  if (hours > 0) {
    return std::to_string(hours) + " h " + twoDigits(minutes) + " min " + twoDigits(seconds) + " s";
  }
  if (minutes > 0) {
    return std::to_string(minutes) + " min " + twoDigits(seconds) + " s";
  }
  return std::to_string(seconds) + " s";
}

RunPlan planRun(const std::vector<scenario::ScenarioRow>& rows,
                const scenario::WorkloadCatalog& workloads,
                const std::vector<std::string>& approaches, const DurationOverrides& overrides,
                const loadgen::HostLimits& limits, std::uint32_t repeats) {
  RunPlan plan;
  plan.approaches = approaches;
  plan.repeats = std::max<std::uint32_t>(1, repeats);
  for (const scenario::ScenarioRow& source : rows) {
    RowPlan row_plan;
    row_plan.row = source;
    if (overrides.warmup_seconds) {
      row_plan.row.warmup_seconds = *overrides.warmup_seconds;
    }
    if (overrides.test_seconds) {
      row_plan.row.test_seconds = *overrides.test_seconds;
    }
    row_plan.workload = workloads.get(row_plan.row.workload);
    for (const std::string& profile : row_plan.row.server_profiles) {
      if (!microservice::runnable(profile)) {
        row_plan.unsupported_profiles.push_back(profile);
      }
      row_plan.needs_database |= profile == microservice::kPostgresProfile;
    }
    row_plan.peak_connections =
        scenario::planStages(row_plan.workload, scenario::testPhaseOf(row_plan.row))
            .peak_connections;
    row_plan.seconds_per_approach =
        std::chrono::seconds(row_plan.row.warmup_seconds + row_plan.row.test_seconds) +
        kPerRunOverhead;
    if (row_plan.row.capacity_goal) {
      // Each trial is a run of its own; how many a search needs depends on the server.
      row_plan.seconds_per_approach *= kTypicalCapacityTrials;
    }
    row_plan.limits =
        loadgen::checkHostLimits(row_plan.peak_connections, row_plan.row.delay_call_depth, limits);
    plan.total += row_plan.seconds_per_approach * static_cast<std::int64_t>(approaches.size()) *
                  static_cast<std::int64_t>(plan.repeats);
    plan.peak_connections = std::max(plan.peak_connections, row_plan.peak_connections);
    plan.rows.push_back(std::move(row_plan));
  }
  return plan;
}

const std::string* RowPlan::skipReason(const std::string& approach) const {
  const auto found =
      std::find_if(skipped.begin(), skipped.end(),
                   [&approach](const SkippedApproach& skip) { return skip.approach == approach; });
  return found == skipped.end() ? nullptr : &found->reason;
}

void skipUnimplementedClients(RunPlan& plan, const std::vector<PlannedApproach>& approaches) {
  for (RowPlan& row_plan : plan.rows) {
    for (const std::string& profile : row_plan.row.server_profiles) {
      const bool client = microservice::isClientProfile(profile);
      if (!client && profile != microservice::kTlsProfile &&
          !microservice::isHttp2Profile(profile)) {
        continue;
      }
      for (const PlannedApproach& approach : approaches) {
        if (std::find(approach.profiles.begin(), approach.profiles.end(), profile) !=
                approach.profiles.end() ||
            row_plan.skipReason(approach.name) != nullptr) {
          continue;
        }
        std::string reason = approach.name + " does not implement " + profile;
        if (client) {
          std::string listed;
          for (const std::string& offered : approach.profiles) {
            if (microservice::isClientProfile(offered)) {
              listed += (listed.empty() ? "" : ", ") + offered;
            }
          }
          reason += " (its clients: " + (listed.empty() ? "its native one only" : listed) + ")";
        } else if (profile == microservice::kTlsProfile) {
          reason += " (HTTP/1.1 over TLS)";
        } else {
          reason += profile == "h2" ? " (HTTP/2 over TLS)" : " (HTTP/2 with prior knowledge)";
        }
        row_plan.skipped.push_back({approach.name, reason});
        plan.total -= row_plan.seconds_per_approach * static_cast<std::int64_t>(plan.repeats);
      }
    }
  }
}

std::size_t runCount(const RunPlan& plan) {
  std::size_t runs = 0;
  for (const RowPlan& row_plan : plan.rows) {
    runs += (plan.approaches.size() - row_plan.skipped.size()) * plan.repeats;
  }
  return runs;
}

void printPlan(std::ostream& out, const RunPlan& plan, const std::string& scenario_file) {
  out << "plan: " << scenario_file << ": " << plan.rows.size() << " rows x "
      << plan.approaches.size() << " approaches";
  if (plan.repeats > 1) {
    out << " x " << plan.repeats << " repeats (rounds, each in its own shuffled order)";
  }
  const std::size_t runs = runCount(plan);
  out << " = " << runs << " runs";
  if (runs != plan.rows.size() * plan.approaches.size() * plan.repeats) {
    out << " (the skipped pairs below left out)";
  }
  out << "\n";
  out << "approaches:";
  for (const std::string& approach : plan.approaches) {
    out << " " << approach;
  }
  out << "\n\n";
  std::size_t number = 0;
  for (const RowPlan& row_plan : plan.rows) {
    const scenario::ScenarioRow& row = row_plan.row;
    out << "  " << ++number << ". " << row.name << ": " << row.workload << ", " << row.connections
        << " connections";
    if (row.streams_per_connection > 1) {
      out << " x " << row.streams_per_connection << " streams";
    }
    if (row.requests_per_second) {
      out << ", " << *row.requests_per_second << " req/s";
    }
    out << ", depth " << row.delay_call_depth << ", delay " << row.delay_millis << " ms, warm-up "
        << row.warmup_seconds << " s, test " << row.test_seconds << " s";
    if (row.request_count) {
      out << " at most, " << *row.request_count << " requests";
    }
    if (row.capacity_goal) {
      out << ", capacity search " << row.capacity_goal->text() << " from "
          << row.requests_per_second.value_or(0) << " req/s (about " << kTypicalCapacityTrials
          << " trials, at most " << kMaxCapacityTrials << ")";
    }
    if (!row.server_profiles.empty()) {
      out << ", profiles";
      for (const std::string& profile : row.server_profiles) {
        out << " " << profile;
      }
    }
    out << " (peak " << row_plan.peak_connections << " connections, about "
        << formatDuration(row_plan.seconds_per_approach) << " per approach"
        << (plan.repeats > 1 ? " and repeat" : "") << ")\n";
    for (const std::string& profile : row_plan.unsupported_profiles) {
      out << "     UNSUPPORTED: " << microservice::unsupportedProfileReason(profile)
          << "; this row will get a failed result for every approach\n";
    }
    for (const SkippedApproach& skip : row_plan.skipped) {
      out << "     skipped: " << skip.reason << "\n";
    }
    if (row_plan.needs_database) {
      out << "     needs PostgreSQL: "
          << (plan.database_problem.empty() ? "found, " + plan.database
                                            : "NOT FOUND: " + plan.database_problem +
                                                  "; this row will get a failed result for "
                                                  "every approach")
          << "\n";
    }
    for (const std::string& problem : row_plan.limits.problems) {
      out << "     HOST LIMIT: " << problem << "\n";
    }
    for (const std::string& warning : row_plan.limits.warnings) {
      out << "     warning: " << warning << "\n";
    }
  }
  out << "\ntotal: about " << formatDuration(plan.total) << " of wall time; peak "
      << plan.peak_connections << " connections\n";
  if (plan.approaches.size() >= 2) {
    // Before a study starts: what these repeats can find (every metric of every row a cell).
    // A capacity row ranks two cells: the rate found and the errors.
    std::size_t cells = 0;
    for (const RowPlan& row_plan : plan.rows) {
      cells += row_plan.row.capacity_goal ? 2 : results::kMetricCount;
    }
    out << "winners: " << results::detectableLeadText(plan.repeats, cells) << "\n";
  }
}

}  // namespace benchd::runner
