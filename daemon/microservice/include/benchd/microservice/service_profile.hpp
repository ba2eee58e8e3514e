#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace benchd::microservice {

/// Every server profile benchd implements: the core's "no-cache" and "read-write", and
/// "no-keep-alive", which every approach plugin honours in its transport. Scenario files may
/// name others (the original's "postgres" and Java client profiles); a run must not ignore
/// those silently.
inline constexpr std::array<std::string_view, 3> kImplementedProfiles = {
    "no-cache", "no-keep-alive", "read-write"};

/// The server profiles that change the core's behaviour. Profiles that only concern the
/// transport (e.g. "no-keep-alive") are the plugins' business and are ignored here.
struct ServiceProfile {
  bool cache_enabled = true;  ///< false under "no-cache": every GET queries SQLite
  bool read_only = true;      ///< false under "read-write": POST stores, DELETE deletes

  /// Builds the profile from profile names as given on the command line or in a scenario
  /// (e.g. {"no-cache", "read-write"}). Unknown names are ignored.
  static ServiceProfile fromNames(std::span<const std::string> names);
};

}  // namespace benchd::microservice
