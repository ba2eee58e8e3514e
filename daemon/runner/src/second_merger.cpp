#include <benchd/runner/second_merger.hpp>

#include <algorithm>

namespace benchd::runner {

measurement::LoadSnapshot mergeSeconds(std::span<const measurement::LoadSnapshot> parts) {
  if (parts.empty()) {
    throw std::invalid_argument("mergeSeconds: no seconds to merge");
  }
  measurement::LoadSnapshot merged;
  merged.phase = parts.front().phase;
  merged.index = parts.front().index;
  merged.start = parts.front().start;
  merged.generator_cores = 0;
  std::chrono::microseconds end{0};
  for (const measurement::LoadSnapshot& part : parts) {
    if (part.phase != merged.phase || part.index != merged.index) {
      throw std::invalid_argument("mergeSeconds: the seconds are not of one phase and index");
    }
    merged.start = std::min(merged.start, part.start);
    end = std::max(end, part.start + part.duration);
    merged.end_epoch_millis = std::max(merged.end_epoch_millis, part.end_epoch_millis);
    merged.latency.add(part.latency);
    merged.uncorrected_latency.add(part.uncorrected_latency);
    merged.counters += part.counters;
    merged.intended_requests_per_second += part.intended_requests_per_second;
    merged.active_vus += part.active_vus;
    merged.peak_active_vus += part.peak_active_vus;
    merged.generator_cpu_percent += part.generator_cpu_percent;
    merged.generator_cores += part.generator_cores;
  }
  merged.duration = std::max(std::chrono::microseconds{0}, end - merged.start);
  const double seconds = std::chrono::duration<double>(merged.duration).count();
  merged.achieved_requests_per_second =
      seconds > 0.0 ? static_cast<double>(merged.counters.requestsCompleted()) / seconds : 0.0;
  return merged;
}

SecondMerger::SecondMerger(std::vector<std::string> generators)
    : generators_(std::move(generators)), next_sequence_(generators_.size(), 0) {
  if (generators_.empty()) {
    throw std::invalid_argument("SecondMerger: no load generators");
  }
}

std::vector<measurement::LoadSnapshot> SecondMerger::add(std::size_t generator,
                                                         measurement::NumberedSecond numbered) {
  if (generator >= generators_.size()) {
    throw SecondMergeError("a second from load generator " + std::to_string(generator) +
                           ", but there are " + std::to_string(generators_.size()));
  }
  const std::string& name = generators_[generator];
  const std::uint64_t expected = next_sequence_[generator];
  if (numbered.sequence != expected) {
    throw SecondMergeError(
        "load generator " + name + " sent second " + std::to_string(numbered.sequence) + " where " +
        std::to_string(expected) + " was next" +
        (numbered.sequence < expected ? " (a second sent again)" : " (seconds lost)"));
  }
  const Key key{numbered.second.phase, numbered.second.index};
  Parts& parts = pending_[key];
  parts.resize(generators_.size());
  if (parts[generator]) {
    throw SecondMergeError("load generator " + name + " sent " +
                           std::string(measurement::phaseKindName(key.first)) + " second " +
                           std::to_string(key.second) + " twice");
  }
  parts[generator] = std::move(numbered.second);
  ++next_sequence_[generator];
  return releaseComplete();
}

std::vector<measurement::LoadSnapshot> SecondMerger::finishPhase(measurement::PhaseKind phase) {
  std::vector<measurement::LoadSnapshot> released;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->first.first != phase) {
      ++it;
      continue;
    }
    released.push_back(mergeParts(it->second));
    it = pending_.erase(it);
  }
  std::vector<measurement::LoadSnapshot> after = releaseComplete();
  released.insert(released.end(), std::make_move_iterator(after.begin()),
                  std::make_move_iterator(after.end()));
  return released;
}

std::vector<measurement::LoadSnapshot> SecondMerger::releaseComplete() {
  std::vector<measurement::LoadSnapshot> released;
  while (!pending_.empty()) {
    const Parts& parts = pending_.begin()->second;
    if (!std::all_of(parts.begin(), parts.end(),
                     [](const auto& part) { return part.has_value(); })) {
      break;
    }
    released.push_back(mergeParts(parts));
    pending_.erase(pending_.begin());
  }
  return released;
}

measurement::LoadSnapshot SecondMerger::mergeParts(const Parts& parts) {
  std::vector<measurement::LoadSnapshot> present;
  for (const auto& part : parts) {
    if (part) {
      present.push_back(*part);
    }
  }
  return mergeSeconds(present);
}

}  // namespace benchd::runner
