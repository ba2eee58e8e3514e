#include "pool_settings.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace benchd::threads_poco {

namespace {

int readOption(const sdk::ServerSettings& settings, std::string_view name, int fallback, int min,
               int max) {
  const auto it = settings.options.find(name);
  if (it == settings.options.end())
    return fallback;
  const std::string& text = it->second;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           "option " + std::string(name) + ": expected an integer from " +
                               std::to_string(min) + " to " + std::to_string(max) + ", got '" +
                               text + "'");
  }
  return value;
}

}  // namespace

std::span<const std::string_view> PoolSettings::optionNames() {
  static constexpr std::string_view kNames[] = {"max_threads", "max_queued", "backlog",
                                                "stack_kib"};
  return kNames;
}

PoolSettings PoolSettings::from(const sdk::ServerSettings& settings) {
  PoolSettings pool;
  pool.max_threads = readOption(settings, "max_threads", pool.max_threads, 1, 100'000);
  pool.min_threads = std::min(static_cast<int>(settings.threads), pool.max_threads);
  pool.max_queued = readOption(settings, "max_queued", pool.max_queued, 1, 1'000'000);
  pool.backlog = readOption(settings, "backlog", pool.backlog, 1, 1'000'000);
  pool.stack_kib = readOption(settings, "stack_kib", pool.stack_kib, 64, 65'536);
  return pool;
}

}  // namespace benchd::threads_poco
