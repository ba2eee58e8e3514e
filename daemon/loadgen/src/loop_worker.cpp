#include "loop_worker.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>

namespace benchd::loadgen {
namespace {

constexpr std::chrono::milliseconds kControlTick{10};

/// Deadlines are checked this often: a tenth of a second, or an eighth of a short timeout.
std::chrono::nanoseconds sweepPeriodFor(const EngineOptions& options) {
  const auto shortest = std::min(options.request_timeout, options.connect_timeout);
  return std::clamp<std::chrono::nanoseconds>(shortest / 8, std::chrono::milliseconds(5),
                                              std::chrono::milliseconds(100));
}

}  // namespace

LoopWorker::LoopWorker(const PhaseSetup& setup, std::uint32_t loop_index, PhaseSync& sync)
    : setup_(setup),
      sync_(sync),
      work_(boost::asio::make_work_guard(io_)),
      context_{io_,
               stats_,
               sync.activeGauge(),
               setup.budget.get(),
               setup.endpoint,
               setup.tls.get(),
               setup.http2,
               setup.streams_per_connection,
               setup.start,
               setup.options.request_timeout,
               setup.options.connect_timeout,
               std::mt19937_64(setup.options.seed + 0x9e37'79b9'7f4a'7c15ULL *
                                                        (setup.virtualLoopIndex(loop_index) + 1))},
      control_timer_(io_),
      sweep_period_(sweepPeriodFor(setup.options)) {
  for (std::size_t sub = 0; sub < setup.plan.sub_scenarios.size(); ++sub) {
    const scenario::SubScenarioPlan& plan = setup.plan.sub_scenarios[sub];
    if (setup.timelines[sub]) {
      open_groups_.push_back(std::make_unique<OpenGroup>(
          context_, plan, *setup.mixes[sub], *setup.timelines[sub], setup.tokens.get(),
          setup.options.arrival_overflow, setup.virtualLoopIndex(loop_index),
          setup.virtual_loop_count));
    } else {
      closed_groups_.push_back(std::make_unique<ClosedGroup>(
          context_, plan, *setup.mixes[sub], setup.tokens.get(), setup.virtualLoopIndex(loop_index),
          setup.virtual_loop_count));
      ramping_ = ramping_ || scenario::isRamping(plan.definition.executor);
    }
  }
}

void LoopWorker::run() {
  // The start time is known only now (the coordinator sets it before starting the threads).
  context_.phase_start = setup_.start;
  const auto now = std::chrono::steady_clock::now();
  next_sweep_ = now + sweep_period_;
  for (const auto& group : closed_groups_) {
    group->followTarget(now);
  }
  for (const auto& group : open_groups_) {
    group->start();
  }
  armControlTimer();
  io_.run();
}

void LoopWorker::armControlTimer() {
  control_timer_.expires_after(kControlTick);
  control_timer_.async_wait([this](const boost::system::error_code& error) {
    if (!error) {
      onControlTick();
    }
  });
}

void LoopWorker::onControlTick() {
  const auto now = std::chrono::steady_clock::now();
  if (!ended_) {
    if (now >= setup_.start + setup_.plan.duration || (setup_.budget && setup_.budget->spent())) {
      endLoad(now);
    } else if (ramping_) {
      for (const auto& group : closed_groups_) {
        group->followTarget(now);
      }
    }
  }
  if (now >= next_sweep_) {
    enforceDeadlines(now);
    next_sweep_ = now + sweep_period_;
  }
  if (ended_ && loadFinished()) {
    if (!finished_reported_) {
      finished_reported_ = true;
      sync_.reportFinished();
    }
    return;  // no more ticks
  }
  armControlTimer();
}

void LoopWorker::endLoad(TimePoint now) {
  ended_ = true;
  for (const auto& group : closed_groups_) {
    group->endLoad(now);
  }
  for (const auto& group : open_groups_) {
    group->endLoad(now);
  }
}

bool LoopWorker::loadFinished() const noexcept {
  return std::all_of(closed_groups_.begin(), closed_groups_.end(),
                     [](const auto& group) { return group->finished(); }) &&
         std::all_of(open_groups_.begin(), open_groups_.end(),
                     [](const auto& group) { return group->finished(); });
}

std::uint32_t LoopWorker::activeVus() const noexcept {
  std::uint32_t active = 0;
  for (const auto& group : closed_groups_) {
    active += group->activeVus();
  }
  for (const auto& group : open_groups_) {
    active += group->activeVus();
  }
  return active;
}

void LoopWorker::enforceDeadlines(TimePoint now) noexcept {
  for (const auto& group : closed_groups_) {
    group->enforceDeadlines(now);
  }
  for (const auto& group : open_groups_) {
    group->enforceDeadlines(now);
  }
}

void LoopWorker::postHarvest() {
  boost::asio::post(io_, [this] {
    sync_.contribute(stats_, activeVus());
    stats_.reset();
  });
}

void LoopWorker::postEndLoad() {
  boost::asio::post(io_, [this] {
    if (!ended_) {
      endLoad(std::chrono::steady_clock::now());
    }
  });
}

void LoopWorker::postFinish() {
  boost::asio::post(io_, [this] { work_.reset(); });
}

}  // namespace benchd::loadgen
