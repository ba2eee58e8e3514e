#include "worker_events.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <unistd.h>

#include <cstdio>

namespace benchd::worker {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& writer, const char* name) {
  writer.Key(name);
}

}  // namespace

std::string readyEvent(const plugin_host::PluginInfo& plugin, std::uint16_t port) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartObject();
  key(writer, "event");
  writer.String("ready");
  key(writer, "pid");
  writer.Int64(::getpid());
  key(writer, "port");
  writer.Uint(port);
  key(writer, "plugin");
  writer.StartObject();
  key(writer, "name");
  writer.String(plugin.name);
  key(writer, "version");
  writer.String(plugin.version);
  key(writer, "concurrency_model");
  writer.String(plugin.concurrency_model);
  key(writer, "io_stack");
  writer.String(plugin.io_stack);
  key(writer, "abi");
  writer.String(std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor));
  writer.EndObject();
  writer.EndObject();
  return buffer.GetString();
}

std::string statsEvent(std::int64_t epoch_millis, std::int64_t heap_bytes,
                       const Counters& counters) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartObject();
  key(writer, "event");
  writer.String("stats");
  key(writer, "epoch_millis");
  writer.Int64(epoch_millis);
  key(writer, "heap_bytes");
  writer.Int64(heap_bytes);
  key(writer, "counters");
  writer.StartObject();
  for (const auto& [name, value] : counters) {
    writer.Key(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
    writer.Int64(value);
  }
  writer.EndObject();
  writer.EndObject();
  return buffer.GetString();
}

std::string stoppedEvent(bool drained) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartObject();
  key(writer, "event");
  writer.String("stopped");
  key(writer, "drained");
  writer.Bool(drained);
  writer.EndObject();
  return buffer.GetString();
}

std::string pluginEvent(const plugin_host::LoadedPlugin& plugin) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  const auto field = [&writer](const char* name, const std::string& value) {
    writer.Key(name);
    writer.String(value);
  };
  writer.StartObject();
  field("event", "plugin");
  field("path", plugin.path.string());
  field("name", plugin.info.name);
  field("version", plugin.info.version);
  field("description", plugin.info.description);
  field("concurrency_model", plugin.info.concurrency_model);
  field("io_stack", plugin.info.io_stack);
  field("abi", std::to_string(plugin.info.abi_major) + "." + std::to_string(plugin.info.abi_minor));
  writer.EndObject();
  return buffer.GetString();
}

void emitEvent(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace benchd::worker
