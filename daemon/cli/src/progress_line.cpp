#include "progress_line.hpp"

#include <benchd/common/units.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace benchd::cli {

ProgressLine::ProgressLine(std::ostream& out, bool terminal, std::uint32_t warmup_seconds,
                           std::uint32_t test_seconds, std::optional<std::uint64_t> request_limit)
    : out_(out),
      terminal_(terminal),
      warmup_seconds_(warmup_seconds),
      test_seconds_(test_seconds),
      request_limit_(request_limit) {}

void ProgressLine::show(const measurement::LoadSnapshot& snapshot) {
  const bool warmup = snapshot.phase == measurement::PhaseKind::kWarmup;
  const auto elapsed = common::secondsOfMicros((snapshot.start + snapshot.duration).count());
  std::ostringstream line;
  line << std::fixed << std::setprecision(0);
  if (warmup || !request_limit_) {
    line << (warmup ? "warm-up " : "test ") << elapsed << "/"
         << (warmup ? warmup_seconds_ : test_seconds_) << " s  ";
  } else {
    test_requests_ended_ +=
        snapshot.counters.requestsCompleted() + snapshot.counters.interrupted_requests;
    line << "test " << test_requests_ended_ << "/" << *request_limit_ << " requests";
    // The phase's average rate so far predicts the rest; the duration limit still applies.
    if (test_requests_ended_ > 0 && test_requests_ended_ < *request_limit_ && elapsed > 0.0) {
      const double rate = static_cast<double>(test_requests_ended_) / elapsed;
      const double left =
          std::min(static_cast<double>(*request_limit_ - test_requests_ended_) / rate,
                   std::max(0.0, static_cast<double>(test_seconds_) - elapsed));
      if (left > 0.0) {  // else the duration limit has just ended the phase
        line << ", about " << std::ceil(left) << " s left";
      }
    }
    line << "  ";
  }
  line << snapshot.achieved_requests_per_second << " req/s  ok " << snapshot.counters.requests_ok
       << "  errors " << snapshot.counters.errors.total() << std::setprecision(2) << "  p99 "
       << static_cast<double>(snapshot.latency.valueAtPercentile(99.0)) / 1000.0 << " ms"
       << std::setprecision(0) << "  vus " << snapshot.active_vus << "  cpu "
       << snapshot.generator_cpu_percent << " %";
  if (snapshot.counters.dropped_arrivals > 0) {
    line << "  dropped " << snapshot.counters.dropped_arrivals;
  }
  if (terminal_) {
    out_ << "\r\033[K" << line.str() << std::flush;
    line_open_ = true;
  } else {
    out_ << line.str() << std::endl;
  }
}

void ProgressLine::finish() {
  if (line_open_) {
    out_ << "\n" << std::flush;
    line_open_ = false;
  }
}

}  // namespace benchd::cli
