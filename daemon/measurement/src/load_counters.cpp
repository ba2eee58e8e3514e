#include <benchd/measurement/load_counters.hpp>
#include <benchd/measurement/load_snapshot.hpp>

namespace benchd::measurement {

LoadCounters& LoadCounters::operator+=(const LoadCounters& other) noexcept {
  requests_sent += other.requests_sent;
  requests_ok += other.requests_ok;
  errors += other.errors;
  requests_requested += other.requests_requested;
  bytes_sent += other.bytes_sent;
  bytes_received += other.bytes_received;
  connects += other.connects;
  dropped_arrivals += other.dropped_arrivals;
  late_arrivals += other.late_arrivals;
  interrupted_requests += other.interrupted_requests;
  return *this;
}

std::string_view phaseKindName(PhaseKind kind) {
  return kind == PhaseKind::kWarmup ? "warmup" : "test";
}

}  // namespace benchd::measurement
