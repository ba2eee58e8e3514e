#pragma once

#include "load_options.hpp"

#include <benchd/loadgen/load_snapshot.hpp>
#include <benchd/loadgen/phase_result.hpp>
#include <benchd/scenario/workload.hpp>

#include <cstdint>
#include <iosfwd>
#include <vector>

namespace benchd::cli {

/// The few numbers of one test-phase snapshot that `benchd load --json` lists per second.
struct SnapshotDigest {
  std::uint32_t index = 0;
  double start_seconds = 0.0;
  double duration_seconds = 0.0;
  std::uint64_t ok = 0;
  std::uint64_t errors = 0;
  std::uint64_t requested = 0;
  std::uint64_t dropped = 0;
  double achieved_requests_per_second = 0.0;
  double intended_requests_per_second = 0.0;
  std::uint64_t p50_micros = 0;
  std::uint64_t p99_micros = 0;
  std::uint32_t active_vus = 0;
  double generator_cpu_percent = 0.0;

  static SnapshotDigest of(const loadgen::LoadSnapshot& snapshot);
};

/// What a finished `benchd load` run reports.
struct LoadReport {
  const LoadOptions& options;
  const scenario::Workload& workload;
  const loadgen::PhaseResult& test;
  const std::vector<SnapshotDigest>& snapshots;
  bool stopped_early = false;
};

/// A wrk/k6-like summary for people.
void writeTextReport(std::ostream& out, const LoadReport& report);

/// One JSON document (see writeJsonReport in load_report.cpp for the fields), newline-ended.
void writeJsonReport(std::ostream& out, const LoadReport& report);

}  // namespace benchd::cli
