#include "cpu_affinity.hpp"

#include <benchd/runner/cpu_list.hpp>

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <system_error>

namespace benchd::runner {
namespace {

unsigned parseCpu(std::string_view text, std::string_view whole) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() ||
      value >= CPU_SETSIZE) {
    throw std::invalid_argument("expected a CPU list like 0-1,3, got '" + std::string(whole) +
                                "' ('" + std::string(text) + "' is not a CPU number)");
  }
  return value;
}

}  // namespace

std::string_view cpuPlacementName(CpuPlacement placement) {
  return placement == CpuPlacement::kShared ? "shared" : "split";
}

std::optional<CpuPlacement> cpuPlacementFromName(std::string_view name) {
  for (const CpuPlacement placement : {CpuPlacement::kSplit, CpuPlacement::kShared}) {
    if (name == cpuPlacementName(placement)) {
      return placement;
    }
  }
  return std::nullopt;
}

std::vector<unsigned> parseCpuList(std::string_view text) {
  std::vector<unsigned> cpus;
  std::string_view rest = text;
  if (rest.empty()) {
    throw std::invalid_argument("expected a CPU list like 0-1,3, got nothing");
  }
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      cpus.push_back(parseCpu(part, text));
      continue;
    }
    const unsigned first = parseCpu(part.substr(0, dash), text);
    const unsigned last = parseCpu(part.substr(dash + 1), text);
    if (last < first) {
      throw std::invalid_argument("expected a CPU list like 0-1,3, got '" + std::string(text) +
                                  "' (range " + std::string(part) + " runs backwards)");
    }
    for (unsigned cpu = first; cpu <= last; ++cpu) {
      cpus.push_back(cpu);
    }
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::vector<unsigned> allowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<unsigned> cpus;
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) {
    return cpus;
  }
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      cpus.push_back(cpu);
    }
  }
  return cpus;
}

CpuSplit splitCpus(const std::vector<unsigned>& allowed) {
  CpuSplit split;
  if (allowed.size() < 2) {
    return split;
  }
  const auto middle = allowed.begin() + static_cast<std::ptrdiff_t>(allowed.size() / 2);
  split.generator.assign(allowed.begin(), middle);
  split.server.assign(middle, allowed.end());
  return split;
}

std::string formatCpuList(const std::vector<unsigned>& cpus) {
  if (cpus.empty()) {
    return "all";
  }
  std::string text;
  for (std::size_t index = 0; index < cpus.size();) {
    std::size_t end = index;
    while (end + 1 < cpus.size() && cpus[end + 1] == cpus[end] + 1) {
      ++end;
    }
    text += (text.empty() ? "" : ",") + std::to_string(cpus[index]);
    if (end > index) {
      text += "-" + std::to_string(cpus[end]);
    }
    index = end + 1;
  }
  return text;
}

ScopedThreadAffinity::ScopedThreadAffinity(const std::vector<unsigned>& cpus) {
  if (cpus.empty()) {
    return;
  }
  CPU_ZERO(&previous_);
  if (::pthread_getaffinity_np(::pthread_self(), sizeof(previous_), &previous_) != 0) {
    throw std::system_error(errno, std::generic_category(), "read the CPU affinity");
  }
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (const unsigned cpu : cpus) {
    CPU_SET(cpu, &wanted);
  }
  if (const int error = ::pthread_setaffinity_np(::pthread_self(), sizeof(wanted), &wanted);
      error != 0) {
    throw std::system_error(error, std::generic_category(),
                            "pin the load generator to CPUs " + formatCpuList(cpus));
  }
  changed_ = true;
}

ScopedThreadAffinity::~ScopedThreadAffinity() {
  if (changed_) {
    ::pthread_setaffinity_np(::pthread_self(), sizeof(previous_), &previous_);
  }
}

}  // namespace benchd::runner
