#include "plugins_command.hpp"

#include <benchd/common/usage_error.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/plugin_catalog_json.hpp>
#include <benchd/runner/plugin_folders.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace benchd::cli {
namespace {

struct PluginsOptions {
  std::vector<std::filesystem::path> plugin_dirs;
  bool json = false;
};

std::string pluginsUsage() {
  return "usage: benchd plugins [--plugin-dir DIR]... [--json]\n"
         "\n"
         "Inspects every approach plugin (*.so) benchd can find, each in its own benchd-worker\n"
         "process, and lists the folders searched, the accepted plugins and the rejected ones\n"
         "with the reason.\n"
         "\n"
         "Folders, in search order (the first one providing a plugin name wins):\n"
         "  --plugin-dir DIR folders (repeatable; a missing one is an error), then the folders\n"
         "  of $BENCHD_PLUGIN_PATH (colon-separated), then, for an installed benchd, the local\n"
         "  folder (/usr/local/lib/benchd/plugins, skipped when missing), then the built-in\n"
         "  plugin folder.\n"
         "benchd-worker is $BENCHD_WORKER when set, else the one installed with benchd.\n"
         "\n"
         "  --plugin-dir DIR   also search DIR, before the others (repeatable)\n"
         "  --json             print the catalog as one JSON document\n"
         "  --help             this text\n"
         "\n"
         "Exit codes: 0 listed (rejected plugins included), 1 could not search (a --plugin-dir\n"
         "folder is missing, benchd-worker cannot be run), 2 bad arguments.\n";
}

PluginsOptions parsePluginsOptions(std::span<const std::string_view> arguments) {
  PluginsOptions options;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view option = arguments[i];
    if (option == "--json") {
      options.json = true;
    } else if (option == "--plugin-dir") {
      if (i + 1 >= arguments.size())
        throw common::UsageError("--plugin-dir: missing value");
      const std::string_view value = arguments[++i];
      if (value.empty())
        throw common::UsageError("--plugin-dir: empty folder name");
      options.plugin_dirs.emplace_back(value);
    } else if (option.starts_with("--")) {
      throw common::UsageError("unknown option '" + std::string(option) + "'");
    } else {
      throw common::UsageError("unexpected argument '" + std::string(option) + "'");
    }
  }
  return options;
}

// --- text -----------------------------------------------------------------------------------

/// Rows of cells printed in columns two spaces apart; the last column is not padded.
void writeColumns(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t column = 0; column < row.size(); ++column)
      widths[column] = std::max(widths[column], row[column].size());
  }
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t column = 0; column < row.size(); ++column) {
      line += row[column];
      if (column + 1 < row.size())
        line += std::string(widths[column] - row[column].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

void writeText(std::ostream& out, const runner::PluginCatalog& catalog) {
  out << "Plugin folders, in search order:\n";
  std::vector<std::vector<std::string>> folder_rows;
  for (const runner::SearchedFolder& folder : catalog.folders) {
    std::vector<std::string> row{folder.folder.path.string(),
                                 "(" + std::string(runner::originName(folder.folder.origin)) + ")"};
    if (!folder.searched)
      row.push_back("skipped: " + folder.note);
    folder_rows.push_back(std::move(row));
  }
  writeColumns(out, folder_rows);
  out << "Inspected with " << catalog.worker_path.string() << "\n\n";

  if (catalog.accepted.empty()) {
    out << "Accepted plugins: none\n";
  } else {
    out << "Accepted plugins (" << catalog.accepted.size() << "):\n";
    std::vector<std::vector<std::string>> rows{{"NAME", "VERSION", "MODEL", "I/O STACK", "PATH"}};
    for (const runner::PluginDescription& plugin : catalog.accepted) {
      rows.push_back({plugin.name, plugin.version, plugin.concurrency_model, plugin.io_stack,
                      plugin.path.string()});
    }
    writeColumns(out, rows);
  }
  out << "\n";
  if (catalog.rejected.empty()) {
    out << "Rejected plugins: none\n";
    return;
  }
  out << "Rejected plugins (" << catalog.rejected.size() << "):\n";
  for (const runner::RejectedPlugin& plugin : catalog.rejected)
    out << "  " << plugin.path.string() << "\n    " << plugin.reason << "\n";
}

int runPlugins(std::span<const std::string_view> arguments) {
  const PluginsOptions options = parsePluginsOptions(arguments);
  const runner::PluginCatalog catalog =
      runner::inspectPlugins(runner::pluginFolders(options.plugin_dirs), runner::workerPath());
  if (options.json)
    std::cout << runner::pluginCatalogJson(catalog, runner::JsonLayout::kPretty) << "\n";
  else
    writeText(std::cout, catalog);
  return 0;
}

}  // namespace

Subcommand pluginsSubcommand() {
  return {"plugins", "list the approach plugins benchd finds, accepted and rejected",
          pluginsUsage(), runPlugins};
}

}  // namespace benchd::cli
