#pragma once

#include <benchd/plugin_host/plugin_loader.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace benchd::worker {

/// The machine-readable lines benchd-worker writes to stdout, one JSON object per line. The
/// daemon reads them from the worker's stdout pipe; humans can read them too.
///
///   {"event":"ready","pid":..,"port":..,"plugin":{name,version,concurrency_model,io_stack,abi}}
///   {"event":"stats","epochMillis":..,"heapBytes":..,"counters":{"name":value,...}}
///   {"event":"stopped","drained":true|false}
///   {"event":"plugin","path":..,"name":..,"version":..,"description":..,
///    "concurrencyModel":..,"ioStack":..,"abi":"1.0"}       (--inspect only)
using Counters = std::vector<std::pair<std::string, std::int64_t>>;

std::string readyEvent(const plugin_host::PluginInfo& plugin, std::uint16_t port);
std::string statsEvent(std::int64_t epoch_millis, std::int64_t heap_bytes,
                       const Counters& counters);
std::string stoppedEvent(bool drained);
/// What a plugin says about itself, for benchd's plugin catalog (--inspect).
std::string pluginEvent(const plugin_host::LoadedPlugin& plugin);

/// Writes one line to stdout and flushes it, so a reader on a pipe sees it at once.
/// Called from the worker's main thread only.
void emitEvent(const std::string& line);

}  // namespace benchd::worker
