#pragma once

#include <benchd/runner/run_preparation.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace benchd::runner {

/// A stored request that cannot be read back: what() names the member and the reason.
class StoredRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `request` as the store keeps it with its run (store::NewRun::request), so the run can be
/// resumed with exactly what was asked for: one compact JSON object
///
///   {"version": 1, "scenarioFile", "approaches": [..], "aaApproach"?, "repeats",
///    "orderSeed"? (decimal text: all 64 bits), "winnerRule", "warmupSeconds"?, "testSeconds"?,
///    "keepCsv", "cpus", "serverCpus": [..], "generatorCpus": [..], "generatorThreads"?,
///    "healthTimeoutSeconds"}
///
/// Members with "?" are left out when the request leaves them unset. The layout is the store's
/// (docs/store-schema.md), not the REST API's: it may change only with a new "version".
[[nodiscard]] std::string storedRequestJson(const RunRequest& request);

/// The request storedRequestJson wrote. Throws StoredRequestError for text it did not write (not
/// JSON, another version, a member missing or of the wrong type).
[[nodiscard]] RunRequest requestFromStoredJson(std::string_view text);

}  // namespace benchd::runner
