#pragma once

#include <benchd/runner/plugin_catalog.hpp>

#include <string>

namespace benchd::runner {

/// How a JSON document is laid out: one line for programs, indented for people.
enum class JsonLayout { kCompact = 1, kPretty };

/// The plugin catalog as one JSON document, the only rendering of it: `benchd plugins --json`
/// prints it and `GET /api/v1/approaches` answers it (api/openapi.yaml, `ApproachCatalog`):
///
///   {"folders": [{"path", "origin", "searched", "note"?}], "worker",
///    "accepted": [{"name", "version", "description", "concurrencyModel", "ioStack", "abi",
///                  "path"}],
///    "rejected": [{"name", "path", "reason"}]}
///
/// `note` is there only for a folder that was not searched.
std::string pluginCatalogJson(const PluginCatalog& catalog, JsonLayout layout);

}  // namespace benchd::runner
