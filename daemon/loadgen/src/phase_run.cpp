#include "phase_run.hpp"

#include "loop_worker.hpp"
#include "phase_setup.hpp"
#include "phase_sync.hpp"
#include "thread_cpu_clock.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/loadgen/saturation.hpp>

#include <pthread.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace benchd::loadgen {
namespace {

using TimePoint = PhaseClock::TimePoint;
using std::chrono::duration_cast;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

/// After the plan's end, the last snapshot waits this long for requests still in flight before
/// falling back to the regular interval boundaries.
constexpr std::chrono::milliseconds kTailWait{250};

double secondsOf(nanoseconds duration) {
  return std::chrono::duration<double>(duration).count();
}

/// The event-loop threads of a phase, joined on destruction (also when the coordinator throws).
class LoopThreads {
 public:
  /// Starts the threads; the phase starts just before, at startedAt() by `clock` (and at
  /// setup.start by the steady clock the loops go by).
  LoopThreads(PhaseSetup& setup, PhaseSync& sync, const PhaseClock& clock) {
    loops_.reserve(setup.loop_count);
    for (std::uint32_t index = 0; index < setup.loop_count; ++index) {
      loops_.push_back(std::make_unique<LoopWorker>(setup, index, sync));
    }
    setup.start = std::chrono::steady_clock::now();
    started_at_ = clock.now();
    threads_.reserve(loops_.size());
    for (std::uint32_t index = 0; index < loops_.size(); ++index) {
      threads_.emplace_back([loop = loops_[index].get()] { loop->run(); });
      const std::string name = "benchd-load-" + std::to_string(index);
      ::pthread_setname_np(threads_.back().native_handle(), name.c_str());
      cpu_clocks_.emplace_back(threads_.back());
    }
  }
  LoopThreads(const LoopThreads&) = delete;
  LoopThreads& operator=(const LoopThreads&) = delete;
  ~LoopThreads() { finishAndJoin(); }

  [[nodiscard]] const std::vector<std::unique_ptr<LoopWorker>>& loops() const { return loops_; }
  [[nodiscard]] TimePoint startedAt() const noexcept { return started_at_; }

  [[nodiscard]] nanoseconds cpuUsed() const {
    nanoseconds used{0};
    for (const ThreadCpuClock& clock : cpu_clocks_) {
      used += clock.used();
    }
    return used;
  }

  void finishAndJoin() {
    if (joined_) {
      return;
    }
    joined_ = true;
    for (const auto& loop : loops_) {
      loop->postFinish();
    }
    for (std::thread& thread : threads_) {
      thread.join();
    }
  }

 private:
  std::vector<std::unique_ptr<LoopWorker>> loops_;
  std::vector<std::thread> threads_;
  std::vector<ThreadCpuClock> cpu_clocks_;
  TimePoint started_at_;
  bool joined_ = false;
};

}  // namespace

