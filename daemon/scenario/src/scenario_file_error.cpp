#include "scenario_columns.hpp"

#include <benchd/scenario/scenario_file_error.hpp>

#include <string>
#include <utility>

namespace benchd::scenario {
namespace {

std::string formatMessage(const std::string& file, std::size_t line, std::size_t column,
                          const std::string& reason) {
  std::string message = file;
  if (line != 0) {
    message += ':';
    message += std::to_string(line);
  }
  message += ": ";
  if (column != 0) {
    message += "column ";
    message += std::to_string(column);
    if (column <= kScenarioColumns.size()) {
      message += " (";
      message += kScenarioColumns[column - 1];
      message += ')';
    }
    message += ": ";
  }
  message += reason;
  return message;
}

}  // namespace

ScenarioFileError::ScenarioFileError(std::string file, std::size_t line, std::size_t column,
                                     std::string reason)
    : std::runtime_error(formatMessage(file, line, column, reason)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)) {}

}  // namespace benchd::scenario
