#pragma once

#include <benchd/common/json_writing.hpp>
#include <benchd/results/comparison.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/results/winners.hpp>
#include <benchd/scenario/scenario_row.hpp>

#include <string>

namespace benchd::control {

// The JSON helpers every route file uses.
using common::field;
using common::JsonWriter;
using common::key;
using common::numberOrNull;
using common::value;

// The JSON renderings of the engine's result model, shared by the run events and the result
// documents of the API (api/openapi.yaml names each shape). Renderings only: every number comes
// from the model; nothing is computed here. Pure functions.

/// One second of load with its samples, as members of an object the caller has opened
/// (schema `Second`): second, startSeconds, durationSeconds, endEpochMillis, activeVus,
/// requestsPerSecond {ok, failed, intended}, latencyMillis {p50, p90, p99, max}, errors by
/// class, host {...}, worker {...}, generatorCpuPercent.
void writeSecondMembers(JsonWriter& json, const results::SecondRecord& second);

/// A (scenario, approach) summary as one object (schema `ResultRow`): scenario, approach,
/// failed, failureReason, metrics {kMetricNames: number}; with `diagnostics`, also the
/// unranked diagnostics.
void writeSummaryRow(JsonWriter& json, const results::SummaryRow& row, bool diagnostics);

/// A scenario file's row (schema `ScenarioRow`).
void writeScenarioRow(JsonWriter& json, const scenario::ScenarioRow& row);
/// One fixed-rate trial of a capacity search (api/openapi.yaml CapacityTrial); the `trial`
/// event's data and the trials route's items.
void writeCapacityTrial(JsonWriter& json, const results::CapacityTrialRecord& trial);

/// The winners grid (schema `Winners`): approaches with colours, scenarios, one entry per
/// metric with its direction and cells (winner, runner-up, ranked values, errors, lead, alpha,
/// colour), the standings and the draw share.
std::string winnersJson(const results::WinnersGrid& grid);

/// A before/after comparison of two runs (schema `Comparison`).
std::string comparisonJson(const results::Comparison& comparison, std::int64_t base_run,
                           std::int64_t other_run);

}  // namespace benchd::control
