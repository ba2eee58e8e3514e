#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace benchd::microservice {

/// The profiles that choose the nested call's HTTP client (at most one per row; a row without
/// one uses the plugin's native client). A plugin implements those that fit its model and lists
/// them in its descriptor; a (row, approach) whose plugin does not list the row's client is not
/// run (docs/scenarios.md#client-profiles).
inline constexpr std::array<std::string_view, 4> kClientProfiles = {
    "client-beast", "client-curl", "client-poco", "client-httplib"};

/// Every server profile benchd implements: the core's "no-cache" and "read-write",
/// "no-keep-alive", which every approach plugin honours in its transport, "postgres", "tls",
/// "h2" and "h2c", which in-tree plugins implement (a plugin lists them in its descriptor), and
/// the client profiles.
/// Scenario files may name others (the original's Java client profiles); a run must not ignore
/// those silently.
inline constexpr std::array<std::string_view, 11> kImplementedProfiles = {
    "no-cache", "no-keep-alive", "read-write",  "postgres",    "tls",           "h2",
    "h2c",      "client-beast",  "client-curl", "client-poco", "client-httplib"};

/// The HTTP/2 profiles: `h2` (HTTP/2 over TLS, chosen by ALPN; a certificate as for `tls`) and
/// `h2c` (HTTP/2 with prior knowledge, beside HTTP/1.1 on the same port). The load generator
/// speaks HTTP/2 to a row that names one, with the row's streams per connection.
inline constexpr std::array<std::string_view, 2> kHttp2Profiles = {"h2", "h2c"};

/// Whether `profile` is one of kHttp2Profiles.
[[nodiscard]] constexpr bool isHttp2Profile(std::string_view profile) {
  return profile == kHttp2Profiles[0] || profile == kHttp2Profiles[1];
}

/// Whether `profile` needs the worker's TLS certificate and key: `tls` and `h2`.
[[nodiscard]] constexpr bool needsCertificate(std::string_view profile) {
  return profile == "tls" || profile == "h2";
}

/// The original study's Java HTTP clients (its scenarios-clients.csv); benchd answers their
/// question with kClientProfiles.
inline constexpr std::array<std::string_view, 3> kOriginalJavaClientProfiles = {
    "rest-client-jdk", "rest-client-apache5", "rest-client-reactor-netty"};

/// The profiles the core implements for every plugin. The others a plugin implements itself and
/// lists in its descriptor (plugin.h's implemented_profiles).
inline constexpr std::array<std::string_view, 2> kCoreProfiles = {"no-cache", "read-write"};

/// The profile whose movies live in PostgreSQL (needs a database server for the row).
inline constexpr std::string_view kPostgresProfile = "postgres";

/// The profile that serves HTTP/1.1 over TLS (needs a certificate for the row's worker, and the
/// load generator speaks TLS to it; plugins of ABI 2.2 on).
inline constexpr std::string_view kTlsProfile = "tls";

/// Whether every plugin gets `profile` from the core.
[[nodiscard]] constexpr bool isCoreProfile(std::string_view profile) {
  return profile == kCoreProfiles[0] || profile == kCoreProfiles[1];
}

/// Whether `profile` chooses the nested call's client (one of kClientProfiles).
[[nodiscard]] bool isClientProfile(std::string_view profile);

/// Whether `benchd run` can drive a row with `profile`: whether it is in kImplementedProfiles.
[[nodiscard]] bool runnable(std::string_view profile);

/// Why a row naming `profile`, which is not runnable(), cannot run: one sentence,
/// pointing from the original's Java clients to scenarios-cpp-clients.csv.
[[nodiscard]] std::string unsupportedProfileReason(std::string_view profile);

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
