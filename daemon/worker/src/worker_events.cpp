#include "worker_events.hpp"

#include <benchd/common/json_writing.hpp>

#include <unistd.h>

#include <cstdio>

namespace benchd::worker {

namespace {

using common::field;
using common::JsonWriter;
using common::key;

std::string abiText(const plugin_host::PluginInfo& plugin) {
  return std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor);
}

/// The profiles the plugin implements itself (no-cache and read-write are the core's).
void profilesField(JsonWriter& json, const plugin_host::PluginInfo& plugin) {
  key(json, "profiles");
  json.StartArray();
  for (const std::string& profile : plugin.implemented_profiles) {
    json.String(profile.c_str(), static_cast<rapidjson::SizeType>(profile.size()));
  }
  json.EndArray();
}

/// The contract exceptions the plugin declares, by name (empty for most).
void contractExceptionsField(JsonWriter& json, const plugin_host::PluginInfo& plugin) {
  key(json, "contractExceptions");
  json.StartArray();
  for (const std::string& name : plugin.contract_exceptions)
    json.String(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
  json.EndArray();
}

}  // namespace

std::string readyEvent(const plugin_host::PluginInfo& plugin, std::uint16_t port) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "event", "ready");
  field(json, "pid", std::int64_t{::getpid()});
  field(json, "port", std::uint64_t{port});
  key(json, "plugin");
  json.StartObject();
  field(json, "name", plugin.name);
  field(json, "version", plugin.version);
  field(json, "concurrencyModel", plugin.concurrency_model);
  field(json, "ioStack", plugin.io_stack);
  field(json, "abi", abiText(plugin));
  json.EndObject();
  json.EndObject();
  return buffer.GetString();
}

std::string statsEvent(std::int64_t epoch_millis, std::int64_t heap_bytes,
                       const Counters& counters) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "event", "stats");
  field(json, "epochMillis", epoch_millis);
  field(json, "heapBytes", heap_bytes);
  key(json, "counters");
  json.StartObject();
  for (const auto& [name, value] : counters) {
    field(json, name, value);
  }
  json.EndObject();
  json.EndObject();
  return buffer.GetString();
}

std::string stoppedEvent(bool drained) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "event", "stopped");
  field(json, "drained", drained);
  json.EndObject();
  return buffer.GetString();
}

std::string pluginEvent(const plugin_host::LoadedPlugin& plugin) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "event", "plugin");
  field(json, "path", plugin.path.string());
  field(json, "name", plugin.info.name);
  field(json, "version", plugin.info.version);
  field(json, "description", plugin.info.description);
  field(json, "concurrencyModel", plugin.info.concurrency_model);
  field(json, "ioStack", plugin.info.io_stack);
  field(json, "abi", abiText(plugin.info));
  profilesField(json, plugin.info);
  contractExceptionsField(json, plugin.info);
  json.EndObject();
  return buffer.GetString();
}

void emitEvent(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace benchd::worker
