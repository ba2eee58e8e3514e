#pragma once

#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace benchd::sqlite {
class SqliteConnection;
}

namespace benchd::store {

// How the per-second series and the diagnostics map to the schema's columns. Callers hold the
// store's lock and, for inserts, a transaction.

void insertLoadSecond(sqlite::SqliteConnection& connection, std::int64_t result,
                      const results::LoadSecond& second);
void insertSystemSecond(sqlite::SqliteConnection& connection, std::int64_t result,
                        measurement::PhaseKind phase, std::uint32_t index,
                        const results::SystemSample& sample);
/// Load and system seconds joined on their index, in order.
std::vector<results::SecondRecord> selectSeconds(sqlite::SqliteConnection& connection,
                                                 std::int64_t result, measurement::PhaseKind phase);

/// Histogram buckets as a BLOB: three little-endian 64-bit words (lowest, highest, count) each.
std::vector<std::byte> encodeBuckets(std::span<const measurement::HistogramBucket> buckets);
/// Throws std::runtime_error for a BLOB whose size is not a multiple of 24.
std::vector<measurement::HistogramBucket> decodeBuckets(std::span<const std::byte> blob);

std::vector<std::pair<std::string, std::string>> diagnosticsToPairs(
    const results::Diagnostics& diagnostics);
/// Unknown names are ignored (a newer benchd may store more).
results::Diagnostics diagnosticsFromPairs(
    const std::vector<std::pair<std::string, std::string>>& pairs);
/// A capacity search's result as result_diagnostic rows named capacity_* (none for a row
/// without one), and back: nullopt when the pairs have no capacity_verdict.
std::vector<std::pair<std::string, std::string>> capacityToPairs(
    const std::optional<results::CapacityResult>& capacity);
std::optional<results::CapacityResult> capacityFromPairs(
    const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace benchd::store
