#include "mhd_settings.hpp"

#include <benchd/sdk/request_deadline.hpp>

#include <string>

namespace benchd::libmicrohttpd {

namespace {

constexpr std::array<std::string_view,
                     MhdSettings::kOptionNames.size() + sdk::kRequestDeadlineOptions.size()>
    kAllOptions = {MhdSettings::kOptionNames[0],    MhdSettings::kOptionNames[1],
                   MhdSettings::kOptionNames[2],    MhdSettings::kOptionNames[3],
                   sdk::kRequestDeadlineOptions[0], sdk::kRequestDeadlineOptions[1],
                   sdk::kRequestDeadlineOptions[2], sdk::kRequestDeadlineOptions[3]};

Mode modeFrom(const sdk::ServerSettings& settings) {
  const auto it = settings.options.find("mode");
  if (it == settings.options.end())
    return Mode::kPerConnection;
  for (const Mode mode : {Mode::kPerConnection, Mode::kInternal, Mode::kPool}) {
    if (it->second == modeName(mode))
      return mode;
  }
  throw sdk::PluginError(
      BENCHD_ERR_INVALID_ARGUMENT,
      "option mode: expected per-connection, internal or pool, got '" + it->second + "'");
}

}  // namespace

std::string_view modeName(Mode mode) {
  switch (mode) {
    case Mode::kPerConnection:
      return "per-connection";
    case Mode::kInternal:
      return "internal";
    case Mode::kPool:
      return "pool";
  }
  return "unknown";
}

MhdSettings MhdSettings::from(const sdk::ServerSettings& settings) {
  MhdSettings mhd;
  mhd.mode = modeFrom(settings);
  mhd.stack_kib = sdk::integerOption(settings, "stack_kib", mhd.stack_kib, 64, 65'536, "KiB");
  mhd.max_threads = sdk::integerOption(settings, "max_threads", mhd.max_threads, 1, 100'000);
  mhd.backlog = sdk::integerOption(settings, "backlog", mhd.backlog, 1, 1'000'000);
  mhd.pool_threads = settings.threads;
  return mhd;
}

std::span<const std::string_view> MhdSettings::knownOptions() {
  return kAllOptions;
}

}  // namespace benchd::libmicrohttpd
