#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace benchd::microservice {

/// Every server profile benchd implements: the core's "no-cache" and "read-write",
/// "no-keep-alive", which every approach plugin honours in its transport, and "postgres", which
/// the in-tree plugins implement (a plugin lists it in its descriptor). Scenario files may name
/// others (the original's Java client profiles); a run must not ignore those silently.
inline constexpr std::array<std::string_view, 4> kImplementedProfiles = {
    "no-cache", "no-keep-alive", "read-write", "postgres"};

/// The profiles the core implements for every plugin. The others a plugin implements itself and
/// lists in its descriptor (plugin.h's implemented_profiles).
inline constexpr std::array<std::string_view, 2> kCoreProfiles = {"no-cache", "read-write"};

/// The profile whose movies live in PostgreSQL (needs a database server for the row).
inline constexpr std::string_view kPostgresProfile = "postgres";

/// Whether every plugin gets `profile` from the core.
[[nodiscard]] constexpr bool isCoreProfile(std::string_view profile) {
  return profile == kCoreProfiles[0] || profile == kCoreProfiles[1];
}

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
