#pragma once

#include <span>
#include <string>

namespace benchd::microservice {

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