measurement::PhaseResult runPhaseOnLoops(
    const scenario::StagePlan& plan, const EngineOptions& options,
    const boost::asio::ip::tcp::endpoint& endpoint, const RequestTarget& target,
    measurement::PhaseKind kind, PhaseClock& clock, const std::atomic<bool>& stop_requested,
    const std::function<void(const measurement::LoadSnapshot&)>& on_snapshot) {
  PhaseSetup setup(plan, options, endpoint, target, kind);
  PhaseSync sync(setup.loop_count, clock);
  const auto cores = std::min<std::uint32_t>(setup.loop_count, cpusAvailable());
  const nanoseconds interval =
      std::max<nanoseconds>(options.snapshot_interval, std::chrono::milliseconds(10));

  measurement::PhaseResult result;
  result.phase = kind;
  result.generator_threads = setup.loop_count;
  result.generator_cores = cores;
  SaturationJudge saturation;
  // One snapshot reused for every interval: its histograms keep their memory.
  measurement::LoadSnapshot current;
  current.phase = kind;
  current.generator_cores = cores;

  const std::atomic<bool> never_stop{false};
  bool stop_forwarded = false;
  std::exception_ptr callback_error;

  LoopThreads threads(setup, sync, clock);
  const TimePoint start = threads.startedAt();
  const TimePoint plan_end = start + plan.duration;
  TimePoint interval_start = start;
  const nanoseconds cpu_start = threads.cpuUsed();
  nanoseconds cpu_before = cpu_start;
  double cpu_percent_sum = 0.0;

  for (std::uint32_t index = 0;; ++index) {
    const TimePoint boundary = start + interval * (index + 1);
    bool finished = false;
    for (;;) {
      finished = sync.waitUntil(boundary, stop_forwarded ? never_stop : stop_requested);
      if (finished || clock.now() >= boundary) {
        break;
      }
      // A stop request (from the caller, or because the callback failed).
      stop_forwarded = true;
      for (const auto& loop : threads.loops()) {
        loop->postEndLoad();
      }
    }
    if (!finished && boundary >= plan_end) {
      finished = sync.waitUntil(std::max(boundary, plan_end) + kTailWait,
                                stop_forwarded ? never_stop : stop_requested);
    }

    sync.beginHarvest();
    for (const auto& loop : threads.loops()) {
      loop->postHarvest();
    }
    sync.awaitHarvest();
    const TimePoint interval_end = clock.now();
    const nanoseconds cpu_now = threads.cpuUsed();
    const nanoseconds length = interval_end - interval_start;
    const double length_seconds = std::max(1e-9, secondsOf(length));

    current.index = index;
    // Both ends rounded on the phase's time line, so the durations add up to the phase exactly.
    current.start = duration_cast<microseconds>(interval_start - start);
    current.duration = duration_cast<microseconds>(interval_end - start) - current.start;
    current.end_epoch_millis = common::epochMillisNow();
    current.latency = sync.merged().latency;
    current.uncorrected_latency = sync.merged().uncorrected_latency;
    current.counters = sync.merged().counters;
    current.active_vus = sync.activeVus();
    current.peak_active_vus = std::max(sync.activeGauge().takePeak(), current.active_vus);
    current.achieved_requests_per_second =
        static_cast<double>(current.counters.requestsCompleted()) / length_seconds;
    current.intended_requests_per_second =
        setup.intendedRequestsBetween(interval_start - start, interval_end - start) /
        length_seconds;
    current.generator_cpu_percent = 100.0 * secondsOf(cpu_now - cpu_before) / length_seconds;

    result.latency.add(current.latency);
    result.uncorrected_latency.add(current.uncorrected_latency);
    result.totals += current.counters;
    result.peak_active_vus = std::max(result.peak_active_vus, current.peak_active_vus);
    result.generator_cpu_percent_max =
        std::max(result.generator_cpu_percent_max, current.generator_cpu_percent);
    cpu_percent_sum += current.generator_cpu_percent * length_seconds;
    saturation.add({current.achieved_requests_per_second, current.intended_requests_per_second,
                    current.generator_cpu_percent, cores});
    ++result.snapshot_count;

    if (!callback_error && on_snapshot) {
      try {
        on_snapshot(current);
      } catch (...) {
        callback_error = std::current_exception();
        if (!stop_forwarded) {
          stop_forwarded = true;
          for (const auto& loop : threads.loops()) {
            loop->postEndLoad();
          }
        }
      }
    }
    interval_start = interval_end;
    cpu_before = cpu_now;
    if (finished) {
      break;
    }
  }
  threads.finishAndJoin();

  const nanoseconds total = interval_start - start;
  const double total_seconds = std::max(1e-9, secondsOf(total));
  result.duration = duration_cast<microseconds>(total);
  result.generator_cpu_time = duration_cast<microseconds>(cpu_before - cpu_start);
  result.generator_cpu_percent_avg = cpu_percent_sum / total_seconds;
  result.achieved_requests_per_second =
      static_cast<double>(result.totals.requestsCompleted()) / total_seconds;
  result.intended_requests_per_second =
      setup.intendedRequestsBetween(nanoseconds(0), total) / total_seconds;
  result.generator_saturated = saturation.saturated();
  result.saturation_reason = saturation.reason();
  if (callback_error) {
    std::rethrow_exception(callback_error);
  }
  return result;
}

}  // namespace benchd::loadgen
