#pragma once

#include "cpu_spin.hpp"
#include "host_database.hpp"
#include "rate_cap.hpp"

#include <benchd/microservice/movie_service.hpp>
#include <benchd/plugin.h>

#include <chrono>
#include <string>

namespace benchd::worker {

/// The benchd_host_api table handed to the plugin, backed by the microservice core and, for a
/// `postgres` row, by the movie database in PostgreSQL (HostDatabase, the db_* functions).
/// Owns the table; `service` must outlive it. The table's functions are thread-safe (they
/// forward to MovieService, which is) and catch every exception.
///
/// `cpu_cost` (the worker's benchd.cpu_cost_ns): every call into the core (epoch millis,
/// movies by director, save, delete) first spends that much CPU time of its calling thread
/// (CpuSpin), a known per-request difference that is the same for every concurrency model. The
/// database functions of `postgres` rows are not charged.
class HostApi {
 public:
  HostApi(microservice::MovieService& service, std::string plugin_name,
          DatabaseSettings database = {},
          std::chrono::nanoseconds cpu_cost = std::chrono::nanoseconds(0),
          std::uint32_t max_rate = 0);
  HostApi(const HostApi&) = delete;
  HostApi& operator=(const HostApi&) = delete;

  [[nodiscard]] const benchd_host_api* table() const noexcept { return &table_; }
  [[nodiscard]] microservice::MovieService& service() const noexcept { return service_; }
  [[nodiscard]] const std::string& pluginName() const noexcept { return plugin_name_; }
  [[nodiscard]] HostDatabase& database() noexcept { return database_; }
  [[nodiscard]] const HostDatabase& database() const noexcept { return database_; }
  [[nodiscard]] const CpuSpin& cpuSpin() const noexcept { return cpu_spin_; }
  [[nodiscard]] RateCap& rateCap() noexcept { return rate_cap_; }

 private:
  microservice::MovieService& service_;
  std::string plugin_name_;
  HostDatabase database_;
  CpuSpin cpu_spin_;
  RateCap rate_cap_;
  benchd_host_api table_{};
};

}  // namespace benchd::worker
