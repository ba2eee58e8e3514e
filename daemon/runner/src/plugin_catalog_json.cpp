#include <benchd/common/json_writing.hpp>
#include <benchd/runner/plugin_catalog_json.hpp>

#include <rapidjson/prettywriter.h>

namespace benchd::runner {
namespace {

using common::field;
using common::key;

template <typename Writer>
void writeCatalog(Writer& json, const PluginCatalog& catalog) {
  json.StartObject();
  key(json, "folders");
  json.StartArray();
  for (const SearchedFolder& folder : catalog.folders) {
    json.StartObject();
    field(json, "path", folder.folder.path.string());
    field(json, "origin", originName(folder.folder.origin));
    field(json, "searched", folder.searched);
    if (!folder.searched) {
      field(json, "note", folder.note);
    }
    json.EndObject();
  }
  json.EndArray();
  field(json, "worker", catalog.worker_path.string());
  key(json, "accepted");
  json.StartArray();
  for (const PluginDescription& plugin : catalog.accepted) {
    json.StartObject();
    field(json, "name", plugin.name);
    field(json, "version", plugin.version);
    field(json, "description", plugin.description);
    field(json, "concurrencyModel", plugin.concurrency_model);
    field(json, "ioStack", plugin.io_stack);
    field(json, "abi", plugin.abi);
    key(json, "profiles");
    json.StartArray();
    for (const std::string& profile : plugin.profiles) {
      json.String(profile.c_str(), static_cast<rapidjson::SizeType>(profile.size()));
    }
    json.EndArray();
    field(json, "path", plugin.path.string());
    json.EndObject();
  }
  json.EndArray();
  key(json, "rejected");
  json.StartArray();
  for (const RejectedPlugin& plugin : catalog.rejected) {
    json.StartObject();
    field(json, "name", plugin.name);
    field(json, "path", plugin.path.string());
    field(json, "reason", plugin.reason);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

}  // namespace

std::string pluginCatalogJson(const PluginCatalog& catalog, JsonLayout layout) {
  rapidjson::StringBuffer buffer;
  if (layout == JsonLayout::kPretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> json(buffer);
    writeCatalog(json, catalog);
  } else {
    common::JsonWriter json(buffer);
    writeCatalog(json, catalog);
  }
  return buffer.GetString();
}

}  // namespace benchd::runner
