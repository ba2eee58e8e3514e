#pragma once
// Header-only plugin SDK: generates the C lifecycle functions of a descriptor from a C++
// server class, so a plugin's entry file only states what it is.
//
// The Server type must provide:
//   Server(const benchd_host_api* host, sdk::ServerSettings settings);  // may throw
//   void start();                                                       // may throw
//   std::uint16_t boundPort() const;  // may throw: reported to the host as port 0
//   bool stop(std::chrono::milliseconds timeout);  // false: requests were cut off
//   void reportCounters(benchd_counter_sink sink, void* sink_context) const;
//   static std::span<const std::string_view> knownOptions();  // optional; static storage
// Exceptions never cross the boundary: guardedCall turns them into status + message.

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

namespace benchd::sdk {

/// What a plugin implements unless it says more: the transport profile.
inline constexpr const char* kTransportProfiles[] = {"no-keep-alive"};

/// The in-tree approach plugins' profiles: the transport's and the database of `postgres`.
inline constexpr const char* kTransportAndDatabaseProfiles[] = {"no-keep-alive", "postgres"};

/// Where an empty profile list points: a NULL list means the 2.0 default (plugin.h), so "none"
/// must be a non-NULL pointer with a count of 0.
inline constexpr const char* kNoProfiles[1] = {nullptr};

/// The static facts of a plugin's descriptor.
struct PluginFacts {
  const char* name;
  const char* version;
  const char* description;
  benchd_concurrency_model concurrency_model;
  const char* io_stack;
  /// The profiles the plugin implements itself (plugin.h, implemented_profiles).
  std::span<const char* const> implemented_profiles = kTransportProfiles;
  /// The BENCHD_CONTRACT_EXCEPTION_* bits the plugin declares (plugin.h; CONTRACT.md "Contract
  /// exceptions"): what its HTTP stack decides instead of the contract. 0 for none.
  std::uint64_t contract_exceptions = 0;
};

template <typename Server>
class PluginAdapter {
 public:
  /// The descriptor for `facts`, built once; `facts` must have static storage duration.
  static const benchd_plugin_descriptor* describe(const PluginFacts& facts) {
    static const benchd_plugin_descriptor descriptor = {
        .struct_size = sizeof(benchd_plugin_descriptor),
        .abi_major = BENCHD_ABI_MAJOR,
        .abi_minor = BENCHD_ABI_MINOR,
        .name = facts.name,
        .version = facts.version,
        .description = facts.description,
        .concurrency_model = facts.concurrency_model,
        .io_stack = facts.io_stack,
        .create = &create,
        .start = &start,
        .bound_port = &boundPort,
        .stats = &stats,
        .stop = &stop,
        .destroy = &destroy,
        .implemented_profiles =
            facts.implemented_profiles.empty() ? kNoProfiles : facts.implemented_profiles.data(),
        .implemented_profile_count = facts.implemented_profiles.size(),
        .contract_exceptions = facts.contract_exceptions,
    };
    return &descriptor;
  }

 private:
  static Server* cast(benchd_server* server) { return reinterpret_cast<Server*>(server); }

  static ServerSettings settingsFrom(const benchd_server_config* config) {
    if constexpr (requires { Server::knownOptions(); }) {
      return ServerSettings::from(config, Server::knownOptions());
    } else {
      return ServerSettings::from(config);
    }
  }

  static benchd_status create(const benchd_host_api* host, const benchd_server_config* config,
                              benchd_server** server, benchd_error* error) {
    return guardedCall(error, [&] {
      if (host == nullptr || server == nullptr) {
        throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "host table or server out-pointer missing");
      }
      *server = reinterpret_cast<benchd_server*>(new Server(host, settingsFrom(config)));
    });
  }

  static benchd_status start(benchd_server* server, benchd_error* error) {
    return guardedCall(error, [&] { cast(server)->start(); });
  }

  /// Cannot report an error, so an exception becomes port 0 ("unknown"), which the host
  /// treats as a failed start.
  static uint16_t boundPort(const benchd_server* server) noexcept {
    try {
      return reinterpret_cast<const Server*>(server)->boundPort();
    } catch (...) {
      return 0;
    }
  }

  static benchd_status stats(benchd_server* server, benchd_counter_sink sink, void* sink_context,
                             benchd_error* error) {
    return guardedCall(error, [&] { cast(server)->reportCounters(sink, sink_context); });
  }

  static benchd_status stop(benchd_server* server, uint32_t timeout_millis, benchd_error* error) {
    bool drained = true;
    const benchd_status status = guardedCall(
        error, [&] { drained = cast(server)->stop(std::chrono::milliseconds(timeout_millis)); });
    if (status == BENCHD_OK && !drained) {
      setError(error, "requests still in flight after " + std::to_string(timeout_millis) +
                          " ms were cut off");
      return BENCHD_ERR_TIMEOUT;
    }
    return status;
  }

  static void destroy(benchd_server* server) { delete cast(server); }
};

}  // namespace benchd::sdk
